"""Exact Euclidean shortest paths over a navigation mesh: Polyanya (Cui, Harabor and
Grastien, 2017), an any-angle search whose nodes are intervals of the mesh's edges seen from
a root (the start or a corner the path bends round); see ``_kernels/_polyanya.pyx``.

It searches the mesh itself, with no preprocessing: the path is the shortest in the union
of the usable polygons, where :meth:`NavMeshQuery.find_path
<wayfinding.navmesh.NavMeshQuery.find_path>` takes the straight path through the corridor
A* found, which may be longer.  Lengths are Euclidean: area costs other than 1 and off-mesh
links are not part of this search.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._kernels._polyanya import PolyanyaKernel
from .._scratch import SingleThread, busy_error
from .._validate import flag, xy
from ..errors import InvalidQueryError
from ..results import SearchStats, Status
from .records import DEFAULT_FILTER, END, START, LazyNavPath, NavPath, QueryFilter, set_unset

if TYPE_CHECKING:
    from .mesh import NavMesh

# Results are filled field by field: a NavPath's generated __init__ costs about as much as
# the search on a small mesh.
_new = object.__new__
_STATUS = (Status.FAILED, Status.FOUND, Status.PARTIAL)


class _ExactPath(LazyNavPath):
    """The :class:`NavPath` of :meth:`PolyanyaSearch.find_path`: the path, cost, found and
    status are set at once, the other fields made when first read from ``_got``: (code
    (0 failed, 1 found, 2 partial), the kernel's answer, start (x, y), goal (x, y),
    snapped start, snapped goal, seconds)."""

    __slots__ = ()

    def _unpack(self) -> None:
        """Set every field still unset from the search's answer."""
        code, got, s, g, snap_s, snap_g, seconds = self._got
        stats = _new(SearchStats)
        stats.expanded, stats.generated, stats.elapsed = got[3], got[4], seconds
        stats.reopened = stats.updated = stats.max_open = 0
        if code:
            n = len(got[6])
            flags = np.zeros(n, np.uint8)
            flags[0] = START
            flags[n - 1] |= END
            owners, corridor = got[7], got[8]
        else:
            flags, owners, corridor = (np.empty(0, np.uint8), np.empty(0, np.int32),
                                       np.empty(0, np.int32))
        set_unset(self, {"start": np.array(s), "goal": np.array(g), "flags": flags,
                         "corner_polygons": owners, "corridor": corridor,
                         "links": np.empty(0, np.int32), "stats": stats,
                         "algorithm": "polyanya", "expanded_nodes": None, "open_nodes": None,
                         "snapped_start": snap_s, "snapped_goal": snap_g})


def wall_corners(mesh: NavMesh, use: np.ndarray) -> np.ndarray:
    """``(V,)`` uint8: 1 for a vertex a wall of the usable polygons (``use``, ``(P,)``
    bool) ends at, an edge with no usable polygon across."""
    polys, sizes, neigh = mesh.polygons, mesh.sizes, mesh.neighbours
    k = np.arange(polys.shape[1])
    real = k[None, :] < sizes[:, None]
    nxt = polys[np.arange(len(sizes))[:, None], (k[None, :] + 1) % sizes[:, None]]
    across = np.where(neigh >= 0, use[np.maximum(neigh, 0)] & (neigh >= 0), False)
    wall = real & use[:, None] & ~across
    corner = np.zeros(len(mesh.vertices), np.uint8)
    corner[polys[wall]] = 1
    corner[nxt[wall]] = 1
    return corner


