"""The browser playground: :func:`playground_routes` gives the Starlette routes of a single
page (plain JavaScript, no build step) and of the small JSON API it calls on worlds the user
draws.  Every answer is computed by the library; the page only draws and animates.

Routes (errors ``{"error", "detail"}`` with 400 for bad JSON or input, 413 for a body or a
world over the limits, 422 when a search would take more than ``max_slices`` slices, 501
for a navmesh or crowd without shapely, the ``[geometry]`` extra):

- ``GET /`` and ``GET /playground``: the page; ``GET /playground/static/{name}``: its script
  and style sheet.
- ``GET /playground/api/methods``: the grid path methods (``name``, ``description``,
  ``sliced``: runs in slices, ``recorded``: the expansion order is given, ``diagonals``: the
  diagonal rules it takes, ``weighted``: whether it takes weighted grids), the diagonal
  rules and the limits.
- ``POST /playground/api/grid``: ``{"width", "height", "cells", "start", "goal", "method",
  "diagonal", "slice"}``; ``cells`` is a string of ``width * height`` characters, row by
  row (``y`` down), ``#`` a wall, ``.`` or ``1`` cost 1, ``2``..``9`` that cost; ``slice``
  defaults to about 1/200 of the cells.  The answer is the path result (as the path
  service gives it, ``path`` in cells, or corner points in cell units where ``polyline``
  is true), ``build_time`` (seconds spent building a preprocessed method's indexes),
  ``slices`` (the counters after each slice of at most ``slice`` expansions:
  ``expanded``, ``generated``, ``elapsed`` seconds; one slice for a method that does not
  run in slices) and ``expanded_nodes`` / ``open_nodes`` (``[[x, y], ...]`` in expansion
  order, or ``null`` where the method does not record them).
- ``POST /playground/api/navmesh``: ``{"width", "height", "obstacles", "radius", "start",
  "goal"}`` (obstacles: polygons ``[[x, y], ...]`` inside the ``width`` x ``height``
  rectangle): the :class:`~wayfinding.navmesh.NavMesh` built for that agent radius
  (``polygons``: vertex lists), the path query's ``path``, ``cost``, ``found``,
  ``corridor`` (polygon ids) and ``portals`` (``[[x, y], [x, y]]`` per step of the
  corridor, as the path service gives them).
- ``POST /playground/api/flow``: a grid as above with ``goal`` and ``method``
  (``"eikonal"`` or ``"dijkstra"``): the :class:`~wayfinding.fields.FlowField` as the
  path service gives it (integration ``field``, ``null`` where unreachable, and direction
  ``codes``) with ``vectors`` (rows of unit ``[dx, dy]``, zero at the goal and on walls).
- ``POST /playground/api/crowd``: ``{"width", "height", "obstacles", "agents", "frames",
  "dt"}`` (default 100 frames of 0.1 s) with agents ``{"position", "goal", "radius",
  "max_speed"}`` (default 0.4 and 1.4): the agents stepped under
  :class:`~wayfinding.crowd.ORCA` (kept inside the rectangle and out of the obstacles),
  ``frames`` the positions after each step (``[frame][agent] = [x, y]``).
"""

from __future__ import annotations

import functools
import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import count, finite_point, number
from ..crowd import ORCA, Crowd
from ..errors import WayfindingError
from ..fields import FlowField
from ..grid.anyangle import ANY_ANGLE
from ..grid.grid import Grid
from ..grid.methods import GOAL_BOUNDS, METHODS, PREPROCESSED, make_solver
from ..grid.rules import Diagonal
from ..grid.search import GridSearch
from ..navmesh import NavMesh
from ..results import PathResult, Status
from . import protocol
from .grids import SLICED_METHODS, WHOLE_METHODS, flow_json
from .limits import Limits, Refused
from .meshes import corridor_portals

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

#: The folder of the page's files.
STATIC = Path(__file__).with_name("static")

#: The page's files served under ``/playground/static/``, with their media types.
_FILES = {"playground.html": "text/html", "playground.js": "text/javascript",
          "playground.css": "text/css"}

#: Preprocessed methods whose indexes are cheap to build per request on a small grid (goal
#: bounds run a search from every cell).
CHEAP_PREPROCESSED = tuple(m for m, e in PREPROCESSED.items() if GOAL_BOUNDS not in e.needs)

#: Every grid method the playground runs: sliced, whole, cheap preprocessed.
PLAYGROUND_METHODS = (*SLICED_METHODS, *WHOLE_METHODS, *CHEAP_PREPROCESSED)

