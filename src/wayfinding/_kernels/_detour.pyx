# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Path queries on a voxel navmesh (``wayfinding.navmesh3d``) as Detour answers them: the
mesh laid out for queries (world-space polygons, links between neighbouring polygons
within and across tiles, detail triangles for heights, a bounding-volume tree per tile),
the nearest polygon to a point, A* over polygons and the funnel that straightens the
corridor into a path.

Everything is C ``float`` arithmetic in the reference's order (Detour, as built by the npm
package ``@recast-navigation/core`` 0.43.1), so that polygons, paths and corner points come
out the same.  Polygons are numbered across tiles, tile after tile; off-mesh links follow them as
two-vertex "polygons" (node ``num_polys + link``, its vertices the link's start and end
snapped onto the ground), as Detour models them; a search node is a polygon and the side of
the tile it was entered from (``poly * 4 + side // 2``), as Detour keeps one node per
polygon and tile side.  Arrays of usable polygons (``allowed``) cover polygons and links,
``num_nodes`` entries.
"""

import numpy as np

cimport numpy as cnp

from libc.math cimport INFINITY, NAN, fabsf, floorf, roundf, sqrt, sqrtf
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy
from libcpp.vector cimport vector

from ._budget cimport Budget, make_budget, spent
from ._constants cimport FAILED as C_FAILED, FOUND as C_FOUND, RUNNING as C_RUNNING
from ._smoothsort cimport smoothsort

cnp.import_array()

cdef float FLT_BIG = 3.402823466e+38
cdef float H_SCALE = <float>0.999
cdef int NULL_LINK = -1
cdef uint16_t EXT_LINK = 0x8000
cdef uint8_t SIDE_NONE = 0xff
cdef int STATES = 4
cdef uint8_t NODE_OPEN = 1
cdef uint8_t NODE_CLOSED = 2
#: Corner flags of a straight path.
cdef uint8_t CORNER_START = 1
cdef uint8_t CORNER_END = 2
cdef uint8_t CORNER_OFFMESH = 4
#: Search outcomes, as the query module reads them.
cdef int S_FAILED = 0, S_FOUND = 1, S_PARTIAL = 2
cdef int CROSS_AREA = 1, CROSS_ALL = 2
FAILED, FOUND, PARTIAL = S_FAILED, S_FOUND, S_PARTIAL
#: Outcomes of a slice of a resumable search (``PathRun.advance``), as ``_codes`` has them.
RUN_FAILED, RUN_FOUND, RUN_RUNNING = C_FAILED, C_FOUND, C_RUNNING


cdef inline float tri_area_2d(const float* a, const float* b, const float* c) noexcept nogil:
    """Twice the signed area of a, b, c in xz (positive when c lies right of a->b)."""
    cdef float abx = b[0] - a[0], abz = b[2] - a[2]
    cdef float acx = c[0] - a[0], acz = c[2] - a[2]
    return acx * abz - abx * acz


cdef inline float dist_3d(const float* a, const float* b) noexcept nogil:
    cdef float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2]
    return sqrtf(dx * dx + dy * dy + dz * dz)


cdef inline bint same_point(const float* a, const float* b) noexcept nogil:
    """Points closer than 1/16384 (3D) count as one, as in the reference's straight path."""
    cdef float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2]
    cdef float thr = (<float>1.0 / <float>16384.0) * (<float>1.0 / <float>16384.0)
    return dx * dx + dy * dy + dz * dz < thr


cdef inline void lerp3(float* out, const float* a, const float* b, float t) noexcept nogil:
    out[0] = a[0] + (b[0] - a[0]) * t
    out[1] = a[1] + (b[1] - a[1]) * t
    out[2] = a[2] + (b[2] - a[2]) * t


cdef inline float dist_pt_seg_2d(const float* pt, const float* p, const float* q,
                                 float* t_out) noexcept nogil:
    """Squared xz distance from pt to segment pq, and where along it (0..1) the nearest
    point lies."""
    cdef float pqx = q[0] - p[0], pqz = q[2] - p[2]
    cdef float dx = pt[0] - p[0], dz = pt[2] - p[2]
    cdef float d = pqx * pqx + pqz * pqz
    cdef float t = pqx * dx + pqz * dz
    if d > 0:
        t /= d
    if t < 0:
        t = 0
    elif t > 1:
        t = 1
    t_out[0] = t
    dx = p[0] + t * pqx - pt[0]
    dz = p[2] + t * pqz - pt[2]
    return dx * dx + dz * dz


cdef inline bint crosses(const float* pt, const float* vi, const float* vj) noexcept nogil:
    """Whether the ray from pt toward +x crosses the edge vj-vi (even-odd rule)."""
    return ((vi[2] > pt[2]) != (vj[2] > pt[2])) and \
        (pt[0] < (vj[0] - vi[0]) * (pt[2] - vi[2]) / (vj[2] - vi[2]) + vi[0])


cdef inline bint height_on_triangle(const float* p, const float* a, const float* b,
                                    const float* c, float* h) noexcept nogil:
    """The height of triangle abc above p (xz), when p lies on it; the reference's
    barycentric test with its 1e-6 guard on degenerate triangles."""
    cdef float v0x = c[0] - a[0], v0y = c[1] - a[1], v0z = c[2] - a[2]
    cdef float v1x = b[0] - a[0], v1y = b[1] - a[1], v1z = b[2] - a[2]
    cdef float v2x = p[0] - a[0], v2z = p[2] - a[2]
    cdef float denom = v0x * v1z - v0z * v1x
    cdef float u, v
    if (denom if denom >= 0 else -denom) < <float>1e-6:
        return False
    u = v1z * v2x - v1x * v2z
    v = v0x * v2z - v0z * v2x
    if denom < 0:
        denom = -denom
        u = -u
        v = -v
    if u >= 0 and v >= 0 and (u + v) <= denom:
        h[0] = a[1] + (v0y * u + v1y * v) / denom
        return True
    return False


cdef inline float slab_coord(const float* v, int side) noexcept nogil:
    if side == 0 or side == 4:
        return v[0]
    if side == 2 or side == 6:
        return v[2]
    return 0


cdef inline void slab_ends(const float* va, const float* vb, float* lo, float* hi,
                           int side) noexcept nogil:
    """An edge on a tile side as (along, height) at its two ends, lower end first."""
    cdef int k = 2 if (side == 0 or side == 4) else 0
    if side != 0 and side != 4 and side != 2 and side != 6:
        return
    if va[k] < vb[k]:
        lo[0] = va[k]; lo[1] = va[1]; hi[0] = vb[k]; hi[1] = vb[1]
    else:
        lo[0] = vb[k]; lo[1] = vb[1]; hi[0] = va[k]; hi[1] = va[1]


cdef inline bint slabs_overlap(const float* amin, const float* amax, const float* bmin,
                               const float* bmax, float px, float py) noexcept nogil:
    """Whether two edges on a tile side touch: they overlap along the side (shrunk by px,
    so edges meeting at an end do not) and lie within py of each other in height (or
    cross)."""
    cdef float minx = amin[0] + px if amin[0] + px > bmin[0] + px else bmin[0] + px
    cdef float maxx = amax[0] - px if amax[0] - px < bmax[0] - px else bmax[0] - px
    cdef float ad, ak, bd, bk, dmin, dmax, thr
    if minx > maxx:
        return False
    ad = (amax[1] - amin[1]) / (amax[0] - amin[0])
    ak = amin[1] - ad * amin[0]
    bd = (bmax[1] - bmin[1]) / (bmax[0] - bmin[0])
    bk = bmin[1] - bd * bmin[0]
    dmin = (bd * minx + bk) - (ad * minx + ak)
    dmax = (bd * maxx + bk) - (ad * maxx + ak)
    if dmin * dmax < 0:
        return True
    thr = (py * 2) * (py * 2)
    return dmin * dmin <= thr or dmax * dmax <= thr


cdef struct BVItem:
    uint16_t lo[3]
    uint16_t hi[3]
    int i


