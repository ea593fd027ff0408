# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Contours of the regions of a compact heightfield (``_regions``), the stage of a voxel
navmesh build that traces each region's outline along its span edges and simplifies it to
the few vertices the polygon mesh is made from.  Steps, float32 arithmetic, tie rules and
iteration orders follow the reference build (Recast, with wall edges tessellated) so that
the same regions give the same contours, vertex for vertex.

A contour vertex is four ints: x, y, z (x and z in cells, on the corner of a span; y the
highest floor round that corner) and the region beyond the edge that starts there, with
``BORDER_VERTEX`` (the corner touches a tile border) and ``AREA_BORDER`` (the area changes
across the edge) as flags above the 16 region bits.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libcpp.vector cimport vector

from ._smoothsort cimport smoothsort
from ._voxel_grid cimport Chf, chf_view, dir_dx, dir_dz, step

cnp.import_array()

cdef int BORDER_REG = 0x8000
cdef int BORDER_VERTEX = 0x10000
cdef int AREA_BORDER = 0x20000
cdef int REG_MASK = 0xffff
# The reference's cap on the steps of one trace: a longer outline is cut off there.
cdef int MAX_TRACE_STEPS = 40000


cdef struct Item:
    # a sort item: keys a then b; payloads v0, v1
    int a
    int b
    int v0
    int v1


cdef inline unsigned int reg_area(const Chf* g, int i) noexcept nogil:
    return g.reg[i] | (<unsigned int> g.area[i] << 16)


# --- tracing ---

cdef int corner_height(const Chf* g, int x, int z, int i, int d, bint* on_border) noexcept nogil:
    """The height of the corner at the end of span i's edge d (clockwise), the highest
    floor of the up to four spans round it; ``on_border`` is set where two of those spans
    lie in one tile border and the other two in one region area (such a vertex is only
    there because of the tile's cut, and the polygon mesh later removes it)."""
    cdef int h = g.y[i], d2 = (d + 1) & 3, a, b, j
    cdef unsigned int around[4]
    cdef unsigned int ra, rb, rc, rd
    around[0] = reg_area(g, i)
    around[1] = 0
    around[2] = 0
    around[3] = 0
    a = step(g, x, z, i, d)
    if a >= 0:
        h = max(h, <int> g.y[a])
        around[1] = reg_area(g, a)
        b = step(g, x + dir_dx(d), z + dir_dz(d), a, d2)
        if b >= 0:
            h = max(h, <int> g.y[b])
            around[2] = reg_area(g, b)
    a = step(g, x, z, i, d2)
    if a >= 0:
        h = max(h, <int> g.y[a])
        around[3] = reg_area(g, a)
        b = step(g, x + dir_dx(d2), z + dir_dz(d2), a, d)
        if b >= 0:
            # the diagonal reached the other way round wins, as in the reference
            h = max(h, <int> g.y[b])
            around[2] = reg_area(g, b)
    for j in range(4):
        ra = around[j]
        rb = around[(j + 1) & 3]
        rc = around[(j + 2) & 3]
        rd = around[(j + 3) & 3]
        if ((ra & rb & BORDER_REG) != 0 and ra == rb
                and ((rc | rd) & BORDER_REG) == 0 and (rc >> 16) == (rd >> 16)
                and ra != 0 and rb != 0 and rc != 0 and rd != 0):
            on_border[0] = True
            break
    return h


cdef void trace(const Chf* g, int x, int z, int i, uint8_t* flags,
                vector[int]* out) noexcept nogil:
    """Walk the outline of span i's region clockwise, keeping the region on the right
    hand: an edge to leave (its bit in ``flags``) gives a vertex and turns right, else step
    across to the neighbour and turn left.  Clears the flags of the edges walked."""
    cdef int d = 0, start_d, start_i = i, steps = 0, px, py, pz, r, a, ni
    cdef uint8_t area = g.area[i]
    cdef bint on_border, area_edge
    while (flags[i] & (1 << d)) == 0:
        d += 1
    start_d = d
    while True:
        steps += 1
        if steps >= MAX_TRACE_STEPS:
            break
        if flags[i] & (1 << d):
            on_border = False
            area_edge = False
            px = x
            pz = z
            py = corner_height(g, x, z, i, d, &on_border)
            if d == 0:
                pz += 1
            elif d == 1:
                px += 1
                pz += 1
            elif d == 2:
                px += 1
            r = 0
            a = step(g, x, z, i, d)
            if a >= 0:
                r = g.reg[a]
                if area != g.area[a]:
                    area_edge = True
            if on_border:
                r |= BORDER_VERTEX
            if area_edge:
                r |= AREA_BORDER
            out.push_back(px)
            out.push_back(py)
            out.push_back(pz)
            out.push_back(r)
            flags[i] &= ~(1 << d)
            d = (d + 1) & 3
        else:
            ni = step(g, x, z, i, d)
            if ni < 0:
                # cannot happen on a consistent heightfield; the reference stops there
                return
            x += dir_dx(d)
            z += dir_dz(d)
            i = ni
            d = (d + 3) & 3
        if i == start_i and d == start_d:
            break


