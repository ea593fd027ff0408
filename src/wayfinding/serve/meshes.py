"""Navigation-mesh worlds: 2D meshes (:class:`~wayfinding.navmesh.NavMesh`, searched by A*
over polygons or exactly by Polyanya; :class:`~wayfinding.navmesh.ClearanceMesh`, for an
agent of any radius) and 3D voxel navmeshes (:class:`~wayfinding.navmesh3d.NavMesh3D`, the
nearest polygons as the library snaps to them, searched in slices)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import finite_point, positive_float
from ..navmesh import ClearanceMesh, NavMesh, NavMeshQuery, NavPath
from ..navmesh3d import NavMesh3D, NavMesh3DQuery, with_flags
from ..results import PathResult
from .grids import sliced
from .limits import BadCoordinates, BadRequest, Limits, check_deadline, over_budget
from .protocol import numbers, option, path_json
from .worlds import World

#: The methods of a 2D :class:`NavMesh` world (:meth:`NavMeshQuery.find_path`'s).
MESH_METHODS = ("astar", "polyanya")
#: The method of a :class:`ClearanceMesh` world (its ``find_path`` with a ``radius``).
CLEARANCE_METHODS = ("clearance",)
#: The method of a :class:`NavMesh3D` world (:meth:`NavMesh3DQuery.start`, in slices).
MESH3D_METHODS = ("astar",)


def _point(value: Any, field: str, dim: int) -> np.ndarray:
    return finite_point(field, value, dim, error=BadCoordinates)


def _flag(body: dict[str, Any], name: str) -> bool:
    return bool(option(body, name, False, (False, True)))


class MeshWorld(World):
    """A 2D navigation mesh: a :class:`NavMesh` (each thread's :class:`NavMeshQuery`) or a
    :class:`ClearanceMesh`.  Points are world ``[x, y]`` numbers; a point off a
    :class:`NavMesh` moves to the nearest usable polygon, as its query moves it."""

    kind = "navmesh"

    def __init__(self, name: str, mesh: NavMesh | ClearanceMesh):
        clearance = isinstance(mesh, ClearanceMesh)
        super().__init__(name, list(CLEARANCE_METHODS if clearance else MESH_METHODS))
        self.mesh = mesh
        self.navigable = None if clearance else mesh

    @property
    def queries(self) -> tuple[str, ...]:       # type: ignore[override]
        return ("path",) if self.navigable is None else ("path", "crowds")

    def extent(self) -> dict[str, Any]:
        mesh = self.mesh
        if isinstance(mesh, ClearanceMesh):
            return {"mesh": "clearance", "triangles": mesh.num_triangles}
        return {"mesh": "polygons", "polygons": mesh.num_polygons}

    def path(self, body: dict[str, Any], limits: Limits, deadline: float) -> dict[str, Any]:
        """``start``, ``goal``, ``method``; ``partial`` (NavMesh); ``radius`` (ClearanceMesh,
        default 0); ``corridor``: also answer the polygons walked through (NavMesh:
        ``corridor``, and the edges crossed between them, ``portals``; ClearanceMesh: the
        triangles, ``channel``)."""
        start, goal = _point(body.get("start"), "start", 2), _point(body.get("goal"), "goal", 2)
        method = self.method(body, self.methods[0])
        corridor = _flag(body, "corridor")
        mesh = self.mesh
        extra: dict[str, Any] = {}
        if isinstance(mesh, ClearanceMesh):
            radius = positive_float("radius", body.get("radius", 0.0), allow_zero=True,
                                    error=BadRequest)
            try:
                clear = mesh.find_path(start, goal, radius=radius)
            except ValueError as exc:       # an end off the walkable area
                raise BadCoordinates(str(exc)) from None
            result: PathResult = clear
            extra["reason"] = clear.reason
            if corridor:
                extra["channel"] = np.asarray(clear.channel).tolist()
        else:
            partial = _flag(body, "partial")
            query = self.own("query", lambda: NavMeshQuery(mesh))
            nav = result = query.find_path(start, goal, partial=partial, method=method)
            extra.update(start=numbers(nav.start), goal=numbers(nav.goal),
                         snapped_start=bool(nav.snapped_start),
                         snapped_goal=bool(nav.snapped_goal))
            if corridor:
                extra.update(corridor=np.asarray(nav.corridor).tolist(),
                             portals=corridor_portals(mesh, np.asarray(nav.corridor)))
        check_deadline(deadline, "the search", limits)
        if result.stats.expanded > limits.max_expansions:
            raise over_budget(result.stats.expanded, limits)
        return {**path_json(result), **extra}


def corridor_portals(mesh: NavMesh, corridor: np.ndarray) -> list[Any]:
    """The boundary crossed from each polygon of ``corridor`` to the next (its whole run of
    edges: :meth:`NavMesh.shared_boundary`), ``[[x, y], [x, y]]`` in the polygon's
    counter-clockwise order (the walker's right end, then left), ``None``
    where an off-mesh link joins them."""
    ends = (mesh.shared_boundary(a, b) for a, b in zip(corridor[:-1].tolist(),
                                                        corridor[1:].tolist()))
    return [None if e is None else e.tolist() for e in ends]


class Mesh3DWorld(World):
    """A :class:`NavMesh3D` (each thread's :class:`NavMesh3DQuery`), its polygons flagged
    walkable by :func:`with_flags` when none has flags (as :func:`~wayfinding.navmesh3d.build`
    leaves them).  Points are world ``[x, y, z]`` (y up); each end moves to its nearest
    polygon within the query's half extents."""

    kind = "navmesh3d"
    queries = ("path",)

    def __init__(self, name: str, mesh: NavMesh3D):
        super().__init__(name, list(MESH3D_METHODS))
        if not any(t.polymesh.flags.any() for t in mesh.tiles):
            mesh = with_flags(mesh)
        self.mesh = mesh

    def extent(self) -> dict[str, Any]:
        return {"polygons": self.mesh.num_polygons, "tiles": len(self.mesh.tiles)}

    def path(self, body: dict[str, Any], limits: Limits, deadline: float) -> dict[str, Any]:
        """``start``, ``goal``, ``method``, ``partial``, ``corridor`` (also answer the
        polygons walked through)."""
        start, goal = _point(body.get("start"), "start", 3), _point(body.get("goal"), "goal", 3)
        self.method(body, "astar")
        partial = _flag(body, "partial")
        corridor = _flag(body, "corridor")
        query = self.own("query", lambda: NavMesh3DQuery(self.mesh))
        result = sliced(query.start(start, goal, partial=partial), limits, deadline)
        assert isinstance(result, NavPath)
        out = {**path_json(result), "start": numbers(result.start),
               "goal": numbers(result.goal)}
        if corridor:
            out["corridor"] = np.asarray(result.corridor).tolist()
        return out
