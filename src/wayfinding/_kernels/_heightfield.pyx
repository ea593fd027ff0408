# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Solid heightfields of triangle soup, the first stage of a voxel navmesh build: walkable
triangles by slope, triangles rasterized into columns of solid spans, and the three span
filters (low-hanging obstacles, ledges, low ceilings).

Arithmetic is single precision, step for step as the reference build (Recast) does it, so
that spans on cell boundaries fall the same way.  Columns are ``x + z * width``; a
heightfield is stored by column: column c's spans are ``first[c]`` to ``first[c + 1] - 1``,
bottom up, each with ``smin < smax`` (in cell heights above the bounds' minimum y) and an
area id (0: not walkable).  Directions 0..3 step x - 1, z + 1, x + 1, z - 1.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport ceilf, cosf, floorf, sqrtf
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t
from libc.stdlib cimport free, malloc, realloc

from ._voxel_grid cimport dir_dx, dir_dz

cnp.import_array()

cdef int SPAN_MAX_HEIGHT = (1 << 13) - 1
cdef int MAX_HEIGHT = 0xffff     # the ceiling of a column's top span
cdef float PI = 3.14159265
cdef enum:
    CLIP_VERTS = 7      # the vertices a clipped part of a triangle has room for


def mark_walkable(const float[:, ::1] vertices, const int32_t[:, ::1] triangles,
                  float max_slope_degrees, uint8_t[::1] areas):
    """Set the area of every triangle whose slope is ``max_slope_degrees`` or steeper to 0
    (degenerate triangles too); the others keep theirs."""
    cdef float limit = cosf(max_slope_degrees / <float> 180.0 * PI)
    cdef Py_ssize_t i
    cdef const float* a
    cdef const float* b
    cdef const float* c
    cdef float e0[3]
    cdef float e1[3]
    cdef float ny, length
    with nogil:
        for i in range(triangles.shape[0]):
            a = &vertices[triangles[i, 0], 0]
            b = &vertices[triangles[i, 1], 0]
            c = &vertices[triangles[i, 2], 0]
            e0[0] = b[0] - a[0]
            e0[1] = b[1] - a[1]
            e0[2] = b[2] - a[2]
            e1[0] = c[0] - a[0]
            e1[1] = c[1] - a[1]
            e1[2] = c[2] - a[2]
            # the unit normal's y: the cross product's y over its length
            length = sqrtf(square(e0[1] * e1[2] - e0[2] * e1[1])
                           + square(e0[2] * e1[0] - e0[0] * e1[2])
                           + square(e0[0] * e1[1] - e0[1] * e1[0]))
            ny = (e0[2] * e1[0] - e0[0] * e1[2]) * (<float> 1.0 / length)
            if not ny > limit:
                areas[i] = 0


cdef inline float square(float v) noexcept nogil:
    return v * v


# --- rasterization: spans kept in per-column linked lists while triangles come in ---

cdef struct Span:
    int32_t next        # the next span up the column, or the next free one; -1 at the end
    uint16_t smin
    uint16_t smax
    uint8_t area


cdef struct Pool:
    Span* spans
    int32_t* head       # per column, -1 when empty
    int32_t free        # a free list through next
    int32_t used
    int32_t capacity
    int64_t count       # live spans


cdef int pool_grow(Pool* p) noexcept nogil:
    cdef int32_t cap = p.capacity * 2 if p.capacity else 4096
    cdef Span* q = <Span*> realloc(p.spans, cap * sizeof(Span))
    if q == NULL:
        return -1
    p.spans = q
    p.capacity = cap
    return 0


cdef void pool_free(Pool* p) noexcept nogil:
    free(p.spans)
    free(p.head)


cdef int add_span(Pool* p, int column, int smin, int smax, uint8_t area,
                  int merge_threshold) noexcept nogil:
    """Insert a span into its column, merging it with every span it touches or overlaps; a
    merged span takes the higher area id when their tops are within ``merge_threshold``."""
    cdef int32_t s, prev = -1, cur, nxt
    cdef Span* sp = p.spans
    if p.free >= 0:
        s = p.free
        p.free = sp[s].next
    else:
        if p.used == p.capacity:
            if pool_grow(p) != 0:
                return -1
            sp = p.spans
        s = p.used
        p.used += 1
    cur = p.head[column]
    while cur >= 0:
        if sp[cur].smin > smax:
            break
        if sp[cur].smax < smin:
            prev = cur
            cur = sp[cur].next
            continue
        if sp[cur].smin < smin:
            smin = sp[cur].smin
        if sp[cur].smax > smax:
            smax = sp[cur].smax
        if abs(smax - <int> sp[cur].smax) <= merge_threshold and sp[cur].area > area:
            area = sp[cur].area
        nxt = sp[cur].next
        sp[cur].next = p.free
        p.free = cur
        p.count -= 1
        if prev >= 0:
            sp[prev].next = nxt
        else:
            p.head[column] = nxt
        cur = nxt
    sp[s].smin = <uint16_t> smin
    sp[s].smax = <uint16_t> smax
    sp[s].area = area
    if prev >= 0:
        sp[s].next = sp[prev].next
        sp[prev].next = s
    else:
        sp[s].next = p.head[column]
        p.head[column] = s
    p.count += 1
    return 0


cdef int divide(const float* src, int n, float* above, int* n_above, float* below,
                 int* n_below, float offset, int axis) noexcept nogil:
    """Split the convex polygon ``src`` by the plane ``axis = offset``: the part with smaller
    coordinates into ``above`` (the side ``offset - v >= 0``), the rest into ``below``;
    vertices on the plane go to both.  Returns -1 where a part would pass ``CLIP_VERTS``
    vertices (rounding has bent the polygon: cells finer than single precision resolves
    where it lies), else 0."""
    cdef float delta[12]
    cdef int i, j, na = 0, nb = 0, k
    cdef float s
    for i in range(n):
        delta[i] = offset - src[i * 3 + axis]
    j = n - 1
    for i in range(n):
        if (delta[i] >= 0) != (delta[j] >= 0):
            if na == CLIP_VERTS or nb == CLIP_VERTS:
                return -1
            s = delta[j] / (delta[j] - delta[i])
            for k in range(3):
                above[na * 3 + k] = src[j * 3 + k] + (src[i * 3 + k] - src[j * 3 + k]) * s
                below[nb * 3 + k] = above[na * 3 + k]
            na += 1
            nb += 1
            if delta[i] > 0:
                if na == CLIP_VERTS:
                    return -1
                for k in range(3):
                    above[na * 3 + k] = src[i * 3 + k]
                na += 1
            elif delta[i] < 0:
                if nb == CLIP_VERTS:
                    return -1
                for k in range(3):
                    below[nb * 3 + k] = src[i * 3 + k]
                nb += 1
        else:
            if delta[i] >= 0:
                if na == CLIP_VERTS:
                    return -1
                for k in range(3):
                    above[na * 3 + k] = src[i * 3 + k]
                na += 1
                if delta[i] != 0:
                    j = i
                    continue
            if nb == CLIP_VERTS:
                return -1
            for k in range(3):
                below[nb * 3 + k] = src[i * 3 + k]
            nb += 1
        j = i
    n_above[0] = na
    n_below[0] = nb
    return 0


cdef int raster_triangle(Pool* p, const float* v0, const float* v1, const float* v2,
                         uint8_t area, const float* bmin, const float* bmax, float cs,
                         float ics, float ich, int width, int depth,
                         int merge_threshold) noexcept nogil:
    cdef float tmin[3]
    cdef float tmax[3]
    cdef float buf[CLIP_VERTS * 3 * 4]
    # four scratch polygons, their roles swapped as the triangle is cut row by row and
    # cell by cell: what is left beyond this row, this row's part, and two for cutting
    cdef float* poly = buf
    cdef float* row = buf + CLIP_VERTS * 3
    cdef float* p1 = buf + CLIP_VERTS * 6
    cdef float* p2 = buf + CLIP_VERTS * 9
    cdef float* t
    cdef int k, z, z0, z1, x, x0, x1, n_poly = 3, n_row, n_cell, n_rest
    cdef float by = bmax[1] - bmin[1], min_x, max_x, lo, hi, cell_z, cell_x
    cdef int ilo, ihi
    for k in range(3):
        tmin[k] = min(v0[k], min(v1[k], v2[k]))
        tmax[k] = max(v0[k], max(v1[k], v2[k]))
    for k in range(3):
        if tmin[k] > bmax[k] or tmax[k] < bmin[k]:
            return 0
    z0 = <int> ((tmin[2] - bmin[2]) * ics)
    z1 = <int> ((tmax[2] - bmin[2]) * ics)
    z0 = -1 if z0 < -1 else (depth - 1 if z0 > depth - 1 else z0)
    z1 = 0 if z1 < 0 else (depth - 1 if z1 > depth - 1 else z1)
    for k in range(3):
        poly[k] = v0[k]
        poly[3 + k] = v1[k]
        poly[6 + k] = v2[k]
    for z in range(z0, z1 + 1):
        cell_z = bmin[2] + <float> z * cs
        if divide(poly, n_poly, row, &n_row, p1, &n_poly, cell_z + cs, 2) != 0:
            return -2
        t = poly
        poly = p1
        p1 = t
        if n_row < 3 or z < 0:
            continue
        min_x = row[0]
        max_x = row[0]
        for k in range(1, n_row):
            if min_x > row[k * 3]:
                min_x = row[k * 3]
            if max_x < row[k * 3]:
                max_x = row[k * 3]
        x0 = <int> ((min_x - bmin[0]) * ics)
        x1 = <int> ((max_x - bmin[0]) * ics)
        if x1 < 0 or x0 >= width:
            continue
        x0 = -1 if x0 < -1 else (width - 1 if x0 > width - 1 else x0)
        x1 = 0 if x1 < 0 else (width - 1 if x1 > width - 1 else x1)
        n_rest = n_row
        for x in range(x0, x1 + 1):
            cell_x = bmin[0] + <float> x * cs
            if divide(row, n_rest, p1, &n_cell, p2, &n_rest, cell_x + cs, 0) != 0:
                return -2
            t = row
            row = p2
            p2 = t
            if n_cell < 3 or x < 0:
                continue
            lo = p1[1]
            hi = p1[1]
            for k in range(1, n_cell):
                lo = min(lo, p1[k * 3 + 1])
                hi = max(hi, p1[k * 3 + 1])
            lo -= bmin[1]
            hi -= bmin[1]
            if hi < 0 or lo > by:
                continue
            if lo < 0:
                lo = 0
            if hi > by:
                hi = by
            ilo = <int> floorf(lo * ich)
            ilo = 0 if ilo < 0 else (SPAN_MAX_HEIGHT if ilo > SPAN_MAX_HEIGHT else ilo)
            ihi = <int> ceilf(hi * ich)
            ihi = ilo + 1 if ihi < ilo + 1 else (SPAN_MAX_HEIGHT if ihi > SPAN_MAX_HEIGHT else ihi)
            if add_span(p, x + z * width, ilo, ihi, area, merge_threshold) != 0:
                return -1
    return 0


def rasterize(const float[:, ::1] vertices, const int32_t[:, ::1] triangles,
              const uint8_t[::1] areas, const float[::1] bmin, const float[::1] bmax,
              float cell_size, float cell_height, int width, int depth,
              int merge_threshold):
    """Rasterize every triangle into a heightfield of ``width x depth`` columns over the
    bounds ``bmin``..``bmax``; spans that touch or overlap merge.  Returns ``(first, smin,
    smax, area)``; raises ValueError naming the first triangle (its row in ``triangles``)
    that rounding bends too far to cut into cells."""
    cdef Pool p
    cdef Py_ssize_t i, n = triangles.shape[0], ncol = <Py_ssize_t> width * depth
    cdef float ics = <float> 1.0 / cell_size, ich = <float> 1.0 / cell_height
    cdef int status = 0
    p.spans = NULL
    p.free = -1
    p.used = 0
    p.capacity = 0
    p.count = 0
    p.head = <int32_t*> malloc(max(ncol, 1) * sizeof(int32_t))
    if p.head == NULL:
        raise MemoryError("no memory for the heightfield's columns")
    try:
        for i in range(ncol):
            p.head[i] = -1
        with nogil:
            for i in range(n):
                status = raster_triangle(&p, &vertices[triangles[i, 0], 0],
                                         &vertices[triangles[i, 1], 0],
                                         &vertices[triangles[i, 2], 0], areas[i], &bmin[0],
                                         &bmax[0], cell_size, ics, ich, width, depth,
                                         merge_threshold)
                if status != 0:
                    break
        if status == -1:
            raise MemoryError("no memory for the heightfield's spans")
        if status == -2:
            raise ValueError(f"triangle {i} cannot be cut into cells of {cell_size:g} in "
                             "single precision where it lies")
        return to_columns(&p, ncol)
    finally:
        pool_free(&p)


cdef tuple to_columns(Pool* p, Py_ssize_t ncol):
    first = np.empty(ncol + 1, dtype=np.int64)
    smin = np.empty(p.count, dtype=np.uint16)
    smax = np.empty(p.count, dtype=np.uint16)
    area = np.empty(p.count, dtype=np.uint8)
    cdef int64_t[::1] f = first
    cdef uint16_t[::1] lo = smin
    cdef uint16_t[::1] hi = smax
    cdef uint8_t[::1] ar = area
    cdef Py_ssize_t c, k = 0
    cdef int32_t s
    with nogil:
        for c in range(ncol):
            f[c] = k
            s = p.head[c]
            while s >= 0:
                lo[k] = p.spans[s].smin
                hi[k] = p.spans[s].smax
                ar[k] = p.spans[s].area
                k += 1
                s = p.spans[s].next
        f[ncol] = k
    return first, smin, smax, area


# --- span filters, on the column layout ---

def filter_low_hanging(const int64_t[::1] first, const uint16_t[::1] smax, uint8_t[::1] area,
                       int climb):
    """A non-walkable span whose top is at most ``climb`` above the top of the walkable span
    below it becomes walkable with that span's area (kerbs, stair edges)."""
    cdef Py_ssize_t c, i
    cdef bint below_walkable, walkable
    cdef uint8_t below_area
    with nogil:
        for c in range(first.shape[0] - 1):
            below_walkable = False
            below_area = 0
            for i in range(first[c], first[c + 1]):
                walkable = area[i] != 0
                if not walkable and below_walkable and <int> smax[i] - <int> smax[i - 1] <= climb:
                    area[i] = below_area
                below_walkable = walkable
                below_area = area[i]


def filter_ledges(const int64_t[::1] first, const uint16_t[::1] smin,
                  const uint16_t[::1] smax, uint8_t[::1] area, int width, int depth,
                  int walkable_height, int climb):
    """Make non-walkable every walkable span beside a drop of more than ``climb`` (or the
    heightfield's edge) where an agent could stand, and every one whose reachable
    neighbours' floors differ by more than ``climb`` (steep slopes)."""
    cdef int x, z, d, nx, nz, floor, ceiling, nfloor, nceiling, lowest, lo_reach, hi_reach
    cdef Py_ssize_t c, i, j, jend
    with nogil:
        for z in range(depth):
            for x in range(width):
                c = x + <Py_ssize_t> z * width
                for i in range(first[c], first[c + 1]):
                    if area[i] == 0:
                        continue
                    floor = smax[i]
                    ceiling = smin[i + 1] if i + 1 < first[c + 1] else MAX_HEIGHT
                    lowest = MAX_HEIGHT
                    lo_reach = floor
                    hi_reach = floor
                    for d in range(4):
                        nx = x + dir_dx(d)
                        nz = z + dir_dz(d)
                        if nx < 0 or nz < 0 or nx >= width or nz >= depth:
                            lowest = -climb - 1
                            break
                        j = first[nx + <Py_ssize_t> nz * width]
                        jend = first[nx + <Py_ssize_t> nz * width + 1]
                        # the open space below the neighbour column's first span
                        nceiling = smin[j] if j < jend else MAX_HEIGHT
                        if min(ceiling, nceiling) - floor >= walkable_height:
                            lowest = -climb - 1
                            break
                        while j < jend:
                            nfloor = smax[j]
                            nceiling = smin[j + 1] if j + 1 < jend else MAX_HEIGHT
                            j += 1
                            if min(ceiling, nceiling) - max(floor, nfloor) < walkable_height:
                                continue
                            lowest = min(lowest, nfloor - floor)
                            if abs(nfloor - floor) <= climb:
                                lo_reach = min(lo_reach, nfloor)
                                hi_reach = max(hi_reach, nfloor)
                            elif nfloor - floor < -climb:
                                break
                    if lowest < -climb or hi_reach - lo_reach > climb:
                        area[i] = 0


def filter_low_height(const int64_t[::1] first, const uint16_t[::1] smin,
                      const uint16_t[::1] smax, uint8_t[::1] area, int walkable_height):
    """Make non-walkable every span with less than ``walkable_height`` of free space above."""
    cdef Py_ssize_t c, i
    cdef int ceiling
    with nogil:
        for c in range(first.shape[0] - 1):
            for i in range(first[c], first[c + 1]):
                ceiling = smin[i + 1] if i + 1 < first[c + 1] else MAX_HEIGHT
                if ceiling - <int> smax[i] < walkable_height:
                    area[i] = 0