# --- simplification ---

cdef float seg_dist2(int x, int z, int px, int pz, int qx, int qz) noexcept nogil:
    """Squared distance (float32) of (x, z) to the segment p-q."""
    cdef float pqx = <float> (qx - px), pqz = <float> (qz - pz)
    cdef float dx = <float> (x - px), dz = <float> (z - pz)
    cdef float d = pqx * pqx + pqz * pqz
    cdef float t = pqx * dx + pqz * dz
    if d > 0:
        t /= d
    if t < 0:
        t = 0
    elif t > 1:
        t = 1
    dx = (<float> px + t * pqx) - <float> x
    dz = (<float> pz + t * pqz) - <float> z
    return dx * dx + dz * dz


cdef inline void insert_after(vector[int]* simp, int i, const vector[int]* pts, int k) noexcept nogil:
    """Put raw point k after simplified vertex i (its fourth int: k, the raw index)."""
    cdef int at = (i + 1) * 4
    simp.insert(simp.begin() + at, 4, 0)
    simp[0][at] = pts[0][k * 4]
    simp[0][at + 1] = pts[0][k * 4 + 1]
    simp[0][at + 2] = pts[0][k * 4 + 2]
    simp[0][at + 3] = k


cdef inline void push_point(vector[int]* simp, const vector[int]* pts, int k) noexcept nogil:
    simp.push_back(pts[0][k * 4])
    simp.push_back(pts[0][k * 4 + 1])
    simp.push_back(pts[0][k * 4 + 2])
    simp.push_back(k)


