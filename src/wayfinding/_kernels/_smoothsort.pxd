# The C library's qsort as the reference build (WASM, musl) runs it: smoothsort, which is
# not stable, reproduced step for step so that equal keys end in the same order.  Bit
# words are 32-bit and shifts and trailing-zero counts behave as on that machine.
from libc.stdint cimport uint32_t
from libc.string cimport memcpy

ctypedef int (*sort_cmp)(const void*, const void*) noexcept nogil


cdef inline int sort_ctz32(uint32_t x) noexcept nogil:
    cdef int n = 0
    if x == 0:
        return 32
    while (x & 1) == 0:
        x >>= 1
        n += 1
    return n


cdef inline int sort_pntz(uint32_t* p) noexcept nogil:
    cdef int r = sort_ctz32(p[0] - 1)
    if r != 0:
        return r
    r = 32 + sort_ctz32(p[1])
    if r != 32:
        return r
    return 0


cdef inline void sort_shl(uint32_t* p, int n) noexcept nogil:
    if n >= 32:
        n -= 32
        p[1] = p[0]
        p[0] = 0
    p[1] = p[1] << (n & 31)
    p[1] |= p[0] >> ((32 - n) & 31)
    p[0] = p[0] << (n & 31)


cdef inline void sort_shr(uint32_t* p, int n) noexcept nogil:
    if n >= 32:
        n -= 32
        p[0] = p[1]
        p[1] = 0
    p[0] = p[0] >> (n & 31)
    p[0] |= p[1] << ((32 - n) & 31)
    p[1] = p[1] >> (n & 31)


cdef inline void sort_cycle(size_t width, char** ar, int n) noexcept nogil:
    """Rotate the elements at ar[0..n-1] one place: ar[0] gets ar[1]'s, ..., the last
    ar[0]'s (ar has room for n + 1 pointers)."""
    cdef char tmp[256]
    cdef size_t l
    cdef int i
    if n < 2:
        return
    ar[n] = tmp
    while width:
        l = width if width < sizeof(tmp) else sizeof(tmp)
        memcpy(ar[n], ar[0], l)
        for i in range(n):
            memcpy(ar[i], ar[i + 1], l)
            ar[i] += l
        width -= l


cdef inline void sort_sift(char* head, size_t width, sort_cmp cmp, int pshift,
                           const size_t* lp) noexcept nogil:
    cdef char* ar[129]
    cdef char* rt
    cdef char* lf
    cdef int i = 1
    ar[0] = head
    while pshift > 1:
        rt = head - width
        lf = head - width - lp[pshift - 2]
        if cmp(ar[0], lf) >= 0 and cmp(ar[0], rt) >= 0:
            break
        if cmp(lf, rt) >= 0:
            ar[i] = lf
            i += 1
            head = lf
            pshift -= 1
        else:
            ar[i] = rt
            i += 1
            head = rt
            pshift -= 2
    sort_cycle(width, ar, i)


cdef inline void sort_trinkle(char* head, size_t width, sort_cmp cmp, const uint32_t* pp,
                              int pshift, bint trusty, const size_t* lp) noexcept nogil:
    cdef char* ar[129]
    cdef char* stepson
    cdef char* rt
    cdef char* lf
    cdef int i = 1, trail
    cdef uint32_t p[2]
    p[0] = pp[0]
    p[1] = pp[1]
    ar[0] = head
    while p[0] != 1 or p[1] != 0:
        stepson = head - lp[pshift]
        if cmp(stepson, ar[0]) <= 0:
            break
        if not trusty and pshift > 1:
            rt = head - width
            lf = head - width - lp[pshift - 2]
            if cmp(rt, stepson) >= 0 or cmp(lf, stepson) >= 0:
                break
        ar[i] = stepson
        i += 1
        head = stepson
        trail = sort_pntz(p)
        sort_shr(p, trail)
        pshift += trail
        trusty = False
    if not trusty:
        sort_cycle(width, ar, i)
        sort_sift(head, width, cmp, pshift, lp)


cdef inline void smoothsort(void* base, size_t nel, size_t width, sort_cmp cmp) noexcept nogil:
    """Sort nel elements of width bytes at base in the order of cmp, as qsort(base, nel,
    width, cmp) does in the reference build."""
    cdef size_t lp[96]
    cdef size_t size = width * nel
    cdef int i, pshift = 1, trail
    cdef char* head = <char*> base
    cdef char* high
    cdef uint32_t p[2]
    if size == 0:
        return
    p[0] = 1
    p[1] = 0
    high = head + size - width
    # the Leonardo numbers, times the element width
    lp[0] = width
    lp[1] = width
    i = 2
    while True:
        lp[i] = lp[i - 2] + lp[i - 1] + width
        if lp[i] >= size:
            break
        i += 1
    while head < high:
        if (p[0] & 3) == 3:
            sort_sift(head, width, cmp, pshift, lp)
            sort_shr(p, 2)
            pshift += 2
        else:
            if lp[pshift - 1] >= <size_t> (high - head):
                sort_trinkle(head, width, cmp, p, pshift, False, lp)
            else:
                sort_sift(head, width, cmp, pshift, lp)
            if pshift == 1:
                sort_shl(p, 1)
                pshift = 0
            else:
                sort_shl(p, pshift - 1)
                pshift = 1
        p[0] |= 1
        head += width
    sort_trinkle(head, width, cmp, p, pshift, False, lp)
    while pshift != 1 or p[0] != 1 or p[1] != 0:
        if pshift <= 1:
            trail = sort_pntz(p)
            sort_shr(p, trail)
            pshift += trail
        else:
            sort_shl(p, 2)
            pshift -= 2
            p[0] ^= 7
            sort_shr(p, 1)
            sort_trinkle(head - lp[pshift] - width, width, cmp, p, pshift + 1, True, lp)
            sort_shl(p, 1)
            p[0] |= 1
            sort_trinkle(head - width, width, cmp, p, pshift, True, lp)
        head -= width
