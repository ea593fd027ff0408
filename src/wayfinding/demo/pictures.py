"""The pictures of the demo page: each drawing as SVG, and as PNG where Pillow is there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..grid import Grid
from ..viz import save


def pictures(out: Path, stem: str, grid: Grid, **options: Any) -> list[str]:
    """Write an SVG (always) and a PNG (when Pillow is installed); return the file names."""
    names = [f"{stem}.svg"]
    save(out / names[0], grid, **options)
    try:
        save(out / f"{stem}.png", grid, **options)
        names.append(f"{stem}.png")
    except ImportError:
        pass
    return names
