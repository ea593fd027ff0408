"""Flow-field tiles (Emerson): flow fields built only over the sectors a route crosses.

The map is cut into square *sectors* of ``sector`` cells.  Along each border between two
sectors, every maximal run of cell pairs passable on both sides is a *window*, with a *portal*
on each side at its middle cell; under the ``always`` diagonal rule, so is each diagonal step
across a border or a sector corner whose two side cells are blocked (its ends have no other
way across).  The *portal graph* links the two portals of a window (one
step) and the portals of one sector to each other (the shortest path inside the sector).  A
request searches that small graph with compiled A* from the start to the goal; then one
*tile* per sector on the route is integrated when first needed: a fast-marching field over
that sector alone, from its exit window (or the goal), and its flow.  A route that leaves a
sector twice gets one tile from both exits, each starting at the route's cost from there, so
every part of the sector flows on.  Tiles are cached by (movement type, sector, exit
windows), so requests that leave a sector the same way share them.  Each movement type (a
:class:`Grid` of the same shape: land, hover...) has its own costs, portals, islands and
tiles.  :meth:`FlowTiles.edit` changes costs: the sectors touched are marked dirty, their
portals and those of their neighbours are rebuilt, their tiles dropped, and routes through
them report :attr:`TileRoute.valid` false.

>>> import numpy as np
>>> from wayfinding.grid import Grid
>>> tiles = FlowTiles(Grid(np.ones((20, 30), dtype=bool)), sector=10)
>>> route = tiles.route((1, 1), (28, 18))
>>> route.sectors                                   # (column, row) of each sector crossed
[(0, 0), (1, 0), (1, 1), (2, 1)]
>>> route.descend((1, 1))[-1].tolist()
[28, 18]
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._validate import (
    CELL_COST_BOUNDS,
    MAX_COST,
    cell_cost_ok,
    choice,
    count,
    finite_points,
    real_number,
)
from ..errors import InvalidQueryError, brief
from ..graph.csr import CSRGraph
from ..grid.grid import Grid
from ..grid.rules import DIRECTIONS, SQRT2, Diagonal
from ..grid.search import GridSearch
from ..results import Status
from .flow import GOAL, FlowField, _settled
from .integration import eikonal_field

Sector = tuple[int, int]
Cell = tuple[int, int]


@dataclass(frozen=True)
class Window:
    """A passable stretch of the border between sectors ``a`` and ``b``: ``cells_a[i]``
    (in ``a``) and ``cells_b[i]`` (in ``b``) are neighbours across it.  ``id`` is unique
    within its :class:`FlowTiles`."""

    id: int
    a: Sector
    b: Sector
    cells_a: tuple[Cell, ...]
    cells_b: tuple[Cell, ...]

    def side(self, sector: Sector) -> tuple[tuple[Cell, ...], tuple[Cell, ...]]:
        """(cells in ``sector``, the cells across from them)."""
        return (self.cells_a, self.cells_b) if sector == self.a else (self.cells_b, self.cells_a)

    def portal(self, sector: Sector) -> Cell:
        """The middle cell of the window on ``sector``'s side."""
        cells = self.side(sector)[0]
        return cells[len(cells) // 2]


@dataclass
class TileRoute:
    """A route over the portal graph and the tiles that lead along it.

    ``sectors``: the sectors crossed, start to goal; ``exits``: per sector, the windows it
    is left by with the route's cost from each to the goal (none for the goal's sector; a
    route may leave a sector twice); ``cost``: the portal-graph cost of the route (an upper
    bound of the true cost).  Tiles are built when first needed (:meth:`tile`, or ahead of
    time with :meth:`prepare`, a few per frame); ``tiles`` holds those built so far: sector
    -> :class:`FlowField` over that sector (local coordinates; :meth:`direction` and
    :meth:`descend` work in map coordinates).  After an edit through its sectors the route
    is no longer :attr:`valid` and builds no more tiles.
    """

    found: bool
    start: Cell
    goal: Cell
    movement: str = "default"
    sectors: list[Sector] = field(default_factory=list)
    exits: dict[Sector, list[tuple[Window, float]]] = field(default_factory=dict)
    cost: float = math.inf
    tiles: dict[Sector, FlowField] = field(default_factory=dict)
    valid: bool = True
    _owner: Any = None

    @property
    def status(self) -> Status:
        """``Status.FOUND`` when the route reaches the goal and is still :attr:`valid`;
        else ``Status.FAILED`` (after an edit through its sectors it may no longer lead
        there: route again)."""
        return Status.FOUND if self.found and self.valid else Status.FAILED

    def tile(self, sector: Sector) -> FlowField | None:
        """The tile of ``sector`` (built now if needed); None off the route."""
        if sector not in self.tiles:
            if sector not in self.exits or not self.valid:
                return None
            self.tiles[sector] = self._owner._tile(self.movement, sector, self.exits[sector],
                                                   self.goal)
        return self.tiles[sector]

    @positional_options("max_tiles")
    def prepare(self, *, max_tiles: int | None = None) -> int:
        """Build up to ``max_tiles`` (all when None) of the tiles not built yet, in route
        order; returns how many are still missing."""
        if max_tiles is not None:
            count("max_tiles", max_tiles, min=0)
        missing = [s for s in self.sectors if s not in self.tiles]
        for sector in missing[:max_tiles]:
            self.tile(sector)
        return sum(s not in self.tiles for s in self.sectors)

    def step(self, cell: Any) -> Cell | None:
        """The next cell from ``cell`` (an ``(x, y)`` cell of the map) along the tiles
        (across a window at a tile's exit); None at the goal or off the route."""
        x, y = self._owner._grid(self.movement).cell(cell)
        if not self.found or (x, y) == self.goal:
            return None
        sector = self._owner._sector_of(x, y)
        tile = self.tile(sector)
        if tile is None:
            return None
        ox, oy = self._owner._origin(sector)
        code = tile.codes[y - oy, x - ox]
        if code < GOAL:
            dx, dy = DIRECTIONS[code]
            return x + dx, y + dy
        if code != GOAL:
            return None
        for window, _ in self.exits[sector]:
            here, across = window.side(sector)
            if (x, y) in here:
                return across[here.index((x, y))]
        return None

    def descend(self, cell: Any) -> np.ndarray:
        """The cells from ``cell`` to the goal following the tiles (``(n, 2)``); it stops
        early where the route has no tile."""
        path = [self._owner._grid(self.movement).cell(cell)]
        limit = self._owner.shape[0] * self._owner.shape[1]
        while len(path) <= limit:
            nxt = self.step(path[-1])
            if nxt is None:
                break
            path.append(nxt)
        return np.array(path, dtype=np.int64)

    def direction(self, points: ArrayLike) -> np.ndarray:
        """Unit directions at map ``points`` (``(k, 2)`` x, y), sampled from the tile of the
        sector each lies in; across the window at a tile's exit; zero off the route."""
        p = finite_points("points", points)[0]
        out = np.zeros_like(p)
        if not self.found:
            return out
        for k, (fx, fy) in enumerate(np.round(p).tolist()):
            if not self._owner._inside(fx, fy):
                continue
            x, y = int(fx), int(fy)
            sector = self._owner._sector_of(x, y)
            tile = self.tile(sector)
            if tile is None:
                continue
            ox, oy = self._owner._origin(sector)
            if tile.codes[y - oy, x - ox] == GOAL:
                nxt = self.step((x, y))
                if nxt is not None:
                    d = np.subtract(nxt, (x, y))
                    out[k] = d / np.hypot(*d)
                continue
            out[k] = tile.sample([(p[k, 0] - ox, p[k, 1] - oy)])[0]
        return out


class FlowTiles:
    """Sectors, portals and a tile cache over one map with one or more movement types.

    ``worlds``: a :class:`Grid`, or ``{movement type: Grid}`` of equal shapes.  ``sector``:
    the side of a sector in cells.  ``order``: of the fast marching inside tiles.
    ``cache_size``: tiles kept (least recently used first out).
    """

    def __init__(self, worlds: Grid | Mapping[str, Grid], *, sector: int = 10, order: int = 2,
                 cache_size: int = 1024):
        grids = {"default": worlds} if isinstance(worlds, Grid) else \
            dict(worlds) if isinstance(worlds, Mapping) else {}
        if not grids or not all(isinstance(g, Grid) for g in grids.values()):
            raise InvalidQueryError("worlds must be a Grid or a mapping of names to Grids")
        shapes = {g.shape for g in grids.values()}
        if len(shapes) != 1:
            raise InvalidQueryError(f"movement types need grids of one shape, got {shapes}")
        self.shape = shapes.pop()
        self.sector = count("sector", sector)
        self.order = choice("order", order, (1, 2))
        self.cache_size = count("cache_size", cache_size)
        self.columns = -(-self.shape[1] // sector)
        self.rows = -(-self.shape[0] // sector)
        self._costs = {name: np.array(g.costs) for name, g in grids.items()}
        self._rules = {name: g.diagonal for name, g in grids.items()}
        self._grids: dict[str, Grid] = dict(grids)
        self._windows: dict[str, dict[Sector, list[Window]]] = {}
        self._links: dict[str, dict[tuple, list[tuple[tuple, float]]]] = {}
        # Keyed by movement and sector, or by "clear" and diagonal rule for the shared fields.
        self._sector_grids: dict[tuple[str, Sector | Diagonal], Grid] = {}
        self._cache: OrderedDict[tuple, FlowField] = OrderedDict()
        self._window_index: dict[int, Window] = {}
        self._csr: dict[str, tuple] = {}
        self._ids = itertools.count()
        self._routes: list[TileRoute] = []
        self.stats = {"tiles_built": 0, "cache_hits": 0, "portal_rebuilds": 0}
        for name in grids:
            self._build_portals(name, {(c, r) for c in range(self.columns)
                                       for r in range(self.rows)})

    # ------------------------------------------------------------------------ geometry

    def _inside(self, x: float, y: float) -> bool:
        return 0 <= x < self.shape[1] and 0 <= y < self.shape[0]

    def _sector_of(self, x: int, y: int) -> Sector:
        return x // self.sector, y // self.sector

    def _origin(self, sector: Sector) -> Cell:
        return sector[0] * self.sector, sector[1] * self.sector

    def _slices(self, sector: Sector) -> tuple[slice, slice]:
        x0, y0 = self._origin(sector)
        return slice(y0, min(y0 + self.sector, self.shape[0])), \
            slice(x0, min(x0 + self.sector, self.shape[1]))

    @positional_options("movement")
    def cost_field(self, sector: Sector, *, movement: str = "default") -> Grid:
        """The cost field of ``sector`` for the movement type, as a :class:`Grid`.  Full
        sectors that cost 1 everywhere share one clear field (a map that is mostly open
        keeps few fields)."""
        key = (self._movement(movement), sector)
        if not (isinstance(sector, tuple) and len(sector) == 2
                and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                        for v in sector)
                and 0 <= sector[0] < self.columns and 0 <= sector[1] < self.rows):
            raise InvalidQueryError(f"sector {brief(sector)} must be a (column, row) pair "
                                    f"inside the {self.columns}x{self.rows} sectors")
        if key not in self._sector_grids:
            costs = self._costs[movement][self._slices(sector)]
            rule = self._rules[movement]
            if costs.shape == (self.sector, self.sector) and (costs == 1.0).all():
                clear = ("clear", rule)
                if clear not in self._sector_grids:
                    self._sector_grids[clear] = Grid(np.ones(costs.shape), diagonal=rule)
                self._sector_grids[key] = self._sector_grids[clear]
            else:
                self._sector_grids[key] = Grid(costs, diagonal=rule)
        return self._sector_grids[key]

    def _movement(self, movement: str) -> str:
        if movement not in self._costs:
            raise InvalidQueryError(f"unknown movement type {movement!r}; expected one of: "
                                    f"{', '.join(self._costs)}")
        return movement

    # ------------------------------------------------------------------------- portals

    @positional_options("movement")
    def windows(self, *, movement: str = "default") -> list[Window]:
        """Every window of the movement type's portal graph."""
        seen: dict[int, Window] = {}
        for ws in self._windows[self._movement(movement)].values():
            for w in ws:
                seen[w.id] = w
        return list(seen.values())

    def _border_windows(self, free: np.ndarray, rule: Diagonal, a: Sector, b: Sector
                        ) -> list[Window]:
        """The windows between sector ``a`` and the sector ``b`` to its right, below it or
        at its right-hand corners (:meth:`_after`), over the map's passable cells ``free``
        under the diagonal ``rule``."""
        n = self.sector
        out = []
        if b[1] == a[1] or b[0] == a[0]:
            if b[0] == a[0] + 1:     # vertical border: a's last column, b's first
                xa, xb = b[0] * n - 1, b[0] * n
                rows = range(a[1] * n, min((a[1] + 1) * n, self.shape[0]))
                pairs = [((xa, y), (xb, y)) for y in rows]
            else:                    # horizontal border: a's last row, b's first
                ya, yb = b[1] * n - 1, b[1] * n
                cols = range(a[0] * n, min((a[0] + 1) * n, self.shape[1]))
                pairs = [((x, ya), (x, yb)) for x in cols]
            run: list[tuple[Cell, Cell]] = []
            for pair in pairs + [None]:
                if pair is not None and free[pair[0][1], pair[0][0]] \
                        and free[pair[1][1], pair[1][0]]:
                    run.append(pair)
                    continue
                if run:
                    out.append(Window(next(self._ids), a, b, tuple(p[0] for p in run),
                                      tuple(p[1] for p in run)))
                    run = []
            if rule is not Diagonal.ALWAYS:
                return out
            # Diagonal steps along the border, between two of its pairs.
            diagonals = [(one[0], two[1]) for one, two in zip(pairs[:-1], pairs[1:])] \
                + [(two[0], one[1]) for one, two in zip(pairs[:-1], pairs[1:])]
        else:                        # b at a corner of a: the step across that corner
            x, y = b[0] * n, max(a[1], b[1]) * n
            diagonals = [((x - 1, y - 1), (x, y)) if b[1] > a[1] else ((x - 1, y), (x, y - 1))]
        for p, q in diagonals:
            if self._corner_only(free, rule, p, q):
                out.append(Window(next(self._ids), a, b, (p,), (q,)))
        return out

    @staticmethod
    def _corner_only(free: np.ndarray, rule: Diagonal, p: Cell, q: Cell) -> bool:
        """Whether the diagonal step from ``p`` to ``q`` is legal with both cells beside it
        blocked (under the ``always`` rule), so that no straight steps join its ends."""
        return rule is Diagonal.ALWAYS and bool(free[p[1], p[0]] and free[q[1], q[0]]) \
            and not free[p[1], q[0]] and not free[q[1], p[0]]

    def _after(self, sector: Sector, rule: Diagonal) -> list[Sector]:
        """The sectors right of and below ``sector`` and, under the ``always`` rule, at its
        right-hand corners: the other ends of the borders it comes first in."""
        c, r = sector
        out = [(c + 1, r), (c, r + 1)]
        if rule is Diagonal.ALWAYS:
            out += [(c + 1, r + 1), (c + 1, r - 1)]
        return [s for s in out if 0 <= s[0] < self.columns and 0 <= s[1] < self.rows]

    def _build_portals(self, movement: str, sectors: set[Sector]) -> None:
        """(Re)build the windows on the borders of ``sectors`` (and across the corners they
        touch) and the links inside them and their neighbours."""
        windows = self._windows.setdefault(movement, {})
        links = self._links.setdefault(movement, {})
        rule = self._rules[movement]
        span = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if abs(dx) + abs(dy) < 2 or rule is Diagonal.ALWAYS]
        touched = {(s[0] + dx, s[1] + dy) for s in sectors for dx, dy in span
                   if 0 <= s[0] + dx < self.columns and 0 <= s[1] + dy < self.rows}
        # A corner step's side cells lie in the two other sectors at that corner.
        borders = {(a, b) for a in touched for b in self._after(a, rule) if b in touched
                   and ({a, b, (a[0], b[1]), (b[0], a[1])} & sectors)}
        for s in touched:
            for w in windows.get(s, []):
                if (w.a, w.b) in borders:
                    links.pop((w.id, s), None)
                    self._window_index.pop(w.id, None)
            windows[s] = [w for w in windows.get(s, []) if (w.a, w.b) not in borders]
        free = np.isfinite(self._costs[movement])
        for a, b in sorted(borders):
            for w in self._border_windows(free, rule, a, b):
                windows[a].append(w)
                windows[b].append(w)
                self._window_index[w.id] = w
        for s in touched:
            self._link_sector(movement, s, windows[s], links)
        self.stats["portal_rebuilds"] += 1

    def _link_sector(self, movement: str, sector: Sector, ws: list[Window],
                     links: dict[tuple, list[tuple[tuple, float]]]) -> None:
        """Links out of the portals of ``sector``: to the other portals of the sector (the
        shortest path inside it) and across each window."""
        costs = self._costs[movement]
        grid = self.cost_field(sector, movement=movement)
        ox, oy = self._origin(sector)
        for w in ws:
            node = (w.id, sector)
            px, py = w.portal(sector)
            dist = _sector_distances(grid, (px - ox, py - oy))
            out = []
            other = w.b if sector == w.a else w.a
            qx, qy = w.portal(other)
            step = (1.0 if (px == qx or py == qy) else SQRT2) * 0.5 * (costs[py, px]
                                                                       + costs[qy, qx])
            out.append(((w.id, other), step))
            for v in ws:
                if v is w:
                    continue
                vx, vy = v.portal(sector)
                d = dist[vy - oy, vx - ox]
                if math.isfinite(d):
                    out.append(((v.id, sector), float(d)))
            links[node] = out

    # ------------------------------------------------------------------------ requests

    @positional_options("movement")
    def islands(self, *, movement: str = "default") -> np.ndarray:
        """``(H, W)`` island ids of the movement type (-1 on blocked cells)."""
        return self._grid(self._movement(movement)).components

    def _grid(self, movement: str) -> Grid:
        if movement not in self._grids:
            self._grids[movement] = Grid(self._costs[movement], diagonal=self._rules[movement])
        return self._grids[movement]

    def route(self, start: ArrayLike, goal: ArrayLike, *, movement: str = "default") -> TileRoute:
        """A route from ``start`` to ``goal`` for the movement type (its tiles are built as
        they are needed).  Cells on different islands give a route with ``found`` false at
        once."""
        movement = self._movement(movement)
        grid = self._grid(movement)
        s = grid.cell(start, name="start", passable=True)
        g = grid.cell(goal, name="goal", passable=True)
        route = TileRoute(False, s, g, movement, _owner=self)
        comp = grid.components
        if comp[s[1], s[0]] != comp[g[1], g[0]]:
            return route
        legs = self._portal_path(movement, s, g)
        if legs is None:
            return route
        path, cost = legs
        route.found, route.cost = True, cost
        for sector, exit_, to_go in path:
            if sector not in route.exits:
                route.sectors.append(sector)
                route.exits[sector] = []
            if exit_ is not None:
                route.exits[sector].append((exit_, to_go))
        self._routes.append(route)
        return route

    def _portal_graph(self, movement: str) -> tuple:
        """The movement type's portal graph in CSR arrays: (node keys, key -> index,
        indptr, targets, weights, portal positions); rebuilt after edits."""
        if movement not in self._csr:
            links = self._links[movement]
            keys = sorted(links)
            index = {k: i for i, k in enumerate(keys)}
            targets = [[index[t] for t, _ in links[k]] for k in keys]
            weights = [[c for _, c in links[k]] for k in keys]
            counts = np.array([len(t) for t in targets], dtype=np.int64)
            indptr = np.zeros(len(keys) + 1, dtype=np.int64)
            np.cumsum(counts, out=indptr[1:])
            flat = np.array([t for row in targets for t in row], dtype=np.int64)
            cost = np.array([c for row in weights for c in row], dtype=np.float64)
            xy = np.array([self._window_index[w].portal(sec) for w, sec in keys],
                          dtype=np.float64).reshape(-1, 2)
            self._csr[movement] = (keys, index, indptr, flat, cost, xy)
        return self._csr[movement]

    def _portal_path(self, movement: str, s: Cell, g: Cell
                     ) -> tuple[list[tuple[Sector, Window | None, float]], float] | None:
        """Compiled A* over the portal graph, with the start and the goal joined to their
        sectors' portals by their costs inside those sectors; returns the legs (sector,
        exit window, route cost from the exit to the goal) and the route's cost."""
        keys, index, indptr, targets, weights, xy = self._portal_graph(movement)
        n = len(keys)
        start_node, goal_node = n, n + 1
        ss, gs = self._sector_of(*s), self._sector_of(*g)
        windows = self._windows[movement]

        def joins(sector: Sector, cell: Cell, direct: bool) -> tuple[list[int], list[float]]:
            """The portals of ``sector`` reachable from ``cell`` inside it, and the costs;
            with ``direct``, the goal too when it is in that sector and reachable."""
            dist = _sector_distances(self.cost_field(sector, movement=movement),
                                     _local(cell, self._origin(sector)))
            ox, oy = self._origin(sector)
            nodes, costs = [], []
            for w in windows[sector]:
                px, py = w.portal(sector)
                if math.isfinite(dist[py - oy, px - ox]):
                    nodes.append(index[(w.id, sector)])
                    costs.append(float(dist[py - oy, px - ox]))
            if direct and sector == gs and math.isfinite(dist[g[1] - oy, g[0] - ox]):
                nodes.append(goal_node)
                costs.append(float(dist[g[1] - oy, g[0] - ox]))
            return nodes, costs

        first, first_cost = joins(ss, s, True)
        last, last_cost = joins(gs, g, False)
        # Portals -> goal: one more edge at the end of each of their rows.
        order = np.argsort(last, kind="stable")
        last_a = np.asarray(last, dtype=np.int64)[order]
        at = indptr[last_a + 1]
        all_targets = np.concatenate([np.insert(targets, at, goal_node),
                                      np.asarray(first, dtype=np.int64)])
        all_costs = np.concatenate([np.insert(weights, at, np.asarray(last_cost)[order]),
                                    np.asarray(first_cost, dtype=np.float64)])
        ptr = np.empty(n + 3, dtype=np.int64)
        ptr[:n + 1] = indptr + np.searchsorted(last_a, np.arange(n + 1))
        ptr[n + 1] = ptr[n] + len(first)
        ptr[n + 2] = ptr[n + 1]
        # Links are costs of paths across a sector, which can pass the limit of one edge's
        # cost on grids of costs near MAX_COST: search them scaled by an exact power of two.
        top = float(all_costs.max()) if len(all_costs) else 0.0
        shift = math.frexp(top / (2 * MAX_COST))[1] if top > 2 * MAX_COST else 0
        graph = CSRGraph(ptr, all_targets, np.ldexp(all_costs, -shift),
                         coords=np.vstack([xy, [s, g]]).astype(np.float64))
        result = graph.find_path(start_node, goal_node)
        if not result.found:
            return None
        nodes = result.path.tolist()
        # Cost from each node of the path to the goal, from the edges' costs.
        to_go = [0.0] * len(nodes)
        for k in range(len(nodes) - 2, -1, -1):
            row = slice(ptr[nodes[k]], ptr[nodes[k] + 1])
            step = all_costs[row][all_targets[row] == nodes[k + 1]].min()
            to_go[k] = to_go[k + 1] + float(step)
        # Consecutive portal nodes in different sectors are a window crossing: the first
        # one's sector is left by that window.
        legs: list[tuple[Sector, Window | None, float]] = []
        for k in range(1, len(nodes) - 2):
            a, b = keys[nodes[k]], keys[nodes[k + 1]]
            if a[0] == b[0] and a[1] != b[1]:
                legs.append((a[1], self._window_index[a[0]], to_go[k]))
        legs.append((gs, None, 0.0))
        return legs, float(np.ldexp(result.cost, shift))

    def _tile(self, movement: str, sector: Sector, exits: list[tuple[Window, float]],
              goal: Cell) -> FlowField:
        """The flow of ``sector`` towards its exit windows, each starting at its route cost
        to the goal, and towards the goal in the goal's sector (less the smallest start);
        from the cache."""
        ox, oy = self._origin(sector)
        starts = [(w.side(sector)[0], c) for w, c in exits]
        if sector == self._sector_of(*goal):
            starts.append(((goal,), 0.0))
        low = min(c for _, c in starts)
        key = (movement, sector, tuple((cells, round(c - low, 9)) for cells, c in starts))
        if key in self._cache:
            self._cache.move_to_end(key)
            self.stats["cache_hits"] += 1
            return self._cache[key]
        grid = self.cost_field(sector, movement=movement)
        initial = np.full(grid.shape, np.nan)
        for cells, c in starts:
            for x, y in cells:
                initial[y - oy, x - ox] = np.fmin(initial[y - oy, x - ox], c - low)
        sources = [(x - ox, y - oy) for cells, _ in starts for x, y in cells]
        tile = _settled(grid, eikonal_field(grid, initial=initial, order=self.order), sources)
        self.stats["tiles_built"] += 1
        self._cache[key] = tile
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return tile

    def clear_cache(self) -> None:
        """Drop every cached tile."""
        self._cache.clear()

    # --------------------------------------------------------------------------- edits

    def edit(self, changes: Mapping[Any, float], *, movement: str | None = None) -> set[Sector]:
        """Set cell costs (``{(x, y): cost}``, ``inf`` blocks) for one movement type, or
        all when None.  Marks the sectors touched dirty: rebuilds their portals and their
        neighbours', drops their tiles, and invalidates the routes through them.  Returns
        the dirty sectors."""
        names = list(self._costs) if movement is None else [self._movement(movement)]
        try:
            items = dict(changes).items()
        except (TypeError, ValueError):
            raise InvalidQueryError(f"changes {brief(changes)} must be a mapping of cells to "
                                    "costs") from None
        cells = []
        for cell, cost in items:
            x, y = self._grid(names[0]).cell(cell, name="changed cell")
            value = real_number(cost)
            if not cell_cost_ok(value):
                raise InvalidQueryError(f"cost {brief(cost)} of cell {(x, y)} must be a number "
                                        f"{CELL_COST_BOUNDS} (inf blocks it)")
            cells.append((x, y, value))
        dirty = {self._sector_of(x, y) for x, y, _ in cells}
        for name in names:
            for x, y, value in cells:
                self._costs[name][y, x] = value
            self._grids.pop(name, None)
            for s in dirty:
                self._sector_grids.pop((name, s), None)
            self._build_portals(name, dirty)
            self._csr.pop(name, None)
        for key in [k for k in self._cache if k[0] in names and k[1] in dirty]:
            del self._cache[key]
        for r in self._routes:
            if r.valid and any(s in dirty for s in r.sectors):
                r.valid = False
        self._routes = [r for r in self._routes if r.valid]
        return dirty


def _local(cell: Cell, origin: Cell) -> Cell:
    return cell[0] - origin[0], cell[1] - origin[1]


def _sector_distances(grid: Grid, cell: Cell) -> np.ndarray:
    """Costs from ``cell`` to every cell of a sector grid, inside the sector."""
    if not grid.passable[cell[1], cell[0]]:
        return np.full(grid.shape, np.inf)
    return GridSearch(grid).distance_map([cell], method="dijkstra")
