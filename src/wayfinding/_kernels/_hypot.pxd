# Distances correctly rounded (ties to even), as Python's ``math.hypot`` has them, never the
# C library's ``hypot``, which may differ in the last bit: the one definition the kernels
# share (the clearance build, the Reeds–Shepp and Dubins words).
from libc.math cimport INFINITY, NAN, fabs, frexp, isnan, ldexp, sqrt
from libc.stdint cimport int64_t

from ._predicates cimport grow, sign_of, two_prod, two_sum

cdef extern from *:
    """
    #include <string.h>
    static inline double ulp(double h) {
        /* The gap from a positive normal double to the next one up. */
        unsigned long long b;
        memcpy(&b, &h, 8);
        b = (b & 0x7ff0000000000000ULL) - (52ULL << 52);
        memcpy(&h, &b, 8);
        return h;
    }
    static inline int power_of_two(double h) {
        unsigned long long b;
        memcpy(&b, &h, 8);
        return (b & 0x000fffffffffffffULL) == 0;
    }
    #define WF_ROUND_MARGIN 1e-6
    """
    double ulp(double h) noexcept nogil
    bint power_of_two(double h) noexcept nogil
    # The rounding offset, in units of the gap between neighbouring doubles, below which
    # hypot decides by exact arithmetic.
    const double ROUND_MARGIN "WF_ROUND_MARGIN"



cdef inline int half_way_sign(const double* s, int n, double h, double half) noexcept nogil:
    """Sign of ``sum(s) - (h + half)**2``, exactly (``half`` a power of two or 0)."""
    cdef double e[24]
    cdef double hh, hl
    cdef int i, k = 1
    e[0] = 0.0
    for i in range(n):
        k = grow(e, k, s[i], e)
    two_prod(h, h, &hh, &hl)
    k = grow(e, k, -hh, e)
    k = grow(e, k, -hl, e)
    k = grow(e, k, -2.0 * h * half, e)
    k = grow(e, k, -half * half, e)
    return sign_of(e, k)


cdef inline double even_of(double a, double b) noexcept nogil:
    """Of two neighbouring doubles, the one whose last significand bit is 0."""
    cdef int ea
    return a if <int64_t>ldexp(frexp(a, &ea), 53) % 2 == 0 else b


cdef inline double hypot(double x, double y) noexcept nogil:
    """sqrt(x**2 + y**2) correctly rounded (ties to even), but for results below the
    smallest normal double, rounded twice."""
    cdef double ax = fabs(x), ay = fabs(y), t, p1, e1, p2, e2, h, up, down, q
    cdef double s[4]
    cdef double hh, hl, hi, lo, r
    cdef int ex, i, sign
    if ax < ay:
        t = ax
        ax = ay
        ay = t
    if not (ax < 3.273390607896142e+150 and ay > 3.4395525670743494e-136):
        # (2**500 and 2**-450.)  Zeros, infinities and NaNs as the C library has them;
        # otherwise scale by a power of two so no square overflows or loses bits.
        if isnan(ax) or isnan(ay):
            return INFINITY if ax == INFINITY or ay == INFINITY else NAN
        if ax == INFINITY or ay == 0.0 or ay < ax * 8.673617379884035e-19:
            return ax
        frexp(ax, &ex)
        return ldexp(hypot(ldexp(ax, -ex), ldexp(ay, -ex)), ex)
    if ay < ax * 8.673617379884035e-19:
        # ay < 2**-60 ax: sqrt(1 + (ay / ax)**2) rounds to 1 well short of a tie.
        return ax
    two_prod(ax, ax, &p1, &e1)
    two_prod(ay, ay, &p2, &e2)
    two_sum(p1, p2, &hi, &lo)
    h = sqrt(hi)
    for i in range(8):
        up = ulp(h)
        down = up * 0.5 if power_of_two(h) else up
        # (hi + lo + e1 + e2) - h**2, to far better than an ulp of h**2.
        two_prod(h, h, &hh, &hl)
        r = (hi - hh) - hl + lo + e1 + e2
        q = r / (h * up)            # sqrt(sum) - h in units of up / 2, to first order
        if -down / up + ROUND_MARGIN < q < 1.0 - ROUND_MARGIN:
            return h
        if q >= 1.0 + ROUND_MARGIN:
            h = h + up
            continue
        if q <= -down / up - ROUND_MARGIN:
            h = h - down
            continue
        s[0] = p1
        s[1] = e1
        s[2] = p2
        s[3] = e2
        sign = half_way_sign(s, 4, h, up / 2)
        if sign > 0:
            h = h + up
            continue
        if sign == 0:
            return even_of(h, h + up)
        sign = half_way_sign(s, 4, h, -down / 2)
        if sign < 0:
            h = h - down
            continue
        if sign == 0:
            return even_of(h, h - down)
        return h
    return h
