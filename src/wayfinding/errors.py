"""Exceptions raised for bad input.  A normal "no path" outcome is never an exception."""

from __future__ import annotations

import numpy as np

from ._deprecated import positional_options


class WayfindingError(Exception):
    """Base class of every error wayfinding raises on bad input."""


class InvalidGridError(WayfindingError, ValueError):
    """A grid's array, costs or options are unusable (shape, dtype, NaN, costs <= 0...)."""


class InvalidGeometryError(WayfindingError, ValueError):
    """Malformed geometry: non-finite or out-of-range coordinates, self-intersecting or
    wrongly oriented polygons, holes outside their outline."""


class InvalidQueryError(WayfindingError, ValueError):
    """A query names a cell, node or option that cannot be searched (out of bounds, blocked,
    NaN, wrong dtype or shape, unknown method...)."""


class FileFormatError(WayfindingError, ValueError):
    """A file does not follow its format; the message names the file and the line."""

    def __init__(self, reason: str, path: object = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(where + reason)
        self.reason = reason
        self.path = path
        self.line = line


class MapFormatError(FileFormatError):
    """A Moving AI ``.map`` file (or ASCII map) is malformed."""


class ScenarioFormatError(FileFormatError):
    """A Moving AI ``.scen`` file is malformed or does not fit its map."""


class NavMeshFormatError(FileFormatError):
    """A saved navigation-mesh file is unreadable, malformed or of an unsupported version."""


class IndexFormatError(FileFormatError):
    """A saved index file is unreadable, of another kind, or of an unsupported version."""


class IndexMismatchError(WayfindingError, ValueError):
    """A saved index was built for a different map than the one given."""


class ConcurrentUseError(WayfindingError, RuntimeError):
    """An object that holds per-query scratch (a :class:`~wayfinding.grid.GridSearch`, an
    any-angle search, a dynamic planner, a sliced search...) was called from a second thread
    while a call was still running on another; it changes nothing.  Use one such object per
    thread."""


class CorruptScratchError(WayfindingError, RuntimeError):
    """A search's scratch holds an impossible state, such as a parent chain that loops (a
    workspace written by two threads at once, or edited by hand)."""


@positional_options("limit")
def brief(value: object, *, limit: int = 80) -> str:
    """``repr(value)`` for an error message, cut to about ``limit`` characters with an
    ellipsis, so that a huge bad value (a 1 MB line of garbage) never lands in a message.
    A numpy number shows as its digits alone, under numpy 1 and 2 alike."""
    if isinstance(value, (np.number, np.bool_)):
        text = str(value)
    else:
        text = repr(value[:limit + 1] if isinstance(value, str) else value)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"
