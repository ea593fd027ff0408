# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The polygon-mesh stage of a voxel navmesh build: every region's contour cut into
triangles by ear clipping, the triangles joined into convex polygons of at most ``nvp``
vertices, the vertices a tile border added removed again, and the polygons linked to the
ones beside them.  The steps, their orders, tie rules and quirks follow the reference build
(Recast's ``rcBuildPolyMesh``) so that the same contours give the same mesh, element for
element.

Layout.  Contour vertices arrive as one (n, 4) int32 array, rows x, y, z and the edge's
flags (``BORDER_VERTEX`` marks a vertex on a tile's border), cut into contours by the
offsets ``first`` (ncontours + 1).  The mesh keeps vertices as uint16 triples in voxels and
polygons as ``2 * nvp`` uint16 slots: the vertex indices, padded with ``NULL_IDX``, then per
side the polygon across it (``NULL_IDX``: none; ``0x8000 | side``: a tile's border).

Geometry is 2D on x and z: y only rides along (and decides which nearby vertices weld).
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy, memset
from libcpp.vector cimport vector

cnp.import_array()

cdef uint16_t NULL_IDX = 0xffff
cdef uint16_t MULTIPLE_REGS = 0            # a polygon refilled from several regions
cdef int BORDER_VERTEX = 0x10000
cdef uint32_t INDEX_MASK = 0x0fffffff      # the vertex of an entry of an index list
cdef uint32_t EAR = 0x80000000             # ... and whether it is the tip of an ear
cdef int BUCKETS = 1 << 12                 # vertex welding: hash buckets on x and z


cdef struct Mesh:
    uint16_t* verts
    uint16_t* polys
    uint16_t* regs
    uint8_t* areas
    int nverts
    int npolys
    int max_polys
    int nvp


# --- 2D predicates on (x, ., z) points, exact in integers ---

cdef inline int prev_of(int i, int n) noexcept nogil:
    return i - 1 if i >= 1 else n - 1


cdef inline int next_of(int i, int n) noexcept nogil:
    return i + 1 if i + 1 < n else 0


cdef inline int cross2(const int* a, const int* b, const int* c) noexcept nogil:
    """Twice the signed area of a, b, c on x and z (negative: c left of a -> b)."""
    return (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2])


cdef inline bint is_left(const int* a, const int* b, const int* c) noexcept nogil:
    return cross2(a, b, c) < 0


cdef inline bint is_left_on(const int* a, const int* b, const int* c) noexcept nogil:
    return cross2(a, b, c) <= 0


cdef inline bint in_line(const int* a, const int* b, const int* c) noexcept nogil:
    return cross2(a, b, c) == 0


cdef bint cross_properly(const int* a, const int* b, const int* c, const int* d) noexcept nogil:
    """Whether segments ab and cd cross at a point inside both (no three points in line)."""
    if in_line(a, b, c) or in_line(a, b, d) or in_line(c, d, a) or in_line(c, d, b):
        return False
    return (is_left(a, b, c) ^ is_left(a, b, d)) and (is_left(c, d, a) ^ is_left(c, d, b))


cdef bint on_segment(const int* a, const int* b, const int* c) noexcept nogil:
    """Whether c lies on the closed segment ab (tested on x, or on z where ab runs along z)."""
    if not in_line(a, b, c):
        return False
    if a[0] != b[0]:
        return (a[0] <= c[0] <= b[0]) or (a[0] >= c[0] >= b[0])
    return (a[2] <= c[2] <= b[2]) or (a[2] >= c[2] >= b[2])


cdef bint touch(const int* a, const int* b, const int* c, const int* d) noexcept nogil:
    """Whether segments ab and cd meet at all, crossing or touching."""
    if cross_properly(a, b, c, d):
        return True
    return on_segment(a, b, c) or on_segment(a, b, d) or on_segment(c, d, a) \
        or on_segment(c, d, b)


cdef inline bint same_xz(const int* a, const int* b) noexcept nogil:
    return a[0] == b[0] and a[2] == b[2]


# --- ear clipping ---

cdef inline const int* point(const int* verts, const uint32_t* idx, int i) noexcept nogil:
    return &verts[(idx[i] & INDEX_MASK) * 4]


cdef bint clear_of_edges(int i, int j, int n, const int* verts, const uint32_t* idx,
                         bint loose) noexcept nogil:
    """Whether the segment between entries i and j meets none of the polygon's edges but
    those at i or j, nor any edge with an end at the same x, z as i or j (such an edge is
    skipped).  ``loose`` lets it touch an edge without crossing it."""
    cdef const int* d0 = point(verts, idx, i)
    cdef const int* d1 = point(verts, idx, j)
    cdef const int* p0
    cdef const int* p1
    cdef int k, k1
    for k in range(n):
        k1 = next_of(k, n)
        if k == i or k1 == i or k == j or k1 == j:
            continue
        p0 = point(verts, idx, k)
        p1 = point(verts, idx, k1)
        if same_xz(d0, p0) or same_xz(d1, p0) or same_xz(d0, p1) or same_xz(d1, p1):
            continue
        if loose:
            if cross_properly(d0, d1, p0, p1):
                return False
        elif touch(d0, d1, p0, p1):
            return False
    return True


cdef bint in_cone(int i, int j, int n, const int* verts, const uint32_t* idx,
                  bint loose) noexcept nogil:
    """Whether the segment from entry i to entry j leaves i into the polygon's inside (for a
    convex corner strictly between its two edges; ``loose`` allows along them)."""
    cdef const int* pi = point(verts, idx, i)
    cdef const int* pj = point(verts, idx, j)
    cdef const int* after = point(verts, idx, next_of(i, n))
    cdef const int* before = point(verts, idx, prev_of(i, n))
    if is_left_on(before, pi, after):
        if loose:
            return is_left_on(pi, pj, before) and is_left_on(pj, pi, after)
        return is_left(pi, pj, before) and is_left(pj, pi, after)
    return not (is_left_on(pi, pj, after) and is_left_on(pj, pi, before))


cdef inline bint is_diagonal(int i, int j, int n, const int* verts, const uint32_t* idx,
                             bint loose) noexcept nogil:
    return in_cone(i, j, n, verts, idx, loose) and clear_of_edges(i, j, n, verts, idx, loose)


cdef int triangulate(int n, const int* verts, uint32_t* idx, int* tris) noexcept nogil:
    """Cut the polygon whose corners are ``verts`` rows ``idx[0..n)`` (4 ints each) into
    n - 2 triangles, written to ``tris`` as triples of rows.  Each step clips the ear
    with the shortest cutting diagonal (the first such on a tie).  Where no ear is left
    (overlapping contour edges), the cone and crossing tests are loosened; where even that
    finds none, stops and returns minus the triangles made so far."""
    cdef int ntris = 0, i, i1, i2, k, best, best_len, dx, dz, length
    cdef const int* p0
    cdef const int* p2
    cdef int* out = tris
    for i in range(n):
        i1 = next_of(i, n)
        i2 = next_of(i1, n)
        if is_diagonal(i, i2, n, verts, idx, False):
            idx[i1] |= EAR
    while n > 3:
        best_len = -1
        best = -1
        for i in range(n):
            i1 = next_of(i, n)
            if idx[i1] & EAR:
                p0 = point(verts, idx, i)
                p2 = point(verts, idx, next_of(i1, n))
                dx = p2[0] - p0[0]
                dz = p2[2] - p0[2]
                length = dx * dx + dz * dz
                if best_len < 0 or length < best_len:
                    best_len = length
                    best = i
        if best == -1:
            best_len = -1
            for i in range(n):
                i1 = next_of(i, n)
                i2 = next_of(i1, n)
                if is_diagonal(i, i2, n, verts, idx, True):
                    # The reference measures this fallback diagonal to the entry after
                    # i2, not to i2; kept, since it picks which ear goes.
                    p0 = point(verts, idx, i)
                    p2 = point(verts, idx, next_of(i2, n))
                    dx = p2[0] - p0[0]
                    dz = p2[2] - p0[2]
                    length = dx * dx + dz * dz
                    if best_len < 0 or length < best_len:
                        best_len = length
                        best = i
            if best == -1:
                return -ntris
        i = best
        i1 = next_of(i, n)
        i2 = next_of(i1, n)
        out[0] = <int> (idx[i] & INDEX_MASK)
        out[1] = <int> (idx[i1] & INDEX_MASK)
        out[2] = <int> (idx[i2] & INDEX_MASK)
        out += 3
        ntris += 1
        n -= 1
        for k in range(i1, n):
            idx[k] = idx[k + 1]
        if i1 >= n:
            i1 = 0
        i = prev_of(i1, n)
        if is_diagonal(prev_of(i, n), i1, n, verts, idx, False):
            idx[i] |= EAR
        else:
            idx[i] &= INDEX_MASK
        if is_diagonal(i, next_of(i1, n), n, verts, idx, False):
            idx[i1] |= EAR
        else:
            idx[i1] &= INDEX_MASK
    out[0] = <int> (idx[0] & INDEX_MASK)
    out[1] = <int> (idx[1] & INDEX_MASK)
    out[2] = <int> (idx[2] & INDEX_MASK)
    return ntris + 1


# --- joining triangles into convex polygons ---

cdef inline int count_verts(const uint16_t* p, int nvp) noexcept nogil:
    cdef int i
    for i in range(nvp):
        if p[i] == NULL_IDX:
            return i
    return nvp


cdef inline bint uleft(const uint16_t* a, const uint16_t* b, const uint16_t* c) noexcept nogil:
    return (<int> b[0] - <int> a[0]) * (<int> c[2] - <int> a[2]) \
        - (<int> c[0] - <int> a[0]) * (<int> b[2] - <int> a[2]) < 0


cdef int merge_value(const uint16_t* pa, const uint16_t* pb, const uint16_t* verts,
                     int* ea, int* eb, int nvp) noexcept nogil:
    """The squared length of the edge polygons pa and pb share, if joined across it they
    make a convex polygon of at most nvp vertices (its place in each in ea, eb); else -1.
    Where they share several edges the last of pa's wins."""
    cdef int na = count_verts(pa, nvp), nb = count_verts(pb, nvp), i, j, dx, dz
    cdef uint16_t a0, a1, b0, b1, t, va, vb, vc
    if na + nb - 2 > nvp:
        return -1
    ea[0] = -1
    eb[0] = -1
    for i in range(na):
        a0 = pa[i]
        a1 = pa[(i + 1) % na]
        if a0 > a1:
            t = a0
            a0 = a1
            a1 = t
        for j in range(nb):
            b0 = pb[j]
            b1 = pb[(j + 1) % nb]
            if b0 > b1:
                t = b0
                b0 = b1
                b1 = t
            if a0 == b0 and a1 == b1:
                ea[0] = i
                eb[0] = j
                break
    if ea[0] == -1 or eb[0] == -1:
        return -1
    va = pa[(ea[0] + na - 1) % na]
    vb = pa[ea[0]]
    vc = pb[(eb[0] + 2) % nb]
    if not uleft(&verts[va * 3], &verts[vb * 3], &verts[vc * 3]):
        return -1
    va = pb[(eb[0] + nb - 1) % nb]
    vb = pb[eb[0]]
    vc = pa[(ea[0] + 2) % na]
    if not uleft(&verts[va * 3], &verts[vb * 3], &verts[vc * 3]):
        return -1
    va = pa[ea[0]]
    vb = pa[(ea[0] + 1) % na]
    dx = <int> verts[va * 3] - <int> verts[vb * 3]
    dz = <int> verts[va * 3 + 2] - <int> verts[vb * 3 + 2]
    return dx * dx + dz * dz


cdef void join(uint16_t* pa, const uint16_t* pb, int ea, int eb, uint16_t* tmp,
               int nvp) noexcept nogil:
    """pa becomes pa and pb joined across their shared edge (pa's edge ea, pb's eb)."""
    cdef int na = count_verts(pa, nvp), nb = count_verts(pb, nvp), i, n = 0
    memset(tmp, 0xff, sizeof(uint16_t) * nvp)
    for i in range(na - 1):
        tmp[n] = pa[(ea + 1 + i) % na]
        n += 1
    for i in range(nb - 1):
        tmp[n] = pb[(eb + 1 + i) % nb]
        n += 1
    memcpy(pa, tmp, sizeof(uint16_t) * nvp)


cdef int merge_polygons(uint16_t* polys, int npolys, const uint16_t* verts, int nvp,
                        uint16_t* tmp, uint16_t* regs, uint8_t* areas) noexcept nogil:
    """Join the pair of polygons (rows of nvp slots) with the longest shared edge that
    keeps them convex, again and again until no pair joins; the first pair found wins a
    tie.  The last polygon moves into the place freed; ``regs``/``areas`` (or NULL) move
    with it, and a join of two regions becomes ``MULTIPLE_REGS``.  Returns the count."""
    cdef int best, pa, pb, ea, eb, best_ea, best_eb, j, k, v
    cdef uint16_t* last
    if nvp <= 3:
        return npolys
    while True:
        best = 0
        pa = pb = best_ea = best_eb = 0
        for j in range(npolys - 1):
            for k in range(j + 1, npolys):
                v = merge_value(&polys[j * nvp], &polys[k * nvp], verts, &ea, &eb, nvp)
                if v > best:
                    best = v
                    pa = j
                    pb = k
                    best_ea = ea
                    best_eb = eb
        if best <= 0:
            return npolys
        join(&polys[pa * nvp], &polys[pb * nvp], best_ea, best_eb, tmp, nvp)
        if regs != NULL and regs[pa] != regs[pb]:
            regs[pa] = MULTIPLE_REGS
        last = &polys[(npolys - 1) * nvp]
        if pb != npolys - 1:
            memcpy(&polys[pb * nvp], last, sizeof(uint16_t) * nvp)
        if regs != NULL:
            regs[pb] = regs[npolys - 1]
            areas[pb] = areas[npolys - 1]
        npolys -= 1


# --- welding vertices ---

cdef inline int bucket_of(int x, int z) noexcept nogil:
    cdef uint32_t h = <uint32_t> 0x8da6b343 * <uint32_t> x + <uint32_t> 0xcb1ab31f * <uint32_t> z
    return <int> (h & <uint32_t> (BUCKETS - 1))


cdef uint16_t add_vertex(Mesh* m, uint16_t x, uint16_t y, uint16_t z, int* first_in,
                         int* next_in) noexcept nogil:
    """The index of the mesh vertex at x, z within 2 cell heights of y, added if there is
    none (hashed on x and z only)."""
    cdef int bucket = bucket_of(x, z), i = first_in[bucket]
    cdef const uint16_t* v
    cdef int dy
    while i != -1:
        v = &m.verts[i * 3]
        dy = <int> v[1] - <int> y
        if v[0] == x and (dy if dy >= 0 else -dy) <= 2 and v[2] == z:
            return <uint16_t> i
        i = next_in[i]
    i = m.nverts
    m.nverts += 1
    m.verts[i * 3] = x
    m.verts[i * 3 + 1] = y
    m.verts[i * 3 + 2] = z
    next_in[i] = first_in[bucket]
    first_in[bucket] = i
    return <uint16_t> i


# --- removing the vertices a tile border added ---

cdef bint can_remove(const Mesh* m, uint16_t rem) noexcept nogil:
    """Whether vertex rem can go: the polygons round it keep more than two edges between
    them, and they form one fan (at most two edges from rem belong to one polygon only)."""
    cdef int nvp = m.nvp, i, j, k, nv, removed, remaining = 0, a, b, opened
    cdef const uint16_t* p
    cdef vector[int] ends          # per edge from rem: its far end, how many polygons share it
    cdef vector[int] shared
    cdef bint seen
    cdef size_t e
    for i in range(m.npolys):
        p = &m.polys[i * nvp * 2]
        nv = count_verts(p, nvp)
        removed = 0
        for j in range(nv):
            if p[j] == rem:
                removed += 1
        if removed:
            remaining += nv - (removed + 1)
    if remaining <= 2:
        return False
    for i in range(m.npolys):
        p = &m.polys[i * nvp * 2]
        nv = count_verts(p, nvp)
        k = nv - 1
        for j in range(nv):
            if p[j] == rem or p[k] == rem:
                a = p[j]
                b = p[k]
                if b == rem:
                    b = a
                seen = False
                for e in range(ends.size()):
                    if ends[e] == b:
                        shared[e] += 1
                        seen = True
                if not seen:
                    ends.push_back(b)
                    shared.push_back(1)
            k = j
    opened = 0
    for e in range(ends.size()):
        if shared[e] < 2:
            opened += 1
    return opened <= 2


cdef inline void push_front(vector[int]* arr, int v) noexcept nogil:
    arr.insert(arr.begin(), v)


cdef bint remove_vertex(Mesh* m, uint16_t rem) noexcept nogil:
    """Remove vertex rem and the polygons round it, then fill the hole they leave: its
    outline triangulated and joined into convex polygons, appended to the mesh (those
    beyond ``max_polys`` are dropped, as the reference drops them).  A filling polygon
    keeps the region of its edges, or ``MULTIPLE_REGS`` where they differ."""
    cdef int nvp = m.nvp, i, j, k, nv, nedges, ntris, npolys, n
    cdef uint16_t* p
    cdef bint has, match, add
    cdef int ea, eb, er, earea
    cdef vector[int] edges         # 4 per edge: from, to, region, area
    cdef vector[int] hole, hreg, harea
    cdef vector[int] tverts, tris
    cdef vector[uint32_t] thole
    cdef vector[uint16_t] polys, pregs
    cdef vector[uint8_t] pareas
    cdef const int* t
    i = 0
    while i < m.npolys:
        p = &m.polys[i * nvp * 2]
        nv = count_verts(p, nvp)
        has = False
        for j in range(nv):
            if p[j] == rem:
                has = True
        if has:
            k = nv - 1
            for j in range(nv):
                if p[j] != rem and p[k] != rem:
                    edges.push_back(p[k])
                    edges.push_back(p[j])
                    edges.push_back(m.regs[i])
                    edges.push_back(m.areas[i])
                k = j
            if i != m.npolys - 1:
                memcpy(p, &m.polys[(m.npolys - 1) * nvp * 2], sizeof(uint16_t) * nvp)
            memset(p + nvp, 0xff, sizeof(uint16_t) * nvp)
            m.regs[i] = m.regs[m.npolys - 1]
            m.areas[i] = m.areas[m.npolys - 1]
            m.npolys -= 1
            continue
        i += 1

    for i in range(rem, m.nverts - 1):
        m.verts[i * 3] = m.verts[(i + 1) * 3]
        m.verts[i * 3 + 1] = m.verts[(i + 1) * 3 + 1]
        m.verts[i * 3 + 2] = m.verts[(i + 1) * 3 + 2]
    m.nverts -= 1
    for i in range(m.npolys):
        p = &m.polys[i * nvp * 2]
        nv = count_verts(p, nvp)
        for j in range(nv):
            if p[j] > rem:
                p[j] -= 1
    nedges = <int> edges.size() // 4
    for i in range(nedges):
        if edges[i * 4] > rem:
            edges[i * 4] -= 1
        if edges[i * 4 + 1] > rem:
            edges[i * 4 + 1] -= 1
    if nedges == 0:
        return True

    # Chain the outline of the hole: grow it at either end by the edges that fit there,
    # taking them in order and moving the last edge into each one taken.
    hole.push_back(edges[0])
    hreg.push_back(edges[2])
    harea.push_back(edges[3])
    while nedges:
        match = False
        i = 0
        while i < nedges:
            ea = edges[i * 4]
            eb = edges[i * 4 + 1]
            er = edges[i * 4 + 2]
            earea = edges[i * 4 + 3]
            add = False
            if hole[0] == eb:
                push_front(&hole, ea)
                push_front(&hreg, er)
                push_front(&harea, earea)
                add = True
            elif hole[hole.size() - 1] == ea:
                hole.push_back(eb)
                hreg.push_back(er)
                harea.push_back(earea)
                add = True
            if add:
                for k in range(4):
                    edges[i * 4 + k] = edges[(nedges - 1) * 4 + k]
                nedges -= 1
                match = True
                continue
            i += 1
        if not match:
            break

    n = <int> hole.size()
    # An outline of fewer than 3 vertices makes one degenerate triangle, dropped below
    # (the reference reads past its outline there; zeros stand in).
    tverts.resize(max(n, 3) * 4, 0)
    thole.resize(max(n, 3), 0)
    tris.resize(max(n, 3) * 3)
    for i in range(n):
        tverts[i * 4] = m.verts[hole[i] * 3]
        tverts[i * 4 + 1] = m.verts[hole[i] * 3 + 1]
        tverts[i * 4 + 2] = m.verts[hole[i] * 3 + 2]
        tverts[i * 4 + 3] = 0
        thole[i] = <uint32_t> i
    ntris = triangulate(n, &tverts[0], &thole[0], &tris[0])
    if ntris < 0:
        ntris = -ntris

    polys.resize((ntris + 1) * nvp, NULL_IDX)
    pregs.resize(ntris + 1)
    pareas.resize(ntris + 1)
    npolys = 0
    for j in range(ntris):
        t = &tris[j * 3]
        if t[0] != t[1] and t[0] != t[2] and t[1] != t[2]:
            polys[npolys * nvp] = <uint16_t> hole[t[0]]
            polys[npolys * nvp + 1] = <uint16_t> hole[t[1]]
            polys[npolys * nvp + 2] = <uint16_t> hole[t[2]]
            if hreg[t[0]] != hreg[t[1]] or hreg[t[1]] != hreg[t[2]]:
                pregs[npolys] = MULTIPLE_REGS
            else:
                pregs[npolys] = <uint16_t> hreg[t[0]]
            pareas[npolys] = <uint8_t> harea[t[0]]
            npolys += 1
    if npolys == 0:
        return True
    npolys = merge_polygons(&polys[0], npolys, m.verts, nvp, &polys[ntris * nvp], &pregs[0],
                            &pareas[0])
    for i in range(npolys):
        if m.npolys >= m.max_polys:
            break
        p = &m.polys[m.npolys * nvp * 2]
        memset(p, 0xff, sizeof(uint16_t) * nvp * 2)
        for j in range(nvp):
            p[j] = polys[i * nvp + j]
        m.regs[m.npolys] = pregs[i]
        m.areas[m.npolys] = pareas[i]
        m.npolys += 1
    return True


# --- adjacency ---

cdef bint link_neighbours(Mesh* m) noexcept nogil:
    """Write into each polygon side the polygon across it: every edge listed once from its
    lower vertex, then matched by the polygon that runs it the other way (the first such)."""
    cdef int nvp = m.nvp, i, j, count = 0
    cdef int max_edges = m.npolys * nvp
    cdef vector[uint16_t] first_edge, next_edge
    cdef vector[uint16_t] edges      # 6 per edge: vert0, vert1, poly0, side0, poly1, side1
    cdef uint16_t v0, v1, e
    cdef uint16_t* t
    cdef uint16_t* q
    first_edge.resize(m.nverts, NULL_IDX)
    next_edge.resize(max_edges + 1)
    edges.resize(max_edges * 6 + 6)
    for i in range(m.npolys):
        t = &m.polys[i * nvp * 2]
        for j in range(nvp):
            if t[j] == NULL_IDX:
                break
            v0 = t[j]
            v1 = t[0] if (j + 1 >= nvp or t[j + 1] == NULL_IDX) else t[j + 1]
            if v0 < v1:
                q = &edges[count * 6]
                q[0] = v0
                q[1] = v1
                q[2] = <uint16_t> i
                q[3] = <uint16_t> j
                q[4] = <uint16_t> i
                q[5] = 0
                next_edge[count] = first_edge[v0]
                first_edge[v0] = <uint16_t> count
                count += 1
    for i in range(m.npolys):
        t = &m.polys[i * nvp * 2]
        for j in range(nvp):
            if t[j] == NULL_IDX:
                break
            v0 = t[j]
            v1 = t[0] if (j + 1 >= nvp or t[j + 1] == NULL_IDX) else t[j + 1]
            if v0 > v1:
                e = first_edge[v1]
                while e != NULL_IDX:
                    q = &edges[e * 6]
                    if q[1] == v0 and q[2] == q[4]:
                        q[4] = <uint16_t> i
                        q[5] = <uint16_t> j
                        break
                    e = next_edge[e]
    for i in range(count):
        q = &edges[i * 6]
        if q[2] != q[4]:
            m.polys[q[2] * nvp * 2 + nvp + q[3]] = q[4]
            m.polys[q[4] * nvp * 2 + nvp + q[5]] = q[2]
    return True


cdef void mark_portals(Mesh* m, int width, int depth) noexcept nogil:
    """Mark each open side lying along the grid's edge as a tile-border portal, 0x8000 |
    the side (0: x = 0, 1: z = depth, 2: x = width, 3: z = 0)."""
    cdef int nvp = m.nvp, i, j, nj
    cdef uint16_t* p
    cdef const uint16_t* va
    cdef const uint16_t* vb
    for i in range(m.npolys):
        p = &m.polys[i * 2 * nvp]
        for j in range(nvp):
            if p[j] == NULL_IDX:
                break
            if p[nvp + j] != NULL_IDX:
                continue
            nj = j + 1
            if nj >= nvp or p[nj] == NULL_IDX:
                nj = 0
            va = &m.verts[p[j] * 3]
            vb = &m.verts[p[nj] * 3]
            if va[0] == 0 and vb[0] == 0:
                p[nvp + j] = 0x8000 | 0
            elif <int> va[2] == depth and <int> vb[2] == depth:
                p[nvp + j] = 0x8000 | 1
            elif <int> va[0] == width and <int> vb[0] == width:
                p[nvp + j] = 0x8000 | 2
            elif va[2] == 0 and vb[2] == 0:
                p[nvp + j] = 0x8000 | 3


# --- the build ---

cdef int build(const int32_t* cverts, const int64_t* first, const uint16_t* creg,
               const uint8_t* carea, int ncont, int max_verts, int max_verts_per_cont,
               Mesh* m, uint8_t* vflags, int width, int depth, int border) noexcept nogil:
    """Triangulate, weld and join each contour of at least 3 vertices in turn, then remove
    the tile-border vertices that can go (in index order, each removal shifting the later
    ones down), then link neighbours and mark portals."""
    cdef int nvp = m.nvp, c, j, k, n, ntris, npolys, i
    cdef const int* cv
    cdef const int* t
    cdef vector[int] first_in, next_in, tris
    cdef vector[uint32_t] idx
    cdef vector[uint16_t] polys
    cdef uint16_t* q
    cdef uint16_t* p
    first_in.resize(BUCKETS, -1)
    next_in.resize(max_verts + 1, 0)
    idx.resize(max_verts_per_cont + 1)
    tris.resize(max_verts_per_cont * 3 + 3)
    polys.resize((max_verts_per_cont + 1) * nvp + 1)
    for c in range(ncont):
        n = <int> (first[c + 1] - first[c])
        if n < 3:
            continue
        cv = <const int*> &cverts[first[c] * 4]
        for j in range(n):
            idx[j] = <uint32_t> j
        ntris = triangulate(n, cv, &idx[0], &tris[0])
        if ntris <= 0:
            # A contour the ear clipping cannot finish keeps the triangles made so far.
            ntris = -ntris
        for j in range(n):
            idx[j] = add_vertex(m, <uint16_t> cv[j * 4], <uint16_t> cv[j * 4 + 1],
                                <uint16_t> cv[j * 4 + 2], &first_in[0], &next_in[0])
            if cv[j * 4 + 3] & BORDER_VERTEX:
                vflags[idx[j]] = 1
        npolys = 0
        memset(&polys[0], 0xff, max_verts_per_cont * nvp * sizeof(uint16_t))
        for j in range(ntris):
            t = &tris[j * 3]
            if t[0] != t[1] and t[0] != t[2] and t[1] != t[2]:
                polys[npolys * nvp] = <uint16_t> idx[t[0]]
                polys[npolys * nvp + 1] = <uint16_t> idx[t[1]]
                polys[npolys * nvp + 2] = <uint16_t> idx[t[2]]
                npolys += 1
        if npolys == 0:
            continue
        npolys = merge_polygons(&polys[0], npolys, m.verts, nvp,
                                &polys[max_verts_per_cont * nvp], NULL, NULL)
        for j in range(npolys):
            p = &m.polys[m.npolys * nvp * 2]
            q = &polys[j * nvp]
            for k in range(nvp):
                p[k] = q[k]
            m.regs[m.npolys] = creg[c]
            m.areas[m.npolys] = carea[c]
            m.npolys += 1

    i = 0
    while i < m.nverts:
        if vflags[i] and can_remove(m, <uint16_t> i):
            remove_vertex(m, <uint16_t> i)
            for j in range(i, m.nverts):
                vflags[j] = vflags[j + 1]
            continue
        i += 1

    link_neighbours(m)
    if border > 0:
        mark_portals(m, width, depth)
    return 0


def build_polymesh(const int32_t[:, ::1] verts, const int64_t[::1] first,
                   const uint16_t[::1] regs, const uint8_t[::1] areas, int nvp, int width,
                   int depth, int border):
    """The polygon mesh of the contours ``verts`` (n, 4) int32 cut by ``first``
    (ncontours + 1) int64, with each contour's region ``regs`` and area ``areas``;
    polygons of at most ``nvp`` vertices; ``width``, ``depth`` the grid's size in cells and
    ``border`` its tile border (portals are marked only where it is above 0).

    Returns ``(verts, polys, regs, areas)``: (nverts, 3) uint16, (npolys, 2 * nvp) uint16,
    (npolys,) uint16 and uint8, or raises ValueError where the contours hold 0xfffe
    vertices or more (the mesh indexes them in 16 bits)."""
    cdef int ncont = regs.shape[0], c, n, max_vertices = 0, max_tris = 0, max_per = 0
    if first.shape[0] != ncont + 1 or areas.shape[0] != ncont or verts.shape[1] != 4:
        raise ValueError("contour arrays disagree in length")
    for c in range(ncont):
        n = <int> (first[c + 1] - first[c])
        if n < 3:
            continue
        max_vertices += n
        max_tris += n - 2
        max_per = max(max_per, n)
    if max_vertices >= 0xfffe:
        raise ValueError(f"the contours hold {max_vertices} vertices; a polygon mesh "
                         f"indexes at most 65533")
    out_verts = np.zeros((max_vertices + 1, 3), dtype=np.uint16)
    out_polys = np.full((max_tris + 1, 2 * nvp), NULL_IDX, dtype=np.uint16)
    out_regs = np.zeros(max_tris + 1, dtype=np.uint16)
    out_areas = np.zeros(max_tris + 1, dtype=np.uint8)
    vflags_arr = np.zeros(max_vertices + 1, dtype=np.uint8)
    cdef uint16_t[:, ::1] ov = out_verts
    cdef uint16_t[:, ::1] op = out_polys
    cdef uint16_t[::1] orr = out_regs
    cdef uint8_t[::1] oa = out_areas
    cdef uint8_t[::1] vflags = vflags_arr
    cdef Mesh m
    m.verts = &ov[0, 0]
    m.polys = &op[0, 0]
    m.regs = &orr[0]
    m.areas = &oa[0]
    m.nverts = 0
    m.npolys = 0
    m.max_polys = max_tris
    m.nvp = nvp
    cdef const int32_t* vp = &verts[0, 0] if verts.shape[0] else NULL
    with nogil:
        build(vp, &first[0], &regs[0] if ncont else NULL, &areas[0] if ncont else NULL,
              ncont, max_vertices, max_per, &m, &vflags[0], width, depth, border)
    return (out_verts[:m.nverts].copy(), out_polys[:m.npolys].copy(),
            out_regs[:m.npolys].copy(), out_areas[:m.npolys].copy())
