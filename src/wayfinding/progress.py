"""A dependency-free progress bar for long command-line work (written to stderr)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

from ._validate import flag

T = TypeVar("T")


def progress(items: Iterable[T], total: int, *, label: str = "", enabled: bool = True,
             stream: TextIO | None = None, every: float = 0.1) -> Iterator[T]:
    """Yield ``items`` while drawing ``label [#####.....] k/total`` at most every ``every``
    seconds; draws nothing when disabled or when the stream is not a terminal."""
    enabled = flag("enabled", enabled)
    out = stream or sys.stderr
    show = enabled and total > 0 and out.isatty()
    last = 0.0
    start = time.perf_counter()
    k = 0
    for k, item in enumerate(items, 1):
        yield item
        now = time.perf_counter()
        if show and (now - last >= every or k == total):
            last = now
            done = int(30 * k / total)
            rate = k / max(now - start, 1e-9)
            out.write(f"\r{label} [{'#' * done}{'.' * (30 - done)}] {k}/{total} "
                      f"({rate:,.0f}/s)")
            out.flush()
    if show and k:
        out.write("\n")
        out.flush()
