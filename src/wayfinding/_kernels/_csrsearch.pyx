# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A* and Dijkstra over a graph in compressed sparse row form.

Node ``u``'s out-edges are ``indices[indptr[u]:indptr[u + 1]]`` with costs ``weights[...]``.
The optional heuristic is the Euclidean distance between node coordinates times ``hscale``.
"""

cimport numpy as cnp
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int32_t, int64_t, uint32_t

from ._heap cimport Heap, HeapItem, heap_decrease, heap_pop, heap_push, vec_push
from ._workspace cimport Workspace

cnp.import_array()


cdef inline double euclid(const double[:, ::1] xy, int a, int b) noexcept nogil:
    cdef double s = 0.0, t
    cdef Py_ssize_t k
    for k in range(xy.shape[1]):
        t = xy[a, k] - xy[b, k]
        s += t * t
    return sqrt(s)


def search(Workspace ws, const int64_t[::1] indptr, const int32_t[::1] indices,
           const double[::1] weights, const double[:, ::1] coords, int start, int goal,
           double hscale, bint record):
    """A* from ``start`` to ``goal`` (Dijkstra when ``hscale`` is 0 or ``goal`` is -1, which
    floods everything).  Returns (found, cost, expanded, generated, max_open)."""
    cdef uint32_t open_stamp = ws.begin()
    cdef uint32_t closed_stamp = open_stamp + 1
    cdef double[::1] g = ws.g
    cdef int32_t[::1] parent = ws.parent
    cdef uint32_t[::1] stamp = ws.stamp
    cdef Heap* heap = &ws.heap
    cdef int32_t* pos = &ws.pos[0]
    cdef bint use_h = hscale > 0.0 and goal >= 0 and coords.shape[0] > 0
    cdef int u, v, status = 0
    cdef int64_t e
    cdef double gu, ng, hv
    cdef long expanded = 0, generated = 1, max_open = 1
    cdef HeapItem it
    with nogil:
        stamp[start] = open_stamp
        g[start] = 0.0
        parent[start] = -1
        if heap_push(heap, pos, hscale * euclid(coords, start, goal) if use_h else 0.0,
                     0.0, start) != 0:
            status = -1
        while status == 0 and heap.size > 0:
            it = heap_pop(heap, pos)
            u = it.node
            if stamp[u] == closed_stamp:
                continue
            stamp[u] = closed_stamp
            expanded += 1
            if record and vec_push(&ws.record, u) != 0:
                status = -1
                break
            if u == goal:
                status = 1
                break
            gu = g[u]
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                if stamp[v] == closed_stamp:
                    continue
                ng = gu + weights[e]
                if stamp[v] == open_stamp and ng >= g[v]:
                    continue
                hv = hscale * euclid(coords, v, goal) if use_h else 0.0
                g[v] = ng
                parent[v] = u
                if stamp[v] == open_stamp:
                    heap_decrease(heap, pos, v, ng + hv, ng)
                    continue
                stamp[v] = open_stamp
                if heap_push(heap, pos, ng + hv, ng, v) != 0:
                    status = -1
                    break
                generated += 1
            if heap.size > max_open:
                max_open = heap.size
    if status < 0:
        raise MemoryError("open list could not grow")
    return status == 1, (g[goal] if status == 1 else INFINITY), expanded, generated, max_open


def distances(Workspace ws, double[::1] out):
    """Copy the settled costs of the last flood (``search`` with goal -1) into ``out``
    (pre-filled with inf)."""
    cdef uint32_t closed_stamp = 2 * ws.generation + 1
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            if ws.stamp[i] == closed_stamp:
                out[i] = ws.g[i]
    return None
