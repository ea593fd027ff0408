"""The path service: :func:`create_app` builds a Starlette ASGI app over grid worlds.

Routes (every answer JSON unless asked otherwise; every error ``{"error", "detail"}``):

- ``GET /worlds``: each world's name, width, height, diagonal rule and path methods.
- ``POST /worlds/{name}/path`` with ``{"start": [x, y], "goal": [x, y], "method": "astar"}``:
  the :class:`~wayfinding.results.PathResult` as ``path`` (``[[x, y], ...]``), ``cost``
  (``null`` when not found), ``found``, ``status`` and ``stats``.  ``method`` is one of
  :data:`SLICED_METHODS` (default ``"astar"``), whose search runs in slices of at most
  :attr:`Limits.max_expansions` expansions and answers 422 when that is not enough; one of
  :data:`WHOLE_METHODS` or of the world's indexed methods, answering 422 when the finished
  search made more expansions than that.
- ``POST /worlds/{name}/distance`` with ``{"sources": [[x, y], ...]}``: the distance map
  (cost from the nearest source to every cell, indexed ``[y][x]``) as nested lists with
  ``null`` where unreachable; with ``Accept: application/octet-stream`` the raw float64
  little-endian array (``inf`` where unreachable), its shape ``H,W`` in the ``X-Shape``
  header.
- ``GET /openapi.json``: the OpenAPI 3.1 schema of these routes.

Status codes: 400 for bad JSON, bad coordinates or an unknown method, 404 for an unknown
world or route, 405 for a wrong HTTP method, 413 for a body over
:attr:`Limits.max_body_bytes`, 422 when a search runs out of its expansion budget.
Queries run in Starlette's thread pool (the kernels release the GIL), each thread with its
own :class:`~wayfinding.grid.search.GridSearch` per world.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import __version__
from ..errors import InvalidQueryError, WayfindingError
from ..grid.anyangle import ANY_ANGLE
from ..grid.grid import Grid
from ..grid.index import GridIndex
from ..grid.jps import ONLINE_RULES
from ..grid.methods import PREPROCESSED, Solver, make_solver
from ..grid.movingai import read_map
from ..grid.search import ALGORITHMS, GridSearch
from ..results import PathResult, Status

if TYPE_CHECKING:       # starlette is imported when an app is made: wayfinding imports without it
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response

#: The path methods every world answers that run in slices (the budget stops them early).
SLICED_METHODS = tuple(m for m in ALGORITHMS if m not in ONLINE_RULES)

#: The path methods every world answers that need no index but do not run in slices (the
#: budget is checked on the finished search's expansions).
WHOLE_METHODS = (*ONLINE_RULES, *ANY_ANGLE)


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Limits of the service.

    ``max_body_bytes``: largest request body (bytes; 413 beyond); ``max_cells``: largest
    world loaded (width x height cells; :func:`create_app` refuses larger ones);
    ``max_expansions``: expansions one path request may make (422 beyond).
    """

    max_body_bytes: int = 64 * 1024
    max_cells: int = 4096 * 4096
    max_expansions: int = 1_000_000

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_cells", "max_expansions"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise InvalidQueryError(f"Limits.{name} must be a positive int, got {value!r}")


class _Refused(Exception):
    """A request answered with a 4xx status and a JSON error."""

    def __init__(self, status: int, error: str, detail: str):
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail


def _error(status: int, error: str, detail: str) -> JSONResponse:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": error, "detail": detail}, status_code=status)


def _load(name: str, world: Any, limits: Limits) -> Grid:
    if isinstance(world, Grid):
        grid = world
    elif isinstance(world, (str, os.PathLike)):
        grid = read_map(world)
    else:
        raise InvalidQueryError(f"world {name!r} must be a Grid or the path of a Moving AI "
                                f".map file, got {type(world).__name__}")
    if grid.width * grid.height > limits.max_cells:
        raise InvalidQueryError(
            f"world {name!r} has {grid.width}x{grid.height} = {grid.width * grid.height} "
            f"cells, more than the limit of {limits.max_cells}")
    return grid


def _cell(value: Any, field: str, grid: Grid) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2
            and all(type(v) is int for v in value)):
        raise _Refused(400, "bad coordinates", f"{field} must be [x, y] integers, got "
                       f"{json.dumps(value)}")
    x, y = value
    if not (0 <= x < grid.width and 0 <= y < grid.height):
        raise _Refused(400, "bad coordinates", f"{field} {value} is outside the "
                       f"{grid.width}x{grid.height} world")
    if not grid.is_passable((x, y)):
        raise _Refused(400, "bad coordinates", f"{field} {value} is a blocked cell")
    return x, y


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _path_json(result: PathResult) -> dict[str, Any]:
    """A path result as a JSON-ready dict (``cost`` ``None`` when not found)."""
    s = result.stats
    return {"path": np.asarray(result.path).tolist(), "cost": _number(result.cost),
            "found": bool(result.found), "status": result.status.value,
            "algorithm": result.algorithm,
            "stats": {"expanded": s.expanded, "generated": s.generated,
                      "reopened": s.reopened, "updated": s.updated,
                      "max_open": s.max_open, "elapsed": s.elapsed}}


