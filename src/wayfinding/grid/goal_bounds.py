"""Goal bounding: per-step boxes of the goals each first move serves optimally.

For every passable cell u and step direction d, ``boxes[u, d]`` is the axis-aligned box of
every goal g for which the step u -> u + d begins *some* optimal path from u to g (the union
over all optimal first moves, so pruning keeps every optimal path).  A search that skips the
steps whose box misses the goal stays optimal and expands far fewer cells.

The build floods once from every passable cell as a goal (canonical Dijkstra on uniform
``no_corner_cutting`` grids, plain Dijkstra with the grid's costs otherwise) and widens the
boxes of every cell's optimal steps toward that goal, in compiled code on several threads:
O(cells^2) time, with a progress bar and a resumable checkpoint.  Any static costs and any
diagonal rule are supported.  Memory: 64 bytes per padded cell (8 boxes of 4 uint16), and
per thread while building 17 bytes per padded cell and 64 per passable cell of scratch.
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from typing import Any

import numpy as np

from .. import _saved
from .._index import check_world
from .._io import NpzFile, atomic_write_bytes
from .._kernels import _goal_bounds
from .._scratch import PerThread
from .._validate import count, number
from ..errors import (
    FileFormatError,
    IndexFormatError,
    InvalidGridError,
    InvalidQueryError,
)
from ..progress import progress as progress_bar
from ..results import PathResult
from .grid import Grid
from .index import GridIndex
from .rules import DIRECTIONS, Diagonal
from .search import GridSearch

#: Direction names in the box array's order (N, E, S, W, NE, SE, SW, NW).
DIRECTION_NAMES = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")

#: Box value of an empty box: (xmin, xmax, ymin, ymax) = (EMPTY, 0, EMPTY, 0).
EMPTY = 65535

_CHECKPOINT_MAGIC = "wayfinding-goal-bounds-checkpoint"
#: Checkpoint layout: 2 = ``done`` marks the goals flooded, ``boxes`` the boxes widened by them.
_CHECKPOINT_VERSION = 2


class _Teams:
    """Whether this process may run the build on several OpenMP threads.  GNU OpenMP's
    thread pool does not survive ``fork``: in a child forked after its parent ran a
    several-thread build, the first such build would wait forever, so builds there run on
    one thread."""

    used = False
    usable = True

    @classmethod
    def threads(cls, wanted: int) -> int:
        """The threads a build asking for ``wanted`` runs on here."""
        if wanted > 1 and cls.usable:
            cls.used = True
            return wanted
        return 1

    @classmethod
    def after_fork_in_child(cls) -> None:
        cls.usable = cls.usable and not cls.used


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_Teams.after_fork_in_child)


class GoalBounds(GridIndex):
    """Goal-bound boxes of a grid, and A* pruned by them.

    ``boxes``: C-contiguous uint16 ``((H + 2) * (W + 2), 8, 4)``, indexed [padded flat index
    of u, direction d (N, E, S, W, NE, SE, SW, NW)], values ``(xmin, xmax, ymin, ymax)`` in
    unpadded cell coordinates; an empty box (blocked cells, illegal or never-optimal steps)
    is ``(65535, 0, 65535, 0)``.  Build with :meth:`build`; save and load as any
    :class:`GridIndex`.

    >>> g = Grid.from_ascii('''
    ... ....
    ... .##.
    ... ....''')
    >>> gb = GoalBounds.build(g, workers=1, progress=False)
    >>> r = gb.find_path((0, 1), (3, 1))
    >>> r.algorithm, round(r.cost, 4), r.path.tolist()
    ('astar_gb', 5.0, [[0, 1], [0, 0], [1, 0], [2, 0], [3, 0], [3, 1]])
    >>> gb.box((0, 1), "S"), gb.box((0, 1), "W")
    ((0, 3, 1, 2), None)
    """

    kind = "goal_bounds"
    version = 1

    def __init__(self, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        super().__init__(grid, arrays, options, build_time)
        self._local: PerThread[GridSearch] = PerThread()

    @property
    def boxes(self) -> np.ndarray:
        """``(padded cells, 8, 4)`` uint16 boxes (see the class docstring)."""
        return self.arrays["boxes"]

    @classmethod
    def build(cls, grid: Grid, *, workers: int | None = None, progress: bool | None = None,
              checkpoint: str | os.PathLike | None = None, chunk: int | None = None,
              checkpoint_every: float = 5.0) -> GoalBounds:
        """Flood from every passable cell as a goal and grow the boxes.

        ``workers``: threads flooding at once (default ``os.cpu_count()``); the result does
        not depend on it (a process forked after its parent built on several threads builds
        on one: the OpenMP runtime cannot start threads there).  ``progress``: draw a
        progress bar on stderr (default: when stderr is a terminal).  ``checkpoint``: a file
        where the finished goals are saved (atomically, at most every ``checkpoint_every``
        seconds, on interruption and at the end); a build given an existing checkpoint
        resumes from it, and refuses one made for another map (:class:`IndexMismatchError`)
        or by an earlier layout (:class:`IndexFormatError`).
        ``chunk`` (>= 1, default ``max(256, 64 * workers)``): goals per compiled call,
        shared out over the threads; progress, checkpoints and interruption (Ctrl-C) take
        effect between calls.  Maps up to 65535 cells wide and high.
        """
        canonical = _flood_plan(grid)
        workers = count("workers", (os.cpu_count() or 1) if workers is None else workers)
        chunk = count("chunk", max(256, 64 * workers) if chunk is None else chunk)
        every = number("checkpoint_every", checkpoint_every, min=0, infinite=True)
        show = sys.stderr.isatty() if progress is None else bool(progress)

        t0 = time.perf_counter()
        wp = grid.width + 2
        n = (grid.height + 2) * wp
        sources = np.flatnonzero(np.isfinite(grid.padded_costs)).astype(np.int64)
        if checkpoint is not None and os.path.exists(checkpoint):
            boxes, done, spent = _read_checkpoint(checkpoint, grid)
        else:
            boxes = _empty_boxes(n)
            done, spent = np.zeros(n, dtype=bool), 0.0
        todo = sources[~done[sources]]
        chunks = [todo[k:k + chunk] for k in range(0, len(todo), chunk)]
        context = (grid.padded_costs, grid.moves, wp, canonical, _Teams.threads(workers))
        last_save = time.perf_counter()

        def save(path: str | os.PathLike[Any]) -> None:
            _write_checkpoint(path, grid, boxes, done, spent + time.perf_counter() - t0)

        try:
            for goals in progress_bar(chunks, len(chunks), label="goal bounds (chunks)",
                                      enabled=show):
                _run_chunk(context, goals, boxes)
                done[goals] = True
                if checkpoint is not None and time.perf_counter() - last_save >= every:
                    save(checkpoint)
                    last_save = time.perf_counter()
        except BaseException:
            if checkpoint is not None:
                save(checkpoint)
            raise
        if checkpoint is not None:
            save(checkpoint)
        return cls(grid, {"boxes": boxes}, _build_options(canonical, chunk),
                   spent + time.perf_counter() - t0)

    @classmethod
    def _members(cls, grid: Grid, options: dict[str, Any]) -> dict[str, int]:
        _saved.choice(_saved.option(options, "flood"), "option flood", ("canonical", "dijkstra"))
        _saved.integer(_saved.option(options, "chunk"), "option chunk", 1)
        return {"boxes": 64 * (grid.height + 2) * (grid.width + 2)}

    @classmethod
    def _restore(cls, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> GoalBounds:
        boxes = _check_boxes(_saved.array(arrays, "boxes", np.uint16,
                                           ((grid.height + 2) * (grid.width + 2), 8, 4)), grid)
        return cls(grid, {"boxes": boxes}, options, build_time)

    def box(self, cell: Any, direction: int | str) -> tuple[int, int, int, int] | None:
        """The box ``(xmin, xmax, ymin, ymax)`` of the step from ``cell`` in ``direction``
        (0-7 or a name in :data:`DIRECTION_NAMES`), or None when it is empty."""
        c = self.grid.cell(cell, name="cell")
        d = _direction(direction)
        b = tuple(int(v) for v in self.boxes[self.grid.index(c), d])
        return None if b[0] > b[1] else b  # type: ignore[return-value]

    def find_path(self, start: Any, goal: Any, *, record: bool = False) -> PathResult:
        """A* pruned by the boxes (optimal): a :class:`PathResult` named ``"astar_gb"``.

        Endpoints and outcomes as :meth:`GridSearch.find_path`.  Each calling thread gets
        its own search scratch, so one index serves many threads.
        """
        search = self._local.mine() or self._local.keep(GridSearch(self.grid))
        r = search.find_path(start, goal, record=record, bounds=self)
        return PathResult(r.path, r.cost, r.found, r.stats, "astar_gb", r.expanded_nodes,
                          r.open_nodes)


# ---------------------------------------------------------------- build helpers

def _flood_plan(grid: Grid) -> bool:
    """Check that ``grid`` can hold goal bounds (a :class:`Grid` at most 65535 cells wide and
    high, else :class:`InvalidGridError`) and say how a build floods it: True for canonical
    Dijkstra (uniform ``no_corner_cutting`` grids), False for plain Dijkstra."""
    if not isinstance(grid, Grid):
        raise InvalidGridError(f"goal bounds need a Grid, got {type(grid).__name__}")
    if grid.width > EMPTY or grid.height > EMPTY:
        raise InvalidGridError(f"goal bounds store uint16 coordinates: the grid is "
                               f"{grid.width}x{grid.height}, at most {EMPTY} per side")
    return grid.is_uniform and grid.diagonal is Diagonal.NO_CORNER_CUTTING


def _build_options(canonical: bool, chunk: int) -> dict[str, Any]:
    """The options a build records: its flood (:func:`_flood_plan`) and goals per call."""
    return {"flood": "canonical" if canonical else "dijkstra", "chunk": chunk}


def _empty_boxes(n: int) -> np.ndarray:
    """Boxes of ``n`` padded cells that no goal has widened yet (lower ends EMPTY, upper 0)."""
    boxes = np.empty((n, 8, 4), dtype=np.uint16)
    boxes[:, :, 0::2] = EMPTY
    boxes[:, :, 1::2] = 0
    return boxes


def _run_chunk(context: tuple, goals: np.ndarray, boxes: np.ndarray) -> None:
    """Widen ``boxes`` (all cells, in place) by one chunk of goals (padded flat indices)."""
    cost, moves, width, canonical, threads = context
    _goal_bounds.goal_bounds(cost, moves, width, goals, canonical, boxes, threads)


def _write_checkpoint(path: str | os.PathLike, grid: Grid, boxes: np.ndarray,
                      done: np.ndarray, elapsed: float) -> None:
    header = json.dumps({"format": _CHECKPOINT_MAGIC, "version": _CHECKPOINT_VERSION,
                         "fingerprint": grid.fingerprint, "shape": list(grid.shape),
                         "elapsed": elapsed})
    buf = io.BytesIO()
    np.savez(buf, __header__=np.array(header), boxes=boxes, done=done)
    atomic_write_bytes(path, buf.getvalue())


def _check_boxes(boxes: np.ndarray, grid: Grid) -> np.ndarray:
    """Check that each box is the empty box or lies inside the map with its ends in order
    (raises :class:`FileFormatError`); returns ``boxes``."""
    empty = np.all(boxes == np.array([EMPTY, 0, EMPTY, 0], dtype=np.uint16), axis=2)
    inside = (boxes[:, :, 0] <= boxes[:, :, 1]) & (boxes[:, :, 1] < grid.width) \
        & (boxes[:, :, 2] <= boxes[:, :, 3]) & (boxes[:, :, 3] < grid.height)
    bad = ~(empty | inside)
    if bad.any():
        u, d = np.argwhere(bad)[0]
        raise FileFormatError(
            f"array 'boxes' holds boxes[{u}, {d}] = {boxes[u, d].tolist()}, neither the "
            f"empty box nor a box inside the {grid.width}x{grid.height} map")
    return boxes


def _read_checkpoint(path: str | os.PathLike,
                     grid: Grid) -> tuple[np.ndarray, np.ndarray, float]:
    n = (grid.height + 2) * (grid.width + 2)
    with NpzFile(path, IndexFormatError, "goal-bound checkpoint") as f:
        header = f.header()
        if header.get("format") != _CHECKPOINT_MAGIC:
            raise IndexFormatError("is not a goal-bound checkpoint", path)
        if header.get("version") != _CHECKPOINT_VERSION:
            raise IndexFormatError(
                f"is a goal-bound checkpoint of layout {header.get('version', 1)!r}, not "
                f"{_CHECKPOINT_VERSION} (finished sources, not goals): delete it", path)
        check_world("the goal-bound checkpoint", header, grid, path=path,
                    fix="delete it or use another path")
        arrays = f.arrays({"boxes": 64 * n, "done": n})
    try:
        boxes = _check_boxes(_saved.array(arrays, "boxes", np.uint16, (n, 8, 4)), grid)
        done = _saved.array(arrays, "done", np.bool_, (n,))
        elapsed = _saved.number(header.get("elapsed", 0.0), "elapsed")
    except FileFormatError as exc:
        raise IndexFormatError(exc.reason, path) from None
    return boxes.copy(), done.copy(), elapsed


def _direction(value: int | str) -> int:
    if isinstance(value, str) and value.upper() in DIRECTION_NAMES:
        return DIRECTION_NAMES.index(value.upper())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) \
            and 0 <= value < len(DIRECTIONS):
        return int(value)
    raise InvalidQueryError(f"direction {value!r} must be 0-7 or one of "
                            f"{', '.join(DIRECTION_NAMES)}")
