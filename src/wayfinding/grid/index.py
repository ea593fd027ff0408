"""Preprocessed grid indexes: the shared base for JPS+, goal bounds, subgoal graphs and
differential heuristics.

An index is built from a :class:`Grid` (``Kind.build(grid, ...)``), answers ``find_path``,
reports ``nbytes`` and ``build_time``, and saves to a versioned ``.npz`` file holding its
arrays and a JSON header with the kind, the format version, the build options and the map's
fingerprint.  Loading checks all three and refuses a file built for another map.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar, cast

from .._index import Index, read_index_header
from ..errors import InvalidGridError
from .grid import Grid
from .rules import Diagonal

#: Every grid index kind by name, filled as the subclasses are defined.
INDEX_KINDS: dict[str, type[GridIndex]] = {}


class GridIndex(Index):
    """Base of the preprocessed grid indexes.

    Subclasses set ``kind`` and ``version``, build their ``arrays`` (name -> numpy array) and
    ``options`` (JSON-serialisable build options) in ``build``, and answer ``find_path``.
    """

    # The registry only ever receives GridIndex subclasses (``Index.__init_subclass__``).
    kinds: ClassVar[dict[str, type[Index]]] = cast("dict[str, type[Index]]", INDEX_KINDS)
    world_type = Grid
    world_name = "map"

    @property
    def grid(self) -> Grid:
        """The grid the index was built for."""
        return self.world

    @staticmethod
    def describe_world(world: Grid) -> dict[str, Any]:
        return {"shape": list(world.shape), "diagonal": world.diagonal.value}

    def __repr__(self) -> str:
        h, w = self.grid.shape
        return (f"{type(self).__name__}({w}x{h}, {self.nbytes / 1e6:.2f} MB, "
                f"built in {self.build_time:.3g} s)")


def read_index_info(path: str | os.PathLike) -> dict[str, Any]:
    """The header of a saved index (kind, version, world size, fingerprint, options, memory,
    build time), its fields' types checked, without loading it for a grid and without
    decompressing its arrays."""
    return read_index_header(path)


def load_index(path: str | os.PathLike, grid: Grid) -> GridIndex:
    """Load a saved grid index of any kind for ``grid``."""
    index = GridIndex.load(path, grid)
    assert isinstance(index, GridIndex)  # ``kinds`` holds grid index kinds only
    return index


def require_grid(grid: object, method: str, *, uniform: bool = True,
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