_POINT = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
          "description": "a cell (x, y)"}
_ERROR = {"description": "bad request", "content": {"application/json": {"schema": {
    "$ref": "#/components/schemas/Error"}}}}
_NAME = [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"},
          "description": "the world's name"}]


def openapi_schema() -> dict[str, Any]:
    """The OpenAPI 3.1 schema of the service's routes."""
    errors = {code: {**_ERROR, "description": text} for code, text in (
        ("400", "bad JSON, coordinates or method"), ("404", "unknown world"),
        ("413", "request body too large"), ("422", "out of the expansion budget"))}
    return {
        "openapi": "3.1.0",
        "info": {"title": "wayfinding path service", "version": __version__},
        "paths": {
            "/worlds": {"get": {"summary": "the loaded worlds", "operationId": "listWorlds",
                                "responses": {"200": {"description": "worlds", "content": {
                                    "application/json": {"schema": {"type": "object"}}}}}}},
            "/worlds/{name}/path": {"post": {
                "summary": "a path from start to goal", "operationId": "findPath",
                "parameters": _NAME,
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "required": ["start", "goal"],
                               "properties": {"start": _POINT, "goal": _POINT,
                                              "method": {
                                   "type": "string", "default": "astar",
                                   "description": "a method the world lists"}}}}}},
                "responses": {"200": {"description": "the path result", "content": {
                    "application/json": {"schema": {
                        "$ref": "#/components/schemas/PathResult"}}}}, **errors}}},
            "/worlds/{name}/distance": {"post": {
                "summary": "cost from the nearest source to every cell",
                "operationId": "distanceMap", "parameters": _NAME,
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "required": ["sources"], "properties": {
                        "sources": {"type": "array", "items": _POINT, "minItems": 1}}}}}},
                "responses": {"200": {
                    "description": "rows of costs, null where unreachable; or float64 "
                                   "little-endian bytes, shape in the X-Shape header",
                    "content": {
                        "application/json": {"schema": {"type": "object"}},
                        "application/octet-stream": {"schema": {
                            "type": "string", "contentMediaType": "application/octet-stream"}}}},
                    **{k: v for k, v in errors.items() if k != "422"}}}},
            "/openapi.json": {"get": {"summary": "this schema", "operationId": "openapi",
                                      "responses": {"200": {"description": "OpenAPI 3.1"}}}},
        },
        "components": {"schemas": {
            "Error": {"type": "object", "required": ["error", "detail"], "properties": {
                "error": {"type": "string"}, "detail": {"type": "string"}}},
            "PathResult": {"type": "object", "properties": {
                "path": {"type": "array", "items": _POINT},
                "cost": {"type": ["number", "null"]}, "found": {"type": "boolean"},
                "status": {"type": "string"}, "algorithm": {"type": "string"},
                "stats": {"type": "object"}}}}},
    }