cdef void simplify(const vector[int]* pts, vector[int]* simp, float max_error,
                   int max_edge_len) noexcept nogil:
    """The simplified outline of the raw one: every vertex where the region beyond (or the
    area edge) changes, or with none, the lowest-left and highest-right vertices; then, on
    walls and area edges, the farthest raw point of each edge while it lies more than
    ``max_error`` off; then wall edges longer than ``max_edge_len`` split at their middle
    raw point.  Each vertex's fourth int ends as the flags of the raw edge it starts."""
    cdef int pn = <int> pts.size() // 4, i, ii, ax, az, ai, bx, bz, bi, ci, cinc, endi
    cdef int maxi, dx, dz, n, k, llx, llz, lli, urx, urz, uri, x, z
    cdef float maxd, dd
    cdef bint portals = False, tess
    for i in range(pn):
        if (pts[0][i * 4 + 3] & REG_MASK) != 0:
            portals = True
            break
    if portals:
        for i in range(pn):
            ii = (i + 1) % pn
            if ((pts[0][i * 4 + 3] & REG_MASK) != (pts[0][ii * 4 + 3] & REG_MASK)
                    or (pts[0][i * 4 + 3] & AREA_BORDER) != (pts[0][ii * 4 + 3] & AREA_BORDER)):
                push_point(simp, pts, i)
    if simp.size() == 0:
        llx = urx = pts[0][0]
        llz = urz = pts[0][2]
        lli = uri = 0
        for i in range(pn):
            x = pts[0][i * 4]
            z = pts[0][i * 4 + 2]
            if x < llx or (x == llx and z < llz):
                llx = x
                llz = z
                lli = i
            if x > urx or (x == urx and z > urz):
                urx = x
                urz = z
                uri = i
        push_point(simp, pts, lli)
        push_point(simp, pts, uri)

    i = 0
    while i < <int> simp.size() // 4:
        ii = (i + 1) % (<int> simp.size() // 4)
        ax = simp[0][i * 4]
        az = simp[0][i * 4 + 2]
        ai = simp[0][i * 4 + 3]
        bx = simp[0][ii * 4]
        bz = simp[0][ii * 4 + 2]
        bi = simp[0][ii * 4 + 3]
        maxd = 0
        maxi = -1
        # walk the raw points in the same order whichever way the edge runs, so that the
        # two regions on either side of a shared edge pick the same points
        if bx > ax or (bx == ax and bz > az):
            cinc = 1
            ci = (ai + cinc) % pn
            endi = bi
        else:
            cinc = pn - 1
            ci = (bi + cinc) % pn
            endi = ai
            ax, bx = bx, ax
            az, bz = bz, az
        if (pts[0][ci * 4 + 3] & REG_MASK) == 0 or (pts[0][ci * 4 + 3] & AREA_BORDER):
            while ci != endi:
                dd = seg_dist2(pts[0][ci * 4], pts[0][ci * 4 + 2], ax, az, bx, bz)
                if dd > maxd:
                    maxd = dd
                    maxi = ci
                ci = (ci + cinc) % pn
        if maxi != -1 and maxd > max_error * max_error:
            insert_after(simp, i, pts, maxi)
        else:
            i += 1

    if max_edge_len > 0:
        i = 0
        while i < <int> simp.size() // 4:
            ii = (i + 1) % (<int> simp.size() // 4)
            ax = simp[0][i * 4]
            az = simp[0][i * 4 + 2]
            ai = simp[0][i * 4 + 3]
            bx = simp[0][ii * 4]
            bz = simp[0][ii * 4 + 2]
            bi = simp[0][ii * 4 + 3]
            maxi = -1
            ci = (ai + 1) % pn
            # wall edges only (the build splits walls, not area edges)
            tess = (pts[0][ci * 4 + 3] & REG_MASK) == 0
            if tess:
                dx = bx - ax
                dz = bz - az
                # squares in 64 bits: a length of 46,341 cells or more squares past int
                if <int64_t> dx * dx + <int64_t> dz * dz \
                        > <int64_t> max_edge_len * max_edge_len:
                    n = bi + pn - ai if bi < ai else bi - ai
                    if n > 1:
                        # round the same way whichever way the edge runs
                        if bx > ax or (bx == ax and bz > az):
                            maxi = (ai + n // 2) % pn
                        else:
                            maxi = (ai + (n + 1) // 2) % pn
            if maxi != -1:
                insert_after(simp, i, pts, maxi)
            else:
                i += 1

    for i in range(<int> simp.size() // 4):
        k = simp[0][i * 4 + 3]
        simp[0][i * 4 + 3] = ((pts[0][((k + 1) % pn) * 4 + 3] & (REG_MASK | AREA_BORDER))
                              | (pts[0][k * 4 + 3] & BORDER_VERTEX))


cdef void drop_repeats(vector[int]* simp) noexcept nogil:
    """Remove a vertex equal on x and z to the next one.  As in the reference, the scan
    moves on after a removal, so a run of three equal vertices keeps two."""
    cdef int n = <int> simp.size() // 4, i = 0, j
    while i < n:
        j = i + 1 if i + 1 < n else 0
        if simp[0][i * 4] == simp[0][j * 4] and simp[0][i * 4 + 2] == simp[0][j * 4 + 2]:
            simp.erase(simp.begin() + i * 4, simp.begin() + i * 4 + 4)
            n -= 1
        i += 1


# --- holes ---

cdef int signed_area(const vector[int]* v) noexcept nogil:
    """Twice the area on x-z, halved rounding toward zero as the reference does; negative
    for a contour wound the other way (a hole)."""
    cdef int n = <int> v.size() // 4, i, j = n - 1, area = 0
    for i in range(n):
        area += v[0][i * 4] * v[0][j * 4 + 2] - v[0][j * 4] * v[0][i * 4 + 2]
        j = i
    return (area + 1) // 2


cdef inline int area2(const int* a, const int* b, const int* c) noexcept nogil:
    return (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2])


cdef inline bint left(const int* a, const int* b, const int* c) noexcept nogil:
    return area2(a, b, c) < 0


cdef inline bint left_on(const int* a, const int* b, const int* c) noexcept nogil:
    return area2(a, b, c) <= 0


cdef inline bint collinear(const int* a, const int* b, const int* c) noexcept nogil:
    return area2(a, b, c) == 0


cdef bint between(const int* a, const int* b, const int* c) noexcept nogil:
    """c on the closed segment a-b."""
    if not collinear(a, b, c):
        return False
    if a[0] != b[0]:
        return (a[0] <= c[0] <= b[0]) or (a[0] >= c[0] >= b[0])
    return (a[2] <= c[2] <= b[2]) or (a[2] >= c[2] >= b[2])


cdef bint crosses(const int* a, const int* b, const int* c, const int* d) noexcept nogil:
    """Segments a-b and c-d meet, at an interior point of both or at an end."""
    if not (collinear(a, b, c) or collinear(a, b, d) or collinear(c, d, a)
            or collinear(c, d, b)):
        if (left(a, b, c) ^ left(a, b, d)) and (left(c, d, a) ^ left(c, d, b)):
            return True
    return between(a, b, c) or between(a, b, d) or between(c, d, a) or between(c, d, b)


cdef bint crosses_contour(const int* d0, const int* d1, int skip, const vector[int]* v) noexcept nogil:
    """The segment d0-d1 meets an edge of the contour, leaving out the edges at vertex
    ``skip`` and those sharing an end with the segment."""
    cdef int n = <int> v.size() // 4, k, k1
    cdef const int* p0
    cdef const int* p1
    for k in range(n):
        k1 = k + 1 if k + 1 < n else 0
        if skip == k or skip == k1:
            continue
        p0 = &v[0][k * 4]
        p1 = &v[0][k1 * 4]
        if ((d0[0] == p0[0] and d0[2] == p0[2]) or (d1[0] == p0[0] and d1[2] == p0[2])
                or (d0[0] == p1[0] and d0[2] == p1[2]) or (d1[0] == p1[0] and d1[2] == p1[2])):
            continue
        if crosses(d0, d1, p0, p1):
            return True
    return False


cdef bint in_cone(int i, const vector[int]* v, const int* p) noexcept nogil:
    """p lies inside the angle of the contour at vertex i."""
    cdef int n = <int> v.size() // 4
    cdef const int* pi = &v[0][i * 4]
    cdef const int* pnext = &v[0][(i + 1 if i + 1 < n else 0) * 4]
    cdef const int* pprev = &v[0][(i - 1 if i >= 1 else n - 1) * 4]
    if left_on(pprev, pi, pnext):
        return left(pi, p, pprev) and left(p, pi, pnext)
    return not (left_on(pi, p, pnext) and left_on(p, pi, pprev))


# The reference sorts with the C library's qsort, which is not stable: its order (see
# ``_smoothsort``) is kept so that equal keys (holes with the same leftmost vertex,
# diagonals of the same length) end in the same order.
cdef int item_cmp(const void* pa, const void* pb) noexcept nogil:
    cdef const Item* x = <const Item*> pa
    cdef const Item* y = <const Item*> pb
    if x.a == y.a:
        if x.b < y.b:
            return -1
        if x.b > y.b:
            return 1
        return 0
    return -1 if x.a < y.a else 1


cdef void join(vector[int]* outline, vector[int]* hole, int ia, int ib) noexcept nogil:
    """Splice the hole into the outline along the diagonal from outline vertex ia to hole
    vertex ib: the outline from ia round to ia again, then the hole from ib round to ib
    (both ends repeated).  The hole is left empty."""
    cdef vector[int] out
    cdef int na = <int> outline.size() // 4, nb = <int> hole.size() // 4, i, k, c
    out.reserve((na + nb + 2) * 4)
    for i in range(na + 1):
        k = (ia + i) % na
        for c in range(4):
            out.push_back(outline[0][k * 4 + c])
    for i in range(nb + 1):
        k = (ib + i) % nb
        for c in range(4):
            out.push_back(hole[0][k * 4 + c])
    outline.swap(out)
    hole.clear()


cdef int merge_holes(vector[vector[int]]* verts, int outline, vector[int]* holes) noexcept nogil:
    """Join each hole of one region into its outline, left to right, each by the shortest
    diagonal from its leftmost vertex (or the next vertex round, while every diagonal
    crosses) that crosses neither the outline nor the holes not yet joined.  Returns the
    holes that found no diagonal (left as they are)."""
    cdef int nh = <int> holes.size(), i, j, k, it, n, best, index, ndiags, missed = 0
    cdef int nmax = <int> verts[0][outline].size() // 4
    cdef vector[Item] order
    cdef vector[Item] diags
    cdef vector[int]* out = &verts[0][outline]
    cdef vector[int]* hole
    cdef const int* corner
    cdef const int* pt
    cdef bint hit
    cdef Item item
    order.resize(nh)
    for i in range(nh):
        hole = &verts[0][holes[0][i]]
        n = <int> hole.size() // 4
        nmax += n
        item.a = hole[0][0]
        item.b = hole[0][2]
        item.v0 = holes[0][i]
        item.v1 = 0
        for j in range(1, n):
            if hole[0][j * 4] < item.a or (hole[0][j * 4] == item.a and hole[0][j * 4 + 2] < item.b):
                item.a = hole[0][j * 4]
                item.b = hole[0][j * 4 + 2]
                item.v1 = j
        order[i] = item
    smoothsort(&order[0], nh, sizeof(Item), item_cmp)
    # One buffer for the diagonals of every hole, as in the reference, which reads it at
    # the hole's own index (not the diagonal's) for the outline vertex to skip; where that
    # slot was never written in the reference it holds whatever memory held, here 0.
    item.a = 0
    item.b = 0
    item.v0 = 0
    item.v1 = 0
    diags.assign(nmax, item)
    for i in range(nh):
        hole = &verts[0][order[i].v0]
        n = <int> hole.size() // 4
        index = -1
        best = order[i].v1
        for it in range(n):
            ndiags = 0
            corner = &hole[0][best * 4]
            for j in range(<int> out.size() // 4):
                if in_cone(j, out, corner):
                    diags[ndiags].a = ((out[0][j * 4] - corner[0]) * (out[0][j * 4] - corner[0])
                                       + (out[0][j * 4 + 2] - corner[2])
                                       * (out[0][j * 4 + 2] - corner[2]))
                    diags[ndiags].b = 0
                    diags[ndiags].v0 = j
                    ndiags += 1
            smoothsort(&diags[0], ndiags, sizeof(Item), item_cmp)
            index = -1
            for j in range(ndiags):
                pt = &out[0][diags[j].v0 * 4]
                hit = crosses_contour(pt, corner, diags[i].v0, out)
                k = i
                while k < nh and not hit:
                    hit = crosses_contour(pt, corner, -1, &verts[0][order[k].v0])
                    k += 1
                if not hit:
                    index = diags[j].v0
                    break
            if index != -1:
                break
            best = (best + 1) % n
        if index == -1:
            missed += 1
            continue
        join(out, hole, index, best)
    return missed


# --- the stage ---

def build(const int64_t[::1] first, const uint32_t[::1] con, const uint8_t[::1] area,
          const uint16_t[::1] reg, const uint16_t[::1] y, int width, int depth, int border,
          int max_regions, float max_error, int max_edge_len):
    """Trace and simplify the contour of every region (``reg``, ids below ``max_regions``),
    in the order their first span comes in a column-major scan, then join each region's
    holes into its outline.  Coordinates are shifted by ``-border`` on x and z.

    Returns ``(verts, nverts, raw, nraw, regs, areas, problems)``: the simplified vertices
    of all contours (k, 4) int32 one after another with each contour's count, the raw ones
    likewise, each contour's region and area, and the count of regions left with holes
    unjoined (no outline, or no diagonal found)."""
    cdef Chf g
    cdef Py_ssize_t n = area.shape[0]
    cdef int x, z, i, d, c, nconts, ci, problems = 0, nregions
    cdef uint8_t res
    cdef int r
    cdef vector[uint8_t] flags
    cdef vector[int] pts
    cdef vector[int] simp
    cdef vector[vector[int]] cverts
    cdef vector[vector[int]] craw
    cdef vector[int] cregs
    cdef vector[int] careas
    cdef vector[int] outline_of
    cdef vector[vector[int]] holes_of
    cdef vector[int] winding
    cdef bint any_hole = False
    if first.shape[0] != <Py_ssize_t> width * depth + 1:
        raise ValueError("first must have width * depth + 1 entries")
    g = chf_view(&first[0], &con[0] if n else NULL, &area[0] if n else NULL, width, depth, n)
    g.reg = &reg[0] if n else NULL
    g.y = &y[0] if n else NULL
    with nogil:
        flags.assign(n, 0)
        # the edges of each span that leave its region
        for z in range(depth):
            for x in range(width):
                for i in range(<int> g.first[x + z * width], <int> g.first[x + z * width + 1]):
                    if g.reg[i] == 0 or (g.reg[i] & BORDER_REG):
                        continue
                    res = 0
                    for d in range(4):
                        c = step(&g, x, z, i, d)
                        r = g.reg[c] if c >= 0 else 0
                        if r == g.reg[i]:
                            res |= 1 << d
                    flags[i] = res ^ 0xf
        for z in range(depth):
            for x in range(width):
                for i in range(<int> g.first[x + z * width], <int> g.first[x + z * width + 1]):
                    if flags[i] == 0 or flags[i] == 0xf:
                        flags[i] = 0
                        continue
                    if g.reg[i] == 0 or (g.reg[i] & BORDER_REG):
                        continue
                    pts.clear()
                    simp.clear()
                    trace(&g, x, z, i, &flags[0], &pts)
                    simplify(&pts, &simp, max_error, max_edge_len)
                    drop_repeats(&simp)
                    if simp.size() // 4 < 3:
                        continue
                    if border > 0:
                        for c in range(<int> simp.size() // 4):
                            simp[c * 4] -= border
                            simp[c * 4 + 2] -= border
                        for c in range(<int> pts.size() // 4):
                            pts[c * 4] -= border
                            pts[c * 4 + 2] -= border
                    cverts.push_back(simp)
                    craw.push_back(pts)
                    cregs.push_back(g.reg[i])
                    careas.push_back(g.area[i])
        nconts = <int> cverts.size()
        winding.resize(nconts)
        for ci in range(nconts):
            if signed_area(&cverts[ci]) < 0:
                winding[ci] = -1
                any_hole = True
            else:
                winding[ci] = 1
        if any_hole:
            nregions = max_regions + 1
            outline_of.assign(nregions, -1)
            holes_of.resize(nregions)
            for ci in range(nconts):
                if winding[ci] > 0:
                    # a second outline of one region replaces the first, as in the reference
                    if outline_of[cregs[ci]] >= 0:
                        problems += 1
                    outline_of[cregs[ci]] = ci
                else:
                    holes_of[cregs[ci]].push_back(ci)
            for r in range(nregions):
                if holes_of[r].size() == 0:
                    continue
                if outline_of[r] < 0:
                    problems += 1
                    continue
                if merge_holes(&cverts, outline_of[r], &holes_of[r]):
                    problems += 1

    counts = np.empty(nconts, dtype=np.int64)
    rcounts = np.empty(nconts, dtype=np.int64)
    regs = np.empty(nconts, dtype=np.int64)
    areas = np.empty(nconts, dtype=np.int64)
    cdef int64_t[::1] cn = counts, rn = rcounts, rg = regs, ar = areas
    cdef Py_ssize_t tv = 0, tr = 0
    for ci in range(nconts):
        cn[ci] = cverts[ci].size() // 4
        rn[ci] = craw[ci].size() // 4
        rg[ci] = cregs[ci]
        ar[ci] = careas[ci]
        tv += cn[ci]
        tr += rn[ci]
    verts_arr = np.empty((tv, 4), dtype=np.int32)
    raw_arr = np.empty((tr, 4), dtype=np.int32)
    cdef int32_t[:, ::1] vo = verts_arr, ro = raw_arr
    cdef Py_ssize_t at = 0, k
    with nogil:
        for ci in range(nconts):
            for k in range(<Py_ssize_t> cverts[ci].size() // 4):
                for c in range(4):
                    vo[at, c] = cverts[ci][k * 4 + c]
                at += 1
        at = 0
        for ci in range(nconts):
            for k in range(<Py_ssize_t> craw[ci].size() // 4):
                for c in range(4):
                    ro[at, c] = craw[ci][k * 4 + c]
                at += 1
    return verts_arr, counts, raw_arr, rcounts, regs, areas, problems
