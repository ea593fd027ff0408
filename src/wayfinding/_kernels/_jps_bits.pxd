# Bit-packed rows for jump point search: straight jumps test 56 cells per step.
#
# A bit grid holds one row of bits per grid row (bit LEAD + x of row y set when padded cell
# (x, y) is free), ``words`` 64-bit words per row; the LEAD zero bits in front and at least
# one zero word behind let 64 bits be read at any cell of the row without bounds
# checks.  Vertical jumps read the transposed copy (one row of bits per column), where
# north and south become backward and forward scans.
from libc.stdint cimport uint64_t
from libc.string cimport memcpy

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

# The 56 cells a scan step tests.
cdef extern from *:
    """
    #define WF_MASK56 0x00FFFFFFFFFFFFFFULL
    """
    const uint64_t MASK56 "WF_MASK56"


cdef inline int bit_words(int cells) noexcept nogil:
    """Words per row of bits for rows of ``cells`` padded cells."""
    return (LEAD + cells) // 64 + 2


cdef inline uint64_t bits_at(const uint64_t* row, int pos) noexcept nogil:
    """Bits ``pos`` .. ``pos + 56`` of ``row`` as bits 0 .. 56 of the result (one unaligned
    little-endian load; the bits above are not meaningful)."""
    cdef uint64_t w
    memcpy(&w, (<const char*> row) + (pos >> 3), 8)
    return w >> (pos & 7)


cdef inline int scan_forward(const uint64_t* cur, const uint64_t* left, const uint64_t* right,
                             int pos) noexcept nogil:
    """Straight scan from the free cell at bit ``pos`` of ``cur`` toward higher bits.

    Stops at the first cell ``pos + k`` (k >= 1) that is blocked or has a forced neighbour (a
    side row free there and blocked one cell back).  Returns ``k`` for a free stop (a jump
    point), ``-k`` for a blocked one (the run is a dead end).  Each step tests 56 cells.
    """
    cdef int k = 0, i
    cdef uint64_t c, a, b, stop
    while True:
        # Bit j of each word is the cell pos + k + j; bit 0 is a free cell already passed.
        c = bits_at(cur, pos + k)
        a = bits_at(left, pos + k)
        b = bits_at(right, pos + k)
        stop = ((~c >> 1) | ((a >> 1) & ~a) | ((b >> 1) & ~b)) & MASK56
        if stop:
            i = ctz64(stop)
            k += i + 1
            return k if (c >> (i + 1)) & 1 else -k
        k += 56


cdef inline int scan_backward(const uint64_t* cur, const uint64_t* left,
                              const uint64_t* right, int pos) noexcept nogil:
    """As :func:`scan_forward` toward lower bits (``pos - k``)."""
    cdef int k = 0, i, q
    cdef uint64_t c, a, b, stop
    while True:
        # Bit j of each word is the cell q + j; bit 56 is a free cell already passed.
        q = pos - k - 56
        c = bits_at(cur, q)
        a = bits_at(left, q)
        b = bits_at(right, q)
        stop = (~c | (a & ~(a >> 1)) | (b & ~(b >> 1))) & MASK56
        if stop:
            i = 63 - clz64(stop)
            k += 56 - i
            return k if (c >> i) & 1 else -k
        k += 56
