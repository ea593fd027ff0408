"""The search domains of constraint-aware planning on a navigation mesh (Kapadia et al.):

- ``"tri"`` (:class:`TriangulationDomain`): the midpoints of the mesh's edges, with a
  transition both ways between every two edges of a polygon (six per triangle); built on
  the mesh triangulated and cut along the static annotations' borders, so that they have
  states;
- ``"dense"`` (:class:`DenseMeshDomain`): points every ``spacing`` world units, kept within
  ``spacing·√2/2`` of the mesh and clamped onto it, each linked to its 8 lattice
  neighbours where the segment stays on the mesh;
- ``"hybrid"`` (:class:`HybridDomain`): the dense domain plus "highways": every transition
  of the triangulation domain between the dense states nearest its ends;
- ``"adaptive"`` (:class:`~wayfinding.navmesh.adaptive_domain.AdaptiveDomain`): the dense
  domain's points with states that skip ahead in straight runs where no constraint acts.

Every transition's base cost is its length (world units); off-mesh links and area costs are
not part of these domains.  A query point joins its nearest states whose straight legs stay
on the mesh and cross no hard constraint, and two query points are joined straight where
that segment does (:meth:`~wayfinding.graph.constrained.ConstraintDomain.find_path`).
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import choice, finite_point, positive_float
from ..constraints import Annotation, Between, Disc, LineOfSight, Region, Side
from ..errors import InvalidQueryError
from ..geometry.nearest import PointIndex
from ..geometry.obstacles import segments_cross
from ..graph.constrained import ConstrainedPath, ConstraintDomain, Fields, checked
from . import build as _build
from .adaptive_domain import AdaptiveDomain
from .records import DEFAULT_FILTER, QueryFilter

if TYPE_CHECKING:
    from .mesh import NavMesh

#: The lattice directions of the dense domains, counter-clockwise from +x.
DIRECTIONS = np.array([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])

#: The domain kinds of :func:`constraint_domain`.
DOMAINS = ("tri", "dense", "hybrid", "adaptive")

#: Where a mesh keeps its walls (:func:`mesh_walls`).
_WALLS = "_constraint_walls"

#: Segments tested against the walls per block (bounds the temporary arrays).
_BLOCK = 2048


class MeshDomain(ConstraintDomain):
    """A :class:`~wayfinding.graph.constrained.ConstraintDomain` on a navigation mesh: the
    segments of its legs must stay on the mesh (``walkable``: the mesh whose walls decide
    that, when the domain is built on a re-triangulation of it; default ``mesh``)."""

    def __init__(self, mesh: NavMesh, points: Any, edges: Any, base_costs: Any, *,
                 walkable: NavMesh | None = None):
        super().__init__(points, edges, base_costs)
        self.mesh = mesh
        self.walkable = mesh if walkable is None else walkable

    def segments_free(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``(m,)`` bool: segment ``a[i]`` → ``b[i]`` stays on the walkable mesh (see
        :func:`segments_on_mesh`)."""
        return segments_on_mesh(self.walkable, a, b)

    @cached_property
    def _leg_piece(self) -> float:
        """Legs are costed in pieces of at most the lattice ``spacing`` in the dense kinds
        (so that they cost alike in each), else of the median transition length."""
        spacing = getattr(self, "spacing", None)
        return float(spacing) if spacing is not None else super()._leg_piece


def mesh_walls(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray]:
    """The mesh's walls, the edges of :meth:`NavMesh.boundary`'s loops: ``(w, 2)`` starts
    and ends (read-only; worked out once per mesh)."""
    walls = mesh.__dict__.get(_WALLS)
    if walls is None:
        loops = mesh.boundary()
        if loops:
            a = np.concatenate(loops)
            b = np.concatenate([np.roll(loop, -1, axis=0) for loop in loops])
        else:
            a = b = np.empty((0, 2))
        a.flags.writeable = b.flags.writeable = False
        walls = mesh.__dict__[_WALLS] = (a, b)
    return walls