class PolyanyaSearch(SingleThread):
    """Exact shortest paths on one :class:`~wayfinding.navmesh.NavMesh` (see the module),
    with their own search scratch: one thread at a time (a second thread's call raises
    :class:`~wayfinding.errors.ConcurrentUseError`); make one per thread.

    >>> from wayfinding.navmesh import NavMesh
    >>> mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
    ...                      holes=[[(4, 3), (6, 3), (6, 8), (4, 8)]])
    >>> r = PolyanyaSearch(mesh).find_path((1, 5), (9, 5))
    >>> r.path.round(6).tolist(), round(r.cost, 6)
    ([[1.0, 5.0], [4.0, 3.0], [6.0, 3.0], [9.0, 5.0]], 9.211103)
    """

    def __init__(self, mesh: NavMesh):
        if not hasattr(mesh, "_directed_links"):
            raise InvalidQueryError(f"PolyanyaSearch needs a NavMesh, got "
                                    f"{type(mesh).__name__}")
        self.mesh = mesh
        self._kernel = PolyanyaKernel(mesh.vertices, mesh.polygons, mesh.sizes,
                                      mesh.neighbours, *mesh._buckets)
        self._usable_arrays: dict[Any, tuple[np.ndarray, np.ndarray]] = {}
        # The filter of the last query and its arrays: the common case skips the lookup.
        self._last: tuple[Any, ...] = (None,)

    def __repr__(self) -> str:
        return f"PolyanyaSearch({self.mesh!r})"

    def _usable(self, f: QueryFilter) -> tuple[np.ndarray, np.ndarray]:
        """The usable polygons under a filter (``(P,)`` uint8) and the corners of their
        union (``(V,)`` uint8, 1 for a vertex on a wall: an edge with no usable polygon
        across), computed once per filter."""
        if not isinstance(f, QueryFilter):
            raise InvalidQueryError(f"filter must be a QueryFilter, got {type(f).__name__}")
        got = self._usable_arrays.get(f.key)
        if got is None:
            mesh = self.mesh
            costs = f.area_costs()[mesh.areas]
            use = f.usable(mesh.flags, mesh.areas)
            if not np.all(costs[use] == 1.0):
                raise InvalidQueryError(f"filter {f!r} gives areas costs other than 1; the "
                                        "exact search measures length only")
            got = self._usable_arrays[f.key] = (use.astype(np.uint8), wall_corners(mesh, use))
        return got

    def _reachable(self, start: int, allowed: np.ndarray) -> np.ndarray:
        """``(P,)`` uint8: the usable polygons reached from ``start`` through portals."""
        neigh = self.mesh.neighbours
        usable = allowed.astype(bool)
        seen = np.zeros(len(usable), dtype=bool)
        seen[start] = True
        front = np.array([start])
        while len(front):
            nxt = neigh[front].ravel()
            nxt = nxt[nxt >= 0]
            front = np.unique(nxt[usable[nxt] & ~seen[nxt]])
            seen[front] = True
        return seen.astype(np.uint8)

    def find_path(self, start: ArrayLike, goal: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER,
                  partial: bool = False) -> NavPath:
        """The shortest path from ``start`` to ``goal`` (world points) in the union of the
        usable polygons, as :meth:`NavMeshQuery.find_path
        <wayfinding.navmesh.NavMeshQuery.find_path>` gives its paths: a point off the mesh
        (or on an unusable polygon) is moved to the nearest usable polygon; no route gives
        ``found=False`` (``status`` FAILED), or with ``partial=True`` the shortest path to
        the nearest point to the goal that the start reaches (``status`` PARTIAL).

        ``corridor``: the polygons the search went through to the goal (round each bend,
        the polygons about the corner); ``links`` is empty (off-mesh links are not
        searched).  A filter whose usable areas cost other than 1 raises
        :class:`~wayfinding.errors.InvalidQueryError`.
        """
        # The guard of :func:`~wayfinding._scratch.exclusive` written out: a call layer
        # costs a tenth of a small mesh's search.
        busy = self._busy
        if not busy.acquire():
            raise busy_error(self, "find_path")
        try:
            return self._find_path(start, goal, filter, partial)
        finally:
            busy.release()

    def _find_path(self, start: ArrayLike, goal: ArrayLike, filter: QueryFilter,
                   partial: bool) -> NavPath:
        """:meth:`find_path` without the guard."""
        t0 = time.perf_counter()
        if type(partial) is not bool:
            partial = flag("partial", partial)
        last = self._last
        if filter is last[0]:
            allowed, corner = last[1], last[2]
        else:
            allowed, corner = self._usable(filter)
            self._last = (filter, allowed, corner)
        at = self._kernel.find_at(allowed, corner, start, goal)
        if at is None:                      # not plain points: check them the slow way
            sx, sy = xy("start", start)
            gx, gy = xy("goal", goal)
            got = self._kernel.find(allowed, corner, sx, sy, gx, gy)
        else:
            sx, sy, gx, gy, got = at
        snap_s = snap_g = False
        if got[0] < 0:                      # an end off the usable mesh: move it onto it
            near, ends = self.mesh._nearest(np.array([[sx, sy], [gx, gy]]), allowed)
            ps, pg = got[1], got[2]
            snap_s, snap_g = ps < 0, pg < 0
            if snap_s:
                ps, (sx, sy) = near[0], ends[0].tolist()
            if snap_g:
                pg, (gx, gy) = near[1], ends[1].tolist()
            if ps >= 0 and pg >= 0:
                got = self._kernel.find(allowed, corner, sx, sy, gx, gy, int(ps), int(pg))
        code = got[0]
        if code == 0 and partial:
            ps = got[1]
            near, end = self.mesh._nearest(np.array([[gx, gy]]), self._reachable(ps, allowed))
            more = self._kernel.find(allowed, corner, sx, sy, end[0, 0], end[0, 1], ps,
                                     int(near[0]))
            got = (2 if more[0] == 1 else 0, ps, more[2], got[3] + more[3], got[4] + more[4],
                   *more[5:])
            code = got[0]
        elif code < 0:
            code = 0
        r = _new(_ExactPath)
        r._got = (code, got, (sx, sy), (gx, gy), snap_s, snap_g, time.perf_counter() - t0)
        r.status = _STATUS[code]
        r.found = code == 1
        if code:
            r.path, r.cost = got[6], got[5]
        else:
            r.path, r.cost = np.empty((0, 2)), math.inf
        return r
