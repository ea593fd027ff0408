# Direction tables and helpers shared by the online JPS (_jps) and JPS+ (_jps_plus) kernels.
# Directions are in the bit order of the move masks: N, E, S, W, NE, SE, SW, NW.
from libc.stdint cimport int64_t, uint8_t

from ._constants cimport SQRT2_M1

cdef extern from *:
    """
    static const uint8_t WF_JPS_SIDES[4] = {10, 5, 10, 5};
    static const int WF_JPS_DIAG_OF[16] = {-1, 4, -1, 7,
                                           4, -1, 5, -1,
                                           -1, 5, -1, 6,
                                           7, -1, 6, -1};
    static const uint8_t WF_JPS_AFTER_DIAGONAL[8] = {
        0, 0, 0, 0,
        (1 << 4) | (1 << 0) | (1 << 1),
        (1 << 5) | (1 << 2) | (1 << 1),
        (1 << 6) | (1 << 2) | (1 << 3),
        (1 << 7) | (1 << 0) | (1 << 3)};
    static uint8_t WF_JPS_AFTER_STRAIGHT[1024];
    """
    # Side bits of each cardinal direction (the two perpendicular cardinals).
    const uint8_t SIDES "WF_JPS_SIDES"[4]
    # Diagonal between cardinal d and perpendicular cardinal s, indexed 4 * d + s.
    const int DIAG_OF "WF_JPS_DIAG_OF"[16]
    # Directions explored after arriving by a diagonal: itself and its two components.
    const uint8_t AFTER_DIAGONAL "WF_JPS_AFTER_DIAGONAL"[8]
    # Directions explored at a jump point entered by cardinal d, indexed 256 * d + moves[u]:
    # d, then each forced side s and the diagonal between d and s.  Side s is forced when
    # u + s is free and p + s is blocked (p = u - d); p and u being free, p + s is free
    # exactly when the diagonal step from u to p + s is legal, so u's own move mask decides.
    # Each module that uses it fills its copy once, with fill_after_straight().
    uint8_t AFTER_STRAIGHT "WF_JPS_AFTER_STRAIGHT"[1024]


cdef struct Counters:
    int64_t expanded
    int64_t generated
    int64_t updated
    int64_t reopened
    int64_t max_open


cdef inline double octile(int dx, int dy) noexcept nogil:
    cdef int ax = dx if dx >= 0 else -dx
    cdef int ay = dy if dy >= 0 else -dy
    cdef int hi = ax if ax > ay else ay
    cdef int lo = ay if ax > ay else ax
    return hi + SQRT2_M1 * lo


cdef inline void fill_after_straight() noexcept:
    cdef int d, m, s, back
    cdef uint8_t dirs
    for d in range(4):
        back = (d + 2) % 4
        for m in range(256):
            dirs = <uint8_t> (1 << d)
            for s in range(4):
                if (SIDES[d] >> s) & 1 and (m >> s) & 1 and not (m >> DIAG_OF[4 * back + s]) & 1:
                    dirs |= <uint8_t> ((1 << s) | (1 << DIAG_OF[4 * d + s]))
            AFTER_STRAIGHT[256 * d + m] = dirs
