"""Preprocessed grid indexes: the shared base for JPS+, goal bounds, subgoal graphs and
differential heuristics.

An index is built from a :class:`Grid` (``Kind.build(grid, ...)``), answers ``find_path``,
reports ``nbytes`` and ``build_time``, and saves to a versioned ``.npz`` file holding its
arrays and a JSON header with the kind, the format version, the build options and the map's
fingerprint.  Loading checks all three and refuses a file built for another map.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from typing import Any, ClassVar

import numpy as np

from .._io import atomic_write_bytes
from ..errors import IndexFormatError, IndexMismatchError, InvalidGridError
from .grid import Grid
from .rules import Diagonal

#: Every index kind by name, filled as the subclasses are defined.
INDEX_KINDS: dict[str, type[GridIndex]] = {}

_MAGIC = "wayfinding-index"


class GridIndex:
    """Base of the preprocessed grid indexes.

    Subclasses set ``kind`` and ``version``, build their ``arrays`` (name -> numpy array) and
    ``options`` (JSON-serialisable build options) in ``build``, and answer ``find_path``.
    """

    kind: ClassVar[str] = ""
    version: ClassVar[int] = 1

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        if cls.kind:
            INDEX_KINDS[cls.kind] = cls

    def __init__(self, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        self.grid = grid
        self.arrays = arrays
        self.options = options
        self.build_time = float(build_time)

    @classmethod
    def build(cls, grid: Grid, **options: Any) -> GridIndex:
        raise NotImplementedError

    def find_path(self, start: Any, goal: Any, **options: Any):
        raise NotImplementedError

    @property
    def nbytes(self) -> int:
        """Bytes held by the index's arrays."""
        return int(sum(a.nbytes for a in self.arrays.values()))

    def info(self) -> dict[str, Any]:
        """Kind, version, map shape and fingerprint, options, memory and build time."""
        return {"kind": self.kind, "version": self.version, "shape": list(self.grid.shape),
                "diagonal": self.grid.diagonal.value, "fingerprint": self.grid.fingerprint,
                "options": self.options, "nbytes": self.nbytes, "build_time": self.build_time}

    def __repr__(self) -> str:
        h, w = self.grid.shape
        return (f"{type(self).__name__}({w}x{h}, {self.nbytes / 1e6:.2f} MB, "
                f"built in {self.build_time:.3g} s)")

    def save(self, path: str | os.PathLike) -> None:
        """Write the index to ``path`` (``.npz``), atomically."""
        buf = io.BytesIO()
        header = json.dumps({"format": _MAGIC, **self.info()})
        np.savez(buf, __header__=np.array(header), **self.arrays)
        atomic_write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | os.PathLike, grid: Grid) -> GridIndex:
        """Read an index saved by :meth:`save` for ``grid``.

        Raises :class:`IndexFormatError` for a file that is not an index of this kind and
        version, and :class:`IndexMismatchError` when it was built for another map.
        """
        header, arrays = _read(path)
        kind = header.get("kind")
        if cls.kind and kind != cls.kind:
            raise IndexFormatError(f"holds a {kind!r} index, not {cls.kind!r}", path)
        target = INDEX_KINDS.get(kind)
        if target is None:
            raise IndexFormatError(f"unknown index kind {kind!r}", path)
        if header.get("version") != target.version:
            raise IndexFormatError(
                f"{kind} index format version {header.get('version')} cannot be read "
                f"(this version reads {target.version}); rebuild it", path)
        if not isinstance(grid, Grid):
            raise IndexMismatchError(f"load needs the Grid the index was built for, got "
                                     f"{type(grid).__name__}")
        if header.get("fingerprint") != grid.fingerprint:
            raise IndexMismatchError(
                f"{path}: the {kind} index was built for another map (shape "
                f"{tuple(header.get('shape', ()))}, diagonal {header.get('diagonal')}, "
                f"fingerprint {str(header.get('fingerprint'))[:12]}) than the one given "
                f"(shape {grid.shape}, diagonal {grid.diagonal.value}, fingerprint "
                f"{grid.fingerprint[:12]}); rebuild it")
        return target._restore(grid, arrays, header.get("options", {}),
                               header.get("build_time", 0.0))

    @classmethod
    def _restore(cls, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> GridIndex:
        """Rebuild the object from loaded arrays; subclasses may check or derive more."""
        return cls(grid, arrays, options, build_time)


def read_index_info(path: str | os.PathLike) -> dict[str, Any]:
    """The header of a saved index (kind, version, shape, fingerprint, options, memory, build
    time) without a grid."""
    header, _ = _read(path)
    return header


def load_index(path: str | os.PathLike, grid: Grid) -> GridIndex:
    """Load a saved index of any kind for ``grid``."""
    return GridIndex.load(path, grid)


def require_grid(grid: Any, method: str, *, uniform: bool = True,
                 diagonals: tuple[Diagonal, ...] = (Diagonal.NO_CORNER_CUTTING,)) -> Grid:
    """Check that ``grid`` suits ``method``; raise :class:`InvalidGridError` naming what
    the method supports otherwise."""
    if not isinstance(grid, Grid):
        raise InvalidGridError(f"{method} needs a Grid, got {type(grid).__name__}")
    if grid.diagonal not in diagonals:
        allowed = ", ".join(d.value for d in diagonals)
        raise InvalidGridError(
            f"{method} supports the diagonal rule {allowed}, not {grid.diagonal.value!r}")
    if uniform and not grid.is_uniform:
        raise InvalidGridError(
            f"{method} needs a uniform-cost grid (every passable cell costs 1); this grid "
            f"has costs from {grid.costs[grid.passable].min():g} to "
            f"{grid.costs[grid.passable].max():g}")
    return grid


def _read(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    if not os.path.exists(path):
        raise IndexFormatError("file not found", path)
    if os.path.isdir(path):
        raise IndexFormatError("is a directory, not a file", path)
    if not zipfile.is_zipfile(path):
        raise IndexFormatError("is not a wayfinding index (not an .npz archive)", path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise IndexFormatError(f"is not a wayfinding index ({exc})", path) from None
    raw = arrays.pop("__header__", None)
    try:
        header = json.loads(str(raw)) if raw is not None else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("format") != _MAGIC:
        raise IndexFormatError("is not a wayfinding index (no index header)", path)
    return header, arrays
