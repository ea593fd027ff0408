# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compact heightfields, the second stage of a voxel navmesh build: the open space above each
walkable span of a solid heightfield (``_heightfield``), linked to the spans beside it that an
agent can step to; then the area stages on it: erosion by the agent's radius, area volumes
and the median filter.

Layout as in ``_heightfield``: columns ``x + z * width``, column c's spans ``first[c]`` to
``first[c + 1] - 1`` bottom up; a span has its floor ``y`` and free height ``h`` (at most
255) in cell heights, an area id (0: not walkable) and ``con``, four 6-bit links: for
direction d (0..3 step x - 1, z + 1, x + 1, z - 1) bits ``6d..6d+5`` hold the neighbour's
index within its column, or 63 (``NOT_CONNECTED``).  Arithmetic is single precision as in
the reference build (Recast).
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy

from ._voxel_grid cimport NOT_CONNECTED, Chf, chf_view, dir_dx, dir_dz, link, step

cnp.import_array()

cdef int MAX_HEIGHT = 0xffff


def build(const int64_t[::1] first, const uint16_t[::1] smin, const uint16_t[::1] smax,
          const uint8_t[::1] area, int width, int depth, int walkable_height, int climb):
    """The compact heightfield of a filtered solid one: ``(first, y, h, area, con,
    max_layer)``; ``max_layer`` is the highest neighbour index that could not be linked
    (0 if every link fits in 6 bits)."""
    cdef Py_ssize_t ncol = <Py_ssize_t> width * depth, c, i, k = 0, n = 0
    cdef int top, x, z, d, nx, nz, bot, ceil_, layer, max_layer = 0
    cdef Py_ssize_t j, j0, jn
    cdef uint32_t cn
    for i in range(area.shape[0]):
        n += area[i] != 0
    cfirst = np.empty(ncol + 1, dtype=np.int64)
    ys = np.empty(n, dtype=np.uint16)
    hs = np.empty(n, dtype=np.uint8)
    areas = np.empty(n, dtype=np.uint8)
    cons = np.empty(n, dtype=np.uint32)
    cdef int64_t[::1] cf = cfirst
    cdef uint16_t[::1] y = ys
    cdef uint8_t[::1] h = hs
    cdef uint8_t[::1] ar = areas
    cdef uint32_t[::1] con = cons
    with nogil:
        for c in range(ncol):
            cf[c] = k
            for i in range(first[c], first[c + 1]):
                if area[i] == 0:
                    continue
                top = smin[i + 1] if i + 1 < first[c + 1] else MAX_HEIGHT
                y[k] = smax[i]
                h[k] = <uint8_t> min(max(top - <int> smax[i], 0), 0xff)
                ar[k] = area[i]
                k += 1
        cf[ncol] = k
        for z in range(depth):
            for x in range(width):
                c = x + <Py_ssize_t> z * width
                for i in range(cf[c], cf[c + 1]):
                    cn = 0
                    for d in range(4):
                        cn |= (<uint32_t> NOT_CONNECTED) << (6 * d)
                        nx = x + dir_dx(d)
                        nz = z + dir_dz(d)
                        if nx < 0 or nz < 0 or nx >= width or nz >= depth:
                            continue
                        j0 = cf[nx + <Py_ssize_t> nz * width]
                        jn = cf[nx + <Py_ssize_t> nz * width + 1]
                        for j in range(j0, jn):
                            bot = max(y[i], y[j])
                            ceil_ = min(<int> y[i] + h[i], <int> y[j] + h[j])
                            if ceil_ - bot >= walkable_height and abs(<int> y[j] - <int> y[i]) <= climb:
                                layer = <int> (j - j0)
                                if layer >= NOT_CONNECTED:
                                    max_layer = max(max_layer, layer)
                                    continue
                                cn &= ~((<uint32_t> 0x3f) << (6 * d))
                                cn |= (<uint32_t> layer) << (6 * d)
                                break
                    con[i] = cn
    return cfirst, ys, hs, areas, cons, max_layer


def erode(const int64_t[::1] first, const uint32_t[::1] con, uint8_t[::1] area, int width,
          int depth, int radius):
    """Make non-walkable every span closer than ``radius`` cells to a non-walkable span or
    to a missing link (chamfer distances, 2 per straight step and 3 per diagonal one)."""
    cdef Py_ssize_t n = area.shape[0], i, a, c
    cdef int x, z, d, count
    cdef uint8_t limit = <uint8_t> min(radius * 2, 255)
    dist_arr = np.full(n, 0xff, dtype=np.uint8)
    cdef uint8_t[::1] dist = dist_arr
    cdef Chf g = chf_view(&first[0], &con[0] if con.shape[0] else NULL,
                          &area[0] if n else NULL, width, depth, n)
    with nogil:
        for z in range(depth):
            for x in range(width):
                c = x + <Py_ssize_t> z * width
                for i in range(first[c], first[c + 1]):
                    if area[i] == 0:
                        dist[i] = 0
                        continue
                    count = 0
                    for d in range(4):
                        a = step(&g, x, z, i, d)
                        if a < 0 or area[a] == 0:
                            break
                        count += 1
                    if count != 4:
                        dist[i] = 0
        # forward pass: from x - 1 (then its z - 1) and from z - 1 (then its x + 1)
        for z in range(depth):
            for x in range(width):
                c = x + <Py_ssize_t> z * width
                for i in range(first[c], first[c + 1]):
                    chamfer(&g, dist, x, z, i, 0, 3)
                    chamfer(&g, dist, x, z, i, 3, 2)
        # backward pass: from x + 1 (then its z + 1) and from z + 1 (then its x - 1)
        for z in range(depth - 1, -1, -1):
            for x in range(width - 1, -1, -1):
                c = x + <Py_ssize_t> z * width
                for i in range(first[c], first[c + 1]):
                    chamfer(&g, dist, x, z, i, 2, 1)
                    chamfer(&g, dist, x, z, i, 1, 0)
        for i in range(n):
            if dist[i] < limit:
                area[i] = 0


