# Bit-packed rows for jump point search: straight jumps scan 64 cells per step.
#
# A bit grid holds one row of bits per grid row (bit LEAD + x of row y set when padded cell
# (x, y) is free), ``words`` 64-bit words per row; the LEAD zero bits in front and at least
# one zero word behind let a 64-bit window be read at any cell of the row without bounds
# checks.  Vertical jumps read the transposed copy (one row of bits per column), where north
# and south become backward and forward scans.
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    static inline int wf_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int wf_clz64(unsigned long long x) { return __builtin_clzll(x); }
    """
    # Index of the lowest / highest set bit of a non-zero word (from the bottom / the top).
    int ctz64 "wf_ctz64"(uint64_t x) noexcept nogil
    int clz64 "wf_clz64"(uint64_t x) noexcept nogil

# Bit position of padded cell 0 in its row of bits.
cdef enum:
    LEAD = 64


cdef inline int bit_words(int cells) noexcept nogil:
    """Words per row of bits for rows of ``cells`` padded cells."""
    return (LEAD + cells) // 64 + 2


cdef inline uint64_t window(const uint64_t* row, int pos) noexcept nogil:
    """The 64 bits of ``row`` from bit ``pos`` up (bit 0 of the result is bit ``pos``)."""
    cdef int w = pos >> 6, b = pos & 63
    return (row[w] >> b) | ((row[w + 1] << 1) << (63 - b))


cdef inline int scan_forward(const uint64_t* cur, const uint64_t* left, const uint64_t* right,
                             int pos) noexcept nogil:
    """Straight scan from the free cell at bit ``pos`` of ``cur`` toward higher bits.

    Stops at the first cell ``pos + k`` (k >= 1) that is blocked or has a forced neighbour (a
    side row free there and blocked one cell back).  Returns ``k`` for a free stop (a jump
    point), ``-k`` for a blocked one (the run is a dead end).
    """
    cdef int k = 0, p, i
    cdef uint64_t c, stop
    while True:
        p = pos + 1 + k
        c = window(cur, p)
        stop = ~c | (window(left, p) & ~window(left, p - 1)) \
            | (window(right, p) & ~window(right, p - 1))
        if stop:
            i = ctz64(stop)
            k += i + 1
            return k if (c >> i) & 1 else -k
        k += 64


cdef inline int scan_backward(const uint64_t* cur, const uint64_t* left,
                              const uint64_t* right, int pos) noexcept nogil:
    """As :func:`scan_forward` toward lower bits (``pos - k``)."""
    cdef int k = 0, p, i
    cdef uint64_t c, stop
    while True:
        p = pos - 64 - k   # the window covers bits p .. p + 63 = pos - 1 - k
        c = window(cur, p)
        stop = ~c | (window(left, p) & ~window(left, p + 1)) \
            | (window(right, p) & ~window(right, p + 1))
        if stop:
            i = clz64(stop)
            k += i + 1
            return k if (c >> (63 - i)) & 1 else -k
        k += 64