class _Service:
    def __init__(self, worlds: Mapping[str, Any], limits: Limits,
                 indexed: Mapping[str, Iterable[str]]):
        self.limits = limits
        self.grids = {str(k): _load(str(k), v, limits) for k, v in worlds.items()}
        self._local = threading.local()
        self.methods = {k: [*SLICED_METHODS, *WHOLE_METHODS] for k in self.grids}
        self.indexes: dict[str, list[GridIndex]] = {k: [] for k in self.grids}
        for name, methods in indexed.items():
            if name not in self.grids:
                raise InvalidQueryError(f"indexed names world {name!r}, which is not loaded")
            for method in methods:
                if method not in PREPROCESSED:
                    raise InvalidQueryError(f"indexed method {method!r} of world {name!r} is "
                                            f"not one of {', '.join(PREPROCESSED)}")
                # builds the indexes the method needs (once; shared by every thread, each
                # of which keeps its own query scratch)
                solver = make_solver(self.grids[name], method, indexes=self.indexes[name],
                                     progress=False)
                self.indexes[name].extend(solver.built)
                self.methods[name].append(method)

    def solver(self, name: str, method: str) -> Solver:
        """This thread's solver of ``method`` (a whole or indexed method) on world ``name``."""
        own: dict[tuple[str, str], Solver] | None = getattr(self._local, "solvers", None)
        if own is None:
            own = self._local.solvers = {}
        key = (name, method)
        if key not in own:
            own[key] = make_solver(self.grids[name], method, indexes=self.indexes[name])
        return own[key]

    def search(self, name: str) -> GridSearch:
        """This thread's search object for world ``name``."""
        own: dict[str, GridSearch] | None = getattr(self._local, "searches", None)
        if own is None:
            own = self._local.searches = {}
        if name not in own:
            own[name] = GridSearch(self.grids[name])
        return own[name]

    def world(self, request: Request) -> str:
        name = request.path_params["name"]
        if name not in self.grids:
            raise _Refused(404, "unknown world", f"no world named {name!r}; the worlds are "
                           f"{', '.join(self.grids)}")
        return str(name)

    async def body(self, request: Request) -> dict[str, Any]:
        size = request.headers.get("content-length")
        limit = self.limits.max_body_bytes
        if size is not None and size.isdigit() and int(size) > limit:
            raise _Refused(413, "too large", f"the body has {size} bytes, over the limit of "
                           f"{limit}")
        data = b""
        async for chunk in request.stream():
            data += chunk
            if len(data) > limit:
                raise _Refused(413, "too large", f"the body is over the limit of {limit} "
                               "bytes")
        try:
            value = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _Refused(400, "bad JSON", f"the body is not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise _Refused(400, "bad JSON", "the body must be a JSON object")
        return value

    async def list_worlds(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        return JSONResponse({"worlds": [
            {"name": k, "width": g.width, "height": g.height, "diagonal": g.diagonal.value,
             "methods": self.methods[k]} for k, g in self.grids.items()]})

    async def path(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        name = self.world(request)
        body = await self.body(request)
        grid = self.grids[name]
        start = _cell(body.get("start"), "start", grid)
        goal = _cell(body.get("goal"), "goal", grid)
        method = body.get("method", "astar")
        methods = self.methods[name]
        if type(method) is not str or method not in methods:
            raise _Refused(400, "unknown method", f"method {json.dumps(method)} is not one "
                           f"of {', '.join(methods)} on world {name!r}")
        budget = self.limits.max_expansions

        def run() -> PathResult:
            if method not in SLICED_METHODS:
                return self.solver(name, method)(start, goal)
            sliced = self.search(name).start(start, goal, method=method)
            sliced.step(max_expansions=budget)
            return sliced.result()

        result = await run_in_threadpool(run)
        if result.status is Status.RUNNING or result.stats.expanded > budget:
            raise _Refused(422, "out of budget", f"the search made {result.stats.expanded} "
                           f"expansions, the limit per request, before it could end")
        return JSONResponse(_path_json(result))

    async def distance(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse, Response

        name = self.world(request)
        body = await self.body(request)
        grid = self.grids[name]
        sources = body.get("sources")
        if not isinstance(sources, list) or not sources:
            raise _Refused(400, "bad coordinates", "sources must be a non-empty list of "
                           "[x, y] cells")
        cells = [_cell(s, f"sources[{i}]", grid) for i, s in enumerate(sources)]
        out = await run_in_threadpool(lambda: self.search(name).distance_map(cells))
        if "application/octet-stream" in request.headers.get("accept", ""):
            return Response(out.astype("<f8").tobytes(), media_type="application/octet-stream",
                            headers={"X-Shape": f"{out.shape[0]},{out.shape[1]}"})
        rows = [[float(v) if np.isfinite(v) else None for v in row] for row in out.tolist()]
        return JSONResponse({"shape": list(out.shape), "distance": rows})

    async def openapi(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        return JSONResponse(openapi_schema())


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, _Refused)
    return _error(exc.status, exc.error, exc.detail)


async def _http(request: Request, exc: Exception) -> Response:
    from starlette.exceptions import HTTPException

    assert isinstance(exc, HTTPException)
    return _error(exc.status_code, "not found" if exc.status_code == 404 else "bad request",
                  str(exc.detail))


async def _library(request: Request, exc: Exception) -> Response:
    return _error(400, "bad request", str(exc))


def create_app(worlds: Mapping[str, Grid | str | os.PathLike[str]], *,
               limits: Limits = Limits(),
               indexed: Mapping[str, Iterable[str]] | None = None) -> Starlette:
    """An ASGI app answering path and distance-map queries on ``worlds``.

    ``worlds``: name -> :class:`~wayfinding.grid.grid.Grid` or path of a Moving AI ``.map``
    file, loaded here once (the diagonal rule is each grid's own).  Every world answers the
    methods of :data:`SLICED_METHODS` and :data:`WHOLE_METHODS`; ``indexed``: world name ->
    names of preprocessed methods (``grid.methods.PREPROCESSED``: ``"jps_plus"``,
    ``"subgoal"``, ...) whose indexes are built here, once, for that world.  Raises
    :class:`~wayfinding.errors.InvalidQueryError` for a world over ``limits.max_cells`` and
    :class:`~wayfinding.errors.MapFormatError` for a bad file.  Serve it with any ASGI server
    (``uvicorn.run(app)``, or ``wayfinding serve``).  Needs the ``[serve]`` extra
    (starlette; ImportError without it).
    """
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    if not isinstance(limits, Limits):
        raise InvalidQueryError(f"limits must be a Limits, got {type(limits).__name__}")
    service = _Service(worlds, limits, indexed or {})
    routes = [Route("/worlds", service.list_worlds, methods=["GET"]),
              Route("/worlds/{name}/path", service.path, methods=["POST"]),
              Route("/worlds/{name}/distance", service.distance, methods=["POST"]),
              Route("/openapi.json", service.openapi, methods=["GET"])]
    return Starlette(routes=routes, exception_handlers={
        _Refused: _refused, HTTPException: _http, WayfindingError: _library})
