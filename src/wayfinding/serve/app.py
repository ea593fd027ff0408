"""The path service: :func:`create_app` builds a Starlette ASGI app over loaded worlds.

Routes (every answer JSON unless asked otherwise; every error ``{"error", "detail"}``):

- ``GET /worlds``: each world's name, ``kind`` (``grid``, ``navmesh``, ``navmesh3d``,
  ``voxel``), size, the ``queries`` it answers and its path ``methods``.
- ``POST /worlds/{name}/path`` with ``{"start", "goal", "method"}``: the
  :class:`~wayfinding.results.PathResult` as ``path``, ``cost`` (``null`` when not found),
  ``found``, ``status``, ``algorithm`` and ``stats``.  Grid worlds take cells ``[x, y]``
  and the methods of :data:`SLICED_METHODS` (default ``"astar"``, run in slices that stop
  at :attr:`Limits.max_expansions` expansions or the deadline), :data:`WHOLE_METHODS` and
  their indexed ones (checked when the search ends); navmesh worlds world points (see
  :mod:`.meshes`), voxel worlds voxels ``[x, y, z]`` (:mod:`.voxels`).
- ``POST /worlds/{name}/distance`` with ``{"sources": [[x, y], ...]}`` (grids): the
  distance map (cost from the nearest source to every cell, ``[y][x]``, ``null`` where
  unreachable).
- ``POST /worlds/{name}/flow`` with ``{"goals": [[x, y], ...], "method"}`` (grids): the
  flow field (:func:`.grids.flow_json`).
- ``POST /worlds/{name}/crowds``, ``GET|DELETE /crowds/{id}``, ``POST /crowds/{id}/step``:
  crowd sessions on grid and 2D navmesh worlds (:mod:`.crowds`).
- ``GET /openapi.json``: the OpenAPI 3.1 schema of these routes.

Binary form: with ``Accept: application/octet-stream`` the distance map (float64, ``inf``
where unreachable), the flow field (``"array": "codes"``, uint8, the default, or
``"field"``, float64) and a crowd (positions, ``(n, 2)`` float64) answer raw little-endian
bytes, the shape in ``X-Shape`` and the numpy dtype in ``X-Dtype``.

Status codes: 400 for bad JSON, bad coordinates or values, an unknown method or a query the
world's kind does not answer; 404 for an unknown world, crowd or route; 405 for a wrong HTTP
method; 409 for a crowd stepping for another request; 413 for a body over
:attr:`Limits.max_body_bytes`; 422 for a request over a limit (expansions, field cells,
agents, steps); 429 for a crowd over :attr:`Limits.max_crowds`; 503 for a request past
:attr:`Limits.max_seconds` (time runs out on the server's side: the same request may
succeed when it is less busy).  Queries run in Starlette's thread pool (the kernels release
the GIL), each thread with its own query object per world.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import InvalidQueryError, WayfindingError
from . import protocol
from .crowds import Crowds, Snapshot
from .grids import SLICED_METHODS, WHOLE_METHODS, GridWorld, flow_json
from .limits import DEFAULT_LIMITS, Limits, Refused
from .loading import open_world
from .playground import playground_routes
from .protocol import numbers, option
from .schema import openapi_schema
from .worlds import World

if TYPE_CHECKING:       # starlette is imported when an app is made: wayfinding imports without it
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["SLICED_METHODS", "WHOLE_METHODS", "Limits", "create_app", "openapi_schema"]

T = TypeVar("T")


class _Service:
    def __init__(self, worlds: Mapping[str, Any], limits: Limits,
                 indexed: Mapping[str, Iterable[str]]):
        self.limits = limits
        self.worlds: dict[str, World] = {str(k): open_world(str(k), v, limits)
                                         for k, v in worlds.items()}
        for name, methods in indexed.items():
            world = self.worlds.get(name)
            if world is None:
                raise InvalidQueryError(f"indexed names world {name!r}, which is not loaded")
            if not isinstance(world, GridWorld):
                raise InvalidQueryError(f"indexed names world {name!r}, a {world.kind} "
                                        "world: only grid worlds have indexed methods")
            world.add_indexes(methods)
        self.crowds = Crowds(limits)
        self._limiter: Any = None

    def world(self, request: Request, query: str) -> World:
        """The world the request names, which must answer ``query``."""
        name = request.path_params["name"]
        world = self.worlds.get(name)
        if world is None:
            raise Refused(404, "unknown world", f"no world named {name!r}; the worlds are "
                          f"{', '.join(self.worlds)}")
        if query not in world.queries:
            raise Refused(400, "unsupported query", f"world {name!r} is a {world.kind} world: "
                          f"it answers {', '.join(world.queries)}, not {query}")
        return world

    async def run(self, request: Request, query: str,
                  work: Callable[[World, dict[str, Any], float], Any]) -> Any:
        """Read the body and run ``work(world, body, deadline)`` in the thread pool."""
        deadline = self.limits.deadline()
        world = self.world(request, query)
        body = await protocol.body(request, self.limits)
        return await self.threaded(work, world, body, deadline)

    async def threaded(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` in a worker thread, at most ``limits.max_threads`` at once."""
        import anyio.to_thread

        if self._limiter is None:      # made in the event loop that serves the app
            self._limiter = anyio.CapacityLimiter(self.limits.max_threads)
        return await anyio.to_thread.run_sync(functools.partial(func, *args),
                                              limiter=self._limiter)

    async def list_worlds(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        return JSONResponse({"worlds": [w.describe() for w in self.worlds.values()]})

    async def path(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        answer = await self.run(request, "path", lambda w, b, d: w.path(b, self.limits, d))
        return JSONResponse(answer)

    async def distance(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        out = await self.run(request, "distance",
                             lambda w, b, d: _grid(w).distance(b, self.limits, d))
        if protocol.wants_binary(request):
            return protocol.binary(out)
        return JSONResponse({"shape": list(out.shape), "distance": numbers(out)})

    async def flow(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        def work(world: World, body: dict[str, Any], deadline: float) -> Any:
            array = option(body, "array", "codes", ("codes", "field"))
            return array, _grid(world).flow(body, self.limits, deadline)

        array, flow = await self.run(request, "flow", work)
        if protocol.wants_binary(request):
            return protocol.binary(flow.codes if array == "codes" else flow.field)
        return JSONResponse(flow_json(flow))

    async def create_crowd(self, request: Request) -> Response:
        session = await self.run(request, "crowds", lambda w, b, d: self.crowds.create(w, b))
        return _crowd(request, session.snapshot(), status=201)

    async def read_crowd(self, request: Request) -> Response:
        return _crowd(request, await self.threaded(self.crowds.read,
                                                   request.path_params["id"]))

    async def delete_crowd(self, request: Request) -> Response:
        from starlette.responses import Response

        self.crowds.delete(request.path_params["id"])
        return Response(status_code=204)

    async def step_crowd(self, request: Request) -> Response:
        deadline = self.limits.deadline()
        key = request.path_params["id"]
        self.crowds.get(key)
        body = await protocol.body(request, self.limits)
        return _crowd(request, await self.threaded(self.crowds.step, key, body, deadline))

    async def openapi(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        return JSONResponse(openapi_schema())


def _grid(world: World) -> GridWorld:
    assert isinstance(world, GridWorld)     # only grid worlds list the field queries
    return world


def _crowd(request: Request, snapshot: Snapshot, *, status: int = 200) -> Response:
    from starlette.responses import JSONResponse

    answer, positions = snapshot
    if protocol.wants_binary(request):
        response = protocol.binary(positions)
        response.status_code = status
        return response
    return JSONResponse(answer, status_code=status)


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return protocol.error(exc.status, exc.error, exc.detail)


async def _http(request: Request, exc: Exception) -> Response:
    from starlette.exceptions import HTTPException

    assert isinstance(exc, HTTPException)
    return protocol.error(exc.status_code,
                          "not found" if exc.status_code == 404 else "bad request",
                          str(exc.detail))


async def _library(request: Request, exc: Exception) -> Response:
    return protocol.error(400, "bad request", str(exc))


def create_app(worlds: Mapping[str, Any], *, limits: Limits = DEFAULT_LIMITS,
               indexed: Mapping[str, Iterable[str]] | None = None) -> Starlette:
    """An ASGI app answering path, distance-map, flow-field and crowd queries on ``worlds``.

    ``worlds``: name -> a world, loaded here once: a :class:`~wayfinding.grid.grid.Grid`,
    :class:`~wayfinding.navmesh.NavMesh` or :class:`~wayfinding.navmesh.ClearanceMesh`,
    :class:`~wayfinding.navmesh3d.NavMesh3D` (or a :class:`~wayfinding.navmesh3d.Level`,
    built into one with the default build settings) or :class:`~wayfinding.voxel.VoxelGrid`;
    or the path of a file, by its suffix: ``.map`` (Moving AI grid), ``.3dmap`` (Moving AI
    voxels), ``.npz`` (a mesh or voxel grid saved by the library, its kind read from the
    file's header), ``.obj``/``.gltf``/``.glb`` (a level, built as a Level is).  Every
    grid world answers the methods of :data:`SLICED_METHODS` and :data:`WHOLE_METHODS`;
    ``indexed``: grid world name -> names of preprocessed methods
    (``grid.methods.PREPROCESSED``: ``"jps_plus"``, ``"subgoal"``, ...) whose indexes are
    built here, once, for that world.  Raises :class:`~wayfinding.errors.InvalidQueryError`
    for another object or suffix, or a grid or voxel world over ``limits.max_cells``, and a
    :class:`~wayfinding.errors.FileFormatError` (or ``OSError``) for a file it cannot read.
    Serve it with any ASGI server (``uvicorn.run(app)``, or ``wayfinding serve``).  Needs
    the ``[serve]`` extra (starlette; ImportError without it).
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
              Route("/worlds/{name}/flow", service.flow, methods=["POST"]),
              Route("/worlds/{name}/crowds", service.create_crowd, methods=["POST"]),
              Route("/crowds/{id}", service.read_crowd, methods=["GET"]),
              Route("/crowds/{id}", service.delete_crowd, methods=["DELETE"]),
              Route("/crowds/{id}/step", service.step_crowd, methods=["POST"]),
              Route("/openapi.json", service.openapi, methods=["GET"]),
              *playground_routes()]
    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        Refused: _refused, HTTPException: _http, WayfindingError: _library}
    return Starlette(routes=routes, exception_handlers=handlers)
