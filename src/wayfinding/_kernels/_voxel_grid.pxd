# The voxel grid of a navmesh build, shared by its stages: directions 0..3 step x - 1,
# z + 1, x + 1, z - 1 on the columns (``x + z * width``); a compact heightfield span's
# ``con`` holds for direction d, in bits ``6d..6d+5``, the neighbour's index within its
# column, or ``NOT_CONNECTED``.
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t

cdef enum:
    NOT_CONNECTED = 0x3f

cdef extern from *:
    """
    static inline int wf_dir_dx(int d) {
        static const int dx[4] = {-1, 0, 1, 0};
        return dx[d];
    }
    static inline int wf_dir_dz(int d) {
        static const int dz[4] = {0, 1, 0, -1};
        return dz[d];
    }
    """
    # The column step (dx, dz) of direction d.
    int dir_dx "wf_dir_dx"(int d) noexcept nogil
    int dir_dz "wf_dir_dz"(int d) noexcept nogil


# A compact heightfield's arrays (spans of column c: ``first[c]`` to ``first[c + 1] - 1``);
# an array a stage does not read may be NULL.
cdef struct Chf:
    const int64_t* first
    const uint32_t* con
    const uint8_t* area
    const uint16_t* y
    const uint16_t* reg
    const uint16_t* dist
    int width
    int depth
    Py_ssize_t n


cdef inline Chf chf_view(const int64_t* first, const uint32_t* con, const uint8_t* area,
                         int width, int depth, Py_ssize_t n) noexcept nogil:
    """The view of n spans' links and areas; y, reg and dist NULL."""
    cdef Chf g
    g.first = first
    g.con = con
    g.area = area
    g.y = NULL
    g.reg = NULL
    g.dist = NULL
    g.width = width
    g.depth = depth
    g.n = n
    return g


cdef inline int link(uint32_t con, int d) noexcept nogil:
    """The neighbour's index within its column the way d, or ``NOT_CONNECTED``."""
    return (con >> (6 * d)) & 0x3f


cdef inline Py_ssize_t step(const Chf* g, int x, int z, Py_ssize_t i, int d) noexcept nogil:
    """The neighbour of span i (in column x, z) the way d, or -1."""
    cdef int c = link(g.con[i], d)
    if c == NOT_CONNECTED:
        return -1
    return g.first[x + dir_dx(d) + <Py_ssize_t> (z + dir_dz(d)) * g.width] + c