def on_mesh(mesh: NavMesh, points: np.ndarray) -> np.ndarray:
    """``(n,)`` bool: each point lies on a polygon (its border included, within 1e-9 of the
    mesh's size)."""
    if not len(points):
        return np.zeros(0, dtype=bool)
    _, snapped = mesh._nearest(np.ascontiguousarray(points, dtype=np.float64),
                               np.ones(mesh.num_polygons, dtype=np.uint8))
    return np.hypot(*(snapped - points).T) <= 1e-9 * max(mesh.reach, 1.0)


def segments_on_mesh(mesh: NavMesh, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(m,)`` bool: segment ``a[i]`` → ``b[i]`` stays on the (closed) mesh: it crosses no
    wall (:func:`mesh_walls`), and its ends and the midpoints of its pieces between the
    wall corners it touches lie on a polygon.  Without a crossing, each such piece lies
    wholly on or wholly off the mesh, so the test is exact (to the 1e-9 tolerance of
    :func:`on_mesh` and of touching): a segment along a wall or through a corner stays
    on, one through a hole between two of its corners does not."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 2)
    ok = on_mesh(mesh, np.concatenate([a, b])).reshape(2, -1).all(axis=0)
    w0, w1 = mesh_walls(mesh)
    lo_w, hi_w = np.minimum(w0, w1), np.maximum(w0, w1)
    tol = 1e-9 * max(mesh.reach, 1.0)
    seg, frac = [np.arange(len(a))] * 2, [np.zeros(len(a)), np.ones(len(a))]
    for lo in range(0, len(a), _BLOCK):
        sa, sb = a[lo:lo + _BLOCK], b[lo:lo + _BLOCK]
        lo_s, hi_s = np.minimum(sa, sb), np.maximum(sa, sb)
        i, j = np.nonzero((lo_s[:, None, 0] <= hi_w[None, :, 0] + tol)
                          & (hi_s[:, None, 0] >= lo_w[None, :, 0] - tol)
                          & (lo_s[:, None, 1] <= hi_w[None, :, 1] + tol)
                          & (hi_s[:, None, 1] >= lo_w[None, :, 1] - tol))
        hit = segments_cross(sa[i], sb[i], w0[j], w1[j])
        ok[lo + np.unique(i[hit])] = False
        d = sb[i] - sa[i]
        length = np.hypot(*d.T)
        for corner in (w0[j], w1[j]):      # the wall corners on the segment
            rel = corner - sa[i]
            along = np.einsum("ij,ij->i", rel, d) / np.maximum(length * length, 1e-300)
            off = np.abs(rel[:, 0] * d[:, 1] - rel[:, 1] * d[:, 0]) / np.maximum(length,
                                                                                1e-300)
            on = (off <= tol) & (along > 0) & (along < 1)
            seg.append(lo + i[on])
            frac.append(along[on])
    s, f = np.concatenate(seg), np.concatenate(frac)
    order = np.lexsort((f, s))
    s, f = s[order], f[order]
    pair = np.flatnonzero((s[1:] == s[:-1]) & (f[1:] > f[:-1]))
    if len(pair):
        mid = 0.5 * (f[pair] + f[pair + 1])
        k = s[pair]
        inside = on_mesh(mesh, a[k] + mid[:, None] * (b[k] - a[k]))
        ok[np.unique(k[~inside])] = False
    return ok


class TriangulationDomain(MeshDomain):
    """Σ_tri of a mesh: a state at the midpoint of every polygon edge (shared edges once),
    and a transition both ways between every two edges of each polygon (six per triangle),
    whose base cost is the distance between the midpoints (``walkable``: the mesh it
    re-triangulates, whose walls decide where legs may go, default ``mesh``; given it, an
    edge whose other side T-junctions split into shorter edges is linked to them along
    it, :func:`_split_links`, so the cut does not disconnect the domain).  Built on a
    mesh of triangles (``max_verts=3``), it is the seed's domain; on any other mesh, its
    generalisation.

    >>> from wayfinding.navmesh import NavMesh
    >>> mesh = NavMesh.build(outline=[(0, 0), (4, 0), (4, 4), (0, 4)], max_verts=3)
    >>> d = TriangulationDomain(mesh)
    >>> d.num_nodes, d.num_edges
    (5, 12)
    >>> from wayfinding.constraints import Constraint, ConstraintSet, Disc
    >>> pond = ConstraintSet([Constraint.hard(Disc((2, 2), 0.5))])
    >>> r = d.find_path((0.5, 0.5), (3.5, 3.5), constraints=pond)   # around the pond
    >>> round(r.cost, 6), r.path.tolist()
    (5.389025, [[0.5, 0.5], [2.0, 4.0], [3.5, 3.5]])
    """

    kind = "tri"

    def __init__(self, mesh: NavMesh, *, walkable: NavMesh | None = None):
        k = np.arange(mesh.max_verts)
        valid = k[None, :] < mesh.sizes[:, None]
        nxt = np.take_along_axis(mesh.polygons, (k[None, :] + 1) % mesh.sizes[:, None], 1)
        a = np.minimum(mesh.polygons, nxt)[valid]
        b = np.maximum(mesh.polygons, nxt)[valid]
        keys, edge_of = np.unique(np.stack([a, b], 1), axis=0, return_inverse=True)
        edge_of = edge_of.ravel()
        points = 0.5 * (mesh.vertices[keys[:, 0]] + mesh.vertices[keys[:, 1]])
        pairs = [np.empty((0, 2), dtype=np.int64)]
        starts = np.concatenate([[0], np.cumsum(mesh.sizes)])
        for size in np.unique(mesh.sizes):
            polys = np.flatnonzero(mesh.sizes == size)
            i, j = np.nonzero(~np.eye(size, dtype=bool))
            ids = edge_of[starts[polys][:, None] + np.arange(size)[None]]
            pairs.append(np.stack([ids[:, i].ravel(), ids[:, j].ravel()], 1))
        if walkable is not None:
            pairs.append(_split_links(mesh, keys))
        edges = np.concatenate(pairs)
        length = np.hypot(*(points[edges[:, 1]] - points[edges[:, 0]]).T)
        super().__init__(mesh, points, edges, length, walkable=walkable)


def _split_links(mesh: NavMesh, keys: np.ndarray) -> np.ndarray:
    """``(m, 2)`` transitions (both ways) across the T-junctions of a re-triangulated
    mesh: where vertices split one side of a polygon edge (a wall of ``mesh``) into
    shorter edges of its neighbours, the edge's midpoint state is linked to each shorter
    edge's midpoint state, along the edge (``keys``: ``(s, 2)`` sorted vertex pairs of the
    states)."""
    out = [np.empty((0, 2), dtype=np.int64)]
    v = mesh.vertices
    nv = len(v)
    code = keys[:, 0] * nv + keys[:, 1]
    k = np.arange(mesh.max_verts)
    wall = (k[None, :] < mesh.sizes[:, None]) & (mesh.neighbours < 0)
    pi, ki = np.nonzero(wall)
    nxt = np.take_along_axis(mesh.polygons, (k[None, :] + 1) % mesh.sizes[:, None], 1)
    wa, wb = mesh.polygons[pi, ki], nxt[pi, ki]
    tol = 1e-9 * max(mesh.reach, 1.0)
    for lo in range(0, len(wa), 256):
        a, b = v[wa[lo:lo + 256]], v[wb[lo:lo + 256]]
        d = b - a
        rel = v[None] - a[:, None]
        sq = np.maximum(np.einsum("ij,ij->i", d, d), 1e-300)
        t = np.einsum("wvj,wj->wv", rel, d) / sq[:, None]
        off = np.abs(rel[..., 0] * d[:, None, 1] - rel[..., 1] * d[:, None, 0]) \
            / np.sqrt(sq)[:, None]
        on = (t > 0) & (t < 1) & (off <= tol)
        for w in np.flatnonzero(on.any(axis=1)):
            inside = np.flatnonzero(on[w])
            chain = np.concatenate([[wa[lo + w]], inside[np.argsort(t[w, inside])],
                                    [wb[lo + w]]])
            sub = np.sort(np.stack([chain[:-1], chain[1:]], 1), axis=1)
            at = np.searchsorted(code, sub[:, 0] * nv + sub[:, 1])
            found = (at < len(code)) & (code[np.minimum(at, len(code) - 1)]
                                        == sub[:, 0] * nv + sub[:, 1])
            whole = np.searchsorted(code, min(wa[lo + w], wb[lo + w]) * nv
                                    + max(wa[lo + w], wb[lo + w]))
            parts = at[found]
            out.append(np.stack([np.full(len(parts), whole), parts], 1))
            out.append(np.stack([parts, np.full(len(parts), whole)], 1))
    return np.concatenate(out).astype(np.int64)


def cut_mesh(mesh: NavMesh, annotations: Any) -> NavMesh:
    """The mesh's walkable area triangulated again (``max_verts=3``), cut along the borders
    of ``annotations`` (Regions, Discs as 32-gons, Sides, Betweens) so that each triangle
    lies wholly inside or outside each of them.  Needs the ``[geometry]`` extra."""
    shapely = _build._shapely()
    area = shapely.union_all([shapely.Polygon(mesh.polygon(i))
                              for i in range(mesh.num_polygons)])
    regions = [(outline(a), 1, 1) for a in annotations]
    return type(mesh).build(area, max_verts=3, regions=regions)


def outline(annotation: Annotation) -> Any:
    """A shapely polygon of an annotation's volume (a Disc as a 32-gon, a Between as the
    hull of its parts' outlines); a line of sight has none (it moves and is occluded), and
    raises :class:`~wayfinding.errors.InvalidQueryError`."""
    shapely = _build._shapely()
    if isinstance(annotation, Region):
        return shapely.Polygon(annotation.vertices)
    if isinstance(annotation, Disc):
        return shapely.Point(annotation.centre).buffer(annotation.radius, quad_segs=8)
    if isinstance(annotation, Side):
        return shapely.Polygon(annotation.corners)
    if isinstance(annotation, Between):
        return shapely.convex_hull(shapely.union_all([outline(p) for p in annotation.parts]))
    kind = "a line of sight" if isinstance(annotation, LineOfSight) else \
        type(annotation).__name__
    raise InvalidQueryError(f"{kind} cannot be cut into the mesh: use another domain than "
                            "'tri' for it")


class DenseMeshDomain(MeshDomain):
    """Σ_dense of a mesh: lattice points ``(xmin + i·spacing, ymin + j·spacing)`` over the
    mesh's bounds, kept when within ``spacing·√2/2`` of the mesh and clamped onto its
    nearest point, each linked to its 8 lattice neighbours (both ways) where the segment
    stays on the mesh (:func:`segments_on_mesh`).

    ``lattice``: ``(n, 2)`` int64 lattice index ``(i, j)`` of each state; ``neighbour``:
    ``(n, 8)`` int64 the state in each of :data:`DIRECTIONS`, -1 where there is no
    transition; ``edge_of``: ``(n, 8)`` int64 the edge id of that transition (-1 none).

    >>> from wayfinding.navmesh import NavMesh
    >>> mesh = NavMesh.build(outline=[(0, 0), (4, 0), (4, 4), (0, 4)])
    >>> d = DenseMeshDomain(mesh, spacing=1.0)
    >>> from wayfinding.constraints import Constraint, ConstraintSet, Disc
    >>> pond = ConstraintSet([Constraint.hard(Disc((2, 2), 0.5))])
    >>> r = d.find_path((0, 0), (4, 3), constraints=pond)
    >>> d.num_nodes, round(r.cost, 6), r.path.tolist()
    (25, 5.064495, [[0.0, 0.0], [2.0, 1.0], [3.0, 2.0], [4.0, 3.0]])
    """

    kind = "dense"

    def __init__(self, mesh: NavMesh, *, spacing: float):
        self.spacing = positive_float("spacing", spacing)
        x0, y0 = mesh.vertices.min(axis=0)
        x1, y1 = mesh.vertices.max(axis=0)
        nx = int(math.floor((x1 - x0) / self.spacing + 1e-9)) + 1
        ny = int(math.floor((y1 - y0) / self.spacing + 1e-9)) + 1
        if nx * ny > 4_000_000:
            raise InvalidQueryError(f"spacing {spacing!r} would make {nx * ny} lattice points "
                                    "(4e6 max); use a larger one")
        jj, ii = np.divmod(np.arange(nx * ny), nx)
        pts = np.stack([x0 + ii * self.spacing, y0 + jj * self.spacing], 1)
        _, snapped = mesh._nearest(pts, np.ones(mesh.num_polygons, dtype=np.uint8))
        keep = np.hypot(*(snapped - pts).T) <= self.spacing * math.sqrt(0.5) + 1e-12
        lattice = np.stack([ii[keep], jj[keep]], 1).astype(np.int64)
        points = snapped[keep]
        table = np.full(nx * ny, -1, dtype=np.int64)
        table[np.flatnonzero(keep)] = np.arange(len(points))
        src, dst = [], []
        for di, dj in DIRECTIONS:
            ti, tj = lattice[:, 0] + di, lattice[:, 1] + dj
            inside = (ti >= 0) & (ti < nx) & (tj >= 0) & (tj < ny)
            u = np.flatnonzero(inside)
            v = table[tj[u] * nx + ti[u]]
            u, v = u[v >= 0], v[v >= 0]
            src.append(u)
            dst.append(v)
        s, t = np.concatenate(src), np.concatenate(dst)
        ok = segments_on_mesh(mesh, points[s], points[t])
        s, t = s[ok], t[ok]
        super().__init__(mesh, points, np.stack([s, t], 1),
                         np.hypot(*(points[t] - points[s]).T))
        self.lattice = lattice
        e = self.edges
        step = lattice[e[:, 1]] - lattice[e[:, 0]]
        code = _direction_codes(step)
        self.neighbour = np.full((len(points), 8), -1, dtype=np.int64)
        self.edge_of = np.full((len(points), 8), -1, dtype=np.int64)
        self.neighbour[e[:, 0], code] = e[:, 1]
        self.edge_of[e[:, 0], code] = np.arange(len(e))
        for arr in (self.lattice, self.neighbour, self.edge_of):
            arr.flags.writeable = False


def _direction_codes(step: np.ndarray) -> np.ndarray:
    """The index in :data:`DIRECTIONS` of each ``(k, 2)`` lattice step."""
    key = (step[:, 0] + 1) * 3 + step[:, 1] + 1
    table = np.full(9, -1, dtype=np.int64)
    table[(DIRECTIONS[:, 0] + 1) * 3 + DIRECTIONS[:, 1] + 1] = np.arange(8)
    return table[key]


class HybridDomain(MeshDomain):
    """Σ_hybrid of a mesh: the dense domain's states and transitions, plus a "highway"
    transition for every transition ``(s, s')`` of the triangulation domain between the
    dense states nearest ``s`` and ``s'`` (when they differ, are not already linked, and
    the segment stays on the mesh).  Never costlier than the dense domain, which it holds.

    ``highway``: ``(k,)`` bool, the transitions that are highways.
    """

    kind = "hybrid"

    def __init__(self, mesh: NavMesh, *, spacing: float):
        dense = DenseMeshDomain(mesh, spacing=spacing)
        tri = TriangulationDomain(mesh)
        nearest = PointIndex(dense.points).nearest(tri.points)
        pairs = nearest[tri.edges]
        pairs = pairs[(pairs[:, 0] != pairs[:, 1])]
        n = dense.num_nodes
        pairs = np.unique(pairs, axis=0)
        known = np.isin(pairs[:, 0] * n + pairs[:, 1], dense.edges[:, 0] * n + dense.edges[:, 1])
        pairs = pairs[~known]
        pts = dense.points
        pairs = pairs[segments_on_mesh(mesh, pts[pairs[:, 0]], pts[pairs[:, 1]])]
        edges = np.concatenate([dense.edges, pairs])
        super().__init__(mesh, pts, edges, np.hypot(*(pts[edges[:, 1]] - pts[edges[:, 0]]).T))
        self.spacing = dense.spacing
        key = self.edges[:, 0] * n + self.edges[:, 1]
        self.highway = np.isin(key, pairs[:, 0] * n + pairs[:, 1])
        self.highway.flags.writeable = False


def constraint_domain(mesh: NavMesh, domain: str, *, spacing: float | None = None,
                      constraints: Fields = None) -> MeshDomain | AdaptiveDomain:
    """The mesh's domain of kind ``domain`` (one of :data:`DOMAINS`), built once per mesh
    and options and kept with the mesh (the ``"tri"`` domain once per set of static
    annotations: those of ``constraints`` other than lines of sight, cut into the mesh).
    ``spacing`` (world units, > 0) is required by the dense kinds and refused by
    ``"tri"``.  The adaptive domain is built on the dense domain of the same spacing, with
    its defaults (build an :class:`~wayfinding.navmesh.adaptive_domain.AdaptiveDomain`
    for others)."""
    choice("domain", domain, DOMAINS)
    field = checked(constraints)
    cache = mesh.__dict__.setdefault("_constraint_domains", {})
    if domain == "tri":
        if spacing is not None:
            raise InvalidQueryError("spacing goes with the dense domains, not 'tri'")
        static = tuple(c.annotation for c in (field or ())
                       if not isinstance(c.annotation, LineOfSight))
        key: tuple = ("tri", static)
        if key not in cache:
            for old in [k for k in cache if k[0] == "tri"]:
                del cache[old]          # one cut mesh kept: the annotations change often
            cache[key] = TriangulationDomain(cut_mesh(mesh, static), walkable=mesh) \
                if static else TriangulationDomain(mesh)
        return cache[key]
    if spacing is None:
        raise InvalidQueryError(f"the {domain!r} domain needs spacing= (world units)")
    spacing = positive_float("spacing", spacing)
    key = (domain, spacing)
    if key not in cache:
        if domain == "adaptive":
            constraint_domain(mesh, "dense", spacing=spacing)
            cache[key] = AdaptiveDomain(cache[("dense", spacing)])
        else:
            kinds = {"dense": DenseMeshDomain, "hybrid": HybridDomain}
            cache[key] = kinds[domain](mesh, spacing=spacing)
    return cache[key]


def constrained_query(mesh: NavMesh, start: Any, goal: Any, *, filter: QueryFilter,
                      partial: bool, method: str, constraints: Fields, domain: str,
                      spacing: float | None, t: float) -> ConstrainedPath:
    """A mesh's ``find_path`` with ``constraints``: the cheapest route between two world
    points under them at time ``t``, searched in the mesh's ``domain``
    (:func:`constraint_domain`).  The options constrained searches do not take are
    refused, and an end point off the mesh raises
    :class:`~wayfinding.errors.InvalidQueryError`."""
    if constraints is None:
        raise InvalidQueryError("domain and spacing go with constraints=")
    if filter is not DEFAULT_FILTER and filter != DEFAULT_FILTER:
        raise InvalidQueryError("a filter cannot be combined with constraints")
    if partial is not False:
        raise InvalidQueryError("partial=True cannot be combined with constraints")
    method = choice("method", method, ("astar", "dijkstra"))
    d = constraint_domain(mesh, domain, spacing=spacing, constraints=constraints)
    ends = [finite_point(name, p) for name, p in (("start", start), ("goal", goal))]
    for name, p in zip(("start", "goal"), ends):
        if not on_mesh(mesh, p[None])[0]:
            raise InvalidQueryError(f"{name} {p.tolist()} is off the mesh")
    return d.find_path(ends[0], ends[1], constraints=constraints, t=t, method=method)
