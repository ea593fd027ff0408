"""Grid worlds: path queries (sliced methods under the expansion budget and the deadline,
whole and preprocessed methods checked when they end), distance maps and flow fields."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import InvalidQueryError
from ..fields.flow import GOAL, NONE, FlowField
from ..grid.anyangle import ANY_ANGLE
from ..grid.grid import Grid
from ..grid.index import GridIndex
from ..grid.jps import ONLINE_RULES
from ..grid.methods import PREPROCESSED, make_solver
from ..grid.rules import DIRECTIONS
from ..grid.search import ALGORITHMS, GridSearch
from ..results import PathResult, Status
from .limits import BadCoordinates, Limits, Refused, check_deadline, over_budget, timed_out
from .protocol import coordinates, numbers, option, path_json
from .worlds import World

#: The path methods every grid world answers that run in slices (the budget and the
#: deadline stop them early).
SLICED_METHODS = tuple(m for m in ALGORITHMS if m not in ONLINE_RULES)

#: The path methods every grid world answers that need no index but do not run in slices
#: (the budget and the deadline are checked when the search ends).
WHOLE_METHODS = (*ONLINE_RULES, *ANY_ANGLE)

#: The flow-field methods (:meth:`FlowField.build`'s ``method``).
FLOW_METHODS = ("eikonal", "dijkstra")


class GridWorld(World):
    """A :class:`~wayfinding.grid.grid.Grid`, with each thread's
    :class:`~wayfinding.grid.search.GridSearch` and solvers."""

    kind = "grid"
    queries = ("path", "distance", "flow", "crowds")

    def __init__(self, name: str, grid: Grid, limits: Limits):
        if grid.width * grid.height > limits.max_cells:
            raise InvalidQueryError(
                f"world {name!r} has {grid.width}x{grid.height} = {grid.width * grid.height} "
                f"cells, more than the limit of {limits.max_cells}")
        super().__init__(name, [*SLICED_METHODS, *WHOLE_METHODS])
        self.grid = grid
        self.navigable = grid
        self.indexes: list[GridIndex] = []

    def add_indexes(self, methods: Iterable[str]) -> None:
        """Build the indexes of preprocessed ``methods`` (once, shared by every thread, each
        of which keeps its own query scratch) and answer them."""
        for method in methods:
            if method not in PREPROCESSED:
                raise InvalidQueryError(f"indexed method {method!r} of world {self.name!r} is "
                                        f"not one of {', '.join(PREPROCESSED)}")
            solver = make_solver(self.grid, method, indexes=self.indexes, progress=False)
            self.indexes.extend(solver.built)
            self.methods.append(method)

    def extent(self) -> dict[str, Any]:
        return {"width": self.grid.width, "height": self.grid.height,
                "diagonal": self.grid.diagonal.value}

    def search(self) -> GridSearch:
        """This thread's search object."""
        return self.own("search", lambda: GridSearch(self.grid))

    def cell(self, value: Any, field: str) -> tuple[int, int]:
        """A passable cell of the grid: 400 ``bad coordinates`` otherwise."""
        x, y = coordinates(value, field, (self.grid.width, self.grid.height))
        if not self.grid.is_passable((x, y)):
            raise BadCoordinates(f"{field} {value} is a blocked cell")
        return x, y

    def cells(self, values: Any, field: str) -> list[tuple[int, int]]:
        """A non-empty list of passable cells: 400 ``bad coordinates`` otherwise."""
        if not isinstance(values, list) or not values:
            raise BadCoordinates(f"{field} must be a non-empty list of [x, y] cells")
        return [self.cell(v, f"{field}[{i}]") for i, v in enumerate(values)]

    def path(self, body: dict[str, Any], limits: Limits, deadline: float) -> dict[str, Any]:
        start = self.cell(body.get("start"), "start")
        goal = self.cell(body.get("goal"), "goal")
        method = self.method(body, "astar")
        budget = limits.max_expansions
        if method not in SLICED_METHODS:
            result = self.own(method, lambda: make_solver(self.grid, method,
                                                          indexes=self.indexes))(start, goal)
            check_deadline(deadline, "the search", limits)
        else:
            result = sliced(self.search().start(start, goal, method=method), limits, deadline)
        if result.stats.expanded > budget:
            raise over_budget(result.stats.expanded, limits)
        return path_json(result)

    def field_size(self, limits: Limits) -> None:
        """Refuse (422) a field over :attr:`Limits.max_field_cells`."""
        cells = self.grid.width * self.grid.height
        if cells > limits.max_field_cells:
            raise Refused(422, "field too large", f"world {self.name!r} has {cells} cells, "
                          f"more than the limit of {limits.max_field_cells} per field")

    def distance(self, body: dict[str, Any], limits: Limits, deadline: float) -> np.ndarray:
        """The distance map of ``body["sources"]``: ``(H, W)`` float64, inf unreachable."""
        cells = self.cells(body.get("sources"), "sources")
        self.field_size(limits)
        out = self.search().distance_map(cells)
        check_deadline(deadline, "the distance map", limits)
        return out

    def flow(self, body: dict[str, Any], limits: Limits, deadline: float) -> FlowField:
        """The flow field toward ``body["goals"]`` by ``body["method"]``."""
        goals = self.cells(body.get("goals"), "goals")
        method = option(body, "method", "eikonal", FLOW_METHODS)
        self.field_size(limits)
        flow = FlowField.build(self.grid, goals, method=method)
        check_deadline(deadline, "the flow field", limits)
        return flow


def sliced(search: Any, limits: Limits, deadline: float) -> PathResult:
    """Run a sliced search to its end within :attr:`Limits.max_expansions` and ``deadline``:
    its result, 422 when out of expansions, 503 when out of time."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise timed_out("the search", limits.max_seconds)
    status = search.step(max_expansions=limits.max_expansions, max_seconds=left)
    result: PathResult = search.result()
    if status is Status.RUNNING:
        if result.stats.expanded >= limits.max_expansions:
            raise over_budget(result.stats.expanded, limits)
        raise timed_out("the search", limits.max_seconds)
    return result


def flow_json(flow: FlowField) -> dict[str, Any]:
    """A flow field as JSON: ``codes`` (per cell the index into ``directions`` of its step,
    ``goal`` at a goal, ``none`` on walls and unreachable cells) and ``field`` (the
    integration field, ``None`` where unreachable), both indexed ``[y][x]``."""
    return {"shape": list(flow.codes.shape), "directions": [list(d) for d in DIRECTIONS],
            "goal": GOAL, "none": NONE, "codes": flow.codes.tolist(),
            "field": numbers(flow.field)}
