"""Hexagonal tile grids in axial coordinates, with exact hex distance and A*.

A hex grid is a tile grid with six neighbours per tile, so it lives beside :class:`Grid`:
cells, a cost array with ``inf`` for blocked tiles, an ASCII reader, a world transform and
its own search.  Cells are axial ``(q, r)`` (the cube coordinates are ``(q, r, -q-r)``);
the grid stores the parallelogram ``0 <= q < W``, ``0 <= r < H`` in arrays indexed
``[r, q]``.  Layouts (``size`` is the centre-to-corner distance, world units; y grows down
as in every wayfinding world):

* ``"pointy"``: centre ``x = size·√3·(q + r/2)``, ``y = size·3/2·r``;
* ``"flat"``: centre ``x = size·3/2·q``, ``y = size·√3·(r + q/2)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._deprecated import renamed_keywords, warn
from .._validate import CELL_COST_BOUNDS, cell_cost_ok, finite_point, flag, positive_float
from ..errors import InvalidGridError, InvalidQueryError, MapFormatError
from ..geometry.obstacles import as_points
from ..graph.csr import CSRGraph
from ..results import PathResult
from .terrain import ASCII_TERRAIN, make_terrain

#: Axial steps to the six neighbours, in the order neighbours are generated.
HEX_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1),
                                               (0, 1))

#: ASCII hex pictures: the grid characters plus digits 1-9 as tile costs.
HEX_TERRAIN: Mapping[str, float] = {**ASCII_TERRAIN, **{str(d): float(d) for d in range(1, 10)}}

LAYOUTS = ("pointy", "flat")
#: :func:`hex_distance` takes axial coordinates of smaller magnitude: its sums stay in int64.
_MAX_AXIAL = 2**61
_SQRT3 = math.sqrt(3.0)


class HexGrid:
    """A hex grid: ``costs`` ``(H, W)`` float array indexed ``[r, q]``, each > 0, ``inf``
    for blocked tiles (a bool array means passable = True, cost 1).

    A step between neighbours costs the mean of the two tiles' costs (symmetric).
    :meth:`heuristic` (for the generic searches of the graph protocol) is
    ``hex_distance × min tile cost``; :meth:`find_path`'s compiled A* uses the Euclidean
    distance between tile centres scaled to the cheapest step per unit length, up to 2/√3
    below it.  Both are admissible and consistent.

    >>> h = HexGrid.from_ascii('''
    ... . . .
    ...  . # .
    ...   . . .''')
    >>> r = h.find_path((0, 0), (2, 2))
    >>> r.path.tolist(), r.cost, hex_distance((0, 0), (2, 2)).item()
    ([[0, 0], [1, 0], [2, 0], [2, 1], [2, 2]], 4.0, 4)
    """

    def __init__(self, costs: Any, *, layout: str = "pointy", size: float = 1.0,
                 origin: tuple[float, float] = (0.0, 0.0)):
        try:
            arr = np.asarray(costs)
        except ValueError:   # rows of different lengths
            arr = np.empty(0, dtype=object)
        if arr.dtype == bool:
            arr = np.where(arr, 1.0, np.inf)
        if not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
            raise InvalidGridError(f"hex costs of dtype {arr.dtype} are not real numbers")
        c = np.array(arr, dtype=np.float64)
        if c.ndim != 2 or 0 in c.shape:
            raise InvalidGridError(f"hex costs must be a non-empty 2D array, got {c.shape}")
        bad = ~cell_cost_ok(c)
        if bad.any():
            r, q = (int(v) for v in np.argwhere(bad)[0])
            raise InvalidGridError(f"hex cost at (q={q}, r={r}) is {c[r, q]}; costs must be "
                                   f"{CELL_COST_BOUNDS} (inf = blocked)")
        if layout not in LAYOUTS:
            raise InvalidGridError(f"unknown hex layout {layout!r}; expected 'pointy' or "
                                   "'flat'")
        s = positive_float("hex size", size, error=InvalidGridError)
        ox, oy = finite_point("origin", origin, error=InvalidGridError).tolist()
        c.flags.writeable = False
        self._costs, self._layout, self._size, self._origin = c, layout, s, (ox, oy)
        finite = c[np.isfinite(c)]
        self._min_cost = float(finite.min()) if finite.size else 1.0
        self._csr: CSRGraph | None = None

    @classmethod
    def from_ascii(cls, text: str, *, terrain: Mapping[str, float] | None = None,
                   **options: Any) -> HexGrid:
        """Build from a picture: text line r holds the tiles ``(0, r), (1, r), ...``; spaces
        are ignored (indent rows to draw the slant).  Characters: ``.`` ``G`` ``S``
        passable (cost 1), ``@`` ``O`` ``T`` ``W`` ``#`` blocked, ``1``–``9`` tile costs;
        ``terrain`` adds or overrides entries.  ``options`` go to :class:`HexGrid`."""
        table = make_terrain(HEX_TERRAIN, terrain)
        lines = [ln for ln in text.splitlines()]
        rows: list[list[float]] = []
        first = None
        for number, line in enumerate(lines, start=1):
            chars = "".join(line.split())
            if not chars:
                if rows:
                    first = first or number
                continue
            if first is not None:
                raise MapFormatError("blank line inside the hex picture", "<ascii>", first)
            bad = [ch for ch in chars if ch not in table]
            if bad:
                raise MapFormatError(f"unknown hex tile {bad[0]!r}", "<ascii>", number)
            if rows and len(chars) != len(rows[0]):
                raise MapFormatError(f"{len(chars)} tiles where the first row has "
                                     f"{len(rows[0])}", "<ascii>", number)
            rows.append([table[ch] for ch in chars])
        if not rows:
            raise MapFormatError("the hex picture is empty", "<ascii>")
        return cls(np.array(rows), **options)

    @classmethod
    def from_file(cls, path: Any, **options: Any) -> HexGrid:
        """Read an ASCII hex picture (see :meth:`from_ascii`) from a text file."""
        try:
            text = open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError) as exc:
            raise MapFormatError(f"cannot read the hex picture: {exc}", path) from None
        try:
            return cls.from_ascii(text, **options)
        except MapFormatError as exc:
            raise MapFormatError(exc.reason, path, exc.line) from None

    # ------------------------------------------------------------------ properties
    @property
    def costs(self) -> np.ndarray:
        """``(H, W)`` float64 tile costs indexed ``[r, q]`` (``inf`` blocked), read-only."""
        return self._costs

    @property
    def passable(self) -> np.ndarray:
        return np.isfinite(self._costs)

    @property
    def shape(self) -> tuple[int, int]:
        """``(H, W)``: rows (r) and columns (q)."""
        return self._costs.shape  # type: ignore[return-value]

    @property
    def layout(self) -> str:
        return self._layout

    @property
    def size(self) -> float:
        return self._size

    @property
    def origin(self) -> tuple[float, float]:
        return self._origin

    @property
    def min_cost(self) -> float:
        """Smallest passable tile cost (1 when none is passable)."""
        return self._min_cost

    def __repr__(self) -> str:
        h, w = self.shape
        return f"HexGrid({w}x{h} {self._layout}, {int(self.passable.sum())} passable)"

    # ------------------------------------------------------------------ cells
    def in_bounds(self, cells: Any) -> np.ndarray:
        """``(m,)`` bool: each ``(q, r)`` cell lies in the stored parallelogram."""
        c = _cells(cells, "cells")
        h, w = self.shape
        return (c[:, 0] >= 0) & (c[:, 0] < w) & (c[:, 1] >= 0) & (c[:, 1] < h)

    def cell(self, value: Any, *, name: str = "cell", passable: bool = False) -> tuple[int, int]:
        """Validate one ``(q, r)`` cell; raises :class:`InvalidQueryError` naming it."""
        if passable is not False and passable is not True:
            passable = flag("passable", passable)
        c = _cells(value, name)
        if len(c) != 1:
            raise InvalidQueryError(f"{name} {value!r} must be one (q, r) cell")
        q, r = int(c[0, 0]), int(c[0, 1])
        h, w = self.shape
        if not (0 <= q < w and 0 <= r < h):
            raise InvalidQueryError(f"{name} {(q, r)} is outside the {w}x{h} hex grid")
        if passable and not math.isfinite(self._costs[r, q]):
            raise InvalidQueryError(f"{name} {(q, r)} is blocked")
        return (q, r)

    def neighbours(self, cell: Any) -> list[tuple[tuple[int, int], float]]:
        """The passable neighbours of a cell with the step costs, in :data:`HEX_DIRECTIONS`
        order (empty for a blocked cell)."""
        q, r = self.cell(cell)
        h, w = self.shape
        here = self._costs[r, q]
        if not math.isfinite(here):
            return []
        out = []
        for dq, dr in HEX_DIRECTIONS:
            nq, nr = q + dq, r + dr
            if 0 <= nq < w and 0 <= nr < h and math.isfinite(self._costs[nr, nq]):
                out.append(((nq, nr), 0.5 * (here + float(self._costs[nr, nq]))))
        return out

    def neighbors(self, cell: Any) -> list[tuple[tuple[int, int], float]]:
        """Deprecated name of :meth:`neighbours`."""
        warn("HexGrid.neighbors()", "HexGrid.neighbours()")
        return self.neighbours(cell)

    # Graph protocol
    def successors(self, node: Any) -> list[tuple[tuple[int, int], float]]:
        return self.neighbours(node)

    def heuristic(self, node: Any, goal: Any) -> float:
        """``hex_distance × min tile cost``: admissible and consistent."""
        return float(hex_distance(node, goal)[0]) * self._min_cost

    # ------------------------------------------------------------------ world transform
    def localize(self, cells: Any) -> np.ndarray:
        """``(m, 2)`` float64 world centre of each ``(q, r)`` cell (any cell, in bounds or
        not, whose centre is a finite float)."""
        c = _cells(cells, "cells").astype(np.float64)
        q, r = c[:, 0], c[:, 1]
        if self._layout == "pointy":
            x, y = _SQRT3 * (q + 0.5 * r), 1.5 * r
        else:
            x, y = 1.5 * q, _SQRT3 * (r + 0.5 * q)
        with np.errstate(over="ignore"):
            out = np.stack([x, y], axis=1) * self._size + self._origin
        if not np.isfinite(out).all():
            k = int(np.flatnonzero(~np.isfinite(out).all(axis=1))[0])
            raise InvalidQueryError(f"cells[{k}] = {tuple(c[k].astype(np.int64).tolist())} "
                                    "has its centre beyond the largest float")
        return out

    def quantize(self, points: Any) -> np.ndarray:
        """``(m, 2)`` int64 ``(q, r)`` cell containing each world point (cube rounding; may
        lie outside the grid, within the ±2**61 that :func:`hex_distance` takes).  A point
        exactly on a border goes to the cell that rounding half up gives."""
        pts = as_points(points, "points")
        with np.errstate(over="ignore"):
            p = (pts - self._origin) / self._size
        x, y = p[:, 0], p[:, 1]
        if self._layout == "pointy":
            qf, rf = x / _SQRT3 - y / 3.0, 2.0 * y / 3.0
        else:
            qf, rf = 2.0 * x / 3.0, y / _SQRT3 - x / 3.0
        far = ~((np.abs(qf) < _MAX_AXIAL) & (np.abs(rf) < _MAX_AXIAL))     # inf too
        if far.any():
            k = int(np.flatnonzero(far)[0])
            raise InvalidQueryError(f"points[{k}] = {pts[k].tolist()} lies too far from the "
                                    "grid: its cell's coordinates pass 2**61")
        return cube_round(qf, rf)

    # ------------------------------------------------------------------ graphs and search
    def node_ids(self, cells: Any) -> np.ndarray:
        """``(m,)`` int64 node ids ``r·W + q`` of in-bounds cells (as in :meth:`to_csr`)."""
        c = _cells(cells, "cells")
        return c[:, 1] * self.shape[1] + c[:, 0]

    def to_csr(self) -> CSRGraph:
        """The move graph as a :class:`~wayfinding.graph.CSRGraph`: node ``r·W + q`` for
        every tile (blocked ones isolated), edges the passable steps costing the mean of the
        two tiles, coords the world centres."""
        h, w = self.shape
        rr, qq = np.mgrid[0:h, 0:w]
        ok = np.isfinite(self._costs)
        src, dst, cost = [], [], []
        for dq, dr in HEX_DIRECTIONS:
            nq, nr = qq + dq, rr + dr
            inside = (nq >= 0) & (nq < w) & (nr >= 0) & (nr < h)
            m = ok & inside
            m[m] &= ok[nr[m], nq[m]]
            src.append((rr * w + qq)[m])
            dst.append((nr * w + nq)[m])
            cost.append(0.5 * (self._costs[m] + self._costs[nr[m], nq[m]]))
        centres = self.localize(np.stack([qq.ravel(), rr.ravel()], axis=1))
        return CSRGraph.from_edges(h * w, np.concatenate(src), np.concatenate(dst),
                                   np.concatenate(cost), coords=centres)

    @renamed_keywords(algo="method")
    def find_path(self, start: Any, goal: Any, *, method: str = "astar",
                  constraints: Any = None, t: float = 0.0) -> PathResult:
        """Cheapest path between two passable ``(q, r)`` cells with the compiled search of
        :meth:`to_csr` (built once and kept): A* (``"astar"``) or Dijkstra
        (``"dijkstra"``).  ``path`` is an ``(n, 2)`` int64 array of cells.  The A* heuristic
        is the Euclidean distance between tile centres scaled to the cheapest step per unit
        length, admissible and consistent; it is within a factor 2/√3 of the hex distance
        times the cheapest tile cost.

        ``constraints``: a :class:`~wayfinding.constraints.ConstraintSet` (annotations in
        world units, where the tile centres lie) whose multiplier field at time ``t``
        (seconds) multiplies each step's cost (the mean at four samples along the segment
        between the two centres), hard constraints forbidding the steps that cross them;
        the search runs on the move graph's
        :attr:`~wayfinding.graph.CSRGraph.constraint_domain` and returns a
        :class:`~wayfinding.graph.constrained.ConstrainedPath` (``path`` the cells,
        ``nodes`` their ids ``r·W + q``; no path when an end centre lies in a hard
        constraint).

        >>> from wayfinding.constraints import Constraint, ConstraintSet, Disc
        >>> h = HexGrid(np.ones((1, 3)))
        >>> wall = ConstraintSet([Constraint.hard(Disc(h.localize([(1, 0)])[0], 0.5))])
        >>> h.find_path((0, 0), (2, 0), constraints=wall).found
        False
        """
        s = self.cell(start, name="start", passable=True)
        g = self.cell(goal, name="goal", passable=True)
        if method not in ("astar", "dijkstra"):
            raise InvalidQueryError(f"unknown method {method!r} for HexGrid; expected "
                                    "'astar' or 'dijkstra'")
        if self._csr is None:
            self._csr = self.to_csr()
        w = self.shape[1]
        r = self._csr.find_path(s[1] * w + s[0], g[1] * w + g[0], method=method,
                                constraints=constraints, t=t)
        path = np.stack([r.path % w, r.path // w], axis=1).astype(np.int64)
        if constraints is not None:
            r.path = path
            return r
        return PathResult(path, r.cost, r.found, r.stats, method)


def hex_distance(a: Any, b: Any) -> np.ndarray:
    """``(m,)`` int64 number of hex steps between axial cells ``a`` and ``b`` (each
    ``(m, 2)`` or ``(2,)``, coordinates of magnitude below 2**61): ``(|dq| + |dr| +
    |dq + dr|) / 2``, the cube L∞ distance."""
    ca, cb = _cells(a, "a"), _cells(b, "b")
    for name, c in (("a", ca), ("b", cb)):
        if np.any((c >= _MAX_AXIAL) | (c <= -_MAX_AXIAL)):
            raise InvalidQueryError(f"{name} holds a coordinate of magnitude 2**61 or more "
                                    "(the hex distance would pass 64 bits)")
    d = cb - ca
    return np.maximum(np.abs(d[:, 0] + d[:, 1]), np.maximum(np.abs(d[:, 0]), np.abs(d[:, 1])))


def cube_round(qf: Any, rf: Any) -> np.ndarray:
    """``(m, 2)`` int64 axial cell nearest to fractional axial coordinates: round the three
    cube coordinates (half up) and recompute the one that moved most from the other two."""
    qf, rf = np.asarray(qf, dtype=np.float64), np.asarray(rf, dtype=np.float64)
    sf = -qf - rf
    q, r, s = np.floor(qf + 0.5), np.floor(rf + 0.5), np.floor(sf + 0.5)
    dq, dr, ds = np.abs(q - qf), np.abs(r - rf), np.abs(s - sf)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    q = np.where(fix_q, -r - s, q)
    r = np.where(fix_r, -q - s, r)
    return np.stack([q, r], axis=-1).astype(np.int64).reshape(-1, 2)


def _cells(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size and (not np.issubdtype(arr.dtype, np.integer) or _holds_bool(values)):
        raise InvalidQueryError(f"{name} {values!r} must be integer (q, r) cells")
    arr = arr.astype(np.int64)
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidQueryError(f"{name} must have shape (m, 2), got {arr.shape}")
    return arr


def _holds_bool(values: Any) -> bool:
    """Whether a (nested) tuple or list holds a bool, which numpy would take for 0 or 1."""
    if isinstance(values, (bool, np.bool_)):
        return True
    return isinstance(values, (tuple, list)) and any(_holds_bool(v) for v in values)
