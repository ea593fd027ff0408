# Bit-packed rows for jump point search: scans test 56 cells per step.
#
# A bit grid holds one row of bits per grid row (bit LEAD + x of row y set when padded cell
# (x, y) is free), ``words`` 64-bit words per row; the LEAD zero bits in front and at least
# one zero word behind let 64 bits be read at any cell of the row without bounds
# checks.  Vertical jumps use the transposed copy (one row of bits per column), where
# north and south become backward and forward scans.  The stop and reach bits made from it
# share its layout; a scan looks for the next set bit of a line (next_forward / next_backward).
from libc.stdint cimport uint64_t
from libc.string cimport memcpy

from ._portable cimport clz64, ctz64

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


cdef inline void fill_stops(const uint64_t* free, uint64_t* forward, uint64_t* backward,
                            int lines, int words) noexcept nogil:
    """The stop bits of every inner line (1 .. lines - 2) of a bit grid ``free`` of ``lines``
    lines of ``words`` words: a cell stops a forward scan (toward higher bits) when it is not
    free or a side line is free there and blocked one cell back; a backward scan likewise
    with one cell ahead."""
    cdef int y, w
    cdef uint64_t c, a, b, a_lo, b_lo, a_hi, b_hi
    cdef const uint64_t* row
    for y in range(1, lines - 1):
        row = free + y * words
        for w in range(words):
            c = row[w]
            a = row[w - words]
            b = row[w + words]
            # The neighbouring bit of each side line (one back, one ahead), across words.
            a_lo = (a << 1) | ((row[w - words - 1] >> 63) if w > 0 else 0)
            b_lo = (b << 1) | ((row[w + words - 1] >> 63) if w > 0 else 0)
            a_hi = (a >> 1) | ((row[w - words + 1] << 63) if w + 1 < words else 0)
            b_hi = (b >> 1) | ((row[w + words + 1] << 63) if w + 1 < words else 0)
            forward[y * words + w] = ~c | (a & ~a_lo) | (b & ~b_lo)
            backward[y * words + w] = ~c | (a & ~a_hi) | (b & ~b_hi)


cdef inline uint64_t bits_from(int k) noexcept nogil:
    """Bits k .. 63 set (none when k >= 64)."""
    return (~(<uint64_t> 0)) << k if k < 64 else 0


cdef inline void fill_reach(const uint64_t* free, const uint64_t* forward,
                            const uint64_t* backward, uint64_t* ahead, uint64_t* behind,
                            int lines, int words) noexcept nogil:
    """Which cells' scans end at a jump point, for every inner line of a bit grid ``free``
    with its stop bits ``forward`` and ``backward`` (:func:`fill_stops`): bit i of ``ahead``
    is set when the first stop after cell i (toward higher bits) is free, so that
    :func:`scan_forward` from i returns a jump point; ``behind`` likewise for
    :func:`scan_backward`.  One step per word and per stop bit."""
    cdef int y, w, p, edge
    cdef bint cur
    cdef uint64_t s, j, res
    cdef Py_ssize_t at
    for y in range(1, lines - 1):
        # Forward: walk the stops from the top; the cells in [stop, previous stop) see the
        # previous (higher) stop first.
        cur = False
        for w in range(words - 1, -1, -1):
            at = y * words + w
            s = forward[at]
            j = s & free[at]
            res = 0
            edge = 64
            while s:
                p = 63 - clz64(s)
                if cur:
                    res |= bits_from(p) & ~bits_from(edge)
                cur = (j >> p) & 1
                edge = p
                s &= ~((<uint64_t> 1) << p)
            if cur:
                res |= ~bits_from(edge)
            ahead[at] = res
        # Backward: walk the stops from the bottom; the cells in (previous stop, stop] see
        # the previous (lower) stop first.
        cur = False
        for w in range(words):
            at = y * words + w
            s = backward[at]
            j = s & free[at]
            res = 0
            edge = 0
            while s:
                p = ctz64(s)
                if cur:
                    res |= bits_from(edge) & ~bits_from(p + 1)
                cur = (j >> p) & 1
                edge = p + 1
                s &= s - 1
            if cur:
                res |= bits_from(edge)
            behind[at] = res


cdef inline int next_forward(const uint64_t* line, int pos) noexcept nogil:
    """Distance k >= 1 to the first set bit ``pos + k`` of ``line`` (one load per 56 bits;
    a set bit must lie ahead)."""
    cdef int k = 0
    cdef uint64_t s
    while True:
        s = bits_at(line, pos + 1 + k) & MASK56
        if s:
            return k + ctz64(s) + 1
        k += 56


cdef inline int next_backward(const uint64_t* line, int pos) noexcept nogil:
    """As :func:`next_forward` toward lower bits (``pos - k``)."""
    cdef int k = 0
    cdef uint64_t s
    while True:
        s = bits_at(line, pos - k - 56) & MASK56
        if s:
            return k + 56 - (63 - clz64(s))
        k += 56
