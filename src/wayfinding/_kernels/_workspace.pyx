# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Per-thread search scratch shared by the grid and graph kernels."""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint32_t
from libc.stdlib cimport free

from ..errors import CorruptScratchError
from ._heap cimport HeapItem, heap_free, heap_init

cnp.import_array()


cdef class Workspace:
    """Per-thread scratch for searches: node arrays, open list and record buffer.

    One workspace serves any number of queries on worlds with at most ``size`` nodes (padded
    cells for grids).
    It is not thread-safe: give each thread its own.
    """

    def __cinit__(self, Py_ssize_t size):
        self.size = size
        self.g = np.empty(size, dtype=np.float64)
        self.parent = np.empty(size, dtype=np.int32)
        self.pos = np.empty(size, dtype=np.int32)
        self.stamp = np.zeros(size, dtype=np.uint32)
        self.generation = 0
        if heap_init(&self.heap, 1024) != 0:
            raise MemoryError("cannot allocate the open list")

    def __dealloc__(self):
        heap_free(&self.heap)
        free(self.record.data)
        free(self.ties.data)

    @property
    def nbytes(self):
        """Bytes held by the node arrays and the open list."""
        return self.size * 20 + self.heap.capacity * sizeof(HeapItem)

    cdef uint32_t begin(self):
        """Start a query: a fresh generation (stamps 2*gen open, 2*gen+1 closed)."""
        if self.generation >= 0x7FFFFFF0:
            self.stamp[:] = 0
            self.generation = 0
        self.generation += 1
        self.heap.size = 0
        self.record.size = 0
        self.ties.size = 0
        return 2 * self.generation

    @property
    def parents(self):
        """The parent of each node in the last query (-1: none), as a writable view on the
        scratch (meaningful only for nodes that query reached)."""
        return np.asarray(self.parent)

    cdef Py_ssize_t chain_length(self, int node) except -1:
        """Nodes on the parent chain from ``node`` back to the start (-1 ends it); the
        walk is bounded by :attr:`size`: a chain that loops or leaves the scratch raises
        :class:`~wayfinding.errors.CorruptScratchError`."""
        cdef Py_ssize_t n = 0
        cdef int v = node
        while v != -1:
            if v < 0 or v >= self.size:
                raise CorruptScratchError(
                    f"parent chain from node {node} reaches node {v}, outside this "
                    f"workspace of {self.size} nodes (the scratch was overwritten, e.g. by "
                    f"two threads at once)")
            n += 1
            if n > self.size:
                raise CorruptScratchError(
                    f"parent chain from node {node} does not end within {self.size} nodes: "
                    f"it runs in a loop (the scratch was overwritten, e.g. by two threads "
                    f"at once)")
            v = self.parent[v]
        return n

    def path_to(self, int node):
        """Flat indices from the query's start to ``node`` (which must have been reached)."""
        cdef Py_ssize_t n = self.chain_length(node)
        cdef int v
        out = np.empty(n, dtype=np.int64)
        cdef long long[::1] o = out
        v = node
        while v != -1:
            n -= 1
            o[n] = v
            v = self.parent[v]
        return out

    cpdef object path_cells(self, int node, int width):
        """``(n, 2)`` int64 ``(x, y)`` cells from the query's start to ``node`` on a padded
        grid of row width ``width`` (the border is removed)."""
        cdef Py_ssize_t n = self.chain_length(node)
        cdef cnp.npy_intp dims[2]
        cdef int v = node
        dims[0] = n
        dims[1] = 2
        out = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT64, 0)
        cdef int64_t* o = <int64_t*> cnp.PyArray_DATA(out)
        while v != -1:
            n -= 1
            o[2 * n] = v % width - 1
            o[2 * n + 1] = v // width - 1
            v = self.parent[v]
        return out

    def recorded(self):
        """Expansion order of the last recorded query (flat indices)."""
        return np.asarray(<int[:self.record.size]> self.record.data).astype(np.int64) \
            if self.record.size else np.empty(0, dtype=np.int64)

    def open_nodes(self):
        """Nodes still open after the last query, in heap order."""
        cdef uint32_t open_stamp = 2 * self.generation
        cdef Py_ssize_t i
        cdef HeapItem it
        seen = []
        for i in range(self.heap.size):
            it = self.heap.items[i]
            if self.stamp[it.node] == open_stamp:
                seen.append(it.node)
        return np.asarray(seen, dtype=np.int64)


