# The eight grid steps in bit order N, E, S, W, NE, SE, SW, NW (y grows downward), shared by
# the grid kernels; Python reads them as wayfinding._kernels._codes.DIRECTIONS.
from ._constants cimport SQRT2

cdef extern from *:
    """
    static inline int wf_step_dx(int d) {
        static const int dx[8] = {0, 1, 0, -1, 1, 1, -1, -1};
        return dx[d];
    }
    static inline int wf_step_dy(int d) {
        static const int dy[8] = {-1, 0, 1, 0, -1, 1, 1, -1};
        return dy[d];
    }
    static inline int wf_step_of(int dx, int dy) {
        static const int step[9] = {7, 0, 4, 3, -1, 1, 6, 2, 5};
        return step[3 * (dy + 1) + dx + 1];
    }
    static inline int wf_step_opposite(int d) {
        static const int opposite[8] = {2, 3, 0, 1, 6, 7, 4, 5};
        return opposite[d];
    }
    static inline int wf_step_vertical(int d) {
        static const int vertical[8] = {-1, -1, -1, -1, 0, 2, 2, 0};
        return vertical[d];
    }
    static inline int wf_step_horizontal(int d) {
        static const int horizontal[8] = {-1, -1, -1, -1, 1, 1, 3, 3};
        return horizontal[d];
    }
    """
    # The (dx, dy) of step d.
    int step_dx "wf_step_dx"(int d) noexcept nogil
    int step_dy "wf_step_dy"(int d) noexcept nogil
    # The step (bit) of (dx, dy), each in -1..1; -1 for (0, 0).
    int step_of "wf_step_of"(int dx, int dy) noexcept nogil
    # The step in the opposite direction.
    int step_opposite "wf_step_opposite"(int d) noexcept nogil
    # The cardinal components of the diagonal step d: the vertical one (N or S) and the
    # horizontal one (E or W); -1 for a cardinal step.
    int step_vertical "wf_step_vertical"(int d) noexcept nogil
    int step_horizontal "wf_step_horizontal"(int d) noexcept nogil


cdef inline void step_offsets(int width, int* offset) noexcept nogil:
    """Flat index offsets of the eight steps on a padded grid of row width ``width``."""
    cdef int d
    for d in range(8):
        offset[d] = step_dy(d) * width + step_dx(d)


cdef inline void step_tables(int width, int* offset, double* length) noexcept nogil:
    """Offsets and base lengths (1 straight, sqrt 2 diagonal) of the eight steps."""
    step_offsets(width, offset)
    cdef int d
    for d in range(4):
        length[d] = 1.0
        length[d + 4] = SQRT2
