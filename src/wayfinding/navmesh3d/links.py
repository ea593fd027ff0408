"""Jump and drop links found along the ledges of a voxel navmesh (Detour leaves off-mesh
links to the level's author): :func:`ledge_links` returns
:class:`~wayfinding.navmesh.OffMeshLink` objects of kind ``"drop"`` or ``"jump"``.

A *ledge* is a wall of the mesh (a polygon edge with no polygon across, as
:meth:`~wayfinding.navmesh3d.NavMesh3DQuery.wall_segments` gives them) whose outside is not
walkable at about its height.  Every wall is sampled ``spacing`` apart (at the middles of
equal parts); from each sample the ground is probed outward, in xz, perpendicular to the
wall and away from its polygon, every half cell (or less) up to ``max_jump``.  The ground
of a probe is the highest detail triangle of the mesh under it that lies no higher above
the sample than a jump may rise (``max(agent_max_climb, max_jump_up)``): where the agent
would land.  Then, per sample, with ``climb`` the agent's:

- ground within the climb of the sample's height at the first probe: no ledge, no link;
- **jump**: the first probe whose ground lies between the climb below and the rise above
  the sample; both ways when the two ends are within the climb of each other, else up only;
- **drop**: the first probe before that one whose ground lies more than the climb and at
  most ``max_drop`` below (with ``level``: the first such probe the agent falls clear to,
  not under the ledge's own slab); one way, down.

A link starts on the wall (the sample, on its polygon's ground) and ends over the probe
that found its ground, on that ground.  ``max_jump`` is thus the link's length in xz: both
sides of a gap are eroded by the agent's radius, so a gap of ``g`` in the level makes a
link of about ``g + 2 * agent_radius``, plus about a cell of rounding on each side.

Clearance (with ``level``): the agent's body is three upright boxes turned along the move
in xz, as wide as the agent less half a cell (the voxels' rounding of the mesh's own
clearance): one over the move, from a climb (at least two cell heights) above the higher
end to the agent's height above it, and one round each end from a climb above its ground
up to the same height.  A link whose boxes meet a triangle of the level is dropped (exact
triangle-box tests, by separating axes, in numpy).  Without the level nothing is checked:
a wall thinner than the gap is jumped through.

Merging: samples next to each other on one wall whose links are of one kind and land on
one polygon make one link, at the middle sample of the run.  A two-way jump found from
both sides (polygon a to b and b to a) is kept from the lower-numbered polygon's side only.
Links come in the order of their samples (by polygon, along its walls), a drop before a
jump from the same sample.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._arrays import concatenated_ranges
from .._kernels import _detour
from .._validate import MAX_CELLS, positive_float
from ..errors import InvalidQueryError, brief
from ..navmesh.mesh import OffMeshLink
from .level import Level
from .navmesh import NavMesh3D
from .query import compile_mesh

__all__ = ["DROP", "JUMP", "ledge_links"]

#: The kinds of the links :func:`ledge_links` makes.
DROP, JUMP = "drop", "jump"

_F = NDArray[np.float64]
_I = NDArray[np.int64]


def ledge_links(mesh: NavMesh3D, *, level: Level | None = None, max_drop: float | None = None,
                max_jump: float | None = None, max_jump_up: float = 0.0,
                spacing: float | None = None) -> list[OffMeshLink]:
    """The drop and jump links along the ledges of ``mesh`` (see the module for the rules).

    Distances in world units, the agent's size from the mesh's settings: ``max_drop`` the
    deepest drop (default twice the agent's height); ``max_jump`` the longest link in xz
    (default the agent's height plus twice its radius: 3.2 for RecastDemo's agent, a gap
    of about 1.5 in the level); ``max_jump_up`` how high a jump may land above its start
    (default 0: no higher than the climb); ``spacing`` between samples along a wall
    (default the agent's radius, at least a cell).  ``level``: the level the mesh was
    built from, to check that the agent fits along each move.  The links keep
    :class:`~wayfinding.navmesh.OffMeshLink`'s defaults (area 0, flags 1, cost the
    distance, radius the agent's); :func:`dataclasses.replace` changes them.  Bad values
    raise :class:`~wayfinding.errors.InvalidQueryError`.

    >>> from wayfinding.navmesh3d import build, generate
    >>> level = generate.building()          # the stairwells' edges are ledges
    >>> links = ledge_links(build(level), level=level)
    >>> sorted({(x.kind, x.bidirectional) for x in links})
    [('drop', False), ('jump', True)]
    """
    if not isinstance(mesh, NavMesh3D):
        raise InvalidQueryError(f"mesh must be a NavMesh3D, got {type(mesh).__name__}")
    if level is not None and not isinstance(level, Level):
        raise InvalidQueryError(f"level must be a Level or None, got {type(level).__name__}")
    s = mesh.settings
    max_drop = 2 * s.agent_height if max_drop is None else positive_float("max_drop", max_drop)
    max_jump = s.agent_height + 2 * s.agent_radius if max_jump is None else \
        positive_float("max_jump", max_jump)
    max_jump_up = positive_float("max_jump_up", max_jump_up, allow_zero=True)
    spacing = max(s.agent_radius, s.cell_size) if spacing is None else \
        positive_float("spacing", spacing)
    climb = float(np.float32(s.agent_max_climb))
    rise = max(climb, max_jump_up)

    data = compile_mesh(mesh)
    walls, owner, outward = _walls(mesh, data)
    probes = max(1, math.ceil(max_jump / (s.cell_size / 2)))
    seg, starts = _samples(walls, spacing, probes, max_jump)
    ground = _Ground(*_ground_triangles(mesh, data))
    ys = starts[:, 1] = ground.height_on(starts, owner[seg], fallback=starts[:, 1])
    dist = np.linspace(max_jump / probes, max_jump, probes)
    points = starts[:, None, [0, 2]] + outward[seg][:, None, :] * dist[None, :, None]
    top, poly = ground.top(points.reshape(-1, 2), np.repeat(ys + rise, probes))
    top, poly = top.reshape(-1, probes), poly.reshape(-1, probes)
    i, k, kind = _candidates(top, ys, climb, max_drop, every_drop=level is not None)
    ends = np.column_stack([points[i, k, 0], top[i, k], points[i, k, 1]])
    target = poly[i, k]
    if level is not None and len(i):
        body = _Body(level, base=max(climb, 2 * s.cell_height), height=s.agent_height,
                     radius=max(s.agent_radius - s.cell_size / 2, 0.0))
        keep = _clear(body, i, kind, starts[i], ends)
        i, kind, ends, target = i[keep], kind[keep], ends[keep], target[keep]
    two_way = (kind == 1) & (np.abs(ends[:, 1] - ys[i]) <= climb)
    pick = _merge(i, kind, seg[i], target)
    i, kind, ends, target, two_way = i[pick], kind[pick], ends[pick], target[pick], two_way[pick]
    keep = _one_side(owner[seg[i]], target, two_way)
    order = np.lexsort((kind[keep], i[keep]))
    return [OffMeshLink(tuple(a), tuple(b), bidirectional=bool(w), kind=(DROP, JUMP)[c])
            for a, b, w, c in zip(starts[i[keep]][order].tolist(), ends[keep][order].tolist(),
                                  two_way[keep][order].tolist(), kind[keep][order].tolist())]


def _candidates(top: _F, ys: _F, climb: float, max_drop: float, *, every_drop: bool
                ) -> tuple[_I, _I, _I]:
    """The links the probes' ground (``top``, ``(samples, probes)``) allows: sample, probe
    and kind (0 drop, 1 jump) of each, drops first, each kind by sample then probe.  A
    sample's drop is its first probe below, or with ``every_drop`` every probe below before
    its jump's (for the level to choose among)."""
    probes = top.shape[1]
    across = top >= (ys - climb)[:, None]                       # within the climb or above
    below = (top < (ys - climb)[:, None]) & (top >= (ys - max_drop)[:, None])
    jump_k = np.where(across.any(axis=1), across.argmax(axis=1), probes)
    ledge = jump_k > 0                  # walkable at the first probe: no ledge
    jump = ledge & (jump_k < probes)
    k = np.arange(probes)[None, :]
    drop = below & ledge[:, None] & (k < jump_k[:, None])
    if not every_drop:
        drop &= k == below.argmax(axis=1)[:, None]
    di, dk = np.nonzero(drop)
    return (np.concatenate([di, np.flatnonzero(jump)]), np.concatenate([dk, jump_k[jump]]),
            np.concatenate([np.zeros(len(di), np.int64), np.ones(int(jump.sum()), np.int64)]))


def _clear(body: _Body, i: _I, kind: _I, starts: _F, ends: _F) -> NDArray[np.bool_]:
    """Which candidates to keep: the jumps the agent fits along, and per sample the first
    drop it fits along (drops come by sample, then probe: tried in rounds, the next of
    every sample not yet settled at a time)."""
    keep = np.zeros(len(i), bool)
    jumps = np.flatnonzero(kind == 1)
    keep[jumps] = ~body.blocked(starts[jumps], ends[jumps])
    drops = np.flatnonzero(kind == 0)
    if not len(drops):
        return keep
    first = np.ones(len(drops), bool)
    first[1:] = i[drops[1:]] != i[drops[:-1]]
    begin = np.flatnonzero(first)
    rank = np.arange(len(drops)) - np.repeat(begin, np.diff(np.append(begin, len(drops))))
    settled = np.zeros(int(i.max()) + 1, bool)
    for r in range(int(rank.max()) + 1):
        tried = drops[(rank == r) & ~settled[i[drops]]]
        if not len(tried):
            break
        fits = ~body.blocked(starts[tried], ends[tried])
        keep[tried[fits]] = True
        settled[i[tried[fits]]] = True
    return keep


def _one_side(source: _I, target: _I, two_way: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Which links to keep: not a two-way link from polygon a to b when one from b to a
    exists and b < a."""
    pairs = set(zip(source[two_way].tolist(), target[two_way].tolist()))
    return np.array([not (w and (t, p) in pairs and p > t)
                     for w, p, t in zip(two_way.tolist(), source.tolist(), target.tolist())],
                    bool)


def _walls(mesh: NavMesh3D, data: _detour.DetourMesh) -> tuple[_F, _I, _F]:
    """Every polygon's walls ``(n, 2, 3)``, the polygon of each and its outward unit normal
    in xz ``(n, 2)`` (away from the polygon's centroid)."""
    search = _detour.PathSearch(data)
    allowed = np.ones(data.num_nodes, np.uint8)         # polygons and any links
    parts = [search.wall_segments(p, allowed) for p in range(data.num_polys)]
    sizes = np.array([len(w) for w in parts], np.int64)
    if not sizes.sum():
        return np.zeros((0, 2, 3)), np.zeros(0, np.int64), np.zeros((0, 2))
    walls = np.concatenate(parts).astype(np.float64)
    owner = np.repeat(np.arange(data.num_polys), sizes)
    centre = _centroids(mesh, data)[owner]
    a, b = walls[:, 0, [0, 2]], walls[:, 1, [0, 2]]
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    ok = length > 1e-6
    normal = np.column_stack([d[:, 1], -d[:, 0]]) / np.where(ok, length, 1)[:, None]
    flip = np.einsum("ij,ij->i", (a + b) / 2 - centre, normal) < 0
    normal[flip] *= -1
    return walls[ok], owner[ok], normal[ok]


def _centroids(mesh: NavMesh3D, data: _detour.DetourMesh) -> _F:
    """The mean of each polygon's corners in xz ``(P, 2)`` (inside: polygons are convex)."""
    verts = data.vertices().astype(np.float64)[:, [0, 2]]
    out, base = [], 0
    for t in mesh.tiles:
        corners = t.polymesh.polys[:, :data.nvp].astype(np.int64)
        used = corners != 0xFFFF
        pts = verts[np.where(used, corners + base, 0)] * used[:, :, None]
        out.append(pts.sum(axis=1) / used.sum(axis=1)[:, None])
        base += len(t.polymesh.verts)
    return np.concatenate(out) if out else np.zeros((0, 2))


def _samples(walls: _F, spacing: float, probes: int, max_jump: float
             ) -> tuple[_I, _F]:
    """Points along the walls at the middles of equal parts at most ``spacing`` long: the
    wall of each and the point ``(m, 3)``; refused when they would make more than
    :data:`~wayfinding._validate.MAX_CELLS` probes."""
    d = walls[:, 1] - walls[:, 0]
    parts = np.maximum(1, np.ceil(np.hypot(d[:, 0], d[:, 2]) / spacing))
    if parts.sum() * probes > MAX_CELLS:
        raise InvalidQueryError(
            f"{parts.sum():,.0f} samples (spacing {brief(spacing)}) of {probes:,} probes each "
            f"(max_jump {brief(max_jump)} over half a cell) make more than {MAX_CELLS:,} "
            "probes: raise spacing or lower max_jump")
    parts = parts.astype(np.int64)
    seg = np.repeat(np.arange(len(walls)), parts)
    j = concatenated_ranges(0, parts)
    t = (j + 0.5) / parts[seg]
    return seg, walls[seg, 0] + t[:, None] * d[seg]


def _merge(i: _I, kind: _I, wall: _I, target: _I) -> _I:
    """Which candidates to keep: one per run of samples next to each other on one wall
    leading to one polygon by links of one kind, the run's middle one."""
    if not len(i):
        return np.zeros(0, np.int64)
    order = np.lexsort((i, kind))
    i, kind, wall, target = i[order], kind[order], wall[order], target[order]
    new = np.ones(len(i), bool)
    new[1:] = (kind[1:] != kind[:-1]) | (wall[1:] != wall[:-1]) | \
        (target[1:] != target[:-1]) | (i[1:] != i[:-1] + 1)
    first = np.flatnonzero(new)
    size = np.diff(np.append(first, len(i)))
    return np.asarray(order[first + (size - 1) // 2], np.int64)


class _Grid:
    """Boxes (xz) binned in a uniform grid, to list the boxes that may meet a query box."""

    def __init__(self, lo: _F, hi: _F):
        self.origin = lo.min(axis=0) if len(lo) else np.zeros(2)
        extent = (hi.max(axis=0) - self.origin) if len(lo) else np.ones(2)
        self.cell = max(float(np.sqrt(max(extent[0] * extent[1], 1e-12) / max(len(lo), 1))),
                        float(np.max(extent)) / 4096, 1e-6)
        self.shape = np.floor(extent / self.cell).astype(np.int64) + 1
        a, b = self._cells(lo), self._cells(hi)
        item, cell = _expand(a, b, self.shape[0])
        order = np.argsort(cell, kind="stable")
        self.items = item[order]
        self.start = np.searchsorted(cell[order], np.arange(self.shape.prod() + 1))

    def _cells(self, p: _F) -> _I:
        c = np.floor((p - self.origin) / self.cell).astype(np.int64)
        return np.clip(c, 0, self.shape - 1)

    def pairs(self, lo: _F, hi: _F) -> tuple[_I, _I]:
        """(query, item) pairs whose cells meet; a pair may repeat for a box over several
        cells.  Queries wholly off the grid meet nothing."""
        off = ((hi < self.origin) | (lo > self.origin + self.shape * self.cell)).any(axis=1)
        query, cell = _expand(self._cells(lo), self._cells(hi), self.shape[0])
        keep = ~off[query]
        query, cell = query[keep], cell[keep]
        n = self.start[cell + 1] - self.start[cell]
        q = np.repeat(query, n)
        at = concatenated_ranges(self.start[cell], n)
        return q, self.items[at]


def _expand(a: _I, b: _I, width: int) -> tuple[_I, _I]:
    """Each box of cells ``a..b`` (inclusive, (x, z)) as (box, flat cell) rows."""
    w, h = b[:, 0] - a[:, 0] + 1, b[:, 1] - a[:, 1] + 1
    n = w * h
    box = np.repeat(np.arange(len(a)), n)
    j = concatenated_ranges(0, n)
    x = a[box, 0] + j % w[box]
    z = a[box, 1] + j // w[box]
    return box, z * width + x


def _ground_triangles(mesh: NavMesh3D, data: _detour.DetourMesh) -> tuple[_F, _I]:
    """The ground as the queries read it: every detail triangle ``(m, 3, 3)``, its
    corners among the polygon's own taken from the polygon (as Detour stores them), and its
    polygon."""
    verts = data.vertices().astype(np.float64)
    nvp, vbase, pbase = data.nvp, 0, 0
    tris, owner = [], []
    for t in mesh.tiles:
        pm, d = t.polymesh, t.detail
        vb, _, tb, nt = (d.meshes[:, k].astype(np.int64) for k in range(4))
        poly = np.repeat(np.arange(pm.num_polys), nt)
        row = concatenated_ranges(tb, nt)
        local = d.tris[row, :3].astype(np.int64)                          # (m, 3)
        corners = pm.polys[:, :nvp].astype(np.int64)
        nv = (corners != 0xFFFF).sum(axis=1)
        own = local < nv[poly][:, None]
        from_poly = verts[vbase + corners[poly[:, None], np.where(own, local, 0)]]
        from_detail = d.verts.astype(np.float64)[vb[poly][:, None] + np.where(own, 0, local)]
        tris.append(np.where(own[:, :, None], from_poly, from_detail))
        owner.append(poly + pbase)
        vbase += len(pm.verts)
        pbase += pm.num_polys
    if not tris:
        return np.zeros((0, 3, 3)), np.zeros(0, np.int64)
    return np.concatenate(tris), np.concatenate(owner)


class _Ground:
    """The ground triangles of a mesh, to read the ground under points (xz)."""

    def __init__(self, tri: _F, owner: _I):
        self.owner = owner
        xz = tri[:, :, [0, 2]]
        self.grid = _Grid(xz.min(axis=1), xz.max(axis=1))
        # per triangle, as columns: its first corner, two edges from it (xz), twice its
        # signed area, and the heights
        self.ax, self.az = xz[:, 0, 0].copy(), xz[:, 0, 1].copy()
        self.bx, self.bz = xz[:, 1, 0] - self.ax, xz[:, 1, 1] - self.az
        self.cx, self.cz = xz[:, 2, 0] - self.ax, xz[:, 2, 1] - self.az
        self.area: _F = self.bx * self.cz - self.bz * self.cx
        self.y0 = tri[:, 0, 1].copy()
        self.dy1, self.dy2 = tri[:, 1, 1] - self.y0, tri[:, 2, 1] - self.y0

    def hits(self, points: _F) -> tuple[_I, _F, _I]:
        """Every (point, ground height, polygon) where a triangle lies under a point
        (edges included)."""
        q, t = self.grid.pairs(points, points)
        px, pz = points[q, 0] - self.ax[t], points[q, 1] - self.az[t]
        bx, bz, cx, cz = self.bx[t], self.bz[t], self.cx[t], self.cz[t]
        ok = np.abs(self.area[t]) > 1e-12
        area = np.where(ok, self.area[t], 1.0)
        u = (px * cz - pz * cx) / area
        v = (bx * pz - bz * px) / area
        eps = 1e-7
        inside = ok & (u >= -eps) & (v >= -eps) & (u + v <= 1 + eps)
        q, t, u, v = q[inside], t[inside], u[inside], v[inside]
        return q, self.y0[t] + u * self.dy1[t] + v * self.dy2[t], self.owner[t]

    def height_on(self, points: _F, polygon: _I, *, fallback: _F) -> _F:
        """The ground of ``polygon`` (one per point) under each point; ``fallback`` where
        none is found (a point on the polygon's outline, missed by rounding)."""
        q, y, p = self.hits(points[:, [0, 2]])
        mine = p == polygon[q]
        out = fallback.astype(np.float64).copy()
        out[q[mine]] = y[mine]
        return out

    def top(self, points: _F, ceiling: _F) -> tuple[_F, _I]:
        """Per point the highest ground at most ``ceiling`` under it and its polygon
        (``-inf`` and -1 where none; ties to the higher polygon number)."""
        q, y, p = self.hits(points)
        ok = y <= ceiling[q]
        q, y, p = q[ok], y[ok], p[ok]
        order = np.lexsort((p, y, q))
        q, y, p = q[order], y[order], p[order]
        last = np.ones(len(q), bool)
        last[:-1] = q[1:] != q[:-1]
        top = np.full(len(points), -np.inf)
        poly = np.full(len(points), -1, np.int64)
        top[q[last]], poly[q[last]] = y[last], p[last]
        return top, poly


class _Body:
    """The agent's body against a level's triangles (see the module): three boxes
    ``2 * radius`` wide, upright and turned along a move in xz: over the move from
    ``base`` to ``height`` above its higher end, and round each end from ``base`` above its
    ground to that height."""

    def __init__(self, level: Level, *, base: float, height: float, radius: float):
        self.tri = level.vertices.astype(np.float64)[level.triangles]
        xz = self.tri[:, :, [0, 2]]
        self.grid = _Grid(xz.min(axis=1), xz.max(axis=1))
        self.base, self.height, self.radius = base, height, radius

    def blocked(self, starts: _F, ends: _F) -> NDArray[np.bool_]:
        """Whether the body meets the level on each move from ``starts`` to ``ends``."""
        n, base, radius = len(starts), self.base, self.radius
        a, b = starts[:, [0, 2]], ends[:, [0, 2]]
        d = b - a
        length = np.hypot(d[:, 0], d[:, 1])
        u = np.where(length[:, None] > 1e-9, d / np.maximum(length, 1e-9)[:, None],
                     [1.0, 0.0])
        top = np.maximum(starts[:, 1], ends[:, 1]) + self.height
        lo = np.concatenate([top - self.height + base, starts[:, 1] + base,
                             ends[:, 1] + base])
        centre = np.concatenate([(a + b) / 2, a, b])
        along = np.concatenate([length / 2, np.full(2 * n, radius)])
        link = np.tile(np.arange(n), 3)
        tops = top[link]
        keep = tops > lo
        link, lo, tops, centre, along = link[keep], lo[keep], tops[keep], centre[keep], \
            along[keep]
        u = u[link]
        reach = np.abs(u) * along[:, None] + np.abs(u[:, ::-1]) * radius
        q, t = self.grid.pairs(centre - reach, centre + reach)
        ys = self.tri[t, :, 1]
        near = (ys.max(axis=1) >= lo[q]) & (ys.min(axis=1) <= tops[q])
        q, t = q[near], t[near]
        rel = self.tri[t] - np.column_stack([centre[q, 0], (lo[q] + tops[q]) / 2,
                                             centre[q, 1]])[:, None, :]
        ux, uz = u[q, 0][:, None], u[q, 1][:, None]
        local = np.stack([rel[:, :, 0] * ux + rel[:, :, 2] * uz, rel[:, :, 1],
                          rel[:, :, 2] * ux - rel[:, :, 0] * uz], axis=2)
        half = np.column_stack([along[q], (tops[q] - lo[q]) / 2, np.full(len(q), radius)])
        out = np.zeros(n, bool)
        out[link[q[_overlaps(local, half)]]] = True
        return out


def _overlaps(tri: _F, half: _F) -> NDArray[np.bool_]:
    """Whether each triangle ``(m, 3, 3)`` meets the box of ``half`` sizes ``(m, 3)``
    centred on the origin along the axes (touching counts): no separating axis among the
    box's axes, the triangle's normal and the nine cross products of their edges."""
    v = [tri[:, j].T for j in range(3)]                 # the corners, (3 coordinates, m)
    h = half.T
    lo = np.minimum(np.minimum(v[0], v[1]), v[2])
    hi = np.maximum(np.maximum(v[0], v[1]), v[2])
    apart = ((lo > h) | (hi < -h)).any(axis=0)
    edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]]
    normal = np.cross(edges[0], edges[1], axis=0)
    apart |= np.abs((normal * v[0]).sum(axis=0)) > (np.abs(normal) * h).sum(axis=0)
    for a, b in ((1, 2), (2, 0), (0, 1)):      # the box's x, y and z axes crossed with...
        for e in edges:                        # ...each edge: corner w projects to this
            p0, p1, p2 = (w[b] * e[a] - w[a] * e[b] for w in v)
            r = h[a] * np.abs(e[b]) + h[b] * np.abs(e[a])
            apart |= (np.minimum(np.minimum(p0, p1), p2) > r) | \
                (np.maximum(np.maximum(p0, p1), p2) < -r)
    return np.asarray(~apart)
