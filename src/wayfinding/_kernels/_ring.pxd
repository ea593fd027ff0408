# A ring of buckets of cells, the queue of the marches (fast marching, the continuum
# potential): each bucket is a doubly linked list through ``link`` (next, previous per cell)
# headed by the pseudo-cell ``size + slot``, with ``size + ring`` standing for "none" (so
# links are written without branches), and ``bits`` marks the non-empty buckets.  ``cur`` is
# the current bucket's number (absolute; its slot is ``cur & (ring - 1)``).  ``link`` needs
# ``size + ring + 1`` rows of two, each bucket's first entry "none" when empty, ``bits``
# ``ring / 64`` zero words; a ring emptied by its march is ready for the next.
from libc.stdint cimport int32_t, int64_t, uint64_t

from ._portable cimport ctz64


cdef struct Ring:
    int32_t* link
    uint64_t* bits
    int64_t ring       # buckets, a power of two of at least 64
    int64_t cur
    int32_t size
    int32_t none
    Py_ssize_t count


cdef inline void ring_add(Ring* r, int32_t n, int64_t slot) noexcept nogil:
    """Put cell n first in bucket ``slot``."""
    cdef int32_t head = r.size + <int32_t> slot, first = r.link[2 * head]
    r.link[2 * n] = first
    r.link[2 * n + 1] = head
    r.link[2 * first + 1] = n
    r.link[2 * head] = n
    r.bits[slot >> 6] |= (<uint64_t> 1) << (slot & 63)
    r.count += 1


cdef inline void ring_remove(Ring* r, int32_t n) noexcept nogil:
    """Unlink cell n from its bucket."""
    cdef int32_t after = r.link[2 * n], before = r.link[2 * n + 1]
    r.link[2 * before] = after
    r.link[2 * after + 1] = before
    if after == r.none and before >= r.size:     # it was the bucket's only cell
        before -= r.size
        r.bits[before >> 6] &= ~((<uint64_t> 1) << (before & 63))
    r.count -= 1


cdef inline int64_t ring_advance(Ring* r) noexcept nogil:
    """Move ``cur`` to the first non-empty bucket at or after it (the ring must hold a
    cell); returns that bucket's slot."""
    cdef int64_t slot = r.cur & (r.ring - 1), w = slot >> 6, found
    cdef uint64_t word = r.bits[w] & (~(<uint64_t> 0) << (slot & 63))
    while word == 0:
        w = (w + 1) & ((r.ring >> 6) - 1)
        word = r.bits[w]
    found = w * 64 + ctz64(word)
    r.cur += (found - slot) & (r.ring - 1)
    return found
