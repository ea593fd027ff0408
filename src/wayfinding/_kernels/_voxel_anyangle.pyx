# Theta* and Lazy Theta* on a voxel grid's padded array (``VoxelGrid.padded``: uint8
# ``[nz + 2, ny + 2, nx + 2]``, 1 = free, blocked border).  Nodes are flat indices into it,
# paths run between voxel centres, and a node may take as parent any node it sees
# (``_voxel_sight.pxd``); costs are Euclidean lengths in voxel units.
#
# The moves of the grid come as tables: move k steps by ``offsets[k]`` (flat), costs
# ``costs[k]``, and needs free the voxels at ``cube[k, 0 .. cube_n[k] - 1]`` (flat offsets of
# the cube it spans, its end included).  The heuristic is the straight-line distance to the
# goal.  Search state lives in a ``Workspace`` (stamps 2 * gen open, 2 * gen + 1 closed).
#
# Sight is tested from the new end back to the far parent: the segment from the parent to the
# expanded voxel is known clear, so a blocked voxel is likelier near the new end, and the walk
# (symmetric in its ends) stops sooner.
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

from ._heap cimport heap_decrease, heap_pop, heap_push
from ._voxel_sight cimport voxel_sight
from ._workspace cimport Workspace, check_workspace

import numpy as np


cdef struct Grid3:
    const uint8_t* free
    Py_ssize_t sy       # padded row length, nx + 2
    Py_ssize_t py       # padded rows per layer, ny + 2
    Py_ssize_t sz       # padded layer size
    int64_t gx, gy, gz  # the goal voxel (unpadded)