cdef class DetourMesh:
    """A navmesh laid out for queries as Detour's ``dtNavMesh`` holds it.

    ``tiles``: per tile a tuple ``(x, z, bmin, bmax, verts, polys, flags, areas, meshes,
    dverts, dtris)`` (the polygon mesh in voxels and its detail mesh, as
    :class:`~wayfinding.navmesh3d.PolyMesh` and :class:`~wayfinding.navmesh3d.DetailMesh`
    hold them), in the order the tiles join the mesh (the order of the links between
    them); ``nvp`` vertices per polygon, cell size and height, the agent's climb (world
    units), the origin of the tile grid and a tile's width and depth (world units).

    ``links``: the off-mesh links as ``(ends (L, 2, 3) float32, radius (L,) float32,
    bidirectional (L,) uint8, area (L,) uint8, cost (L,) float32)``, a cost < 0 for none.
    Each end joins the polygon nearest it (:meth:`nearest`) anywhere in the mesh among
    those within ``radius`` (xz) and the climb (y), and no farther than ``radius`` in xz;
    the link's node links to the polygon at its start and at its end, the start's polygon
    to the node, and, when bidirectional, the end's polygon to the node.  A link with an
    end that finds no polygon joins nothing (:meth:`unconnected_links`).  Links are made
    in the reference's order as it adds tiles (with the tile sides it keeps on links
    between neighbouring tiles), so that searches tie-break alike; a link whose ends lie
    in tiles that are not neighbours (which the reference does not join) is joined
    last.  Each tile's polygons' links are made together, from the tile and its
    neighbours alone, so a mesh that differs in a few tiles is laid out from this one by
    :meth:`with_tiles`, copying the rest."""

    cdef readonly int nvp, num_polys, num_tiles, num_links, num_nodes
    #: Tiles this layout laid out from their polygons, and tiles whose links it made (the
    #: rest copied from the layout it was made from, :meth:`with_tiles`).
    cdef readonly int tiles_laid_out, tiles_joined
    cdef vector[float] verts          # world xyz per vertex: the tiles', then the links' ends
    cdef vector[int] pverts           # nvp global vertex ids per polygon
    cdef vector[int] pnv              # vertex count per polygon
    cdef vector[int] ptile
    cdef vector[uint8_t] areas
    cdef vector[uint16_t] pflags      # per polygon: its flags as laid out
    cdef vector[uint16_t] pneis       # nvp per polygon: 0 none, k+1 polygon k (tile-local), EXT_LINK | side
    cdef vector[int] first_link
    cdef vector[int] link_next, link_ref, link_edge
    cdef vector[uint8_t] link_side, link_bmin, link_bmax
    cdef vector[int] dbase, dtri, dntri   # detail: vertex base (global), first triangle, count
    cdef vector[float] dverts
    cdef vector[uint8_t] dtris
    cdef vector[float] tbmin, tbmax, tqfac
    cdef vector[int] tx, tz, tpoly, tbv, tnbv
    # per tile (and one past the last): its first vertex, detail vertex, detail triangle
    # and link; the links of a tile's polygons lie together, the links' nodes' after all
    cdef vector[int] tvert, tdvert, tdtri, tlink
    cdef vector[uint16_t] bvlo, bvhi
    cdef vector[int] bvi
    cdef float cs, ch, climb, tile_w, tile_d
    cdef float orig[3]
    cdef int gx0, gz0, gw, gd
    cdef vector[int] grid
    cdef vector[float] lcost          # per link: its crossing cost, < 0 for its length
    cdef vector[int] lends            # per link: the polygons at its start and end, -1 none
    cdef vector[uint8_t] ltwo         # per link: whether it is bidirectional

    def __init__(self, list tiles, int nvp, float cs, float ch, float climb, orig,
                 float tile_w, float tile_d, links=None):
        self._settings(nvp, cs, ch, climb, orig[0], orig[1], orig[2], tile_w, tile_d)
        for part in tiles:
            self._lay_tile(part)
        self._finish(links, None, NULL, NULL)

    def with_tiles(self, reuse, list tiles, links=None):
        """The layout of a mesh made from this one's mesh by replacing, adding or dropping
        tiles (as a tile cache does), with the same settings: ``reuse`` ``(n,)`` int32,
        per tile of the new mesh in its order, the index here of the same tile (kept tiles
        in the order they have here), or -1 for a tile laid out from the next tuple of
        ``tiles`` (as the constructor's); ``links`` as the constructor's.

        The result is the layout the constructor makes of the new mesh, polygons numbered
        the same (tile after tile, so the polygons of tiles after a changed one are
        renumbered), every link made in the same order; a kept tile's vertices, polygons,
        detail, tree and links are copied in bulk with their numbers shifted, and only the
        tiles whose polygons' links may change are joined again: the new tiles, the
        neighbours (diagonals too) of new tiles and of tiles gone, and the tiles at the
        ends of off-mesh links whose polygons changed.  This layout is left as it is."""
        cdef const int32_t[::1] r = np.ascontiguousarray(reuse, np.int32).reshape(-1)
        cdef int n = r.shape[0], t, k = 0, last = -1, run
        cdef DetourMesh out
        cdef vector[int] newof
        if np.asarray(reuse).dtype.kind not in "iu":
            raise ValueError(f"reuse must hold tile indices (integers), got "
                             f"{np.asarray(reuse).dtype}")
        for t in range(n):
            if r[t] < -1 or r[t] >= self.num_tiles:
                raise ValueError(f"reuse[{t}] = {r[t]} is not -1 or a tile in "
                                 f"[0, {self.num_tiles})")
            if r[t] < 0:
                k += 1
            elif r[t] <= last:
                raise ValueError(f"reuse[{t}] = {r[t]}: kept tiles must keep their order "
                                 f"(after {last})")
            else:
                last = r[t]
        if k != len(tiles):
            raise ValueError(f"reuse asks for {k} new tiles, but {len(tiles)} are given")
        out = DetourMesh.__new__(DetourMesh)
        out._settings(self.nvp, self.cs, self.ch, self.climb, self.orig[0], self.orig[1],
                      self.orig[2], self.tile_w, self.tile_d)
        out._reserve(self)
        newof.assign(self.num_tiles, -1)
        k = t = 0
        while t < n:
            if r[t] < 0:
                out._lay_tile(tiles[k])
                k += 1
                t += 1
                continue
            run = t + 1         # kept tiles that follow each other here too: one copy
            while run < n and r[run] == r[run - 1] + 1:
                run += 1
            out._copy_tiles(self, r[t], r[run - 1] + 1)
            for t in range(t, run):
                newof[r[t]] = t
            t = run
        out._finish(links, self, &r[0] if n else NULL, &newof[0] if self.num_tiles else NULL)
        return out

    # ------------------------------------------------------------------ building
    cdef void _settings(self, int nvp, float cs, float ch, float climb, float ox, float oy,
                        float oz, float tile_w, float tile_d):
        self.nvp = nvp
        self.cs = cs
        self.ch = ch
        self.climb = climb
        self.orig[0] = ox; self.orig[1] = oy; self.orig[2] = oz
        self.tile_w = tile_w
        self.tile_d = tile_d

    cdef void _reserve(self, DetourMesh like):
        """Room for about as much as ``like`` holds, and some more, so the arrays grow
        without moving."""
        cdef size_t n = like.pnv.size() + like.pnv.size() // 4 + 64
        cdef size_t t = like.tx.size() + like.tx.size() // 4 + 8
        cdef size_t v = like.verts.size() + like.verts.size() // 4 + 192
        cdef size_t k = like.link_ref.size() + like.link_ref.size() // 4 + 256
        cdef size_t d = like.dverts.size() + like.dverts.size() // 4 + 192
        cdef size_t r = like.dtris.size() + like.dtris.size() // 4 + 256
        cdef size_t b = like.bvi.size() + like.bvi.size() // 4 + 64
        self.verts.reserve(v)
        self.pverts.reserve(n * self.nvp)
        self.pneis.reserve(n * self.nvp)
        self.pnv.reserve(n)
        self.ptile.reserve(n)
        self.first_link.reserve(n)
        self.dbase.reserve(n)
        self.dtri.reserve(n)
        self.dntri.reserve(n)
        self.areas.reserve(n)
        self.pflags.reserve(n)
        self.link_next.reserve(k)
        self.link_ref.reserve(k)
        self.link_edge.reserve(k)
        self.link_side.reserve(k)
        self.link_bmin.reserve(k)
        self.link_bmax.reserve(k)
        self.dverts.reserve(d)
        self.dtris.reserve(r)
        self.bvlo.reserve(3 * b)
        self.bvhi.reserve(3 * b)
        self.bvi.reserve(b)
        self.tx.reserve(t)
        self.tz.reserve(t)
        self.tpoly.reserve(t)
        self.tbv.reserve(t)
        self.tnbv.reserve(t)
        self.tvert.reserve(t)
        self.tdvert.reserve(t)
        self.tdtri.reserve(t)
        self.tlink.reserve(t)
        self.tbmin.reserve(3 * t)
        self.tbmax.reserve(3 * t)
        self.tqfac.reserve(t)

    cdef void _lay_tile(self, tuple part) except *:
        """Append a tile from its polygon and detail meshes (a constructor's tuple)."""
        cdef int t = self.tx.size(), i, j, k, nv, vbase = self.verts.size() // 3
        cdef int pbase = self.pnv.size(), dvb = self.dverts.size() // 3
        cdef int tb = self.dtris.size() // 4, nvp = self.nvp
        cdef float cs = self.cs, ch = self.ch
        cdef const uint16_t[:, ::1] pv
        cdef const uint16_t[:, ::1] pp
        cdef const uint32_t[:, ::1] dm
        cdef const float[:, ::1] dv
        cdef const uint8_t[:, ::1] dt
        cdef const uint8_t[::1] ar
        cdef const uint16_t[::1] fl
        cdef float bmin[3]
        x, z, lo, hi, verts, polys, flags, areas, meshes, dverts, dtris = part
        pv = np.ascontiguousarray(verts, np.uint16).reshape(-1, 3)
        pp = np.ascontiguousarray(polys, np.uint16).reshape(-1, 2 * nvp)
        dm = np.ascontiguousarray(meshes, np.uint32).reshape(-1, 4)
        dv = np.ascontiguousarray(dverts, np.float32).reshape(-1, 3)
        dt = np.ascontiguousarray(dtris, np.uint8).reshape(-1, 4)
        ar = np.ascontiguousarray(areas, np.uint8).reshape(-1)
        fl = np.ascontiguousarray(flags, np.uint16).reshape(-1)
        if ar.shape[0] != pp.shape[0] or fl.shape[0] != pp.shape[0]:
            raise ValueError(f"tile ({x}, {z}) has {pp.shape[0]} polygons but "
                             f"{ar.shape[0]} areas and {fl.shape[0]} flags")
        for k in range(3):
            bmin[k] = lo[k]
            self.tbmin.push_back(lo[k])
            self.tbmax.push_back(hi[k])
        self.tqfac.push_back(<float>1.0 / cs)
        self.tx.push_back(x)
        self.tz.push_back(z)
        self.tpoly.push_back(pbase)
        self.tvert.push_back(vbase)
        self.tdvert.push_back(dvb)
        self.tdtri.push_back(tb)
        # vertices in world units, as the reference's mesh data: bmin + v * cell
        for i in range(pv.shape[0]):
            self.verts.push_back(bmin[0] + <float>pv[i, 0] * cs)
            self.verts.push_back(bmin[1] + <float>pv[i, 1] * ch)
            self.verts.push_back(bmin[2] + <float>pv[i, 2] * cs)
        for i in range(pp.shape[0]):
            nv = 0
            for j in range(nvp):
                if pp[i, j] == 0xFFFF:
                    self.pverts.push_back(-1)
                    self.pneis.push_back(0)
                    continue
                nv += 1
                self.pverts.push_back(vbase + pp[i, j])
                k = pp[i, nvp + j]
                if k & 0x8000:
                    k &= 0xf   # the mesh's side (x-, z+, x+, z-) as the reference's
                    self.pneis.push_back(0 if k == 0xf else
                                         EXT_LINK | (4 if k == 0 else 2 if k == 1 else
                                                     0 if k == 2 else 6))
                else:
                    self.pneis.push_back(k + 1)
            self.pnv.push_back(nv)
            self.ptile.push_back(t)
            self.areas.push_back(ar[i])
            self.pflags.push_back(fl[i])
            self.first_link.push_back(NULL_LINK)
            # the detail mesh's own copies of the polygon's vertices are not used:
            # index v < nv is the polygon's vertex v, else detail vertex base + v
            self.dbase.push_back(dvb + dm[i, 0])
            self.dtri.push_back(tb + dm[i, 2])
            self.dntri.push_back(dm[i, 3])
        for i in range(dv.shape[0]):
            for k in range(3):
                self.dverts.push_back(dv[i, k])
        for i in range(dt.shape[0]):
            for k in range(4):
                self.dtris.push_back(dt[i, k])
        self._build_bvtree(t, pbase, pp.shape[0], dm, dv, bmin, cs)
        self.tiles_laid_out += 1

    cdef void _copy_tiles(self, DetourMesh old, int ot0, int ot1):
        """Append tiles ``ot0`` to ``ot1 - 1`` of ``old`` as they lie there: their arrays
        copied in bulk, the numbers of their polygons, vertices, detail vertices and
        triangles and tree nodes shifted (their links are copied later,
        :meth:`_copy_links`)."""
        cdef int t0 = self.tx.size(), nt = ot1 - ot0, i, nvp = self.nvp
        cdef int p0 = self.pnv.size(), op0 = old.tpoly[ot0], n = old._poly_end(ot1 - 1) - op0
        cdef int vshift = self.verts.size() // 3 - old.tvert[ot0]
        cdef int dvshift = self.dverts.size() // 3 - old.tdvert[ot0]
        cdef int dtshift = self.dtris.size() // 4 - old.tdtri[ot0]
        cdef int b0 = old.tbv[ot0], nb = old.tbv[ot1 - 1] + old.tnbv[ot1 - 1] - b0
        cdef int bshift = self.bvi.size() - b0, pshift = p0 - op0, tshift = t0 - ot0
        _extend_f(self.tbmin, old.tbmin, 3 * ot0, 3 * nt)
        _extend_f(self.tbmax, old.tbmax, 3 * ot0, 3 * nt)
        _extend_f(self.tqfac, old.tqfac, ot0, nt)
        _extend_i(self.tx, old.tx, ot0, nt)
        _extend_i(self.tz, old.tz, ot0, nt)
        _extend_i(self.tnbv, old.tnbv, ot0, nt)
        for i in range(ot0, ot1):
            self.tpoly.push_back(old.tpoly[i] + pshift)
            self.tvert.push_back(old.tvert[i] + vshift)
            self.tdvert.push_back(old.tdvert[i] + dvshift)
            self.tdtri.push_back(old.tdtri[i] + dtshift)
            self.tbv.push_back(old.tbv[i] + bshift)
        _extend_f(self.verts, old.verts, 3 * old.tvert[ot0],
                  3 * (old.tvert[ot1] - old.tvert[ot0]))
        _extend_i(self.pverts, old.pverts, op0 * nvp, n * nvp)
        for i in range(p0 * nvp, (p0 + n) * nvp):
            if self.pverts[i] >= 0:
                self.pverts[i] += vshift
        _extend_i(self.pnv, old.pnv, op0, n)
        _extend_i(self.ptile, old.ptile, op0, n)
        _extend_i(self.dbase, old.dbase, op0, n)
        _extend_i(self.dtri, old.dtri, op0, n)
        for i in range(p0, p0 + n):
            self.ptile[i] += tshift
            self.dbase[i] += dvshift
            self.dtri[i] += dtshift
        _extend_b(self.areas, old.areas, op0, n)
        _extend_h(self.pflags, old.pflags, op0, n)
        _extend_h(self.pneis, old.pneis, op0 * nvp, n * nvp)
        self.first_link.resize(p0 + n, NULL_LINK)
        _extend_i(self.dntri, old.dntri, op0, n)
        _extend_f(self.dverts, old.dverts, 3 * old.tdvert[ot0],
                  3 * (old.tdvert[ot1] - old.tdvert[ot0]))
        _extend_b(self.dtris, old.dtris, 4 * old.tdtri[ot0],
                  4 * (old.tdtri[ot1] - old.tdtri[ot0]))
        _extend_h(self.bvlo, old.bvlo, 3 * b0, 3 * nb)
        _extend_h(self.bvhi, old.bvhi, 3 * b0, 3 * nb)
        _extend_i(self.bvi, old.bvi, b0, nb)

    cdef void _finish(self, links, DetourMesh old, const int32_t* oldof,
                      const int* newof) except *:
        """Once every tile is in: the tile grid, the off-mesh links' nodes, and the links
        of every tile (made, or copied from ``old``'s where they cannot have changed;
        ``oldof``: per tile its index in ``old`` or -1, ``newof`` the reverse) and of the
        nodes."""
        cdef int t, run
        cdef vector[uint8_t] stale
        self.num_tiles = self.tx.size()
        self.num_polys = self.pnv.size()
        self.tvert.push_back(self.verts.size() // 3)
        self.tdvert.push_back(self.dverts.size() // 3)
        self.tdtri.push_back(self.dtris.size() // 4)
        self._build_grid()
        self.num_links = 0
        if links is not None:
            self._place_links(*links)
        self.num_nodes = self.num_polys + self.num_links
        if old is None:
            stale.assign(self.num_tiles, 1)
        else:
            self._stale_tiles(old, oldof, newof, stale)
        t = 0
        while t < self.num_tiles:
            if stale[t]:
                self.tlink.push_back(self.link_ref.size())
                self._join_tile(t)
                self.tiles_joined += 1
                t += 1
                continue
            run = t + 1     # kept tiles, not stale, that follow each other in old too
            while run < self.num_tiles and not stale[run] and \
                    oldof[run] == oldof[run - 1] + 1:
                run += 1
            self._copy_links(old, oldof[t], oldof[run - 1] + 1, t, newof)
            t = run
        self.tlink.push_back(self.link_ref.size())
        self._join_nodes()

    cdef void _stale_tiles(self, DetourMesh old, const int32_t* oldof, const int* newof,
                           vector[uint8_t]& stale):
        """Per tile whether its polygons' links may differ from those in ``old``: a new
        tile, a neighbour of a new tile or of one gone, a tile at an end (before or now) of
        an off-mesh link whose end polygons or direction changed."""
        cdef int t, ot, l, j, o, e
        cdef bint same
        stale.assign(self.num_tiles, 0)
        for t in range(self.num_tiles):
            if oldof[t] < 0:
                self._mark_round(self.tx[t], self.tz[t], stale)
        for ot in range(old.num_tiles):
            if newof[ot] < 0:
                self._mark_round(old.tx[ot], old.tz[ot], stale)
        for l in range(max(old.num_links, self.num_links)):
            same = l < old.num_links and l < self.num_links and old.ltwo[l] == self.ltwo[l]
            for j in range(2):
                if not same:
                    break
                o = old.lends[2 * l + j] if l < old.num_links else -1
                e = self.lends[2 * l + j]
                if o < 0 or e < 0:
                    same = o < 0 and e < 0
                else:
                    ot = old.ptile[o]
                    same = newof[ot] >= 0 and \
                        self.tpoly[newof[ot]] + o - old.tpoly[ot] == e
            if same:
                continue
            for j in range(2):
                if l < old.num_links and old.lends[2 * l + j] >= 0:
                    t = newof[old.ptile[old.lends[2 * l + j]]]
                    if t >= 0:
                        stale[t] = 1
                if l < self.num_links and self.lends[2 * l + j] >= 0:
                    stale[self.ptile[self.lends[2 * l + j]]] = 1

    cdef void _mark_round(self, int x, int z, vector[uint8_t]& stale):
        """Mark the tile at (x, z) and its eight neighbours, those that exist."""
        cdef int dx, dz, t
        for dz in range(-1, 2):
            for dx in range(-1, 2):
                t = self.tile_at(x + dx, z + dz)
                if t >= 0:
                    stale[t] = 1

    cdef void _copy_links(self, DetourMesh old, int ot0, int ot1, int t0, const int* newof):
        """The links of tiles t0... copied in bulk from tiles ``ot0`` to ``ot1 - 1`` of
        ``old`` (every polygon they reach kept, off-mesh links' nodes the same), their
        targets renumbered."""
        cdef int a = old.tlink[ot0], b = old.tlink[ot1], at = self.link_ref.size()
        cdef int shift = at - a, i, r, rt, p0 = self.tpoly[t0], op0 = old.tpoly[ot0]
        cdef int n = old._poly_end(ot1 - 1) - op0, onp = old.num_polys, np_ = self.num_polys
        for i in range(ot0, ot1):
            self.tlink.push_back(old.tlink[i] + shift)
        _extend_i(self.link_next, old.link_next, a, b - a)
        _extend_i(self.link_ref, old.link_ref, a, b - a)
        _extend_i(self.link_edge, old.link_edge, a, b - a)
        _extend_b(self.link_side, old.link_side, a, b - a)
        _extend_b(self.link_bmin, old.link_bmin, a, b - a)
        _extend_b(self.link_bmax, old.link_bmax, a, b - a)
        for i in range(at, at + b - a):
            if self.link_next[i] != NULL_LINK:
                self.link_next[i] += shift
            r = self.link_ref[i]
            if r >= onp:
                self.link_ref[i] = r - onp + np_
            else:
                rt = old.ptile[r]
                self.link_ref[i] = r - old.tpoly[rt] + self.tpoly[newof[rt]]
        for i in range(n):
            r = old.first_link[op0 + i]
            self.first_link[p0 + i] = r + shift if r != NULL_LINK else NULL_LINK

    def _place_links(self, ends, radius, bidirectional, areas, costs):
        """The off-mesh links' nodes after the polygons, and the polygons at their ends
        (see the class docstring); they are joined tile by tile (:meth:`_join_tile`)."""
        cdef const float[:, :, ::1] e = np.ascontiguousarray(ends, np.float32).reshape(-1, 2, 3)
        cdef const float[::1] rad = np.ascontiguousarray(radius, np.float32)
        cdef const uint8_t[::1] two = np.ascontiguousarray(bidirectional, np.uint8)
        cdef const uint8_t[::1] ar = np.ascontiguousarray(areas, np.uint8)
        cdef const float[::1] co = np.ascontiguousarray(costs, np.float32)
        cdef int n = e.shape[0], l, k, j, node, vb
        cdef int poly[2]
        cdef float p[3]
        cdef float ext[3]
        cdef float pt[6]
        cdef float dx, dz
        cdef vector[uint8_t] every
        if not (rad.shape[0] == two.shape[0] == ar.shape[0] == co.shape[0] == n):
            raise ValueError("the link arrays differ in length")
        every.assign(self.num_polys, 1)
        self.num_links = n
        for l in range(n):
            for j in range(2):
                for k in range(3):
                    p[k] = e[l, j, k]
                ext[0] = ext[2] = rad[l]
                ext[1] = self.climb
                poly[j] = self.nearest(p, ext, every.data(), &pt[3 * j]) if self.num_polys \
                    else -1
                dx = pt[3 * j] - p[0]
                dz = pt[3 * j + 2] - p[2]
                if poly[j] >= 0 and dx * dx + dz * dz > rad[l] * rad[l]:
                    poly[j] = -1
                if poly[j] < 0:
                    for k in range(3):
                        pt[3 * j + k] = p[k]
            node = self.num_polys + l
            vb = self.verts.size() // 3
            for k in range(6):
                self.verts.push_back(pt[k])
            for j in range(self.nvp):
                self.pverts.push_back(vb + j if j < 2 else -1)
                self.pneis.push_back(0)
            self.pnv.push_back(2)
            self.ptile.push_back(-1)
            self.areas.push_back(ar[l])
            self.first_link.push_back(NULL_LINK)
            self.dbase.push_back(0)
            self.dtri.push_back(0)
            self.dntri.push_back(0)
            self.lcost.push_back(co[l])
            self.ltwo.push_back(two[l])
            self.lends.push_back(poly[0])
            self.lends.push_back(poly[1])

    cdef int _link_tile(self, int l, int end) noexcept:
        """The tile of the polygon at link l's start (0) or end (1); -1 when an end of
        the link found no polygon (it joins nothing)."""
        if self.lends[2 * l] < 0 or self.lends[2 * l + 1] < 0:
            return -1
        return self.ptile[self.lends[2 * l + end]]

    cdef bint _near_tiles(self, int a, int b) noexcept:
        """Whether tiles a and b are one tile or neighbours (diagonals too)."""
        return abs(self.tx[a] - self.tx[b]) <= 1 and abs(self.tz[a] - self.tz[b]) <= 1

    def polygon_flags_areas(self):
        """The polygons' flags and areas as laid out (areas as :meth:`set_areas` left
        them): ``((num_polys,) uint16, (num_polys,) uint8)``."""
        flags = np.empty(self.num_polys, np.uint16)
        areas = np.empty(self.num_polys, np.uint8)
        cdef uint16_t[::1] f = flags
        cdef uint8_t[::1] a = areas
        if self.num_polys:
            memcpy(&f[0], &self.pflags[0], self.num_polys * sizeof(uint16_t))
            memcpy(&a[0], &self.areas[0], self.num_polys * sizeof(uint8_t))
        return flags, areas

    def unconnected_links(self):
        """The links (0-based) with an end that found no polygon, ``(k,)`` int32."""
        out = [l for l in range(self.num_links)
               if self.lends[2 * l] < 0 or self.lends[2 * l + 1] < 0]
        return np.array(out, np.int32)

    def link_ends(self):
        """Per link the polygons at its start and end (-1: none) and its ends snapped onto
        them (the points given where none): ``((L, 2) int32, (L, 2, 3) float32)``."""
        polys = np.array(self.lends, np.int32).reshape(-1, 2)
        pts = np.empty((self.num_links, 2, 3), np.float32)
        cdef int l, j, k, v
        for l in range(self.num_links):
            for j in range(2):
                v = self.pverts[(self.num_polys + l) * self.nvp + j]
                for k in range(3):
                    pts[l, j, k] = self.verts[3 * v + k]
        return polys, pts

    def set_areas(self, const int32_t[::1] polys, const uint8_t[::1] areas):
        """Give polygons (or link nodes) ``polys`` the area ids ``areas``, in place."""
        cdef Py_ssize_t i
        if polys.shape[0] != areas.shape[0]:
            raise ValueError("polys and areas differ in length")
        for i in range(polys.shape[0]):
            if not 0 <= polys[i] < self.num_nodes:
                raise ValueError(f"polygon {polys[i]} is not in [0, {self.num_nodes})")
        for i in range(polys.shape[0]):
            self.areas[polys[i]] = areas[i]

    cdef void _build_bvtree(self, int t, int pbase, int n, const uint32_t[:, ::1] dm,
                            const float[:, ::1] dv, float* origin, float cs):
        """The tile's bounding-volume tree over its polygons' detail bounds quantized by
        the cell size, split at the median of the longest axis (sorted as the reference
        sorts, ``_smoothsort``)."""
        cdef vector[BVItem] items
        cdef BVItem it
        cdef int i, j, k, vb, ndv
        cdef float lo[3]
        cdef float hi[3]
        cdef float q = <float>1.0 / cs
        for i in range(n):
            vb = dm[i, 0]
            ndv = dm[i, 1]
            for k in range(3):
                lo[k] = dv[vb, k]
                hi[k] = dv[vb, k]
            for j in range(1, ndv):
                for k in range(3):
                    if dv[vb + j, k] < lo[k]:
                        lo[k] = dv[vb + j, k]
                    if dv[vb + j, k] > hi[k]:
                        hi[k] = dv[vb + j, k]
            for k in range(3):
                it.lo[k] = _quant((lo[k] - origin[k]) * q)
                it.hi[k] = _quant((hi[k] - origin[k]) * q)
            it.i = i
            items.push_back(it)
        self.tbv.push_back(self.bvi.size())
        if n:
            self._subdivide(items, 0, n)
            # The reference sizes the tree at 2n nodes, uses 2n - 1 and leaves the last
            # zeroed: a leaf for polygon 0 with bounds at the tile's lower corner, which a
            # query box touching that corner also meets.  Kept, for the same answers.
            for k in range(3):
                self.bvlo.push_back(0)
                self.bvhi.push_back(0)
            self.bvi.push_back(0)
        self.tnbv.push_back(self.bvi.size() - self.tbv[t])

    cdef void _subdivide(self, vector[BVItem]& items, int imin, int imax):
        cdef int inum = imax - imin, icur = self.bvi.size(), i, k, axis
        cdef uint16_t lo[3]
        cdef uint16_t hi[3]
        cdef int ext[3]
        if inum == 1:
            for k in range(3):
                self.bvlo.push_back(items[imin].lo[k])
                self.bvhi.push_back(items[imin].hi[k])
            self.bvi.push_back(items[imin].i)
            return
        for k in range(3):
            lo[k] = items[imin].lo[k]
            hi[k] = items[imin].hi[k]
        for i in range(imin + 1, imax):
            for k in range(3):
                if items[i].lo[k] < lo[k]:
                    lo[k] = items[i].lo[k]
                if items[i].hi[k] > hi[k]:
                    hi[k] = items[i].hi[k]
        for k in range(3):
            self.bvlo.push_back(lo[k])
            self.bvhi.push_back(hi[k])
            ext[k] = hi[k] - lo[k]
        self.bvi.push_back(0)
        axis = 0
        if ext[1] > ext[axis]:
            axis = 1
        if ext[2] > ext[axis]:
            axis = 2
        if axis == 0:
            smoothsort(&items[imin], inum, sizeof(BVItem), _cmp_x)
        elif axis == 1:
            smoothsort(&items[imin], inum, sizeof(BVItem), _cmp_y)
        else:
            smoothsort(&items[imin], inum, sizeof(BVItem), _cmp_z)
        self._subdivide(items, imin, imin + inum // 2)
        self._subdivide(items, imin + inum // 2, imax)
        self.bvi[icur] = -(<int>self.bvi.size() - icur)   # escape: skip the subtree

    cdef void _build_grid(self):
        cdef int t, x0 = 0, z0 = 0, x1 = -1, z1 = -1
        for t in range(self.num_tiles):
            if t == 0 or self.tx[t] < x0:
                x0 = self.tx[t]
            if t == 0 or self.tz[t] < z0:
                z0 = self.tz[t]
            if t == 0 or self.tx[t] > x1:
                x1 = self.tx[t]
            if t == 0 or self.tz[t] > z1:
                z1 = self.tz[t]
        self.gx0, self.gz0, self.gw, self.gd = x0, z0, x1 - x0 + 1, z1 - z0 + 1
        self.grid.assign(self.gw * self.gd, -1)
        for t in range(self.num_tiles):
            self.grid[(self.tz[t] - z0) * self.gw + self.tx[t] - x0] = t

    cdef int tile_at(self, int x, int z) noexcept nogil:
        x -= self.gx0
        z -= self.gz0
        if x < 0 or z < 0 or x >= self.gw or z >= self.gd:
            return -1
        return self.grid[z * self.gw + x]

    cdef void _link(self, int p, int ref, int edge, uint8_t side, uint8_t lo, uint8_t hi):
        """Put a link at the head of polygon p's list (the reference's order)."""
        self.link_ref.push_back(ref)
        self.link_edge.push_back(edge)
        self.link_side.push_back(side)
        self.link_bmin.push_back(lo)
        self.link_bmax.push_back(hi)
        self.link_next.push_back(self.first_link[p])
        self.first_link[p] = self.link_ref.size() - 1

    cdef void _join_tile(self, int t):
        """The links of tile t's polygons, in the order the reference's lists hold them
        once it has added every tile in this order (each link put at the head of its
        polygon's list, so the last made is met first): across their own shared edges
        (from the lowest edge up); to the nodes of the off-mesh links starting on them,
        then of those ending on them from the same tile; then per neighbouring tile
        (diagonals too; those before t in the order by side, then those after by their
        place in the order, as the reference meets them) the links across the shared side
        and to the nodes of the links from that tile ending on them; last, to the nodes
        of the links ending on them from tiles that are not neighbours (which the
        reference does not join).  Only a bidirectional link's end links to its node."""
        cdef int p, j, k, m, s, v, l, node, cnt = 0, before
        cdef int nbs[8]
        cdef int sides[8]
        cdef int DX[8]
        cdef int DZ[8]
        DX[:] = [1, 1, 0, -1, -1, -1, 0, 1]
        DZ[:] = [0, 1, 1, 1, 0, -1, -1, -1]
        for p in range(self.tpoly[t], self._poly_end(t)):
            for j in range(self.pnv[p] - 1, -1, -1):
                if self.pneis[p * self.nvp + j] == 0 or self.pneis[p * self.nvp + j] & EXT_LINK:
                    continue
                self._link(p, self.tpoly[t] + self.pneis[p * self.nvp + j] - 1, j, SIDE_NONE,
                           0, 0)
        for l in range(self.num_links):
            if self._link_tile(l, 0) == t:
                self._link(self.lends[2 * l], self.num_polys + l, -1, SIDE_NONE, 0, 0)
        for l in range(self.num_links):
            if self.ltwo[l] and self._link_tile(l, 0) == t and self._link_tile(l, 1) == t:
                self._link(self.lends[2 * l + 1], self.num_polys + l, -1, SIDE_NONE, 0, 0)
        for s in range(8):
            v = self.tile_at(self.tx[t] + DX[s], self.tz[t] + DZ[s])
            if 0 <= v < t:
                nbs[cnt] = v
                sides[cnt] = s
                cnt += 1
        before = cnt
        for s in range(8):
            v = self.tile_at(self.tx[t] + DX[s], self.tz[t] + DZ[s])
            if v > t:       # insertion into the later ones, by their place in the order
                k = cnt
                while k > before and nbs[k - 1] > v:
                    nbs[k] = nbs[k - 1]
                    sides[k] = sides[k - 1]
                    k -= 1
                nbs[k] = v
                sides[k] = s
                cnt += 1
        for m in range(cnt):
            v, s = nbs[m], sides[m]
            if s % 2 == 0:   # diagonal neighbours share no edges
                self._connect_sides(t, v, s)
            for l in range(self.num_links):
                if self.ltwo[l] and self._link_tile(l, 0) == v and self._link_tile(l, 1) == t:
                    self._link(self.lends[2 * l + 1], self.num_polys + l, -1, s, 0, 0)
        for l in range(self.num_links):
            if self.ltwo[l] and self._link_tile(l, 1) == t and \
                    not self._near_tiles(self._link_tile(l, 0), t):
                self._link(self.lends[2 * l + 1], self.num_polys + l, -1, SIDE_NONE, 0, 0)

    cdef void _join_nodes(self):
        """Each joined off-mesh link's node to the polygon at its start, then at its end
        (so the end's link is met first), the latter with the direction from the start's
        tile to the end's (0 x+, then counter-clockwise in xz by eighths) when they are
        neighbours, which the reference keeps (the node entered is then that side's)."""
        cdef int l, a, b, k, node
        cdef uint8_t side
        cdef int DX[8]
        cdef int DZ[8]
        DX[:] = [1, 1, 0, -1, -1, -1, 0, 1]
        DZ[:] = [0, 1, 1, 1, 0, -1, -1, -1]
        for l in range(self.num_links):
            a = self._link_tile(l, 0)
            if a < 0:
                continue
            b = self._link_tile(l, 1)
            node = self.num_polys + l
            self._link(node, self.lends[2 * l], 0, SIDE_NONE, 0, 0)
            side = SIDE_NONE
            for k in range(8):
                if self.tx[b] - self.tx[a] == DX[k] and self.tz[b] - self.tz[a] == DZ[k]:
                    side = k
            self._link(node, self.lends[2 * l + 1], 1, side, 0, 0)

    cdef void _connect_sides(self, int t, int target, int side):
        """Links from tile t's polygons' edges on ``side`` to the polygons of ``target``
        whose edges they touch, each with the share of the edge it spans (in 255ths)."""
        cdef int p, j, k, q, e, nv, end = self._poly_end(t), tend = self._poly_end(target)
        cdef int opposite = (side + 4) & 7
        cdef const float* va
        cdef const float* vb
        cdef const float* vc
        cdef const float* vd
        cdef float amin[2]
        cdef float amax[2]
        cdef float bmin[2]
        cdef float bmax[2]
        cdef float apos, bpos, cmin, cmax, tmin, tmax, span
        cdef int found
        for p in range(self.tpoly[t], end):
            nv = self.pnv[p]
            for j in range(nv):
                if not (self.pneis[p * self.nvp + j] & EXT_LINK) or \
                        (self.pneis[p * self.nvp + j] & 0xff) != side:
                    continue
                va = &self.verts[3 * self.pverts[p * self.nvp + j]]
                vb = &self.verts[3 * self.pverts[p * self.nvp + (j + 1) % nv]]
                slab_ends(va, vb, amin, amax, opposite)
                apos = slab_coord(va, opposite)
                found = 0
                for q in range(self.tpoly[target], tend):
                    if found >= 4:   # the reference keeps at most four per edge
                        break
                    for e in range(self.pnv[q]):
                        if self.pneis[q * self.nvp + e] != (EXT_LINK | opposite):
                            continue
                        vc = &self.verts[3 * self.pverts[q * self.nvp + e]]
                        vd = &self.verts[3 * self.pverts[q * self.nvp + (e + 1) % self.pnv[q]]]
                        bpos = slab_coord(vc, opposite)
                        if (apos - bpos if apos >= bpos else bpos - apos) > <float>0.01:
                            continue
                        slab_ends(vc, vd, bmin, bmax, opposite)
                        if not slabs_overlap(amin, amax, bmin, bmax, <float>0.01, self.climb):
                            continue
                        cmin = amin[0] if amin[0] > bmin[0] else bmin[0]
                        cmax = amax[0] if amax[0] < bmax[0] else bmax[0]
                        found += 1
                        k = 2 if (side == 0 or side == 4) else 0
                        span = vb[k] - va[k]
                        tmin = (cmin - va[k]) / span
                        tmax = (cmax - va[k]) / span
                        if tmin > tmax:
                            tmin, tmax = tmax, tmin
                        self._link(p, q, j, side, _byte(tmin), _byte(tmax))
                        break

    cdef int _poly_end(self, int t):
        return self.tpoly[t + 1] if t + 1 < self.num_tiles else self.num_polys

    # ------------------------------------------------------------------ geometry
    def links(self):
        """Every node's links in the order searches visit them: ``(ptr, to, edge, side)``
        with node p's links at ``ptr[p]:ptr[p + 1]`` (polygons, then off-mesh links);
        ``side`` 255 within a tile, else the tile side crossed (0 x+, 2 z+, 4 x-, 6 z-;
        an off-mesh link between neighbouring tiles also 1, 3, 5, 7 for the diagonals);
        ``edge`` -1 on a link from a polygon to an off-mesh link, 0 or 1 (its start or end)
        on the link's own."""
        ptr, to, edge, side = [0], [], [], []
        for p in range(self.num_nodes):
            i = self.first_link[p]
            while i != NULL_LINK:
                to.append(self.link_ref[i])
                edge.append(self.link_edge[i])
                side.append(self.link_side[i])
                i = self.link_next[i]
            ptr.append(len(to))
        return (np.array(ptr, np.int64), np.array(to, np.int32), np.array(edge, np.int32),
                np.array(side, np.int32))

    def vertices(self):
        """The polygons' vertices in world units, ``(n, 3)`` float32."""
        return np.array(self.verts, np.float32).reshape(-1, 3)

    cdef int portal(self, int a, int b, float* left, float* right) noexcept nogil:
        """The edge of polygon a through which b is entered (left and right ends as seen
        from a; on a tile side, only the part b spans); 0 when a has no link to b."""
        cdef int i = self.first_link[a], v0, v1, s_i
        cdef float s, tmin, tmax
        while i != NULL_LINK:
            if self.link_ref[i] == b:
                break
            i = self.link_next[i]
        if i == NULL_LINK:
            return 0
        if a >= self.num_polys or b >= self.num_polys:
            # an off-mesh link: the portal is the link's end on the polygon's side
            if a < self.num_polys:
                i = self.first_link[b]
                while i != NULL_LINK and self.link_ref[i] != a:
                    i = self.link_next[i]
                if i == NULL_LINK:
                    return 0
                a = b
            v0 = self.pverts[a * self.nvp + self.link_edge[i]]
            for s_i in range(3):
                left[s_i] = right[s_i] = self.verts[3 * v0 + s_i]
            return 1
        v0 = self.pverts[a * self.nvp + self.link_edge[i]]
        v1 = self.pverts[a * self.nvp + (self.link_edge[i] + 1) % self.pnv[a]]
        left[0] = self.verts[3 * v0]; left[1] = self.verts[3 * v0 + 1]
        left[2] = self.verts[3 * v0 + 2]
        right[0] = self.verts[3 * v1]; right[1] = self.verts[3 * v1 + 1]
        right[2] = self.verts[3 * v1 + 2]
        if self.link_side[i] != SIDE_NONE and (self.link_bmin[i] != 0 or
                                               self.link_bmax[i] != 255):
            s = <float>1.0 / <float>255.0
            tmin = self.link_bmin[i] * s
            tmax = self.link_bmax[i] * s
            lerp3(left, &self.verts[3 * v0], &self.verts[3 * v1], tmin)
            lerp3(right, &self.verts[3 * v0], &self.verts[3 * v1], tmax)
        return 1

    cdef inline int parea(self, int p) noexcept nogil:
        return self.areas[p]

    cdef inline const float* detail_vertex(self, int p, int v) noexcept nogil:
        if v < self.pnv[p]:
            return &self.verts[3 * self.pverts[p * self.nvp + v]]
        return &self.dverts[3 * (self.dbase[p] + v)]

    cdef bint inside(self, int p, const float* pt) noexcept nogil:
        cdef int i, j, nv = self.pnv[p]
        cdef bint c = False
        j = nv - 1
        for i in range(nv):
            if crosses(pt, &self.verts[3 * self.pverts[p * self.nvp + i]],
                       &self.verts[3 * self.pverts[p * self.nvp + j]]):
                c = not c
            j = i
        return c

    cdef void closest_on_detail_edges(self, int p, const float* pos, float* out,
                                      bint only_boundary) noexcept nogil:
        """The nearest point (xz distance) on the edges of polygon p's detail triangles:
        its outline's only, or every edge (each inner edge seen once)."""
        cdef int i, j, k
        cdef float dmin = FLT_BIG, tmin = 0, d, t
        cdef const float* v[3]
        cdef const float* pmin = NULL
        cdef const float* pmax = NULL
        cdef const uint8_t* tri
        for i in range(self.dntri[p]):
            tri = &self.dtris[4 * (self.dtri[p] + i)]
            if only_boundary and (tri[3] & 0x15) == 0:
                continue
            for k in range(3):
                v[k] = self.detail_vertex(p, tri[k])
            j = 2
            for k in range(3):
                if (((tri[3] >> (j * 2)) & 0x3) & 1) == 0 and (only_boundary or tri[j] < tri[k]):
                    j = k
                    continue
                d = dist_pt_seg_2d(pos, v[j], v[k], &t)
                if d < dmin:
                    dmin = d
                    tmin = t
                    pmin = v[j]
                    pmax = v[k]
                j = k
        if pmin != NULL:
            lerp3(out, pmin, pmax, tmin)
        else:
            out[0] = pos[0]; out[1] = pos[1]; out[2] = pos[2]

    cdef bint poly_height(self, int p, const float* pos, float* h) noexcept nogil:
        """The ground's height on polygon p under pos (xz) from its detail triangles;
        False when pos is not over the polygon."""
        cdef int i, k
        cdef const uint8_t* tri
        cdef float edge[3]
        if not self.inside(p, pos):
            return False
        for i in range(self.dntri[p]):
            tri = &self.dtris[4 * (self.dtri[p] + i)]
            if height_on_triangle(pos, self.detail_vertex(p, tri[0]),
                                  self.detail_vertex(p, tri[1]),
                                  self.detail_vertex(p, tri[2]), h):
                return True
        # over the polygon yet on no triangle (rounding at an edge): the nearest edge's
        self.closest_on_detail_edges(p, pos, edge, False)
        h[0] = edge[1]
        return True

    cdef bint closest_on_poly(self, int p, const float* pos, float* out) noexcept nogil:
        """The nearest point of polygon p to pos: pos at the ground's height when over the
        polygon (returns True), else the nearest point of its outline (the detail
        triangles' outer edges)."""
        out[0] = pos[0]; out[1] = pos[1]; out[2] = pos[2]
        if self.poly_height(p, pos, &out[1]):
            return True
        self.closest_on_detail_edges(p, pos, out, True)
        return False

    cdef void closest_on_boundary(self, int p, const float* pos, float* out) noexcept nogil:
        """pos itself when over polygon p (xz), else the nearest point of its outline."""
        cdef int i, j, nv = self.pnv[p], best = 0
        cdef float ed[16]
        cdef float et[16]
        cdef const float* vi
        cdef const float* vj
        cdef bint c = False
        j = nv - 1
        for i in range(nv):
            vi = &self.verts[3 * self.pverts[p * self.nvp + i]]
            vj = &self.verts[3 * self.pverts[p * self.nvp + j]]
            if crosses(pos, vi, vj):
                c = not c
            ed[j] = dist_pt_seg_2d(pos, vj, vi, &et[j])
            j = i
        if c:
            out[0] = pos[0]; out[1] = pos[1]; out[2] = pos[2]
            return
        for i in range(1, nv):
            if ed[i] < ed[best]:
                best = i
        lerp3(out, &self.verts[3 * self.pverts[p * self.nvp + best]],
              &self.verts[3 * self.pverts[p * self.nvp + (best + 1) % nv]], et[best])

    cdef int nearest(self, const float* centre, const float* ext, const uint8_t* allowed,
                     float* out) noexcept nogil:
        """The usable polygon nearest ``centre`` among those whose bounds meet the box
        ``centre`` +- ``ext``, and the nearest point on it; -1 when none.  A point over a
        polygon counts as on it when within the agent's climb of its ground; ties go to
        the polygon met first (tiles row by row, each in its tree's order)."""
        return self.walk_box(centre, ext, allowed, NULL, out)

    cdef bint segment_crossing(self, int p, const float* p0, const float* p1, float* tmin,
                               float* tmax, int* seg_min, int* seg_max) noexcept nogil:
        """Where the segment p0-p1 enters and leaves polygon p in xz (fractions, clipped to
        0..1, and the edges, -1 for an end inside): False when it misses the polygon
        (:func:`_segment_in_polygon` over its vertices)."""
        cdef float verts[3 * 6]          # verts_per_poly is at most 6
        cdef int nv = self.pnv[p], i
        for i in range(nv):
            memcpy(&verts[3 * i], &self.verts[3 * self.pverts[p * self.nvp + i]],
                   3 * sizeof(float))
        return _segment_in_polygon(p0, p1, verts, nv, tmin, tmax, seg_min, seg_max)

    cdef bint overlap_2d(self, int a, int b) noexcept nogil:
        """Whether polygons a and b overlap in xz: no edge normal of either separates
        their projections by more than 1e-4 (the reference's test)."""
        return self._no_axis_separates(a, b) and self._no_axis_separates(b, a)

    cdef bint _no_axis_separates(self, int a, int b) noexcept nogil:
        cdef int i, j, na = self.pnv[a]
        cdef float nx, nz, amin, amax, bmin, bmax
        cdef const float* va
        cdef const float* vb
        j = na - 1
        for i in range(na):
            va = &self.verts[3 * self.pverts[a * self.nvp + j]]
            vb = &self.verts[3 * self.pverts[a * self.nvp + i]]
            nx = vb[2] - va[2]
            nz = -(vb[0] - va[0])
            self._project(a, nx, nz, &amin, &amax)
            self._project(b, nx, nz, &bmin, &bmax)
            if (amin + <float>1e-4) > bmax or (amax - <float>1e-4) < bmin:
                return False
            j = i
        return True

    cdef void _project(self, int p, float nx, float nz, float* lo, float* hi) noexcept nogil:
        cdef int i
        cdef float d
        cdef const float* v
        for i in range(self.pnv[p]):
            v = &self.verts[3 * self.pverts[p * self.nvp + i]]
            d = nx * v[0] + nz * v[2]
            if i == 0 or d < lo[0]:
                lo[0] = d
            if i == 0 or d > hi[0]:
                hi[0] = d

    cdef void in_box(self, const float* centre, const float* ext, const uint8_t* allowed,
                     vector[int]& out) noexcept nogil:
        """The usable polygons whose tree bounds meet the box ``centre`` +- ``ext``, tiles
        row by row, each in its tree's order."""
        self.walk_box(centre, ext, allowed, &out, NULL)

    cdef int walk_box(self, const float* centre, const float* ext, const uint8_t* allowed,
                      vector[int]* found_all, float* out) noexcept nogil:
        """Walk the tiles' trees over the box ``centre`` +- ``ext``, tiles row by row, each
        in its tree's order, meeting every usable polygon whose bounds meet the box: with
        ``found_all``, append each; else keep the nearest (as :meth:`nearest`) and return
        it, its point in ``out``."""
        cdef float qmin[3]
        cdef float qmax[3]
        cdef float best = FLT_BIG, d, dy
        cdef float diff[3]
        cdef float pt[3]
        cdef float lo[3]
        cdef float hi[3]
        cdef int k, x0, z0, x1, z1, x, z, t, node, end, p, found = -1
        cdef uint16_t bmin[3]
        cdef uint16_t bmax[3]
        cdef bint over, overlap, leaf
        for k in range(3):
            qmin[k] = centre[k] - ext[k]
            qmax[k] = centre[k] + ext[k]
        x0 = <int>floorf((qmin[0] - self.orig[0]) / self.tile_w)
        z0 = <int>floorf((qmin[2] - self.orig[2]) / self.tile_d)
        x1 = <int>floorf((qmax[0] - self.orig[0]) / self.tile_w)
        z1 = <int>floorf((qmax[2] - self.orig[2]) / self.tile_d)
        for z in range(z0, z1 + 1):
            for x in range(x0, x1 + 1):
                t = self.tile_at(x, z)
                if t < 0:
                    continue
                for k in range(3):
                    lo[k] = _clamp(qmin[k], self.tbmin[3 * t + k], self.tbmax[3 * t + k]) \
                        - self.tbmin[3 * t + k]
                    hi[k] = _clamp(qmax[k], self.tbmin[3 * t + k], self.tbmax[3 * t + k]) \
                        - self.tbmin[3 * t + k]
                    bmin[k] = (<uint16_t>(self.tqfac[t] * lo[k])) & 0xfffe
                    bmax[k] = (<uint16_t>(self.tqfac[t] * hi[k] + 1)) | 1
                node = self.tbv[t]
                end = node + self.tnbv[t]
                while node < end:
                    overlap = True
                    for k in range(3):
                        if bmin[k] > self.bvhi[3 * node + k] or bmax[k] < self.bvlo[3 * node + k]:
                            overlap = False
                    leaf = self.bvi[node] >= 0
                    if leaf and overlap:
                        p = self.tpoly[t] + self.bvi[node]
                        if allowed[p] and found_all != NULL:
                            found_all.push_back(p)
                        elif allowed[p]:
                            over = self.closest_on_poly(p, centre, pt)
                            for k in range(3):
                                diff[k] = centre[k] - pt[k]
                            if over:
                                dy = diff[1] if diff[1] >= 0 else -diff[1]
                                d = dy - self.climb
                                d = d * d if d > 0 else 0
                            else:
                                d = diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2]
                            if d < best:
                                best = d
                                found = p
                                out[0] = pt[0]; out[1] = pt[1]; out[2] = pt[2]
                    if overlap or leaf:
                        node += 1
                    else:
                        node -= self.bvi[node]
        return found

cdef bint _segment_in_polygon(const float* p0, const float* p1, const float* verts, int n,
                              float* tmin, float* tmax, int* seg_min,
                              int* seg_max) noexcept nogil:
    """Where the segment p0-p1 enters and leaves the convex polygon of ``n`` points
    ``verts`` (xyz) in xz: fractions clipped to 0..1 and the edges (-1: an end inside);
    False when it misses.  Edges within 1e-6 of parallel to it are not crossed (the
    reference's guard)."""
    cdef int i, j = n - 1
    cdef float dx = p1[0] - p0[0], dz = p1[2] - p0[2]
    cdef float ex, ez, fx, fz, num, d, t
    tmin[0] = 0
    tmax[0] = 1
    seg_min[0] = -1
    seg_max[0] = -1
    for i in range(n):
        ex = verts[3 * i] - verts[3 * j]
        ez = verts[3 * i + 2] - verts[3 * j + 2]
        fx = p0[0] - verts[3 * j]
        fz = p0[2] - verts[3 * j + 2]
        num = ez * fx - ex * fz
        d = dz * ex - dx * ez
        if (d if d >= 0 else -d) < <float>0.000001:
            if num < 0:
                return False
            j = i
            continue
        t = num / d
        if d < 0:
            if t > tmin[0]:
                tmin[0] = t
                seg_min[0] = j
                if tmin[0] > tmax[0]:
                    return False
        else:
            if t < tmax[0]:
                tmax[0] = t
                seg_max[0] = j
                if tmax[0] < tmin[0]:
                    return False
        j = i
    return True


cdef inline void _extend_f(vector[float]& dst, vector[float]& src, size_t at,
                           size_t n) noexcept:
    """Append src[at:at + n] to dst (a bulk copy)."""
    cdef size_t end = dst.size()
    if n:
        dst.resize(end + n)
        memcpy(&dst[end], &src[at], n * sizeof(float))


cdef inline void _extend_i(vector[int]& dst, vector[int]& src, size_t at, size_t n) noexcept:
    cdef size_t end = dst.size()
    if n:
        dst.resize(end + n)
        memcpy(&dst[end], &src[at], n * sizeof(int))


cdef inline void _extend_h(vector[uint16_t]& dst, vector[uint16_t]& src, size_t at,
                           size_t n) noexcept:
    cdef size_t end = dst.size()
    if n:
        dst.resize(end + n)
        memcpy(&dst[end], &src[at], n * sizeof(uint16_t))


cdef inline void _extend_b(vector[uint8_t]& dst, vector[uint8_t]& src, size_t at,
                           size_t n) noexcept:
    cdef size_t end = dst.size()
    if n:
        dst.resize(end + n)
        memcpy(&dst[end], &src[at], n * sizeof(uint8_t))


cdef inline float _clamp(float v, float lo, float hi) noexcept nogil:
    return lo if v < lo else (hi if v > hi else v)


cdef inline uint16_t _quant(float v) noexcept nogil:
    cdef int i = <int>v
    return <uint16_t>(0 if i < 0 else (0xffff if i > 0xffff else i))


cdef inline uint8_t _byte(float t) noexcept nogil:
    return <uint8_t>roundf(_clamp(t, 0, 1) * <float>255.0)


# The items sort by lower bound on one axis with the C library's qsort of the reference
# build (see ``_smoothsort``), so that equal keys end in the same order and the tree comes
# out the same.
cdef int _cmp_x(const void* pa, const void* pb) noexcept nogil:
    cdef const BVItem* a = <const BVItem*> pa
    cdef const BVItem* b = <const BVItem*> pb
    return -1 if a.lo[0] < b.lo[0] else (1 if a.lo[0] > b.lo[0] else 0)


cdef int _cmp_y(const void* pa, const void* pb) noexcept nogil:
    cdef const BVItem* a = <const BVItem*> pa
    cdef const BVItem* b = <const BVItem*> pb
    return -1 if a.lo[1] < b.lo[1] else (1 if a.lo[1] > b.lo[1] else 0)


cdef int _cmp_z(const void* pa, const void* pb) noexcept nogil:
    cdef const BVItem* a = <const BVItem*> pa
    cdef const BVItem* b = <const BVItem*> pb
    return -1 if a.lo[2] < b.lo[2] else (1 if a.lo[2] > b.lo[2] else 0)


cdef class PathSearch:
    """The scratch of path queries on one :class:`DetourMesh`: the A* nodes (a polygon or
    off-mesh link and the tile side it was entered from), reset by a generation stamp, and
    the open list (a binary heap ordered as the reference's, so ties pop alike).  The A*
    under way keeps its state here, so that it can run in slices (:class:`PathRun`)."""

    cdef readonly DetourMesh mesh
    cdef vector[float] cost, total, pos
    cdef vector[int] parent, stamp, heap_at
    cdef vector[uint8_t] flags
    cdef vector[int] heap
    cdef int gen
    cdef readonly int expanded, generated
    cdef int crossings              # straight-path corners added at portals: CROSS_*
    cdef int a_goal, a_last
    cdef float a_last_h
    cdef float a_gpos[3]

    def __init__(self, DetourMesh mesh):
        cdef int n = mesh.num_nodes * STATES
        self.mesh = mesh
        self.cost.resize(n)
        self.total.resize(n)
        self.pos.resize(3 * n)
        self.parent.resize(n)
        self.stamp.assign(n, 0)
        self.heap_at.resize(n)
        self.flags.resize(n)
        self.gen = 0

    cdef void _check(self, const uint8_t[::1] allowed) except *:
        if allowed.shape[0] != self.mesh.num_nodes:
            raise ValueError(f"allowed has {allowed.shape[0]} entries for "
                             f"{self.mesh.num_nodes} polygons and links")

    # ------------------------------------------------------------------ open list
    cdef void _up(self, int i, int node) noexcept nogil:
        cdef int up = (i - 1) // 2
        while i > 0 and self.total[self.heap[up]] > self.total[node]:
            self.heap[i] = self.heap[up]
            self.heap_at[self.heap[i]] = i
            i = up
            up = (i - 1) // 2
        self.heap[i] = node
        self.heap_at[node] = i

    cdef int _pop(self) noexcept nogil:
        cdef int top = self.heap[0], n = self.heap.size() - 1, i = 0, child = 1
        cdef int last = self.heap[n]
        self.heap.pop_back()
        if n == 0:
            return top
        while child < n:
            if child + 1 < n and self.total[self.heap[child]] > self.total[self.heap[child + 1]]:
                child += 1
            self.heap[i] = self.heap[child]
            self.heap_at[self.heap[i]] = i
            i = child
            child = 2 * i + 1
        self._up(i, last)
        return top

    # ------------------------------------------------------------------ queries
    def nearest(self, double x, double y, double z, double hx, double hy, double hz,
                const uint8_t[::1] allowed):
        """(polygon, x, y, z): the usable polygon nearest the point within the box of half
        extents (hx, hy, hz) and the nearest point on it; polygon -1 when none."""
        cdef float c[3]
        cdef float e[3]
        cdef float out[3]
        cdef int p
        self._check(allowed)
        c[0] = x; c[1] = y; c[2] = z
        e[0] = hx; e[1] = hy; e[2] = hz
        out[0] = out[1] = out[2] = 0
        with nogil:
            p = self.mesh.nearest(c, e, &allowed[0], out)
        return p, out[0], out[1], out[2]

    def nearest_many(self, const double[:, ::1] points, extents,
                     const uint8_t[::1] allowed):
        """:meth:`nearest` for each row of ``points`` (``(n, 3)``), in one nogil loop:
        ``(polygons (n,) int32, points (n, 3) float64)``, -1 and NaN where none."""
        cdef Py_ssize_t n = points.shape[0], i
        cdef float c[3]
        cdef float e[3]
        cdef float out[3]
        cdef int k, p
        self._check(allowed)
        for k in range(3):
            e[k] = extents[k]
        polys = np.empty(n, np.int32)
        pts = np.empty((n, 3), np.float64)
        cdef int32_t[::1] pv = polys
        cdef double[:, ::1] ov = pts
        with nogil:
            for i in range(n):
                for k in range(3):
                    c[k] = <float>points[i, k]
                p = self.mesh.nearest(c, e, &allowed[0], out)
                pv[i] = p
                for k in range(3):
                    ov[i, k] = out[k] if p >= 0 else NAN
        return polys, pts

    def find_path(self, start, goal, extents, const uint8_t[::1] allowed,
                  const float[::1] area_cost, bint partial, int crossings=0):
        """The nearest polygons of both points, A* between them and the straight path:
        ``(status, start poly, start point, goal poly, goal point, corridor (n,) int32,
        corners (k, 3) float64, corner flags (k,) uint8, corner polygons (k,) int32,
        length)``, the length the sum of the corners' 3D distances; status FAILED (0) with
        empty arrays when an end is off the mesh or (without ``partial``) the goal is not
        reached."""
        cdef float s[3]
        cdef float g[3]
        cdef float e[3]
        cdef float ns[3]
        cdef float ng[3]
        cdef int ps, pg, status = S_FAILED, k
        cdef Budget b
        cdef vector[int] corridor
        cdef vector[float] pts
        cdef vector[uint8_t] cflags
        cdef vector[int] crefs
        self._check(allowed)
        self._set_crossings(crossings)
        for k in range(3):
            s[k] = start[k]
            g[k] = goal[k]
            e[k] = extents[k]
            ns[k] = ng[k] = 0
        with nogil:
            ps = self.mesh.nearest(s, e, &allowed[0], ns)
            pg = self.mesh.nearest(g, e, &allowed[0], ng)
            if ps >= 0 and pg >= 0:
                self._begin(ps, pg, s, g)
                b = make_budget(-1, INFINITY)
                self._advance(&allowed[0], &area_cost[0], &b)
                status = self._conclude(pg, s, g, partial, corridor, pts, cflags, crefs)
        return self._outcome(status, ps, ns, pg, ng, corridor, pts, cflags, crefs)

    def start_path(self, start, goal, extents, const uint8_t[::1] allowed,
                   const float[::1] area_cost, bint partial, int crossings=0):
        """:meth:`find_path` as a :class:`PathRun`, to run in slices."""
        cdef PathRun run = PathRun.__new__(PathRun)
        cdef int k
        cdef vector[int] none_i
        cdef vector[float] none_f
        cdef vector[uint8_t] none_b
        self._check(allowed)
        self._set_crossings(crossings)
        run.search = self
        run.allowed = allowed
        run.area_cost = area_cost
        run.partial = partial
        run.crossings = crossings
        for k in range(3):
            run.s[k] = start[k]
            run.g[k] = goal[k]
            run.e[k] = extents[k]
            run.ns[k] = run.ng[k] = 0
        run.ps = self.mesh.nearest(run.s, run.e, &allowed[0], run.ns)
        run.pg = self.mesh.nearest(run.g, run.e, &allowed[0], run.ng)
        if run.ps < 0 or run.pg < 0:
            run.status = C_FAILED
            run.c_generated = 0
            run.outcome = self._outcome(S_FAILED, run.ps, run.ns, run.pg, run.ng, none_i,
                                        none_f, none_b, none_i)
            return run
        self._begin(run.ps, run.pg, run.s, run.g)
        run.gen = self.gen
        run.status = C_RUNNING
        run.c_expanded = self.expanded
        run.c_generated = self.generated
        return run

    def find_paths(self, const double[:, ::1] starts, const double[:, ::1] goals, extents,
                   const uint8_t[::1] allowed, const float[::1] area_cost, bint partial,
                   int crossings=0):
        """:meth:`find_path` for each row of ``starts`` and ``goals`` (``(n, 3)``), in one
        nogil loop: ``(status (n,) int8, lengths (n,) float64, corridor pointers (n + 1,)
        int64, corridor nodes, corner pointers (n + 1,) int64, corners (m, 3) float64,
        corner flags (m,) uint8)``."""
        cdef Py_ssize_t n = starts.shape[0], i, k
        cdef float s[3]
        cdef float g[3]
        cdef float e[3]
        cdef float ns[3]
        cdef float ng[3]
        cdef int ps, pg, st
        cdef double length, dx, dy, dz
        cdef Budget b
        cdef vector[int] corridor, all_polys
        cdef vector[float] pts, all_pts
        cdef vector[uint8_t] cflags, all_flags
        cdef vector[int] crefs
        cdef vector[long long] cptr, pptr
        self._check(allowed)
        self._set_crossings(crossings)
        if goals.shape[0] != n:
            raise ValueError("starts and goals differ in length")
        status = np.zeros(n, np.int8)
        lengths = np.full(n, np.inf)
        cdef signed char[::1] st_v = status
        cdef double[::1] len_v = lengths
        for k in range(3):
            e[k] = extents[k]
        cptr.push_back(0)
        pptr.push_back(0)
        with nogil:
            for i in range(n):
                for k in range(3):
                    s[k] = <float>starts[i, k]
                    g[k] = <float>goals[i, k]
                pts.clear()
                cflags.clear()
                crefs.clear()
                corridor.clear()
                st = S_FAILED
                ps = self.mesh.nearest(s, e, &allowed[0], ns)
                pg = self.mesh.nearest(g, e, &allowed[0], ng)
                if ps >= 0 and pg >= 0:
                    self._begin(ps, pg, s, g)
                    b = make_budget(-1, INFINITY)
                    self._advance(&allowed[0], &area_cost[0], &b)
                    st = self._conclude(pg, s, g, partial, corridor, pts, cflags, crefs)
                st_v[i] = st
                if st != S_FAILED:
                    length = 0
                    for k in range(1, <Py_ssize_t>cflags.size()):
                        dx = <double>pts[3 * k] - <double>pts[3 * k - 3]
                        dy = <double>pts[3 * k + 1] - <double>pts[3 * k - 2]
                        dz = <double>pts[3 * k + 2] - <double>pts[3 * k - 1]
                        length += sqrt(dx * dx + dy * dy + dz * dz)
                    len_v[i] = length
                    all_polys.insert(all_polys.end(), corridor.begin(), corridor.end())
                    all_pts.insert(all_pts.end(), pts.begin(), pts.end())
                    all_flags.insert(all_flags.end(), cflags.begin(), cflags.end())
                pptr.push_back(all_polys.size())
                cptr.push_back(all_flags.size())
        return (status, lengths, np.array(pptr, np.int64), np.array(all_polys, np.int32),
                np.array(cptr, np.int64),
                np.array(all_pts, np.float32).astype(np.float64).reshape(-1, 3),
                np.array(all_flags, np.uint8))

    cdef object _outcome(self, int status, int ps, const float* ns, int pg, const float* ng,
                         vector[int]& corridor, vector[float]& pts, vector[uint8_t]& cflags,
                         vector[int]& crefs):
        """A path query's answer as :meth:`find_path` returns it."""
        cdef double length = 0, dx, dy, dz
        cdef Py_ssize_t n = cflags.size(), k
        cdef int num_polys = self.mesh.num_polys
        cdef vector[int] taken          # the off-mesh links in the corridor, in order
        cdef cnp.npy_intp dims[2]
        for k in range(<Py_ssize_t> corridor.size()):
            if corridor[k] >= num_polys:
                taken.push_back(corridor[k] - num_polys)
        dims[0] = n
        dims[1] = 3
        out = cnp.PyArray_SimpleNew(2, dims, cnp.NPY_FLOAT64)
        cdef double* o = <double*> cnp.PyArray_DATA(<cnp.ndarray> out)
        for k in range(3 * n):
            o[k] = pts[k]
        for k in range(1, n):
            dx = o[3 * k] - o[3 * k - 3]
            dy = o[3 * k + 1] - o[3 * k - 2]
            dz = o[3 * k + 2] - o[3 * k - 1]
            length += sqrt(dx * dx + dy * dy + dz * dz)
        return (status, ps, (ns[0], ns[1], ns[2]), pg, (ng[0], ng[1], ng[2]),
                _ints(corridor), out, _bytes(cflags), _ints(crefs), length,
                _ints(taken))

    cdef void _begin(self, int start, int goal, const float* spos,
                     const float* gpos) noexcept nogil:
        """Set up the A* from polygon ``start`` (at ``spos``) to ``goal`` (at ``gpos``):
        the start node open, unless it is the goal's."""
        cdef int node = start * STATES, k
        self.expanded = 0
        self.generated = 1
        self.gen += 1
        self.heap.clear()
        self.a_goal = goal
        for k in range(3):
            self.a_gpos[k] = gpos[k]
            self.pos[3 * node + k] = spos[k]
        self.stamp[node] = self.gen
        self.cost[node] = 0
        self.total[node] = dist_3d(spos, gpos) * H_SCALE
        self.parent[node] = -1
        self.flags[node] = NODE_OPEN
        self.a_last = node
        self.a_last_h = self.total[node]
        if start != goal:
            self.heap.push_back(node)
            self.heap_at[node] = 0

    cdef bint _advance(self, const uint8_t* allowed, const float* area_cost,
                       const Budget* budget) noexcept nogil:
        """Run the A* on as the reference runs it, until it ends (True) or the budget is
        spent (False): a node's position is the midpoint of the edge it was first entered
        by (an off-mesh link's: its end on that side), a step costs its length times the
        area cost of the polygon it crosses (an off-mesh link's own cost, when it has one),
        the goal node adds the distance on to the goal, the heuristic is 0.999 times the
        distance to the goal.  The node nearest the goal by the heuristic is kept for a
        partial path (an off-mesh link's too, as the reference keeps it)."""
        cdef int best, bp, parent_poly, i, nb, nodei, side, k, goal = self.a_goal
        cdef int np_ = self.mesh.num_polys
        cdef long done = 0
        cdef float h, c, cur, end_cost, tot
        cdef float left[3]
        cdef float right[3]
        cdef const float* gpos = self.a_gpos
        while self.heap.size():
            if spent(budget, done):
                return False
            best = self._pop()
            self.flags[best] = (self.flags[best] & ~NODE_OPEN) | NODE_CLOSED
            self.expanded += 1
            done += 1
            bp = best // STATES
            if bp == goal:
                self.a_last = best
                self.heap.clear()
                return True
            parent_poly = self.parent[best] // STATES if self.parent[best] >= 0 else -1
            i = self.mesh.first_link[bp]
            while i != NULL_LINK:
                nb = self.mesh.link_ref[i]
                side = self.mesh.link_side[i]
                i = self.mesh.link_next[i]
                if nb == parent_poly or not allowed[nb]:
                    continue
                nodei = nb * STATES + (0 if side == SIDE_NONE else side >> 1)
                if self.stamp[nodei] != self.gen:
                    self.stamp[nodei] = self.gen
                    self.flags[nodei] = 0
                    self.mesh.portal(bp, nb, left, right)
                    for k in range(3):
                        self.pos[3 * nodei + k] = (left[k] + right[k]) * <float>0.5
                if bp >= np_ and self.mesh.lcost[bp - np_] >= 0:
                    cur = self.mesh.lcost[bp - np_]
                else:
                    cur = dist_3d(&self.pos[3 * best], &self.pos[3 * nodei]) * \
                        area_cost[self.mesh.parea(bp)]
                if nb == goal:
                    end_cost = dist_3d(&self.pos[3 * nodei], gpos) * area_cost[self.mesh.parea(nb)]
                    c = self.cost[best] + cur + end_cost
                    h = 0
                else:
                    c = self.cost[best] + cur
                    h = dist_3d(&self.pos[3 * nodei], gpos) * H_SCALE
                tot = c + h
                if (self.flags[nodei] & (NODE_OPEN | NODE_CLOSED)) and tot >= self.total[nodei]:
                    continue
                self.parent[nodei] = best
                self.flags[nodei] &= ~NODE_CLOSED
                self.cost[nodei] = c
                self.total[nodei] = tot
                if self.flags[nodei] & NODE_OPEN:
                    self._up(self.heap_at[nodei], nodei)
                else:
                    self.flags[nodei] |= NODE_OPEN
                    self.heap.push_back(nodei)
                    self._up(self.heap.size() - 1, nodei)
                    self.generated += 1
                if h < self.a_last_h:
                    self.a_last_h = h
                    self.a_last = nodei
        return True

    cdef int _conclude(self, int goal, const float* spos, const float* gpos, bint partial,
                       vector[int]& corridor, vector[float]& pts, vector[uint8_t]& cflags,
                       vector[int]& crefs) noexcept nogil:
        """The ended A*'s corridor (to the goal, or the polygon nearest it) and straight
        path: S_FOUND, S_PARTIAL (with ``partial``) or S_FAILED (corridor emptied)."""
        cdef int node = self.a_last, i, k
        corridor.clear()
        while node >= 0:
            corridor.push_back(node // STATES)
            node = self.parent[node]
        i = 0
        k = corridor.size() - 1
        while i < k:
            corridor[i], corridor[k] = corridor[k], corridor[i]
            i += 1
            k -= 1
        if self.a_last // STATES != goal and not partial:
            corridor.clear()
            return S_FAILED
        self._straighten(spos, gpos, corridor, pts, cflags, crefs)
        return S_FOUND if self.a_last // STATES == goal else S_PARTIAL

    cdef void _straighten(self, const float* spos, const float* gpos, vector[int]& path,
                          vector[float]& pts, vector[uint8_t]& cflags,
                          vector[int]& crefs) noexcept nogil:
        """The funnel through the corridor's portals (xz, the corners keeping their
        heights): corners where the path turns, from the start (clamped onto the first
        polygon) to the goal (clamped onto the last).  An off-mesh link's portals are its
        ends, so both become corners, the one at its start flagged CORNER_OFFMESH with the
        link's node as its polygon (as the reference's straight path)."""
        cdef float cs[3]
        cdef float ce[3]
        cdef float apex[3]
        cdef float pleft[3]
        cdef float pright[3]
        cdef float left[3]
        cdef float right[3]
        cdef float t
        cdef int n = path.size(), i, k, apex_i = 0, left_i = 0, right_i = 0
        cdef int left_ref = path[0], right_ref = path[0], turn, corner_i, ref
        cdef float* corner
        cdef uint8_t fl
        self.mesh.closest_on_boundary(path[0], spos, cs)
        self.mesh.closest_on_boundary(path[n - 1], gpos, ce)
        _append(pts, cflags, crefs, cs, CORNER_START, path[0])
        if n > 1:
            for k in range(3):
                apex[k] = pleft[k] = pright[k] = cs[k]
            i = 0
            while i < n:
                if i + 1 < n:
                    self.mesh.portal(path[i], path[i + 1], left, right)
                    if i == 0 and dist_pt_seg_2d(apex, left, right, &t) < \
                            <float>0.001 * <float>0.001:
                        i += 1   # starting on the first portal: it is already passed
                        continue
                else:
                    for k in range(3):
                        left[k] = right[k] = ce[k]
                turn = 0            # 1: the left side becomes the apex, 2: the right
                if tri_area_2d(apex, pright, right) <= 0:
                    if same_point(apex, pright) or tri_area_2d(apex, pleft, right) > 0:
                        for k in range(3):
                            pright[k] = right[k]
                        right_ref = path[i + 1] if i + 1 < n else -1
                        right_i = i
                    else:
                        turn = 1
                if turn == 0 and tri_area_2d(apex, pleft, left) >= 0:
                    if same_point(apex, pleft) or tri_area_2d(apex, pright, left) < 0:
                        for k in range(3):
                            pleft[k] = left[k]
                        left_ref = path[i + 1] if i + 1 < n else -1
                        left_i = i
                    else:
                        turn = 2
                if turn:
                    if turn == 1:
                        corner, corner_i, ref = &pleft[0], left_i, left_ref
                    else:
                        corner, corner_i, ref = &pright[0], right_i, right_ref
                    if self.crossings:
                        self._crossings(apex_i, corner_i, corner, path, pts, cflags, crefs)
                    for k in range(3):
                        apex[k] = corner[k]
                    apex_i = corner_i
                    fl = CORNER_END if ref < 0 else \
                        CORNER_OFFMESH if ref >= self.mesh.num_polys else 0
                    _append(pts, cflags, crefs, apex, fl, ref)
                    if fl == CORNER_END:
                        return
                    for k in range(3):
                        pleft[k] = pright[k] = apex[k]
                    left_i = right_i = apex_i
                    i = apex_i + 1
                    continue
                i += 1
        if self.crossings:
            self._crossings(apex_i, n - 1, ce, path, pts, cflags, crefs)
        _append(pts, cflags, crefs, ce, CORNER_END, -1)

    cdef int _set_crossings(self, int crossings) except -1:
        if not 0 <= crossings <= CROSS_ALL:
            raise ValueError(f"crossings {crossings} must be 0, 1 (area) or 2 (all)")
        self.crossings = crossings
        return 0

    cdef void _crossings(self, int first, int last, const float* end, vector[int]& path,
                         vector[float]& pts, vector[uint8_t]& cflags,
                         vector[int]& crefs) noexcept nogil:
        """Corners (flags 0) where the straight segment from the last corner to ``end``
        crosses the portals from ``path[first]`` to ``path[last]``: every portal
        (CROSS_ALL) or those between polygons of different areas (CROSS_AREA), at the
        portal's point on the segment's line, as the reference's straight-path options."""
        cdef float sp[3]
        cdef float left[3]
        cdef float right[3]
        cdef float at[3]
        cdef float ux, uz, vx, vz, wx, wz, d, t
        cdef int i, k, last_corner = cflags.size() - 1
        for k in range(3):
            sp[k] = pts[3 * last_corner + k]
        for i in range(first, last):
            if self.crossings == CROSS_AREA and \
                    self.mesh.parea(path[i]) == self.mesh.parea(path[i + 1]):
                continue
            self.mesh.portal(path[i], path[i + 1], left, right)
            ux = end[0] - sp[0]
            uz = end[2] - sp[2]
            vx = right[0] - left[0]
            vz = right[2] - left[2]
            wx = sp[0] - left[0]
            wz = sp[2] - left[2]
            d = uz * vx - ux * vz
            if fabsf(d) < <float>1e-6:
                continue
            t = (uz * wx - ux * wz) / d
            lerp3(at, left, right, t)
            _append(pts, cflags, crefs, at, 0, path[i + 1])


    # ------------------------------------------------------------------ surface queries
    def raycast(self, int start, double sx, double sy, double sz, double ex, double ey,
                double ez, const uint8_t[::1] allowed):
        """The ray from the start point (on polygon ``start``) toward the end, walked in xz
        from polygon to polygon across the edges it leaves by: ``(t, (x, y, z), (normal x,
        y, z), edge, polygons (n,) int32)``, t the fraction of the ray at the wall it meets
        (the largest exit fraction seen), the point there (the end when none) and the
        wall's normal, or t = FLT_MAX when the end lies on the last polygon; an edge is
        crossed only into a usable polygon (on a tile side, only within the part of it the
        link spans)."""
        cdef float s[3]
        cdef float e[3]
        cdef float nrm[3]
        cdef float hit[3]
        cdef float t
        cdef int last_edge
        cdef vector[int] visited
        self._check(allowed)
        s[0] = sx; s[1] = sy; s[2] = sz
        e[0] = ex; e[1] = ey; e[2] = ez
        with nogil:
            last_edge = self._ray(start, s, e, &allowed[0], &t, nrm, hit, visited)
        return t, (hit[0], hit[1], hit[2]), (nrm[0], nrm[1], nrm[2]), last_edge, \
            _ints(visited)

    def raycast_many(self, const double[:, ::1] starts, const double[:, ::1] ends, extents,
                     const uint8_t[::1] allowed):
        """:meth:`raycast` for each row of ``starts`` and ``ends`` (``(n, 3)``), each from
        the polygon :meth:`nearest` gives its start, in one nogil loop: ``(start polygons
        (n,) int32, t (n,) float64, points (n, 3) float64, normals (n, 3) float64, polygon
        pointers (n + 1,) int64, polygons (m,) int32)``; t is inf when the end is reached,
        NaN (start polygon -1, point and normal NaN, no polygons) when the start is off the
        mesh."""
        cdef Py_ssize_t n = starts.shape[0], i
        cdef float s[3]
        cdef float e[3]
        cdef float ext[3]
        cdef float near[3]
        cdef float nrm[3]
        cdef float hit[3]
        cdef float t
        cdef int k, p
        cdef vector[int] visited, all_polys
        cdef vector[long long] ptr
        self._check(allowed)
        if ends.shape[0] != n:
            raise ValueError("starts and ends differ in length")
        for k in range(3):
            ext[k] = extents[k]
        polys = np.empty(n, np.int32)
        ts = np.empty(n, np.float64)
        pts = np.empty((n, 3), np.float64)
        nrms = np.empty((n, 3), np.float64)
        cdef int32_t[::1] pv = polys
        cdef double[::1] tv = ts
        cdef double[:, ::1] ov = pts
        cdef double[:, ::1] nv = nrms
        ptr.push_back(0)
        with nogil:
            for i in range(n):
                for k in range(3):
                    s[k] = <float>starts[i, k]
                    e[k] = <float>ends[i, k]
                p = self.mesh.nearest(s, ext, &allowed[0], near)
                pv[i] = p
                if p < 0:
                    tv[i] = NAN
                    for k in range(3):
                        ov[i, k] = NAN
                        nv[i, k] = NAN
                else:
                    visited.clear()
                    self._ray(p, s, e, &allowed[0], &t, nrm, hit, visited)
                    tv[i] = INFINITY if t >= FLT_BIG else t
                    for k in range(3):
                        ov[i, k] = hit[k]
                        nv[i, k] = nrm[k]
                    all_polys.insert(all_polys.end(), visited.begin(), visited.end())
                ptr.push_back(all_polys.size())
        return polys, ts, pts, nrms, np.array(ptr, np.int64), _ints(all_polys)

    cdef int _ray(self, int start, const float* s, const float* e, const uint8_t* allowed,
                  float* t_out, float* nrm, float* hit, vector[int]& visited) noexcept nogil:
        """The walk of :meth:`raycast`: t in ``t_out``, the wall's normal and the point
        reached in ``nrm`` and ``hit``, the polygons crossed in ``visited``; returns the
        last edge left by (-1 none)."""
        cdef float t = 0, tmin, tmax, lo, hi, c, w, d
        cdef int cur = start, nxt, seg_min, seg_max = -1, i, va, vb, nv, k, last_edge = -1
        nrm[0] = nrm[1] = nrm[2] = 0
        while cur >= 0:
            if not self.mesh.segment_crossing(cur, s, e, &tmin, &tmax, &seg_min, &seg_max):
                break   # the ray misses the polygon: keep the t so far
            last_edge = seg_max
            if tmax > t:
                t = tmax
            visited.push_back(cur)
            if seg_max == -1:
                t = FLT_BIG
                break
            nxt = -1
            i = self.mesh.first_link[cur]
            while i != NULL_LINK:
                if self.mesh.link_edge[i] != seg_max or not allowed[self.mesh.link_ref[i]]:
                    i = self.mesh.link_next[i]
                    continue
                if self.mesh.link_side[i] == SIDE_NONE or (self.mesh.link_bmin[i] == 0 and
                                                   self.mesh.link_bmax[i] == 255):
                    nxt = self.mesh.link_ref[i]
                    break
                # a link over part of a tile side: the ray must leave within that part
                nv = self.mesh.pnv[cur]
                va = self.mesh.pverts[cur * self.mesh.nvp + self.mesh.link_edge[i]]
                vb = self.mesh.pverts[cur * self.mesh.nvp + (self.mesh.link_edge[i] + 1) % nv]
                k = 2 if (self.mesh.link_side[i] == 0 or self.mesh.link_side[i] == 4) else 0
                w = <float>1.0 / <float>255.0
                lo = self.mesh.verts[3 * va + k] + (self.mesh.verts[3 * vb + k] - self.mesh.verts[3 * va + k]) * \
                    (self.mesh.link_bmin[i] * w)
                hi = self.mesh.verts[3 * va + k] + (self.mesh.verts[3 * vb + k] - self.mesh.verts[3 * va + k]) * \
                    (self.mesh.link_bmax[i] * w)
                if lo > hi:
                    lo, hi = hi, lo
                c = s[k] + (e[k] - s[k]) * tmax
                if c >= lo and c <= hi:
                    nxt = self.mesh.link_ref[i]
                    break
                i = self.mesh.link_next[i]
            if nxt < 0:
                # a wall: its normal in xz, pointing into the polygon's outside
                nv = self.mesh.pnv[cur]
                va = self.mesh.pverts[cur * self.mesh.nvp + seg_max]
                vb = self.mesh.pverts[cur * self.mesh.nvp + (seg_max + 1 if seg_max + 1 < nv else 0)]
                nrm[0] = self.mesh.verts[3 * vb + 2] - self.mesh.verts[3 * va + 2]
                nrm[1] = 0
                nrm[2] = -(self.mesh.verts[3 * vb] - self.mesh.verts[3 * va])
                d = <float>1.0 / sqrtf(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2])
                nrm[0] *= d; nrm[1] *= d; nrm[2] *= d
                break
            cur = nxt
        t_out[0] = t
        for k in range(3):
            hit[k] = e[k] if t >= FLT_BIG else s[k] + (e[k] - s[k]) * t
        return last_edge

    def move_along_surface(self, int start, double sx, double sy, double sz, double ex,
                           double ey, double ez, const uint8_t[::1] allowed):
        """From the start point on polygon ``start`` toward the end, sliding along walls:
        ``(x, y, z, polygons (n,) int32)``, the end when a polygon reached holds it (xz),
        else the point of a wall nearest it, and the polygons from ``start`` to the one it
        lies on.  The reference's breadth-first walk: a queue of at most 48 polygons,
        neighbours taken only when their edge lies within the circle round the segment's
        midpoint (radius half its 3D length + 0.001), at most 64 polygons met in all (the
        reference's small node pool; polygons beyond it are skipped)."""
        cdef float s[3]
        cdef float e[3]
        cdef float mid[3]
        cdef float best[3]
        cdef float rad2, best_d = FLT_BIG, d, t
        cdef int queue[48]
        cdef int nq = 0, cur, i, j, nv, k, nb, nn, best_node = -1, n_pool = 0, node
        cdef int neis[8]
        cdef const float* vi
        cdef const float* vj
        cdef vector[int] visited
        cdef DetourMesh m = self.mesh
        s[0] = sx; s[1] = sy; s[2] = sz
        e[0] = ex; e[1] = ey; e[2] = ez
        with nogil:
            self.gen += 1
            for k in range(3):
                best[k] = s[k]
                mid[k] = s[k] + (e[k] - s[k]) * <float>0.5
            d = dist_3d(s, e) / <float>2.0 + <float>0.001
            rad2 = d * d
            node = start * STATES
            self.stamp[node] = self.gen
            self.parent[node] = -1
            self.flags[node] = NODE_CLOSED
            n_pool = 1
            queue[nq] = start
            nq += 1
            while nq:
                cur = queue[0]
                for i in range(nq - 1):
                    queue[i] = queue[i + 1]
                nq -= 1
                if m.inside(cur, e):
                    best_node = cur
                    for k in range(3):
                        best[k] = e[k]
                    break
                nv = m.pnv[cur]
                j = nv - 1
                for i in range(nv):
                    nn = 0
                    if m.pneis[cur * m.nvp + j] & EXT_LINK:
                        k = m.first_link[cur]
                        while k != NULL_LINK:
                            if m.link_edge[k] == j and allowed[m.link_ref[k]] and nn < 8:
                                neis[nn] = m.link_ref[k]
                                nn += 1
                            k = m.link_next[k]
                    elif m.pneis[cur * m.nvp + j]:
                        nb = m.tpoly[m.ptile[cur]] + m.pneis[cur * m.nvp + j] - 1
                        if allowed[nb]:
                            neis[nn] = nb
                            nn += 1
                    vj = &m.verts[3 * m.pverts[cur * m.nvp + j]]
                    vi = &m.verts[3 * m.pverts[cur * m.nvp + i]]
                    if nn == 0:
                        d = dist_pt_seg_2d(e, vj, vi, &t)
                        if d < best_d:
                            lerp3(best, vj, vi, t)
                            best_d = d
                            best_node = cur
                    else:
                        for k in range(nn):
                            node = neis[k] * STATES
                            if self.stamp[node] != self.gen:
                                if n_pool >= 64:
                                    continue
                                n_pool += 1
                                self.stamp[node] = self.gen
                                self.flags[node] = 0
                                self.parent[node] = -1
                            if self.flags[node] & NODE_CLOSED:
                                continue
                            if dist_pt_seg_2d(mid, vj, vi, &t) > rad2:
                                continue
                            if nq < 48:
                                self.parent[node] = cur * STATES
                                self.flags[node] |= NODE_CLOSED
                                queue[nq] = neis[k]
                                nq += 1
                    j = i
            if best_node >= 0:
                node = best_node * STATES
                while node >= 0:
                    visited.push_back(node // STATES)
                    node = self.parent[node]
                i = 0
                k = visited.size() - 1
                while i < k:
                    visited[i], visited[k] = visited[k], visited[i]
                    i += 1
                    k -= 1
        return best[0], best[1], best[2], _ints(visited)

    def height(self, int poly, double x, double y, double z):
        """The ground's height on polygon ``poly`` at (x, z) from its detail triangles, or
        None when the point is not over the polygon."""
        cdef float p[3]
        cdef float h = 0
        cdef bint ok
        p[0] = x; p[1] = y; p[2] = z
        with nogil:
            ok = self.mesh.poly_height(poly, p, &h)
        return h if ok else None

    def distance_to_wall(self, int start, double cx, double cy, double cz, double radius,
                         const uint8_t[::1] allowed):
        """The nearest wall (xz) to the centre within ``radius``, searched outward from
        polygon ``start`` over the polygons whose entry edge lies within the circle so far
        (Dijkstra by the distance between edge midpoints): ``(found, distance,
        hit x, y, z, normal x, y, z)`` after a flag (0 when no wall is that near: then the distance is
        ``radius``).  A wall is an edge with no usable neighbour; on a tile side only
        the edge's first link is looked at (as the reference does)."""
        cdef float c[3]
        cdef float hit[3]
        cdef float nrm[3]
        cdef float left[3]
        cdef float right[3]
        cdef float r2 = <float>radius * <float>radius, d, t, tot
        cdef int best, bp, parent_poly, i, j, k, nv, nb, node, found = 0
        cdef bint solid
        cdef const float* vi
        cdef const float* vj
        cdef DetourMesh m = self.mesh
        c[0] = cx; c[1] = cy; c[2] = cz
        hit[0] = hit[1] = hit[2] = 0
        with nogil:
            self.gen += 1
            self.heap.clear()
            node = start * STATES
            self.stamp[node] = self.gen
            for k in range(3):
                self.pos[3 * node + k] = c[k]
            self.cost[node] = 0
            self.total[node] = 0
            self.parent[node] = -1
            self.flags[node] = NODE_OPEN
            self.heap.push_back(node)
            self.heap_at[node] = 0
            while self.heap.size():
                best = self._pop()
                self.flags[best] = (self.flags[best] & ~NODE_OPEN) | NODE_CLOSED
                bp = best // STATES
                parent_poly = self.parent[best] // STATES if self.parent[best] >= 0 else -1
                nv = m.pnv[bp]
                j = nv - 1
                for i in range(nv):
                    k = m.pneis[bp * m.nvp + j]
                    if k & EXT_LINK:
                        solid = True
                        k = m.first_link[bp]
                        while k != NULL_LINK:
                            if m.link_edge[k] == j:
                                if allowed[m.link_ref[k]]:
                                    solid = False
                                break
                            k = m.link_next[k]
                        if not solid:
                            j = i
                            continue
                    elif k and allowed[m.tpoly[m.ptile[bp]] + k - 1]:
                        j = i
                        continue
                    vj = &m.verts[3 * m.pverts[bp * m.nvp + j]]
                    vi = &m.verts[3 * m.pverts[bp * m.nvp + i]]
                    d = dist_pt_seg_2d(c, vj, vi, &t)
                    if d <= r2:
                        r2 = d
                        found = 1
                        for k in range(3):
                            hit[k] = vj[k] + (vi[k] - vj[k]) * t
                    j = i
                i = m.first_link[bp]
                while i != NULL_LINK:
                    nb = m.link_ref[i]
                    k = m.link_edge[i]
                    j = i
                    i = m.link_next[i]
                    if nb == parent_poly or nb >= m.num_polys:
                        continue
                    nv = m.pnv[bp]
                    vj = &m.verts[3 * m.pverts[bp * m.nvp + k]]
                    vi = &m.verts[3 * m.pverts[bp * m.nvp + (k + 1) % nv]]
                    if dist_pt_seg_2d(c, vj, vi, &t) > r2 or not allowed[nb]:
                        continue
                    node = nb * STATES
                    if self.stamp[node] != self.gen:
                        self.stamp[node] = self.gen
                        self.flags[node] = 0
                    if self.flags[node] & NODE_CLOSED:
                        continue
                    if self.flags[node] == 0:
                        m.portal(bp, nb, left, right)
                        for k in range(3):
                            self.pos[3 * node + k] = (left[k] + right[k]) * <float>0.5
                    tot = self.total[best] + dist_3d(&self.pos[3 * best], &self.pos[3 * node])
                    if (self.flags[node] & NODE_OPEN) and tot >= self.total[node]:
                        continue
                    self.flags[node] &= ~NODE_CLOSED
                    self.parent[node] = best
                    self.total[node] = tot
                    if self.flags[node] & NODE_OPEN:
                        self._up(self.heap_at[node], node)
                    else:
                        self.flags[node] |= NODE_OPEN
                        self.heap.push_back(node)
                        self._up(self.heap.size() - 1, node)
            for k in range(3):
                nrm[k] = c[k] - hit[k]
            d = sqrtf(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2])
            if d > 0:
                d = <float>1.0 / d
                for k in range(3):
                    nrm[k] *= d
        return found, sqrtf(r2), hit[0], hit[1], hit[2], nrm[0], nrm[1], nrm[2]

    def polygons_in_box(self, double cx, double cy, double cz, double hx, double hy,
                        double hz, const uint8_t[::1] allowed):
        """The usable polygons whose bounds meet the box centre +- half extents, in the
        order the reference lists them (tiles row by row, each in its tree's order)."""
        cdef float c[3]
        cdef float e[3]
        cdef vector[int] out
        c[0] = cx; c[1] = cy; c[2] = cz
        e[0] = hx; e[1] = hy; e[2] = hz
        with nogil:
            self.mesh.in_box(c, e, &allowed[0], out)
        return _ints(out)

    def wall_segments(self, int poly, const uint8_t[::1] allowed):
        """The walls of polygon ``poly``: its edges with no usable neighbour, and on tile
        sides the parts of edges no usable link spans (in 255ths of the edge, as links
        hold them), ``(k, 2, 3)`` float32, edge by edge."""
        cdef DetourMesh m = self.mesh
        cdef int nv = m.pnv[poly], i, j, k, a, n, idx, nb
        cdef int lo[18]
        cdef int hi[18]
        cdef float seg[6]
        cdef const float* vi
        cdef const float* vj
        cdef vector[float] out
        with nogil:
            j = nv - 1
            for i in range(nv):
                vj = &m.verts[3 * m.pverts[poly * m.nvp + j]]
                vi = &m.verts[3 * m.pverts[poly * m.nvp + i]]
                nb = m.pneis[poly * m.nvp + j]
                if not (nb & EXT_LINK):
                    if not (nb and allowed[m.tpoly[m.ptile[poly]] + nb - 1]):
                        for k in range(3):
                            out.push_back(vj[k])
                        for k in range(3):
                            out.push_back(vi[k])
                    j = i
                    continue
                # intervals of the edge that usable links span, sorted (at most 16)
                n = 0
                k = m.first_link[poly]
                while k != NULL_LINK:
                    if m.link_edge[k] == j and allowed[m.link_ref[k]]:
                        _insert_interval(lo, hi, &n, m.link_bmin[k], m.link_bmax[k])
                    k = m.link_next[k]
                _insert_interval(lo, hi, &n, -1, 0)
                _insert_interval(lo, hi, &n, 255, 256)
                for a in range(1, n):
                    if hi[a - 1] != lo[a]:
                        lerp3(seg, vj, vi, hi[a - 1] / <float>255.0)
                        lerp3(&seg[3], vj, vi, lo[a] / <float>255.0)
                        for k in range(6):
                            out.push_back(seg[k])
                j = i
        return np.array(out, np.float32).reshape(-1, 2, 3)

    def polygons_around(self, int start, const float[:, ::1] shape, double cx, double cy,
                        double cz, double radius, const uint8_t[::1] allowed,
                        const float[::1] area_cost):
        """Dijkstra from polygon ``start`` as the reference's ``findPolysAroundCircle``
        (``shape`` with no rows: through portals within ``radius`` of the centre, xz) or
        ``findPolysAroundShape`` (``shape`` a convex polygon ``(k, 3)``: through portals
        that meet it in xz; the search starts from its centroid): a node's position is the
        middle of the portal it was first reached through, a step costs its length times
        the area cost of the node left (an off-mesh link's own cost, when it has one).
        ``(nodes (n,) int32 in the order closed, parents (n,) int32 (-1 for the start),
        costs (n,) float32)``; off-mesh links are crossed as the reference crosses them."""
        cdef float c[3]
        cdef float va[3]
        cdef float vb[3]
        cdef float r2 = <float>radius * <float>radius, t, tmin, tmax, cost, tot, inv
        cdef int k, ns = shape.shape[0], best, bp, parent_poly, i, nb, node
        cdef int np_ = self.mesh.num_polys
        cdef int smin, smax
        cdef vector[int] out_p, out_par
        cdef vector[float] out_c
        cdef const float* sv = &shape[0, 0] if ns else NULL
        cdef DetourMesh m = self.mesh
        self._check(allowed)
        if ns:
            c[0] = c[1] = c[2] = 0
            for i in range(ns):
                for k in range(3):
                    c[k] = c[k] + shape[i, k]
            inv = <float>1.0 / <float>ns
            for k in range(3):
                c[k] = c[k] * inv
        else:
            c[0] = cx; c[1] = cy; c[2] = cz
        with nogil:
            self.gen += 1
            self.heap.clear()
            node = start * STATES
            self.stamp[node] = self.gen
            for k in range(3):
                self.pos[3 * node + k] = c[k]
            self.cost[node] = 0
            self.total[node] = 0
            self.parent[node] = -1
            self.flags[node] = NODE_OPEN
            self.heap.push_back(node)
            self.heap_at[node] = 0
            while self.heap.size():
                best = self._pop()
                self.flags[best] = (self.flags[best] & ~NODE_OPEN) | NODE_CLOSED
                bp = best // STATES
                parent_poly = self.parent[best] // STATES if self.parent[best] >= 0 else -1
                out_p.push_back(bp)
                out_par.push_back(parent_poly)
                out_c.push_back(self.total[best])
                i = m.first_link[bp]
                while i != NULL_LINK:
                    nb = m.link_ref[i]
                    i = m.link_next[i]
                    if nb == parent_poly or not allowed[nb]:
                        continue
                    if not m.portal(bp, nb, va, vb):
                        continue
                    if ns:
                        if not _segment_in_polygon(va, vb, sv, ns, &tmin, &tmax, &smin,
                                                   &smax) or tmin > 1 or tmax < 0:
                            continue
                    elif dist_pt_seg_2d(c, va, vb, &t) > r2:
                        continue
                    node = nb * STATES
                    if self.stamp[node] != self.gen:
                        self.stamp[node] = self.gen
                        self.flags[node] = 0
                    if self.flags[node] & NODE_CLOSED:
                        continue
                    if self.flags[node] == 0:
                        lerp3(&self.pos[3 * node], va, vb, <float>0.5)
                    if bp >= np_ and m.lcost[bp - np_] >= 0:
                        cost = m.lcost[bp - np_]
                    else:
                        cost = dist_3d(&self.pos[3 * best], &self.pos[3 * node]) * \
                            area_cost[m.parea(bp)]
                    tot = self.total[best] + cost
                    if (self.flags[node] & NODE_OPEN) and tot >= self.total[node]:
                        continue
                    self.parent[node] = best
                    self.total[node] = tot
                    if self.flags[node] & NODE_OPEN:
                        self._up(self.heap_at[node], node)
                    else:
                        self.flags[node] = NODE_OPEN
                        self.heap.push_back(node)
                        self._up(self.heap.size() - 1, node)
        costs = np.empty(out_c.size(), np.float32)
        cdef float[::1] cv = costs
        for i in range(<int>out_c.size()):
            cv[i] = out_c[i]
        return _ints(out_p), _ints(out_par), costs

    def local_neighbourhood(self, int start, double cx, double cy, double cz, double radius,
                            const uint8_t[::1] allowed):
        """The polygons near polygon ``start`` that do not overlap each other in xz, as the
        reference's ``findLocalNeighbourhood``: breadth first through portals within
        ``radius`` of the centre (xz), off-mesh links skipped, a polygon kept unless it
        overlaps one kept before that the polygon it is reached from has no link to; the
        reference's limits (a queue of 48, 64 polygons met): ``(polygons (n,) int32,
        parents (n,) int32, -1 for the start)``."""
        cdef float c[3]
        cdef float va[3]
        cdef float vb[3]
        cdef float r2 = <float>radius * <float>radius, t
        cdef int queue[48]
        cdef int nq = 1, cur, i, j, k, nb, node, past, n_pool = 1
        cdef int np_ = self.mesh.num_polys
        cdef bint overlap, joined
        cdef vector[int] out_p, out_par
        cdef DetourMesh m = self.mesh
        self._check(allowed)
        c[0] = cx; c[1] = cy; c[2] = cz
        with nogil:
            self.gen += 1
            node = start * STATES
            self.stamp[node] = self.gen
            self.flags[node] = NODE_CLOSED
            out_p.push_back(start)
            out_par.push_back(-1)
            queue[0] = start
            while nq:
                cur = queue[0]
                for i in range(nq - 1):
                    queue[i] = queue[i + 1]
                nq -= 1
                i = m.first_link[cur]
                while i != NULL_LINK:
                    nb = m.link_ref[i]
                    i = m.link_next[i]
                    node = nb * STATES
                    if self.stamp[node] != self.gen:
                        if n_pool >= 64:
                            continue
                        n_pool += 1
                        self.stamp[node] = self.gen
                        self.flags[node] = 0
                    if self.flags[node] & NODE_CLOSED:
                        continue
                    if nb >= np_ or not allowed[nb]:
                        continue
                    if not m.portal(cur, nb, va, vb):
                        continue
                    if dist_pt_seg_2d(c, va, vb, &t) > r2:
                        continue
                    self.flags[node] |= NODE_CLOSED
                    overlap = False
                    for j in range(<int>out_p.size()):
                        past = out_p[j]
                        joined = False
                        k = m.first_link[cur]
                        while k != NULL_LINK:
                            if m.link_ref[k] == past:
                                joined = True
                                break
                            k = m.link_next[k]
                        if not joined and m.overlap_2d(nb, past):
                            overlap = True
                            break
                    if overlap:
                        continue
                    out_p.push_back(nb)
                    out_par.push_back(cur)
                    if nq < 48:
                        queue[nq] = nb
                        nq += 1
        return _ints(out_p), _ints(out_par)

    def reachable(self, int start, double cx, double cz, double radius,
                  const uint8_t[::1] allowed):
        """The usable polygons reached from ``start`` through edges that come within
        ``radius`` of the centre (xz), in the order met."""
        cdef float c[3]
        cdef float r2 = <float>radius * <float>radius, t
        cdef vector[int] out
        cdef int q = 0, bp, i, nb, nv, k
        cdef DetourMesh m = self.mesh
        c[0] = cx; c[1] = 0; c[2] = cz
        with nogil:
            self.gen += 1
            self.stamp[start * STATES] = self.gen
            out.push_back(start)
            while q < <int>out.size():
                bp = out[q]
                q += 1
                nv = m.pnv[bp]
                i = m.first_link[bp]
                while i != NULL_LINK:
                    nb = m.link_ref[i]
                    k = m.link_edge[i]
                    i = m.link_next[i]
                    if nb >= m.num_polys or self.stamp[nb * STATES] == self.gen or \
                            not allowed[nb]:
                        continue
                    if dist_pt_seg_2d(c, &m.verts[3 * m.pverts[bp * m.nvp + k]],
                                      &m.verts[3 * m.pverts[bp * m.nvp + (k + 1) % nv]],
                                      &t) > r2:
                        continue
                    self.stamp[nb * STATES] = self.gen
                    out.push_back(nb)
        return _ints(out)


cdef void _insert_interval(int* lo, int* hi, int* n, int tmin, int tmax) noexcept nogil:
    """Insert [tmin, tmax] into the sorted intervals, before the first it ends at or
    before; at most 16 are kept (the reference's limit: more are dropped)."""
    cdef int idx = 0, i
    if n[0] + 1 > 16:
        return
    while idx < n[0] and tmax > lo[idx]:
        idx += 1
    i = n[0]
    while i > idx:
        lo[i] = lo[i - 1]
        hi[i] = hi[i - 1]
        i -= 1
    lo[idx] = tmin
    hi[idx] = tmax
    n[0] += 1

cdef object _ints(vector[int]& v):
    """A vector as a new int32 array (one copy, no Python in between)."""
    cdef cnp.npy_intp n = v.size()
    out = cnp.PyArray_SimpleNew(1, &n, cnp.NPY_INT32)
    if n:
        memcpy(cnp.PyArray_DATA(<cnp.ndarray> out), v.data(), n * sizeof(int))
    return out


cdef object _bytes(vector[uint8_t]& v):
    """A vector as a new uint8 array."""
    cdef cnp.npy_intp n = v.size()
    out = cnp.PyArray_SimpleNew(1, &n, cnp.NPY_UINT8)
    if n:
        memcpy(cnp.PyArray_DATA(<cnp.ndarray> out), v.data(), n)
    return out


cdef void _append(vector[float]& pts, vector[uint8_t]& cflags, vector[int]& crefs,
                  const float* p, uint8_t fl, int ref) noexcept nogil:
    """Add a corner; one at the same place as the last replaces its flags and polygon."""
    cdef int n = cflags.size()
    if n and same_point(&pts[3 * (n - 1)], p):
        cflags[n - 1] = fl
        crefs[n - 1] = ref
        return
    pts.push_back(p[0])
    pts.push_back(p[1])
    pts.push_back(p[2])
    cflags.push_back(fl)
    crefs.push_back(ref)


cdef class PathRun:
    """A path query of :meth:`PathSearch.start_path` run in slices: :meth:`advance` until
    it ends, then :meth:`result` (what :meth:`PathSearch.find_path` returns for the same
    query).  Its A* lives in the search's scratch: another query on that search before it
    ends makes it :attr:`stale`."""

    cdef PathSearch search
    cdef const uint8_t[::1] allowed
    cdef const float[::1] area_cost
    cdef int gen, ps, pg, c_expanded, c_generated, crossings
    cdef bint partial
    cdef float s[3]
    cdef float g[3]
    cdef float e[3]
    cdef float ns[3]
    cdef float ng[3]
    cdef readonly int status
    cdef object outcome

    @property
    def stale(self):
        """Whether another query has since used the search's scratch."""
        return self.status == C_RUNNING and self.search.gen != self.gen

    @property
    def counters(self):
        """(expanded, generated) so far."""
        return self.c_expanded, self.c_generated

    def advance(self, int64_t max_expansions=-1, double max_seconds=INFINITY):
        """Expand up to ``max_expansions`` more nodes (< 0: no limit) for at most
        ``max_seconds``; returns the status: RUN_RUNNING, RUN_FOUND (the goal reached) or
        RUN_FAILED (ended without it: :meth:`result` may still hold a partial path)."""
        cdef Budget b
        cdef bint ended
        cdef int st
        cdef vector[int] corridor
        cdef vector[float] pts
        cdef vector[uint8_t] cflags
        cdef vector[int] crefs
        cdef PathSearch search = self.search
        if self.status != C_RUNNING:
            return self.status
        if self.stale:
            raise ValueError("another query has used this search's scratch")
        b = make_budget(max_expansions, max_seconds)
        with nogil:
            ended = search._advance(&self.allowed[0], &self.area_cost[0], &b)
        self.c_expanded = search.expanded
        self.c_generated = search.generated
        if ended:
            search.crossings = self.crossings
            with nogil:
                st = search._conclude(self.pg, self.s, self.g, self.partial, corridor, pts,
                                      cflags, crefs)
            self.outcome = search._outcome(st, self.ps, self.ns, self.pg, self.ng, corridor,
                                           pts, cflags, crefs)
            self.status = C_FOUND if st == S_FOUND else C_FAILED
        return self.status

    def result(self):
        """The answer once ended, as :meth:`PathSearch.find_path`'s; None while running."""
        return self.outcome