cdef inline void chamfer(const Chf* g, uint8_t[::1] dist, int x, int z, Py_ssize_t i, int d,
                         int d2) noexcept nogil:
    """Lower span i's distance through its neighbour the way d (+2) and that neighbour's
    neighbour the way d2 (+3)."""
    cdef Py_ssize_t a = step(g, x, z, i, d), b
    if a < 0:
        return
    if min(<int> dist[a] + 2, 255) < dist[i]:
        dist[i] = <uint8_t> min(<int> dist[a] + 2, 255)
    b = step(g, x + dir_dx(d), z + dir_dz(d), a, d2)
    if b < 0:
        return
    if min(<int> dist[b] + 3, 255) < dist[i]:
        dist[i] = <uint8_t> min(<int> dist[b] + 3, 255)


def median_filter(const int64_t[::1] first, const uint32_t[::1] con, uint8_t[::1] area,
                  int width, int depth):
    """Replace each walkable span's area id by the median of its own and its eight
    neighbours' (a missing or non-walkable neighbour counts as the span's own id)."""
    cdef Py_ssize_t n = area.shape[0], i, a, b, c
    cdef int x, z, d, d2, k, m
    cdef uint8_t ids[9]
    cdef uint8_t v
    out_arr = np.empty(n, dtype=np.uint8)
    cdef uint8_t[::1] out = out_arr
    cdef Chf g = chf_view(&first[0], &con[0] if con.shape[0] else NULL,
                          &area[0] if n else NULL, width, depth, n)
    with nogil:
        for z in range(depth):
            for x in range(width):
                c = x + <Py_ssize_t> z * width
                for i in range(first[c], first[c + 1]):
                    if area[i] == 0:
                        out[i] = 0
                        continue
                    for k in range(9):
                        ids[k] = area[i]
                    for d in range(4):
                        a = step(&g, x, z, i, d)
                        if a < 0:
                            continue
                        if area[a] != 0:
                            ids[d * 2] = area[a]
                        d2 = (d + 1) & 3
                        b = step(&g, x + dir_dx(d), z + dir_dz(d), a, d2)
                        if b >= 0 and area[b] != 0:
                            ids[d * 2 + 1] = area[b]
                    for k in range(1, 9):      # insertion sort of nine
                        v = ids[k]
                        m = k - 1
                        while m >= 0 and ids[m] > v:
                            ids[m + 1] = ids[m]
                            m -= 1
                        ids[m + 1] = v
                    out[i] = ids[4]
        if n:
            memcpy(&area[0], &out[0], n)


def mark_convex(const int64_t[::1] first, const uint16_t[::1] y, uint8_t[::1] area,
                int width, int depth, const float[::1] bmin, float cell_size,
                float cell_height, const float[:, ::1] polygon, float ymin, float ymax,
                uint8_t area_id):
    """Give ``area_id`` to every walkable span whose floor lies in the prism of the convex
    ``polygon`` (x, z) between heights ``ymin`` and ``ymax`` (cell centres tested)."""
    cdef int nv = polygon.shape[0], k
    cdef float lo_x = polygon[0, 0], hi_x = polygon[0, 0], lo_z = polygon[0, 1]
    cdef float hi_z = polygon[0, 1], px, pz
    cdef int x0, x1, z0, z1, y0, y1, x, z
    cdef Py_ssize_t c, i
    for k in range(1, nv):
        lo_x = min(lo_x, polygon[k, 0])
        hi_x = max(hi_x, polygon[k, 0])
        lo_z = min(lo_z, polygon[k, 1])
        hi_z = max(hi_z, polygon[k, 1])
    x0 = <int> ((lo_x - bmin[0]) / cell_size)
    y0 = <int> ((ymin - bmin[1]) / cell_height)
    z0 = <int> ((lo_z - bmin[2]) / cell_size)
    x1 = <int> ((hi_x - bmin[0]) / cell_size)
    y1 = <int> ((ymax - bmin[1]) / cell_height)
    z1 = <int> ((hi_z - bmin[2]) / cell_size)
    if x1 < 0 or x0 >= width or z1 < 0 or z0 >= depth:
        return
    x0 = max(x0, 0)
    z0 = max(z0, 0)
    x1 = min(x1, width - 1)
    z1 = min(z1, depth - 1)
    with nogil:
        for z in range(z0, z1 + 1):
            for x in range(x0, x1 + 1):
                c = x + <Py_ssize_t> z * width
                for i in range(first[c], first[c + 1]):
                    if area[i] == 0 or <int> y[i] < y0 or <int> y[i] > y1:
                        continue
                    px = bmin[0] + (<float> x + <float> 0.5) * cell_size
                    pz = bmin[2] + (<float> z + <float> 0.5) * cell_size
                    if inside(polygon, px, pz):
                        area[i] = area_id


cdef bint inside(const float[:, ::1] polygon, float px, float pz) noexcept nogil:
    """Whether (px, pz) is inside the polygon (crossing count; points on the left and
    bottom edges are inside)."""
    cdef int n = polygon.shape[0], i, j = n - 1
    cdef bint odd = False
    for i in range(n):
        if (polygon[i, 1] > pz) != (polygon[j, 1] > pz):
            if px < ((polygon[j, 0] - polygon[i, 0]) * (pz - polygon[i, 1])
                     / (polygon[j, 1] - polygon[i, 1]) + polygon[i, 0]):
                odd = not odd
        j = i
    return odd