cdef inline void coords(const Grid3* w, Py_ssize_t p, int* x, int* y, int* z) noexcept nogil:
    """The voxel (unpadded) of flat index p."""
    x[0] = <int> (p % w.sy) - 1
    y[0] = <int> ((p // w.sy) % w.py) - 1
    z[0] = <int> (p // w.sz) - 1


cdef inline double dist(const Grid3* w, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    cdef int ax, ay, az, bx, by, bz
    coords(w, a, &ax, &ay, &az)
    coords(w, b, &bx, &by, &bz)
    return sqrt(<double> ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)
                          + (bz - az) * (bz - az)))


cdef inline double to_goal(const Grid3* w, Py_ssize_t a) noexcept nogil:
    cdef int ax, ay, az
    coords(w, a, &ax, &ay, &az)
    return sqrt(<double> ((w.gx - ax) * (w.gx - ax) + (w.gy - ay) * (w.gy - ay)
                          + (w.gz - az) * (w.gz - az)))


cdef inline bint sees(const Grid3* w, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    cdef int ax, ay, az, bx, by, bz
    coords(w, a, &ax, &ay, &az)
    coords(w, b, &bx, &by, &bz)
    return voxel_sight(w.free, w.sy, w.sz, ax, ay, az, bx, by, bz)


def theta_star(Workspace ws, const uint8_t[:, :, ::1] padded, const int64_t[::1] offsets,
               const double[::1] costs, const int64_t[:, ::1] cube, const int32_t[::1] cube_n,
               Py_ssize_t start, Py_ssize_t goal, bint lazy):
    """Theta* (``lazy`` false) or Lazy Theta* from flat index ``start`` to ``goal`` (both
    free).  Returns ``(found, cost, path, expanded, generated, updated, max_open,
    sight_checks)``, the path the flat indices of its turning voxels from start to goal.

    Theta*: a generated node u of an expanded node v takes v's parent p as its parent when p
    sees u, else v.  Lazy Theta*: u takes p without a check; when u is expanded and p does not
    see it, u takes the expanded neighbour w that minimises ``g(w) + |w u|`` instead.  If that
    costs more than u was queued with, u goes back on the open list with its true cost rather
    than being expanded, so that nodes are expanded in order of true cost (this keeps every
    path no longer than the grid's optimal one).
    """
    cdef Grid3 w
    cdef Py_ssize_t n = padded.shape[0] * padded.shape[1] * padded.shape[2]
    cdef Py_ssize_t v, u, p, best_p, nmoves = offsets.shape[0]
    cdef Py_ssize_t expanded = 0, generated = 0, updated = 0, max_open = 0, checks = 0
    cdef int k, j, gx, gy, gz, status = 0
    cdef uint32_t open_stamp, closed_stamp
    cdef double cand, best_g, queued
    cdef bint found = False, ok
    cdef double* g
    cdef int32_t* parent
    cdef int32_t* pos
    cdef uint32_t* stamp
    check_workspace(ws, n)
    if n >= 2**31 - 1:
        raise ValueError(f"the padded grid has {n} voxels, more than 2**31 - 2")
    w.free = &padded[0, 0, 0]
    w.sy = padded.shape[2]
    w.py = padded.shape[1]
    w.sz = padded.shape[1] * padded.shape[2]
    coords(&w, goal, &gx, &gy, &gz)
    w.gx, w.gy, w.gz = gx, gy, gz
    open_stamp = ws.begin()
    closed_stamp = open_stamp + 1
    g = &ws.g[0]
    parent = &ws.parent[0]
    pos = &ws.pos[0]
    stamp = &ws.stamp[0]
    with nogil:
        g[start] = 0.0
        parent[start] = -1
        stamp[start] = open_stamp
        if heap_push(&ws.heap, pos, to_goal(&w, start), 0.0, <int> start) != 0:
            status = -1
        generated = 1
        while status == 0 and ws.heap.size > 0:
            if ws.heap.size > max_open:
                max_open = ws.heap.size
            v = heap_pop(&ws.heap, pos).node
            if lazy and v != start:
                p = parent[v]
                checks += 1
                if not sees(&w, v, p):
                    queued = g[v]
                    best_g = 1e300
                    best_p = -1
                    for k in range(nmoves):
                        u = v + offsets[k]
                        if stamp[u] != closed_stamp:
                            continue
                        ok = True
                        for j in range(cube_n[k]):
                            if not w.free[v + cube[k, j]]:
                                ok = False
                                break
                        if ok and g[u] + costs[k] < best_g:
                            best_g = g[u] + costs[k]
                            best_p = u
                    g[v] = best_g
                    parent[v] = <int32_t> best_p
                    if best_g > queued:
                        if heap_push(&ws.heap, pos, best_g + to_goal(&w, v), best_g,
                                     <int> v) != 0:
                            status = -1
                        generated += 1
                        continue
            stamp[v] = closed_stamp
            expanded += 1
            if v == goal:
                found = True
                break
            p = parent[v] if v != start else v
            for k in range(nmoves):
                u = v + offsets[k]
                if stamp[u] == closed_stamp:
                    continue
                ok = True
                for j in range(cube_n[k]):
                    if not w.free[v + cube[k, j]]:
                        ok = False
                        break
                if not ok:
                    continue
                if p == v:
                    cand = g[v] + costs[k]
                    best_p = v
                elif lazy:
                    cand = g[p] + dist(&w, p, u)
                    best_p = p
                else:
                    # Through p is never longer than through v (triangle inequality): when it
                    # would not improve u, nothing would, and sight need not be tested.
                    cand = g[p] + dist(&w, p, u)
                    best_p = p
                    if stamp[u] == open_stamp and cand >= g[u]:
                        continue
                    checks += 1
                    if not sees(&w, u, p):
                        cand = g[v] + costs[k]
                        best_p = v
                if stamp[u] != open_stamp:
                    stamp[u] = open_stamp
                    g[u] = cand
                    parent[u] = <int32_t> best_p
                    if heap_push(&ws.heap, pos, cand + to_goal(&w, u), cand, <int> u) != 0:
                        status = -1
                        break
                    generated += 1
                elif cand < g[u]:
                    g[u] = cand
                    parent[u] = <int32_t> best_p
                    heap_decrease(&ws.heap, pos, <int> u, cand + to_goal(&w, u), cand)
                    updated += 1
    if status != 0:
        raise MemoryError("no memory for the open list")
    if not found:
        return (False, float("inf"), np.empty(0, np.int64), expanded, generated, updated,
                max_open, checks)
    return (True, g[goal], ws.path_to(<int> goal), expanded, generated, updated, max_open,
            checks)
