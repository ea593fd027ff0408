"""The tile grid: immutable costs, a diagonal rule and a world transform."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from .._deprecated import warn
from .._kernels import _gridops, _gridsearch, _jps
from .._validate import CELL_COST_BOUNDS, cell_cost_ok, count, finite_point, flag, positive_float
from ..errors import InvalidGridError, InvalidQueryError, MapFormatError, brief
from ..graph.csr import CSRGraph
from .rules import DIRECTIONS, SQRT2, Diagonal, move_masks
from .terrain import ASCII_TERRAIN, make_terrain

Cell = tuple[int, int]


#: The cached properties of a :class:`Grid` that hold compiled objects.
_COMPILED_VIEWS = frozenset({"_cell_search", "_jump_grid"})


class Grid:
    """A rectangular tile grid with per-cell costs.

    ``costs`` is an ``(H, W)`` array indexed ``[y, x]``: bool (True = passable, cost 1) or
    numbers (cost > 0, ``inf`` = blocked).  Cells are ``(x, y)`` with x the column.
    A straight step costs 1 and a diagonal step sqrt(2), each times the mean of the two cells'
    costs (symmetric; exactly 1 and sqrt(2) on uniform grids).  ``diagonal`` picks the diagonal
    rule (:class:`Diagonal`).  ``origin`` is the world position of the grid's top-left corner and
    ``cell_size`` the side of a cell in world units.

    The grid is immutable: its arrays are read-only and derived data (components, clearance)
    is computed once on demand.  Searches keep their scratch in separate objects.

    >>> g = Grid.from_ascii('''
    ... ...
    ... .#.
    ... ...''')
    >>> g.shape, g.is_passable((1, 1)), g.diagonal.value
    ((3, 3), False, 'no_corner_cutting')
    """

    def __init__(self, costs: Any, *, diagonal: Diagonal | str = Diagonal.NO_CORNER_CUTTING,
                 origin: tuple[float, float] = (0.0, 0.0), cell_size: float = 1.0,
                 tiles: np.ndarray | None = None):
        try:
            arr = np.asarray(costs)
        except ValueError:   # rows of different lengths
            raise InvalidGridError("grid costs must be a rectangular 2D array, got rows of "
                                   "different lengths") from None
        if arr.ndim != 2:
            raise InvalidGridError(f"grid costs must be a 2D array, got shape {arr.shape}")
        if arr.shape[0] < 1 or arr.shape[1] < 1:
            raise InvalidGridError(f"grid must have at least one cell, got shape {arr.shape}")
        if (arr.shape[0] + 2) * (arr.shape[1] + 2) >= 2**31:
            raise InvalidGridError(f"grid of shape {arr.shape} is too large (2**31 cells max)")
        if arr.dtype == bool:
            values = np.where(arr, 1.0, np.inf)
        elif np.issubdtype(arr.dtype, np.number) and not np.iscomplexobj(arr):
            values = arr.astype(np.float64)
            if np.isnan(values).any():
                y, x = np.argwhere(np.isnan(values))[0]
                raise InvalidGridError(f"grid cost at (x={x}, y={y}) is NaN")
            bad = ~cell_cost_ok(values)
            if bad.any():
                y, x = np.argwhere(bad)[0]
                raise InvalidGridError(
                    f"grid cost at (x={x}, y={y}) is {values[y, x]}; costs must be "
                    f"{CELL_COST_BOUNDS} (inf = blocked)")
        else:
            raise InvalidGridError(
                f"grid costs must be bool or numeric, got dtype {arr.dtype}")
        self._diagonal = Diagonal.parse(diagonal)
        ox, oy = finite_point("origin", origin, error=InvalidGridError).tolist()
        self._origin = (ox, oy)
        self._cell_size = positive_float("cell_size", cell_size, error=InvalidGridError)
        values = np.ascontiguousarray(values)
        values.flags.writeable = False
        self._costs = values
        self._h, self._w = values.shape
        self._passable = np.isfinite(values)
        self._passable.flags.writeable = False
        if tiles is not None:
            tiles = _tile_codes(tiles, values.shape)
        self._tiles = tiles

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_ascii(cls, text: str, *, terrain: Mapping[str, float] | None = None,
                   **options: Any) -> Grid:
        """Build a grid from a picture, one text row per grid row.

        Rows are separated by ``\\n`` (or ``\\r\\n``).  Blank leading/trailing lines and
        surrounding indentation common to all rows are ignored; any other character in a row,
        such as a form feed or ``\\u2028``, is reported at its line.  Characters follow the
        Moving AI table (``.`` ``G`` ``S`` passable; ``@`` ``O`` ``T`` ``W`` blocked) plus
        ``#`` for walls; ``terrain`` adds or overrides entries, e.g. ``{"~": 3.0}`` for cost-3
        water (keys: single printable ASCII characters).  ``options`` go to :class:`Grid`.
        """
        lines = [ln.rstrip(" \t\r") for ln in text.split("\n")]
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        indent = min((len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()), default=0)
        rows = [ln[indent:] for ln in lines]
        table = make_terrain(ASCII_TERRAIN, terrain)
        return parse_rows(rows, table, source="<ascii>", first_line=1, **options)

    def __getstate__(self) -> dict[str, Any]:
        """The grid without the compiled views its searches made (they cannot be pickled
        and are made again on first use)."""
        return {k: v for k, v in self.__dict__.items() if k not in _COMPILED_VIEWS}

    def with_options(self, **options: Any) -> Grid:
        """A copy with other ``diagonal``, ``origin`` or ``cell_size``."""
        kw: dict[str, Any] = {"diagonal": self._diagonal, "origin": self._origin,
              "cell_size": self._cell_size, "tiles": self._tiles}
        kw.update(options)
        return Grid(self._costs, **kw)

    # ------------------------------------------------------------------ properties
    @property
    def costs(self) -> np.ndarray:
        """``(H, W)`` float64, read-only: per-cell cost, ``inf`` where blocked."""
        return self._costs

    @property
    def passable(self) -> np.ndarray:
        """``(H, W)`` bool, read-only: True where the cell can be entered."""
        return self._passable

    @property
    def tiles(self) -> np.ndarray | None:
        """``(H, W)`` uint8 character codes the grid was read from, if any."""
        return self._tiles

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)``, the numpy order."""
        return self._costs.shape  # type: ignore[return-value]

    @property
    def width(self) -> int:
        return self._w

    @property
    def height(self) -> int:
        return self._h

    @property
    def diagonal(self) -> Diagonal:
        return self._diagonal

    @property
    def origin(self) -> tuple[float, float]:
        return self._origin

    @property
    def cell_size(self) -> float:
        return self._cell_size

    @cached_property
    def min_cost(self) -> float:
        """Smallest passable cell cost (1.0 on an all-blocked grid); scales heuristics."""
        finite = self._costs[self._passable]
        return float(finite.min()) if finite.size else 1.0

    @cached_property
    def is_uniform(self) -> bool:
        """True when every passable cell costs 1."""
        return bool(np.all(self._costs[self._passable] == 1.0))

    @cached_property
    def fingerprint(self) -> str:
        """Identifies the map for indexes: SHA-256 of the costs, shape and diagonal rule."""
        h = hashlib.sha256()
        h.update(f"{self.shape}|{self._diagonal.value}|".encode())
        h.update(self._costs.tobytes())
        return h.hexdigest()

    @cached_property
    def moves(self) -> np.ndarray:
        """Padded, flattened legal-move bit masks (see :func:`.rules.move_masks`)."""
        m = move_masks(self._passable, self._diagonal)
        m.flags.writeable = False
        return m

    @cached_property
    def padded_costs(self) -> np.ndarray:
        """Padded, flattened costs with an ``inf`` border, as the kernels read them."""
        pad = np.full((self.height + 2, self.width + 2), np.inf)
        pad[1:-1, 1:-1] = self._costs
        out = pad.ravel()
        out.flags.writeable = False
        return out

    def __repr__(self) -> str:
        free = int(self._passable.sum())
        return (f"Grid({self.width}x{self.height}, {free} passable, "
                f"diagonal={self._diagonal.value!r})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and self.fingerprint == other.fingerprint \
            and self._origin == other._origin and self._cell_size == other._cell_size

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    # ------------------------------------------------------------------ cells
    def cell(self, value: Any, *, name: str = "cell", passable: bool = False) -> Cell:
        """Validate ``value`` as an ``(x, y)`` cell inside the grid and return it as ints.

        Raises :class:`InvalidQueryError` naming the value if it is not two integers, lies
        outside the grid, or (with ``passable=True``) is blocked.
        """
        if passable is not False and passable is not True:
            passable = flag("passable", passable)
        if type(value) is tuple and len(value) == 2 and type(value[0]) is int \
                and type(value[1]) is int:
            x, y = value
        else:
            x, y = _as_cell(value, name)
        if not (0 <= x < self._w and 0 <= y < self._h):
            raise InvalidQueryError(
                f"{name} {(x, y)} is outside the {self._w}x{self._h} grid")
        if passable and not self._passable[y, x]:
            raise InvalidQueryError(f"{name} {(x, y)} is a blocked cell")
        return x, y

    def cells(self, values: Any, *, name: str = "cell", passable: bool = False) -> list[Cell]:
        """Validate one ``(x, y)`` cell or a sequence (or ``(n, 2)`` array) of them, as
        :meth:`cell`; an empty sequence gives an empty list."""
        if passable is not False and passable is not True:
            passable = flag("passable", passable)
        return [self.cell(c, name=name, passable=passable) for c in cell_items(values)]

    def index(self, cell: Cell) -> int:
        """Flat index of a (validated) cell in the padded arrays."""
        return (cell[1] + 1) * (self._w + 2) + cell[0] + 1

    def cells_of(self, flat: np.ndarray) -> np.ndarray:
        """``(n, 2)`` int64 ``(x, y)`` cells of padded flat indices."""
        flat = np.asarray(flat, dtype=np.int64)
        wp = self.width + 2
        return np.stack([flat % wp - 1, flat // wp - 1], axis=1)

    def in_bounds(self, cell: Cell) -> bool:
        x, y = cell
        return 0 <= x < self.width and 0 <= y < self.height

    def is_passable(self, cell: Any) -> bool:
        """Whether a cell lies in the grid and can be entered (False outside the grid)."""
        x, y = _as_cell(cell, "cell")
        return 0 <= x < self.width and 0 <= y < self.height and bool(self._passable[y, x])

    def cost(self, cell: Any) -> float:
        """The cost of entering a cell (``inf`` if blocked)."""
        x, y = self.cell(cell)
        return float(self._costs[y, x])

    def step_cost(self, a: Cell, b: Cell) -> float:
        """Cost of the single step a -> b under this grid's rule (``inf`` if illegal)."""
        ax, ay = self.cell(a, name="a")
        bx, by = self.cell(b, name="b")
        dx, dy = bx - ax, by - ay
        if (dx, dy) not in DIRECTIONS:
            return math.inf
        bit = DIRECTIONS.index((dx, dy))
        if not (int(self.moves[self.index((ax, ay))]) >> bit) & 1:
            return math.inf
        base = SQRT2 if dx and dy else 1.0
        return base * 0.5 * (float(self._costs[ay, ax]) + float(self._costs[by, bx]))

    def neighbours(self, cell: Any) -> list[tuple[Cell, float]]:
        """Legal steps out of ``cell``: a list of ``((x, y), cost)`` in the order N, E, S, W,
        NE, SE, SW, NW (empty for a blocked cell)."""
        x, y = self.cell(cell)
        mask = int(self.moves[self.index((x, y))])
        c0 = float(self._costs[y, x])
        out = []
        for bit, (dx, dy) in enumerate(DIRECTIONS):
            if (mask >> bit) & 1:
                base = SQRT2 if dx and dy else 1.0
                out.append(((x + dx, y + dy),
                            base * 0.5 * (c0 + float(self._costs[y + dy, x + dx]))))
        return out

    def neighbors(self, cell: Any) -> list[tuple[Cell, float]]:
        """Deprecated name of :meth:`neighbours`."""
        warn("Grid.neighbors()", "Grid.neighbours()")
        return self.neighbours(cell)

    # Graph protocol (see wayfinding.graph.Graph): cells are nodes.
    def successors(self, node: Cell) -> list[tuple[Cell, float]]:
        """Graph protocol: same as :meth:`neighbours`."""
        return self.neighbours(node)

    def heuristic(self, node: Cell, goal: Cell) -> float:
        """Graph protocol: the admissible default heuristic (octile, or Manhattan when
        4-connected) times the minimum cell cost."""
        dx, dy = abs(node[0] - goal[0]), abs(node[1] - goal[1])
        if self._diagonal is Diagonal.NEVER:
            return (dx + dy) * self.min_cost
        return (max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)) * self.min_cost

    def path_cost(self, path: Any) -> float:
        """Sum of the step costs of a path of cells (``(n, 2)`` integers); ``inf`` if any
        cell is outside or blocked or any step is illegal, and for an empty path."""
        return _gridops.path_cost(self.moves, self._costs, cell_path(path))

    # ------------------------------------------------------------------ world transform
    def world_to_cell(self, point: Any) -> Cell:
        """The cell containing a world point (floor of ``(p - origin) / cell_size``); may lie
        outside the grid (check with :meth:`in_bounds`).  A point so far away that its
        cell's coordinates pass the largest float raises :class:`InvalidQueryError`."""
        p = _as_point(point)
        fx = (p[0] - self._origin[0]) / self._cell_size
        fy = (p[1] - self._origin[1]) / self._cell_size
        if not (math.isfinite(fx) and math.isfinite(fy)):
            raise InvalidQueryError(f"point {brief(point)} lies too far from the grid for its "
                                    "cell to be numbered")
        return math.floor(fx), math.floor(fy)

    def world_to_cells(self, points: Any) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised :meth:`world_to_cell`: the cells ``(n, 2)`` int64 ``(x, y)`` of world
        points ``(n, 2)`` and whether each is on the grid, ``(n,)`` bool (cells off the grid
        are clipped to its edge)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        with np.errstate(over="ignore"):    # points too far for a float cell: off the grid
            f = np.floor((p - np.asarray(self._origin)) / self._cell_size)
        h, w = self.shape
        inside = (f[:, 0] >= 0) & (f[:, 0] < w) & (f[:, 1] >= 0) & (f[:, 1] < h)
        cells = np.stack([np.clip(np.nan_to_num(f[:, 0], nan=-1), 0, w - 1),
                          np.clip(np.nan_to_num(f[:, 1], nan=-1), 0, h - 1)], 1)
        return cells.astype(np.int64), inside

    def cell_to_world(self, cell: Any) -> tuple[float, float]:
        """World position of a cell's centre."""
        x, y = _as_cell(cell, "cell")
        return (self._origin[0] + (x + 0.5) * self._cell_size,
                self._origin[1] + (y + 0.5) * self._cell_size)

    # ------------------------------------------------------------------ derived maps
    def line_of_sight(self, a: Any, b: Any) -> bool:
        """Whether the straight segment between the centres of cells a and b crosses only
        passable cells, treating exact corner crossings by the diagonal rule."""
        ax, ay = self.cell(a, name="a")
        bx, by = self.cell(b, name="b")
        return _gridops.line_of_sight(self._passable_u8, ax, ay, bx, by, self._diagonal.code)

    @cached_property
    def _passable_u8(self) -> np.ndarray:
        return np.ascontiguousarray(self._passable, dtype=np.uint8)

    @cached_property
    def components(self) -> np.ndarray:
        """``(H, W)`` int32 island ids under the diagonal rule; -1 on blocked cells."""
        out = np.full(self.shape, -1, dtype=np.int32)
        n = _gridops.components(self.moves, self.width + 2, self.height, out)
        _gridops.label_isolated(self._passable_u8, out, n)
        out.flags.writeable = False
        return out

    @cached_property
    def _jump_grid(self) -> _jps.JumpGrid:
        """The free cells as bit-packed rows and columns with the scans' stop and reach bits,
        which the online jump point searches read (``_jps.JumpGrid``; meant for uniform-cost
        grids under the ``no_corner_cutting`` rule, see ``wayfinding.grid.jps.jump_grid``)."""
        return _jps.JumpGrid(self.moves, self.width + 2, self.components)

    @cached_property
    def _cell_search(self) -> _gridsearch.CellSearch:
        """The step costs, moves and island ids that one-call best-first searches read
        (``_gridsearch.CellSearch``)."""
        return _gridsearch.CellSearch(self.padded_costs, self.moves, self.components,
                                      self.is_uniform)

    def connected(self, a: Any, b: Any) -> bool:
        """Whether a path exists between two cells (an O(1) look-up after the first call)."""
        ax, ay = self.cell(a, name="a")
        bx, by = self.cell(b, name="b")
        c = self.components
        return bool(c[ay, ax] >= 0 and c[ay, ax] == c[by, bx])

    @cached_property
    def clearance(self) -> np.ndarray:
        """``(H, W)`` int32: side of the largest all-passable square whose top-left cell is this
        cell (0 where blocked).  An agent of ``agent_size`` k occupies the k x k square below
        and right of its cell, so it fits where ``clearance >= k``."""
        out = np.zeros(self.shape, dtype=np.int32)
        _gridops.square_clearance(self._passable_u8, out)
        out.flags.writeable = False
        return out

    @cached_property
    def obstacle_distance(self) -> np.ndarray:
        """``(H, W)`` float64: Euclidean distance in cells from each cell centre to the nearest
        blocked cell centre, the outside of the map counting as blocked (0 on blocked cells)."""
        pad = np.zeros((self.height + 2, self.width + 2))
        pad[1:-1, 1:-1] = np.where(self._passable, np.inf, 0.0)
        _gridops.squared_distance_transform(pad)
        out = np.sqrt(pad[1:-1, 1:-1])
        out.flags.writeable = False
        return out

    def for_agent(self, agent_size: int) -> Grid:
        """The grid seen by an agent covering ``agent_size`` x ``agent_size`` cells (its cell is
        the square's top-left): cells where it does not fit are blocked.  Cached per size."""
        agent_size = count("agent_size", agent_size)
        if agent_size == 1:
            return self
        cache = self.__dict__.setdefault("_agent_grids", {})
        if agent_size not in cache:
            costs = np.where(self.clearance >= agent_size, self._costs, np.inf)
            cache[agent_size] = Grid(costs, diagonal=self._diagonal, origin=self._origin,
                                     cell_size=self._cell_size)
        return cache[agent_size]

    def to_csr(self) -> CSRGraph:
        """This grid's move graph as a :class:`~wayfinding.graph.CSRGraph` whose node ids are
        ``y * W + x`` and coordinates are cell ``(x, y)``."""
        h, w = self.shape
        masks = self.moves.reshape(h + 2, w + 2)[1:-1, 1:-1].astype(np.int64)
        ys, xs = np.mgrid[0:h, 0:w]
        src, dst, cost = [], [], []
        for bit, (dx, dy) in enumerate(DIRECTIONS):
            ok = (masks >> bit) & 1 == 1
            x0, y0 = xs[ok], ys[ok]
            base = SQRT2 if dx and dy else 1.0
            src.append(y0 * w + x0)
            dst.append((y0 + dy) * w + x0 + dx)
            cost.append(base * 0.5 * (self._costs[y0, x0] + self._costs[y0 + dy, x0 + dx]))
        coords = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)
        return CSRGraph.from_edges(h * w, np.concatenate(src), np.concatenate(dst),
                                   np.concatenate(cost), coords=coords)

    def to_ascii(self) -> str:
        """The grid as text: tile characters if known, else ``.`` passable and ``@`` blocked."""
        if self._tiles is not None:
            rows = self._tiles
        else:
            rows = np.where(self._passable, ord("."), ord("@")).astype(np.uint8)
        return "\n".join(bytes(r).decode("ascii") for r in rows)

    def iter_cells(self) -> Iterator[Cell]:
        """Every passable cell, row by row."""
        ys, xs = np.nonzero(self._passable)
        yield from zip(xs.tolist(), ys.tolist())


def _tile_codes(tiles: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``tiles`` as a read-only ``(H, W)`` uint8 copy after checking that it holds the codes
    of printable, non-space ASCII characters (what map rows hold) in the grid's shape."""
    arr = np.asarray(tiles)
    if arr.shape != shape:
        raise InvalidGridError(f"tiles shape {arr.shape} differs from costs shape {shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidGridError(f"tiles must be integer character codes, got dtype {arr.dtype}")
    bad = (arr < 33) | (arr > 126)
    if bad.any():
        y, x = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidGridError(f"tile at (x={x}, y={y}) is {arr[y, x]}, not the code of a "
                               "printable ASCII character other than a space")
    out = arr.astype(np.uint8)
    out.flags.writeable = False
    return out


def cell_path(values: Any, *, name: str = "path") -> np.ndarray:
    """A path of cells as a C-contiguous ``(n, 2)`` int64 array (an empty one gives ``(0,
    2)``), unvalidated against any grid; :class:`InvalidQueryError` unless it holds
    ``(x, y)`` pairs of integers (floats, bools and integers beyond 64 bits are refused)."""
    try:
        arr = np.asarray(values)
    except ValueError:   # rows of different lengths
        arr = np.empty(1, dtype=object)
    if arr.size == 0 and arr.dtype != object:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype == bool \
            or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidQueryError(
            f"{name} {brief(values)} must be an (n, 2) array of integer (x, y) cells")
    return np.ascontiguousarray(arr, dtype=np.int64)


def cell_items(values: Any) -> list[Any]:
    """The items of one ``(x, y)`` cell or of a sequence (or ``(n, 2)`` array) of cells,
    unvalidated: a pair of scalars is one cell."""
    if isinstance(values, np.ndarray):
        return [values] if values.ndim == 1 and values.size == 2 else list(values)
    if isinstance(values, (list, tuple)) and len(values) == 2 \
            and all(np.isscalar(v) for v in values):
        return [values]
    try:
        return list(values)
    except TypeError:
        raise InvalidQueryError(f"expected an (x, y) cell or a sequence of cells, got "
                                f"{brief(values)}") from None


def _as_cell(value: Any, name: str) -> Cell:
    if isinstance(value, (tuple, list)) and any(isinstance(v, (bool, np.bool_)) for v in value):
        raise InvalidQueryError(f"{name} {brief(value)} must hold two integers, not bools")
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - any unconvertible value is a bad query
        raise InvalidQueryError(f"{name} {value!r} is not an (x, y) pair") from None
    if arr.shape != (2,):
        raise InvalidQueryError(f"{name} {value!r} must be an (x, y) pair, got shape {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise InvalidQueryError(f"{name} {value!r} must hold two integers")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise InvalidQueryError(f"{name} {value!r} contains NaN or infinity")
        raise InvalidQueryError(f"{name} {value!r} must hold integers, got {arr.dtype}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise InvalidQueryError(f"{name} {value!r} must hold two integers")
    return int(arr[0]), int(arr[1])


def _as_point(value: Any) -> tuple[float, float]:
    x, y = finite_point("point", value).tolist()
    return x, y


def parse_rows(rows: Sequence[str], table: Mapping[str, float], *, source: Any,
               first_line: int, **options: Any) -> Grid:
    """Build a grid from equal-length text rows through a terrain table (internal helper)."""
    if not rows:
        raise MapFormatError("no map rows", source)
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise MapFormatError(
                f"row has {len(row)} characters, expected {width} like the first row",
                source, first_line + i)
        if not row.isascii():
            bad = next(ch for ch in row if not ch.isascii())
            raise MapFormatError(f"unknown map character {bad!r} at column {row.index(bad)}",
                                 source, first_line + i)
    if width == 0:
        raise MapFormatError("map rows are empty", source, first_line)
    tiles = np.frombuffer("".join(rows).encode("ascii"), dtype=np.uint8).reshape(len(rows), width)
    lookup = np.full(256, np.nan)
    for char, cost in table.items():
        lookup[ord(char)] = cost
    costs = lookup[tiles]
    if np.isnan(costs).any():
        y, x = (int(v) for v in np.argwhere(np.isnan(costs))[0])
        known = "".join(sorted(table))
        raise MapFormatError(
            f"unknown map character {chr(tiles[y, x])!r} at column {x} (known: {known!r})",
            source, first_line + y)
    return Grid(costs, tiles=tiles, **options)
