# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Region partitioning of a compact heightfield (``_compact_heightfield``), the stage of a
voxel navmesh build that cuts the walkable spans into simple regions, each later traced
into one contour: the distance field to the area's edges and the watershed over it, or a
monotone sweep, or a sweep into non-overlapping layers; then small regions are dropped or
merged into their neighbours.  The steps and their orders follow the reference build
(Recast) so that the same input gives the same region ids.

Layout as in ``_compact_heightfield``.  Region 0 is no region; ids with ``BORDER_REG`` set
mark the border of a tile (``border`` cells wide), kept apart from every region.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t
from libcpp.vector cimport vector

from ._voxel_grid cimport Chf, chf_view, dir_dx, dir_dz, step

cnp.import_array()

cdef uint16_t BORDER_REG = 0x8000
cdef uint16_t NULL_NEI = 0xffff


cdef struct Entry:
    int x
    int z
    Py_ssize_t i


cdef struct Claim:
    Py_ssize_t i
    uint16_t reg
    uint16_t dist


cdef Chf view(const int64_t[::1] first, const uint32_t[::1] con, const uint8_t[::1] area,
              int width, int depth):
    return chf_view(&first[0], &con[0] if con.shape[0] else NULL,
                    &area[0] if area.shape[0] else NULL, width, depth, area.shape[0])


cdef uint16_t* span_ids(cnp.ndarray arr):
    """The data of a uint16 array with an id per span (NULL without spans)."""
    cdef uint16_t[::1] ids = arr
    return &ids[0] if ids.shape[0] else NULL


# --- distance field ---

def distance_field(const int64_t[::1] first, const uint32_t[::1] con,
                   const uint8_t[::1] area, int width, int depth):
    """Chamfer distances (2 per straight step, 3 per diagonal) of every span to the edge of
    its area (a span with a missing or other-area neighbour is at 0), then a 3 x 3 box blur
    of those beyond 2.  Returns ``(dist, max_distance)``, the maximum before the blur."""
    cdef Chf g = view(first, con, area, width, depth)
    cdef Py_ssize_t n = g.n, i, a, b
    cdef int x, z, d, nc
    cdef uint16_t maxd = 0
    src_arr = np.full(n, 0xffff, dtype=np.uint16)
    dst_arr = np.empty(n, dtype=np.uint16)
    cdef uint16_t[::1] src = src_arr
    cdef uint16_t[::1] dst = dst_arr
    with nogil:
        for z in range(depth):
            for x in range(width):
                for i in range(g.first[x + <Py_ssize_t> z * width],
                               g.first[x + <Py_ssize_t> z * width + 1]):
                    nc = 0
                    for d in range(4):
                        a = step(&g, x, z, i, d)
                        if a >= 0 and g.area[a] == g.area[i]:
                            nc += 1
                    if nc != 4:
                        src[i] = 0
        for z in range(depth):
            for x in range(width):
                for i in range(g.first[x + <Py_ssize_t> z * width],
                               g.first[x + <Py_ssize_t> z * width + 1]):
                    relax(&g, &src[0], x, z, i, 0, 3)
                    relax(&g, &src[0], x, z, i, 3, 2)
        for z in range(depth - 1, -1, -1):
            for x in range(width - 1, -1, -1):
                for i in range(g.first[x + <Py_ssize_t> z * width],
                               g.first[x + <Py_ssize_t> z * width + 1]):
                    relax(&g, &src[0], x, z, i, 2, 1)
                    relax(&g, &src[0], x, z, i, 1, 0)
        for i in range(n):
            if src[i] > maxd:
                maxd = src[i]
        blur(&g, &src[0], &dst[0], 1)
    return dst_arr, int(maxd)


cdef inline void relax(const Chf* g, uint16_t* dist, int x, int z, Py_ssize_t i, int d,
                       int d2) noexcept nogil:
    cdef Py_ssize_t a = step(g, x, z, i, d), b
    if a < 0:
        return
    if <int> dist[a] + 2 < <int> dist[i]:
        dist[i] = dist[a] + 2
    b = step(g, x + dir_dx(d), z + dir_dz(d), a, d2)
    if b >= 0 and <int> dist[b] + 3 < <int> dist[i]:
        dist[i] = dist[b] + 3