_COSTS = {"#": math.inf, ".": 1.0, **{str(d): float(d) for d in range(1, 10)}}


def _int(body: dict[str, Any], field: str, low: int, high: int, default: int | None = None
         ) -> int:
    return count(field, body.get(field, default), min=low, max=high)


def _float(body: dict[str, Any], field: str, low: float, high: float,
           default: float | None = None) -> float:
    return number(field, body.get(field, default), min=low, max=high)


def _point(value: Any, field: str, width: float, height: float) -> tuple[float, float]:
    x, y = finite_point(field, value).tolist()
    if not (0 <= x <= width and 0 <= y <= height):
        raise Refused(400, "bad coordinates", f"{field} {value} is outside the {width:g}x"
                      f"{height:g} world")
    return x, y


class _Playground:
    def __init__(self, limits: Limits, max_cells: int, max_slices: int, max_agents: int,
                 max_frames: int, max_obstacle_vertices: int):
        self.limits = limits
        self.max_cells, self.max_slices = max_cells, max_slices
        self.max_agents, self.max_frames = max_agents, max_frames
        self.max_vertices = max_obstacle_vertices

    def grid(self, body: dict[str, Any]) -> Grid:
        side = self.max_cells
        width, height = _int(body, "width", 1, side), _int(body, "height", 1, side)
        if width * height > self.max_cells:
            raise Refused(413, "too large", f"the grid has {width}x{height} = "
                          f"{width * height} cells, over the limit of {self.max_cells}")
        cells = body.get("cells")
        if not isinstance(cells, str) or len(cells) != width * height:
            size = len(cells) if isinstance(cells, str) else type(cells).__name__
            raise Refused(400, "bad grid", f"cells must be a string of width x height = "
                          f"{width * height} characters, got {size}")
        bad = set(cells) - set(_COSTS)
        if bad:
            raise Refused(400, "bad grid", f"cells may hold only '#', '.' and '1'..'9', got "
                          f"{''.join(sorted(bad))!r}")
        costs = np.array([_COSTS[c] for c in cells]).reshape(height, width)
        diagonal = body.get("diagonal", Diagonal.NO_CORNER_CUTTING.value)
        if diagonal not in [d.value for d in Diagonal]:
            raise Refused(400, "bad input", f"diagonal must be one of "
                          f"{', '.join(d.value for d in Diagonal)}, got {json.dumps(diagonal)}")
        return Grid(costs, diagonal=diagonal)

    def world(self, body: dict[str, Any]) -> tuple[float, float, list[np.ndarray]]:
        """The rectangle's size and the obstacle polygons of a navmesh or crowd body."""
        width = _float(body, "width", 1.0, 10_000.0)
        height = _float(body, "height", 1.0, 10_000.0)
        obstacles = body.get("obstacles", [])
        if not isinstance(obstacles, list):
            raise Refused(400, "bad obstacles", "obstacles must be a list of polygons")
        polygons = []
        for i, poly in enumerate(obstacles):
            if not (isinstance(poly, list) and len(poly) >= 3):
                raise Refused(400, "bad obstacles", f"obstacles[{i}] must be a list of at "
                              f"least 3 points, got {json.dumps(poly)[:80]}")
            polygons.append(np.array([_point(p, f"obstacles[{i}][{k}]", width, height)
                                      for k, p in enumerate(poly)]))
        vertices = sum(len(p) for p in polygons)
        if vertices > self.max_vertices:
            raise Refused(413, "too large", f"the obstacles have {vertices} vertices, over "
                          f"the limit of {self.max_vertices}")
        return width, height, polygons

    async def page(self, request: Request) -> Response:
        from starlette.responses import FileResponse

        return FileResponse(STATIC / "playground.html", media_type="text/html")

    async def static(self, request: Request) -> Response:
        from starlette.responses import FileResponse

        name = request.path_params["name"]
        if name not in _FILES:
            return protocol.error(404, "not found", f"no playground file named {name!r}")
        return FileResponse(STATIC / name, media_type=_FILES[name])

    async def methods(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        applicable = await run_in_threadpool(_applicable)
        return JSONResponse({
            "methods": [{"name": m, "description": METHODS[m], "sliced": m in SLICED_METHODS,
                         "recorded": m in SLICED_METHODS and m != "bidirectional"
                         or m in WHOLE_METHODS and m not in ANY_ANGLE,
                         **applicable[m]} for m in PLAYGROUND_METHODS],
            "diagonals": [d.value for d in Diagonal],
            "limits": {"max_cells": self.max_cells, "max_slices": self.max_slices,
                       "max_agents": self.max_agents, "max_frames": self.max_frames}})

    async def handle(self, request: Request, work: Any) -> Response:
        """Read the body, run ``work(body)`` in the thread pool, answer its dict as JSON."""
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        try:
            data = await protocol.body(request, self.limits)
            return JSONResponse(await run_in_threadpool(work, data))
        except Refused as exc:
            return protocol.error(exc.status, exc.error, exc.detail)
        except WayfindingError as exc:
            return protocol.error(400, "bad request", str(exc))
        except ImportError as exc:          # navmeshes and crowd walls need [geometry]
            return protocol.error(501, "not installed", str(exc))

    def grid_search(self, body: dict[str, Any]) -> dict[str, Any]:
        grid = self.grid(body)
        size_xy = (grid.width, grid.height)
        start = protocol.coordinates(body.get("start"), "start", size_xy)
        goal = protocol.coordinates(body.get("goal"), "goal", size_xy)
        method = body.get("method", "astar")
        if type(method) is not str or method not in PLAYGROUND_METHODS:
            raise Refused(400, "unknown method", f"method {json.dumps(method)} is not one of "
                          f"{', '.join(PLAYGROUND_METHODS)}")
        cells = grid.width * grid.height
        # by default every cell fits in the slices, about 200 of them
        size = _int(body, "slice", 1, self.max_cells,
                    default=max(1, cells // 200, -(-cells // self.max_slices)))
        slices: list[dict[str, Any]] = []
        build = 0.0
        if method in SLICED_METHODS:
            sliced = GridSearch(grid).start(start, goal, method=method,
                                            record=method != "bidirectional")
            while sliced.step(max_expansions=size) is Status.RUNNING:
                if len(slices) + 1 >= self.max_slices:
                    raise Refused(422, "too many slices", f"the search needs more than "
                                  f"{self.max_slices} slices of {size} expansions; give a "
                                  "larger slice")
                s = sliced.stats
                slices.append({"expanded": s.expanded, "generated": s.generated,
                               "elapsed": s.elapsed})
            result = sliced.result()
        elif method in WHOLE_METHODS and method not in ANY_ANGLE:
            result = GridSearch(grid).find_path(start, goal, method=method, record=True)
        else:
            t0 = time.perf_counter()
            solver = make_solver(grid, method, progress=False)
            build = time.perf_counter() - t0
            result = solver(start, goal)
        s = result.stats
        slices.append({"expanded": s.expanded, "generated": s.generated, "elapsed": s.elapsed})
        return {**protocol.path_json(result), "method": method, "polyline": method in ANY_ANGLE,
                "build_time": build, "slices": slices, **self.recorded(result)}

    @staticmethod
    def recorded(result: PathResult) -> dict[str, Any]:
        return {name: None if value is None else np.asarray(value).tolist()
                for name, value in (("expanded_nodes", result.expanded_nodes),
                                    ("open_nodes", result.open_nodes))}

    def navmesh(self, body: dict[str, Any]) -> dict[str, Any]:
        width, height, holes = self.world(body)
        radius = _float(body, "radius", 0.0, min(width, height) / 2, default=0.0)
        start = _point(body.get("start"), "start", width, height)
        goal = _point(body.get("goal"), "goal", width, height)
        outline = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
        mesh = NavMesh.build(outline=outline, holes=holes, radius=radius)
        path = mesh.find_path(start, goal)
        return {"polygons": [mesh.polygon(i).tolist() for i in range(mesh.num_polygons)],
                "path": np.asarray(path.path).tolist(), "cost": protocol.number(path.cost),
                "found": bool(path.found), "status": path.status.value,
                "corridor": np.asarray(path.corridor).tolist(),
                "portals": corridor_portals(mesh, np.asarray(path.corridor)),
                "build_time": mesh.build_time}

    def flow(self, body: dict[str, Any]) -> dict[str, Any]:
        grid = self.grid(body)
        goal = protocol.coordinates(body.get("goal"), "goal", (grid.width, grid.height))
        method = body.get("method", "eikonal")
        if method not in ("eikonal", "dijkstra"):
            raise Refused(400, "unknown method", f"method {json.dumps(method)} is not one of "
                          "eikonal, dijkstra")
        t0 = time.perf_counter()
        flow = FlowField.build(grid, [goal], method=method)
        vectors = flow.vectors.tolist()
        return {**flow_json(flow), "vectors": vectors, "elapsed": time.perf_counter() - t0}

    def crowd(self, body: dict[str, Any]) -> dict[str, Any]:
        width, height, holes = self.world(body)
        frames = _int(body, "frames", 1, self.max_frames, default=min(100, self.max_frames))
        dt = _float(body, "dt", 0.01, 1.0, default=0.1)
        agents = body.get("agents")
        if not isinstance(agents, list) or not 1 <= len(agents) <= self.max_agents:
            raise Refused(400 if not isinstance(agents, list) or not agents else 413,
                          "bad agents", f"agents must be a list of 1 to {self.max_agents} "
                          f"agents, got {len(agents) if isinstance(agents, list) else agents!r}")
        crowd = Crowd()
        for i, agent in enumerate(agents):
            if not isinstance(agent, dict):
                raise Refused(400, "bad agents", f"agents[{i}] must be an object with "
                              "position and goal")
            crowd.add(_point(agent.get("position"), f"agents[{i}].position", width, height),
                      goal=_point(agent.get("goal"), f"agents[{i}].goal", width, height),
                      radius=_float(agent, "radius", 0.05, 5.0, default=0.4),
                      max_speed=_float(agent, "max_speed", 0.0, 10.0, default=1.4))
        outline = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
        orca = ORCA(time_horizon=2.0, time_horizon_obst=1.0,
                    obstacles=NavMesh.build(outline=outline, holes=holes))
        t0 = time.perf_counter()
        out = []
        for _ in range(frames):
            orca.step(crowd, dt)
            out.append(crowd.position.tolist())
        return {"frames": out, "radius": crowd.radius.tolist(), "dt": dt,
                "elapsed": time.perf_counter() - t0}


@functools.cache
def _applicable() -> dict[str, dict[str, Any]]:
    """Per method, the grids it answers on, found by asking it on 3x3 grids: ``diagonals``,
    the diagonal rules it takes on uniform grids, and ``weighted``, whether it takes weighted
    grids (with the rule ``no_corner_cutting``)."""
    out: dict[str, dict[str, Any]] = {}
    uniform, weighted = np.ones((3, 3)), np.ones((3, 3))
    weighted[1, 1] = 2.0

    def answers(costs: np.ndarray, diagonal: Diagonal, method: str) -> bool:
        grid = Grid(costs, diagonal=diagonal)
        try:
            make_solver(grid, method, progress=False)((0, 0), (2, 2))
        except WayfindingError:
            return False
        return True

    for m in PLAYGROUND_METHODS:
        out[m] = {"diagonals": [d.value for d in Diagonal if answers(uniform, d, m)],
                  "weighted": answers(weighted, Diagonal.NO_CORNER_CUTTING, m)}
    return out


def playground_routes(*, max_body_bytes: int = 256 * 1024, max_cells: int = 256 * 256,
                      max_slices: int = 10_000, max_agents: int = 200, max_frames: int = 1000,
                      max_obstacle_vertices: int = 2000) -> list[Route]:
    """The routes of the playground page and its API (see the module docstring).

    ``max_body_bytes``: largest request body (413 beyond); ``max_cells``: largest
    grid (width x height cells; 413 beyond); ``max_slices``: slices one grid search may take
    (422 beyond); ``max_agents``, ``max_obstacle_vertices``: the largest crowd and number of
    obstacle vertices of one request (413 beyond); ``max_frames``: most crowd steps of one
    request (400 beyond).  Mount
    them in any Starlette app (``Starlette(routes=playground_routes())``).  Needs the
    ``[serve]`` extra (starlette).
    """
    from starlette.routing import Route

    play = _Playground(Limits(max_body_bytes=max_body_bytes), count("max_cells", max_cells),
                       count("max_slices", max_slices), count("max_agents", max_agents),
                       count("max_frames", max_frames),
                       count("max_obstacle_vertices", max_obstacle_vertices))

    def api(work: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            return await play.handle(request, work)
        return endpoint

    return [Route("/", play.page, methods=["GET"]),
            Route("/playground", play.page, methods=["GET"]),
            Route("/playground/static/{name}", play.static, methods=["GET"]),
            Route("/playground/api/methods", play.methods, methods=["GET"]),
            Route("/playground/api/grid", api(play.grid_search), methods=["POST"]),
            Route("/playground/api/navmesh", api(play.navmesh), methods=["POST"]),
            Route("/playground/api/flow", api(play.flow), methods=["POST"]),
            Route("/playground/api/crowd", api(play.crowd), methods=["POST"])]
