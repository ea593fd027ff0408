from libc.stdint cimport int32_t, uint32_t

from ._heap cimport Heap, IntVec


cdef class Workspace:
    cdef readonly Py_ssize_t size
    cdef double[::1] g
    cdef int32_t[::1] parent
    cdef int32_t[::1] pos
    cdef uint32_t[::1] stamp
    cdef uint32_t generation
    cdef Heap heap
    cdef IntVec record
    cdef IntVec ties

    cdef uint32_t begin(self)
    cdef Py_ssize_t chain_length(self, int node) except -1
    cpdef object path_cells(self, int node, int width)


cdef inline int check_workspace(Workspace ws, Py_ssize_t n) except -1:
    """Raise ValueError unless ``ws`` holds at least ``n`` nodes: the kernels index the
    workspace's node arrays unchecked."""
    if ws.size < n:
        raise ValueError(f"workspace holds {ws.size} nodes; this grid needs {n}")
    return 0
