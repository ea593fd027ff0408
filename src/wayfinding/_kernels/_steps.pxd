# The eight grid steps in bit order N, E, S, W, NE, SE, SW, NW (y grows downward), kept in
# step with wayfinding.grid.rules.DIRECTIONS; shared by the grid kernels.
from ._constants cimport SQRT2

cdef extern from *:
    """
    static inline int wf_step_of(int dx, int dy) {
        static const int step[9] = {7, 0, 4, 3, -1, 1, 6, 2, 5};
        return step[3 * (dy + 1) + dx + 1];
    }
    """
    # The step (bit) of (dx, dy), each in -1..1; -1 for (0, 0).
    int step_of "wf_step_of"(int dx, int dy) noexcept nogil


cdef inline void step_offsets(int width, int* offset) noexcept nogil:
    """Flat index offsets of the eight steps on a padded grid of row width ``width``."""
    offset[0] = -width
    offset[1] = 1
    offset[2] = width
    offset[3] = -1
    offset[4] = -width + 1
    offset[5] = width + 1
    offset[6] = width - 1
    offset[7] = -width - 1


cdef inline void step_tables(int width, int* offset, double* length) noexcept nogil:
    """Offsets and base lengths (1 straight, sqrt 2 diagonal) of the eight steps."""
    step_offsets(width, offset)
    cdef int d
    for d in range(4):
        length[d] = 1.0
        length[d + 4] = SQRT2
