"""Pictures of grids and searches: SVG (no extra dependencies) and PNG (Pillow, ``[viz]``).

Both renderers draw the same layers from one palette (:data:`PALETTE`): blocked and free
cells, terrain shading, a distance heat map (with a colour bar under the map giving the
values at its ends), explored and frontier cells (with a dot on each where they lie apart,
as the jump points of JPS do), the path through cell centres, and start/goal discs sized
with the picture and edged light and dark.  Cells are ``(x, y)``; arrays are indexed
``[y, x]``.

>>> from wayfinding import Grid, find_path
>>> g = Grid.from_ascii('''
... ...
... .#.
... ...''')
>>> r = find_path(g, (0, 0), (2, 2), record=True)
>>> render_svg(g, path=r, explored=r, start=(0, 0), goal=(2, 2)).count('class="path"')
1
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._io import atomic_write_bytes
from ..errors import InvalidQueryError
from ..grid import Grid
from .graphs import render_world_svg, save_world
from .raster import PALETTE, cell_colours, render_png
from .svg import render_svg

__all__ = ["PALETTE", "cell_colours", "picture", "render_png", "render_svg", "save"]
__all__ += ["render_world_svg", "save_world"]

_SUFFIXES = (".svg", ".png")


def save(picture_path: str | os.PathLike, grid: Grid, **options: Any) -> Path:
    """Render ``grid`` to ``picture_path`` and return it as a :class:`~pathlib.Path`.

    The suffix picks the format: ``.svg`` (:func:`render_svg`) or ``.png``
    (:func:`render_png`), case-insensitive; ``options`` go to that renderer.  The file is
    written through a temporary file and a rename, so a failure leaves no partial file.
    Raises :class:`~wayfinding.errors.InvalidQueryError` for another suffix.
    """
    return atomic_write_bytes(picture_path, picture(picture_path, grid, **options))


def picture(picture_path: str | os.PathLike, grid: Grid, **options: Any) -> bytes:
    """The bytes :func:`save` writes to ``picture_path`` (the format from its suffix), not
    written: a caller saving several pictures makes them all before writing any."""
    target = Path(picture_path)
    suffix = target.suffix.lower()
    if suffix == ".svg":
        return render_svg(grid, **options).encode()
    if suffix == ".png":
        return render_png(grid, **options)
    raise InvalidQueryError(
        f"cannot tell the picture format of {str(target)!r} from its suffix "
        f"{target.suffix or '(none)'!r}; use one of {', '.join(_SUFFIXES)}")