cdef void blur(const Chf* g, const uint16_t* src, uint16_t* dst, int threshold) noexcept nogil:
    cdef int x, z, d, d2, total, cd
    cdef Py_ssize_t i, a, b
    threshold *= 2
    for z in range(g.depth):
        for x in range(g.width):
            for i in range(g.first[x + <Py_ssize_t> z * g.width],
                           g.first[x + <Py_ssize_t> z * g.width + 1]):
                cd = src[i]
                if cd <= threshold:
                    dst[i] = <uint16_t> cd
                    continue
                total = cd
                for d in range(4):
                    a = step(g, x, z, i, d)
                    if a < 0:
                        total += cd * 2
                        continue
                    total += src[a]
                    d2 = (d + 1) & 3
                    b = step(g, x + dir_dx(d), z + dir_dz(d), a, d2)
                    total += src[b] if b >= 0 else cd
                dst[i] = <uint16_t> ((total + 5) // 9)


# --- the watershed ---

cdef void paint_border(const Chf* g, int border, uint16_t* reg, uint16_t* next_id) noexcept nogil:
    """Give the spans of the four border strips their own border ids (left, right, near,
    far), as a tiled build needs."""
    cdef int bw, bh
    if border <= 0:
        return
    bw = min(g.width, border)
    bh = min(g.depth, border)
    paint_rect(g, 0, bw, 0, g.depth, next_id[0] | BORDER_REG, reg)
    next_id[0] += 1
    paint_rect(g, g.width - bw, g.width, 0, g.depth, next_id[0] | BORDER_REG, reg)
    next_id[0] += 1
    paint_rect(g, 0, g.width, 0, bh, next_id[0] | BORDER_REG, reg)
    next_id[0] += 1
    paint_rect(g, 0, g.width, g.depth - bh, g.depth, next_id[0] | BORDER_REG, reg)
    next_id[0] += 1


cdef void paint_rect(const Chf* g, int x0, int x1, int z0, int z1, uint16_t rid,
                     uint16_t* reg) noexcept nogil:
    cdef int x, z
    cdef Py_ssize_t i
    for z in range(z0, z1):
        for x in range(x0, x1):
            for i in range(g.first[x + <Py_ssize_t> z * g.width],
                           g.first[x + <Py_ssize_t> z * g.width + 1]):
                if g.area[i] != 0:
                    reg[i] = rid


cdef bint flood(const Chf* g, Entry start, uint16_t level, uint16_t r, uint16_t* reg,
                uint16_t* rdist, vector[Entry]* stack) noexcept nogil:
    """Grow region r from a seed over spans of its area at ``level - 2`` or above, stopping
    at spans that touch another region (8-connected).  Whether anything was claimed."""
    cdef uint8_t area = g.area[start.i]
    cdef uint16_t lev = level - 2 if level >= 2 else 0, ar, nr
    cdef int count = 0, d
    cdef Py_ssize_t a, b
    cdef Entry e, nxt
    stack.clear()
    stack.push_back(start)
    reg[start.i] = r
    rdist[start.i] = 0
    while stack.size() > 0:
        e = stack.back()
        stack.pop_back()
        ar = 0
        for d in range(4):
            a = step(g, e.x, e.z, e.i, d)
            if a < 0 or g.area[a] != area:
                continue
            nr = reg[a]
            if nr & BORDER_REG:
                continue
            if nr != 0 and nr != r:
                ar = nr
                break
            b = step(g, e.x + dir_dx(d), e.z + dir_dz(d), a, (d + 1) & 3)
            if b >= 0:
                if g.area[b] != area:
                    continue
                nr = reg[b]
                if nr != 0 and nr != r:
                    ar = nr
                    break
        if ar != 0:
            reg[e.i] = 0
            continue
        count += 1
        for d in range(4):
            a = step(g, e.x, e.z, e.i, d)
            if a < 0 or g.area[a] != area:
                continue
            if g.dist[a] >= lev and reg[a] == 0:
                reg[a] = r
                rdist[a] = 0
                nxt.x = e.x + dir_dx(d)
                nxt.z = e.z + dir_dz(d)
                nxt.i = a
                stack.push_back(nxt)
    return count > 0


cdef void expand(const Chf* g, int max_iter, uint16_t level, uint16_t* reg, uint16_t* rdist,
                 vector[Entry]* stack, bint fill) noexcept nogil:
    """Grow the regions into the unclaimed spans of ``stack`` (or, with ``fill``, every
    unclaimed walkable span at ``level`` or above), a ring at a time, each span taking the
    neighbour region nearest its seed; at most ``max_iter`` rings above level 0."""
    cdef int x, z, d, it = 0
    cdef Py_ssize_t i, j, a, failed
    cdef uint16_t r, d2
    cdef uint8_t area
    cdef Entry e
    cdef Claim claim
    cdef vector[Claim] dirty      # this ring's claims, applied together after it
    if fill:
        stack.clear()
        for z in range(g.depth):
            for x in range(g.width):
                for i in range(g.first[x + <Py_ssize_t> z * g.width],
                               g.first[x + <Py_ssize_t> z * g.width + 1]):
                    if g.dist[i] >= level and reg[i] == 0 and g.area[i] != 0:
                        e.x = x
                        e.z = z
                        e.i = i
                        stack.push_back(e)
    else:
        for j in range(<Py_ssize_t> stack.size()):
            if reg[stack[0][j].i] != 0:
                stack[0][j].i = -1
    while stack.size() > 0:
        failed = 0
        dirty.clear()
        for j in range(<Py_ssize_t> stack.size()):
            e = stack[0][j]
            if e.i < 0:
                failed += 1
                continue
            r = reg[e.i]
            d2 = 0xffff
            area = g.area[e.i]
            for d in range(4):
                a = step(g, e.x, e.z, e.i, d)
                if a < 0 or g.area[a] != area:
                    continue
                if reg[a] > 0 and (reg[a] & BORDER_REG) == 0:
                    if <int> rdist[a] + 2 < <int> d2:
                        r = reg[a]
                        d2 = rdist[a] + 2
            if r:
                stack[0][j].i = -1
                claim.i = e.i
                claim.reg = r
                claim.dist = d2
                dirty.push_back(claim)
            else:
                failed += 1
        for j in range(<Py_ssize_t> dirty.size()):
            reg[dirty[j].i] = dirty[j].reg
            rdist[dirty[j].i] = dirty[j].dist
        if failed == <Py_ssize_t> stack.size():
            break
        if level > 0:
            it += 1
            if it >= max_iter:
                break


def watershed(const int64_t[::1] first, const uint32_t[::1] con, const uint8_t[::1] area,
              const uint16_t[::1] dist, int max_distance, int width, int depth, int border,
              int min_area, int merge_area):
    """Regions by watershed: from the highest distance down by 2, grow the regions there
    are into the newly reached spans, then seed a new region at each span still unclaimed;
    at last grow into everything left.  Then drop and merge small regions
    (:func:`merge_and_filter`).  Returns ``(reg, max_regions, overlaps)``."""
    cdef Chf g = view(first, con, area, width, depth)
    g.dist = &dist[0] if dist.shape[0] else NULL
    cdef Py_ssize_t n = g.n, j
    reg_arr = np.zeros(n, dtype=np.uint16)
    rdist_arr = np.zeros(n, dtype=np.uint16)
    cdef uint16_t* reg = span_ids(reg_arr)
    cdef uint16_t* rdist = span_ids(rdist_arr)
    cdef uint16_t rid = 1
    cdef uint16_t level = (max_distance + 1) & ~1
    cdef int sid = -1, expand_iters = 8, status = 0
    cdef vector[vector[Entry]] stacks
    cdef vector[Entry] stack
    cdef Entry e
    cdef int max_regions = 0, overlaps = 0
    stacks.resize(8)
    with nogil:
        paint_border(&g, border, reg, &rid)
        while level > 0:
            level = level - 2 if level >= 2 else 0
            sid = (sid + 1) & 7
            if sid == 0:
                sort_by_level(&g, level, reg, &stacks)
            else:
                append_left(&stacks[sid - 1], &stacks[sid], reg)
            expand(&g, expand_iters, level, reg, rdist, &stacks[sid], False)
            for j in range(<Py_ssize_t> stacks[sid].size()):
                e = stacks[sid][j]
                if e.i >= 0 and reg[e.i] == 0:
                    if flood(&g, e, level, rid, reg, rdist, &stack):
                        if rid == 0xffff:
                            status = -1
                            break
                        rid += 1
            if status != 0:
                break
        if status == 0:
            expand(&g, expand_iters * 8, 0, reg, rdist, &stack, True)
            max_regions = rid
            overlaps = merge_and_filter(&g, min_area, merge_area, &max_regions, reg)
    if status != 0:
        raise OverflowError("more than 65,535 regions; use larger cells or tiles")
    return reg_arr, max_regions, overlaps


cdef void sort_by_level(const Chf* g, uint16_t start_level, const uint16_t* reg,
                        vector[vector[Entry]]* stacks) noexcept nogil:
    """Put the unclaimed walkable spans into eight stacks by level, two levels each,
    from ``start_level`` down; lower spans stay out."""
    cdef int x, z, level, s, start = start_level >> 1
    cdef Py_ssize_t i
    cdef Entry e
    for s in range(8):
        stacks[0][s].clear()
    for z in range(g.depth):
        for x in range(g.width):
            for i in range(g.first[x + <Py_ssize_t> z * g.width],
                           g.first[x + <Py_ssize_t> z * g.width + 1]):
                if g.area[i] == 0 or reg[i] != 0:
                    continue
                level = g.dist[i] >> 1
                s = start - level
                if s >= 8:
                    continue
                if s < 0:
                    s = 0
                e.x = x
                e.z = z
                e.i = i
                stacks[0][s].push_back(e)


cdef void append_left(const vector[Entry]* src, vector[Entry]* dst,
                      const uint16_t* reg) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(<Py_ssize_t> src.size()):
        if src[0][j].i >= 0 and reg[src[0][j].i] == 0:
            dst.push_back(src[0][j])


# --- sweeps: monotone regions and layers ---

cdef struct Sweep:
    uint16_t id     # the region the sweep span becomes
    uint16_t ns     # samples shared with the neighbour region below
    uint16_t nei    # that neighbour region, NULL_NEI when there are several


cdef int sweep(const Chf* g, int border, uint16_t* reg) noexcept nogil:
    """Monotone sweep: each row's runs of spans (joined along x, same area) become new
    regions unless a run touches, in the row before, only one region that touches nothing
    else of this row.  Returns the next free id, or -1 past 65,535."""
    cdef uint16_t rid, previd, nr
    cdef int x, z, k, nid = 1
    cdef Py_ssize_t i, a
    cdef vector[int] prev
    cdef vector[Sweep] sweeps
    cdef uint16_t tmp = 1
    paint_border(g, border, reg, &tmp)
    nid = tmp
    for z in range(border, g.depth - border):
        prev.assign(nid + 1, 0)
        rid = 1
        for x in range(border, g.width - border):
            for i in range(g.first[x + <Py_ssize_t> z * g.width],
                           g.first[x + <Py_ssize_t> z * g.width + 1]):
                if g.area[i] == 0:
                    continue
                previd = 0
                a = step(g, x, z, i, 0)
                if a >= 0 and (reg[a] & BORDER_REG) == 0 and g.area[i] == g.area[a]:
                    previd = reg[a]
                if not previd:
                    previd = rid
                    rid += 1
                    if <Py_ssize_t> sweeps.size() <= previd:
                        sweeps.resize(previd + 1)
                    sweeps[previd].ns = 0
                    sweeps[previd].nei = 0
                a = step(g, x, z, i, 3)
                if a >= 0 and reg[a] and (reg[a] & BORDER_REG) == 0 \
                        and g.area[i] == g.area[a]:
                    nr = reg[a]
                    if not sweeps[previd].nei or sweeps[previd].nei == nr:
                        sweeps[previd].nei = nr
                        sweeps[previd].ns += 1
                        prev[nr] += 1
                    else:
                        sweeps[previd].nei = NULL_NEI
                reg[i] = previd
        for k in range(1, rid):
            if sweeps[k].nei != NULL_NEI and sweeps[k].nei != 0 \
                    and prev[sweeps[k].nei] == <int> sweeps[k].ns:
                sweeps[k].id = sweeps[k].nei
            else:
                if nid >= 0xffff:
                    return -1
                sweeps[k].id = <uint16_t> nid
                nid += 1
        for x in range(border, g.width - border):
            for i in range(g.first[x + <Py_ssize_t> z * g.width],
                           g.first[x + <Py_ssize_t> z * g.width + 1]):
                if reg[i] > 0 and reg[i] < rid:
                    reg[i] = sweeps[reg[i]].id
    return nid


def monotone(const int64_t[::1] first, const uint32_t[::1] con, const uint8_t[::1] area,
             int width, int depth, int border, int min_area, int merge_area):
    """Regions by monotone sweep (:func:`sweep`), then small ones dropped and merged.
    Returns ``(reg, max_regions, overlaps)``."""
    cdef Chf g = view(first, con, area, width, depth)
    reg_arr = np.zeros(g.n, dtype=np.uint16)
    cdef uint16_t* reg = span_ids(reg_arr)
    cdef int nid, max_regions = 0, overlaps = 0
    with nogil:
        nid = sweep(&g, border, reg)
        if nid >= 0:
            max_regions = nid
            overlaps = merge_and_filter(&g, min_area, merge_area, &max_regions, reg)
    if nid < 0:
        raise OverflowError("more than 65,535 regions; use larger cells or tiles")
    return reg_arr, max_regions, overlaps


def layers(const int64_t[::1] first, const uint32_t[::1] con, const uint8_t[::1] area,
           const uint16_t[::1] y, int width, int depth, int border, int min_area):
    """Regions by monotone sweep (:func:`sweep`), then joined into layers: connected
    regions that never lie over one another; layers smaller than ``min_area`` dropped.
    Returns ``(reg, max_regions)``."""
    cdef Chf g = view(first, con, area, width, depth)
    g.y = &y[0] if y.shape[0] else NULL
    reg_arr = np.zeros(g.n, dtype=np.uint16)
    cdef uint16_t* reg = span_ids(reg_arr)
    cdef int nid, max_regions = 0
    with nogil:
        nid = sweep(&g, border, reg)
        if nid >= 0:
            max_regions = nid
            merge_layers(&g, min_area, &max_regions, reg)
    if nid < 0:
        raise OverflowError("more than 65,535 regions; use larger cells or tiles")
    return reg_arr, max_regions


# --- region bookkeeping: dropping, merging, renumbering ---

cdef struct Region:
    int span_count
    uint16_t id
    uint8_t area_type
    bint remap
    bint visited
    bint overlap
    bint connects_to_border
    uint16_t ymin
    uint16_t ymax


cdef void new_regions(vector[Region]* regions, vector[vector[int]]* cons,
                      vector[vector[int]]* floors, int nreg) noexcept nogil:
    """``nreg`` regions, region k with id k and nothing counted yet, each with no
    neighbours and no floors."""
    cdef int k
    regions.resize(nreg)
    cons.resize(nreg)
    floors.resize(nreg)
    for k in range(nreg):
        regions[0][k].span_count = 0
        regions[0][k].id = <uint16_t> k
        regions[0][k].area_type = 0
        regions[0][k].remap = False
        regions[0][k].visited = False
        regions[0][k].overlap = False
        regions[0][k].connects_to_border = False
        regions[0][k].ymin = 0xffff
        regions[0][k].ymax = 0


cdef void add_unique(vector[int]* items, int v) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(<Py_ssize_t> items.size()):
        if items[0][k] == v:
            return
    items.push_back(v)


cdef void remove_adjacent_duplicates(vector[int]* items, bint keep_one=True) noexcept nogil:
    """Drop each entry equal to the next one round the (cyclic) list; without
    ``keep_one`` a list of one entry, its own neighbour, goes too (as the reference's
    contour walk does)."""
    cdef Py_ssize_t k = 0, m, nk
    while k < <Py_ssize_t> items.size() and (items.size() > 1 or not keep_one):
        nk = (k + 1) % <Py_ssize_t> items.size()
        if items[0][k] == items[0][nk]:
            for m in range(k, <Py_ssize_t> items.size() - 1):
                items[0][m] = items[0][m + 1]
            items.pop_back()
        else:
            k += 1


cdef bint solid_edge(const Chf* g, const uint16_t* reg, int x, int z, Py_ssize_t i,
                     int d) noexcept nogil:
    cdef Py_ssize_t a = step(g, x, z, i, d)
    cdef uint16_t r = reg[a] if a >= 0 else 0
    return r != reg[i]


cdef void walk_contour(const Chf* g, const uint16_t* reg, int x, int z, Py_ssize_t i, int d,
                       vector[int]* cont) noexcept nogil:
    """The regions met walking round the edge of i's region from its side d, clockwise,
    each once per run."""
    cdef int start_d = d, it = 0, nx, nz
    cdef Py_ssize_t start_i = i, a
    cdef uint16_t cur = 0, r
    a = step(g, x, z, i, d)
    if a >= 0:
        cur = reg[a]
    cont.push_back(cur)
    while True:
        it += 1
        if it >= 40000:
            break
        if solid_edge(g, reg, x, z, i, d):
            a = step(g, x, z, i, d)
            r = reg[a] if a >= 0 else 0
            if r != cur:
                cur = r
                cont.push_back(cur)
            d = (d + 1) & 3
        else:
            a = step(g, x, z, i, d)
            if a < 0:
                return
            x += dir_dx(d)
            z += dir_dz(d)
            i = a
            d = (d + 3) & 3
        if start_i == i and start_d == d:
            break
    if cont.size() > 1:
        remove_adjacent_duplicates(cont, False)


cdef bint can_merge(const Region* a, const vector[int]* acon, const vector[int]* afloors,
                    const Region* b) noexcept nogil:
    cdef int n = 0
    cdef Py_ssize_t k
    if a.area_type != b.area_type:
        return False
    for k in range(<Py_ssize_t> acon.size()):
        if acon[0][k] == b.id:
            n += 1
    if n > 1:
        return False
    for k in range(<Py_ssize_t> afloors.size()):
        if afloors[0][k] == b.id:
            return False
    return True


cdef int merge_and_filter(const Chf* g, int min_area, int merge_area, int* max_id,
                          uint16_t* reg) noexcept nogil:
    """Drop groups of connected regions smaller than ``min_area`` (unless they touch a tile
    border), merge regions of up to ``merge_area`` spans (or touching no border) into their
    smallest mergeable neighbour, renumber from 1.  Returns the overlapping regions' count."""
    cdef int nreg = max_id[0] + 1, x, z, d, ndir, span_count, smallest, merged, overlaps = 0
    cdef Py_ssize_t i, j, k, c0, c1, ri
    cdef uint16_t r, floor_id, merge_id, old_id, new_id, gen
    cdef bint border_touch
    cdef vector[Region] regions
    cdef vector[vector[int]] cons
    cdef vector[vector[int]] floors
    cdef vector[int] stack, trace, acon
    cdef Region* reg_i
    new_regions(&regions, &cons, &floors, nreg)
    for z in range(g.depth):
        for x in range(g.width):
            c0 = g.first[x + <Py_ssize_t> z * g.width]
            c1 = g.first[x + <Py_ssize_t> z * g.width + 1]
            for i in range(c0, c1):
                r = reg[i]
                if r == 0 or r >= nreg:
                    continue
                regions[r].span_count += 1
                for j in range(c0, c1):
                    if i == j:
                        continue
                    floor_id = reg[j]
                    if floor_id == 0 or floor_id >= nreg:
                        continue
                    if floor_id == r:
                        regions[r].overlap = True
                    add_unique(&floors[r], floor_id)
                if cons[r].size() > 0:
                    continue
                regions[r].area_type = g.area[i]
                ndir = -1
                for d in range(4):
                    if solid_edge(g, reg, x, z, i, d):
                        ndir = d
                        break
                if ndir != -1:
                    walk_contour(g, reg, x, z, i, ndir, &cons[r])
    # drop groups of connected regions too small to keep
    for k in range(nreg):
        if regions[k].id == 0 or (regions[k].id & BORDER_REG) or regions[k].span_count == 0 \
                or regions[k].visited:
            continue
        border_touch = False
        span_count = 0
        stack.clear()
        trace.clear()
        regions[k].visited = True
        stack.push_back(<int> k)
        while stack.size() > 0:
            ri = stack.back()
            stack.pop_back()
            span_count += regions[ri].span_count
            trace.push_back(<int> ri)
            for j in range(<Py_ssize_t> cons[ri].size()):
                if cons[ri][j] & BORDER_REG:
                    border_touch = True
                    continue
                reg_i = &regions[cons[ri][j]]
                if reg_i.visited or reg_i.id == 0 or (reg_i.id & BORDER_REG):
                    continue
                stack.push_back(reg_i.id)
                reg_i.visited = True
        if span_count < min_area and not border_touch:
            for j in range(<Py_ssize_t> trace.size()):
                regions[trace[j]].span_count = 0
                regions[trace[j]].id = 0
    # merge small regions into neighbours
    while True:
        merged = 0
        for k in range(nreg):
            reg_i = &regions[k]
            if reg_i.id == 0 or (reg_i.id & BORDER_REG) or reg_i.overlap \
                    or reg_i.span_count == 0:
                continue
            if reg_i.span_count > merge_area and connected_to_border(&cons[k]):
                continue
            smallest = 0xfffffff
            merge_id = reg_i.id
            for j in range(<Py_ssize_t> cons[k].size()):
                if cons[k][j] & BORDER_REG:
                    continue
                ri = cons[k][j]
                if regions[ri].id == 0 or (regions[ri].id & BORDER_REG) or regions[ri].overlap:
                    continue
                if regions[ri].span_count < smallest \
                        and can_merge(reg_i, &cons[k], &floors[k], &regions[ri]) \
                        and can_merge(&regions[ri], &cons[ri], &floors[ri], reg_i):
                    smallest = regions[ri].span_count
                    merge_id = regions[ri].id
            if merge_id != reg_i.id:
                old_id = reg_i.id
                if merge_into(&regions, &cons, &floors, merge_id, <int> k):
                    for j in range(nreg):
                        if regions[j].id == 0 or (regions[j].id & BORDER_REG):
                            continue
                        if regions[j].id == old_id:
                            regions[j].id = merge_id
                        replace_neighbour(&cons[j], &floors[j], old_id, merge_id)
                    merged += 1
        if merged == 0:
            break
    max_id[0] = renumber(&regions, nreg)
    for i in range(g.n):
        if (reg[i] & BORDER_REG) == 0:
            reg[i] = regions[reg[i]].id
    for k in range(nreg):
        if regions[k].overlap:
            overlaps += 1
    return overlaps


cdef bint connected_to_border(const vector[int]* cons) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(<Py_ssize_t> cons.size()):
        if cons[0][k] == 0:
            return True
    return False


cdef void replace_neighbour(vector[int]* cons, vector[int]* floors, uint16_t old_id,
                            uint16_t new_id) noexcept nogil:
    cdef Py_ssize_t k
    cdef bint changed = False
    for k in range(<Py_ssize_t> cons.size()):
        if cons[0][k] == old_id:
            cons[0][k] = new_id
            changed = True
    for k in range(<Py_ssize_t> floors.size()):
        if floors[0][k] == old_id:
            floors[0][k] = new_id
    if changed:
        remove_adjacent_duplicates(cons)


cdef bint merge_into(vector[Region]* regions, vector[vector[int]]* cons,
                     vector[vector[int]]* floors, int a, int b) noexcept nogil:
    """Merge region b into region a: splice b's ring of neighbours into a's where they
    meet.  False if they do not meet."""
    cdef uint16_t aid = regions[0][a].id, bid = regions[0][b].id
    cdef vector[int] acon = cons[0][a]
    cdef vector[int]* bcon = &cons[0][b]
    cdef Py_ssize_t ins_a = -1, ins_b = -1, k, na = acon.size(), nb = bcon.size()
    for k in range(na):
        if acon[k] == bid:
            ins_a = k
            break
    if ins_a == -1:
        return False
    for k in range(nb):
        if bcon[0][k] == aid:
            ins_b = k
            break
    if ins_b == -1:
        return False
    cons[0][a].clear()
    for k in range(na - 1):
        cons[0][a].push_back(acon[(ins_a + 1 + k) % na])
    for k in range(nb - 1):
        cons[0][a].push_back(bcon[0][(ins_b + 1 + k) % nb])
    remove_adjacent_duplicates(&cons[0][a])
    for k in range(<Py_ssize_t> floors[0][b].size()):
        add_unique(&floors[0][a], floors[0][b][k])
    regions[0][a].span_count += regions[0][b].span_count
    regions[0][b].span_count = 0
    bcon.clear()
    return True


cdef int renumber(vector[Region]* regions, int nreg) noexcept nogil:
    """Give the surviving region ids the numbers 1, 2, ... in order of first appearance;
    returns the count."""
    cdef int k, j
    cdef uint16_t old_id, gen = 0
    for k in range(nreg):
        regions[0][k].remap = regions[0][k].id != 0 and (regions[0][k].id & BORDER_REG) == 0
    for k in range(nreg):
        if not regions[0][k].remap:
            continue
        old_id = regions[0][k].id
        gen += 1
        for j in range(k, nreg):
            if regions[0][j].id == old_id:
                regions[0][j].id = gen
                regions[0][j].remap = False
    return gen


cdef void merge_layers(const Chf* g, int min_area, int* max_id, uint16_t* reg) noexcept nogil:
    """Join connected regions of one area into layers, never taking a region that lies
    over or under the layer; drop layers smaller than ``min_area`` unless they touch a
    tile border; renumber from 1."""
    cdef int nreg = max_id[0] + 1, x, z, d, k, j, m, layer_id = 1, nei
    cdef Py_ssize_t i, a, c0, c1, head
    cdef uint16_t ri, rai, drop
    cdef bint overlap
    cdef vector[Region] regions
    cdef vector[vector[int]] cons
    cdef vector[vector[int]] floors
    cdef vector[int] lregs, stack
    cdef Region* root
    cdef Region* rg
    new_regions(&regions, &cons, &floors, nreg)
    for z in range(g.depth):
        for x in range(g.width):
            c0 = g.first[x + <Py_ssize_t> z * g.width]
            c1 = g.first[x + <Py_ssize_t> z * g.width + 1]
            lregs.clear()
            for i in range(c0, c1):
                ri = reg[i]
                if ri == 0 or ri >= nreg:
                    continue
                rg = &regions[ri]
                rg.span_count += 1
                rg.area_type = g.area[i]
                rg.ymin = min(rg.ymin, g.y[i])
                rg.ymax = max(rg.ymax, g.y[i])
                lregs.push_back(ri)
                for d in range(4):
                    a = step(g, x, z, i, d)
                    if a < 0:
                        continue
                    rai = reg[a]
                    if rai > 0 and rai < nreg and rai != ri:
                        add_unique(&cons[ri], rai)
                    if rai & BORDER_REG:
                        rg.connects_to_border = True
            for k in range(<int> lregs.size() - 1):
                for j in range(k + 1, <int> lregs.size()):
                    if lregs[k] != lregs[j]:
                        add_unique(&floors[lregs[k]], lregs[j])
                        add_unique(&floors[lregs[j]], lregs[k])
    for k in range(nreg):
        regions[k].id = 0
    for k in range(1, nreg):
        root = &regions[k]
        if root.id != 0:
            continue
        root.id = <uint16_t> layer_id
        stack.clear()
        stack.push_back(k)
        head = 0
        while head < <Py_ssize_t> stack.size():     # first in, first out
            m = stack[head]
            head += 1
            for j in range(<int> cons[m].size()):
                nei = cons[m][j]
                rg = &regions[nei]
                if rg.id != 0 or regions[m].area_type != rg.area_type:
                    continue
                overlap = False
                for i in range(<Py_ssize_t> floors[k].size()):
                    if floors[k][i] == nei:
                        overlap = True
                        break
                if overlap:
                    continue
                stack.push_back(nei)
                rg.id = <uint16_t> layer_id
                for i in range(<Py_ssize_t> floors[nei].size()):
                    add_unique(&floors[k], floors[nei][i])
                root.ymin = min(root.ymin, rg.ymin)
                root.ymax = max(root.ymax, rg.ymax)
                root.span_count += rg.span_count
                rg.span_count = 0
                root.connects_to_border = root.connects_to_border or rg.connects_to_border
        layer_id += 1
    for k in range(nreg):
        if regions[k].span_count > 0 and regions[k].span_count < min_area \
                and not regions[k].connects_to_border:
            drop = regions[k].id
            for j in range(nreg):
                if regions[j].id == drop:
                    regions[j].id = 0
    max_id[0] = renumber(&regions, nreg)
    for i in range(g.n):
        if (reg[i] & BORDER_REG) == 0:
            reg[i] = regions[reg[i]].id
