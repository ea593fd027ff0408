# Exact orientation and in-circle signs for double coordinates: a floating-point filter with
# a proven error bound, then exact expansion arithmetic when the filter cannot decide.
#
# An expansion is an array of doubles, nonoverlapping and sorted by increasing magnitude,
# whose exact sum is the value it stands for; its sign is the sign of its last nonzero
# component.  Sums and products of doubles are made exact with the error-free
# transformations two_sum (Knuth) and two_prod (one fused multiply-add).  Exact when every
# coordinate is 0 or has a magnitude in [2**-100, 2**100] (no intermediate product
# overflows or underflows); wayfinding.geometry.predicates checks that range.
from libc.math cimport fabs, fma


cdef inline void two_sum(double a, double b, double* s, double* e) noexcept nogil:
    cdef double x = a + b
    cdef double bv = x - a
    cdef double av = x - bv
    e[0] = (a - av) + (b - bv)
    s[0] = x


cdef inline void two_prod(double a, double b, double* p, double* e) noexcept nogil:
    p[0] = a * b
    e[0] = fma(a, b, -p[0])


cdef inline int grow(const double* e, int n, double b, double* h) noexcept nogil:
    """h = e + b (h may be e); zero components dropped; returns h's length."""
    cdef double q = b, part
    cdef int i, k = 0
    for i in range(n):
        two_sum(q, e[i], &q, &part)
        if part != 0.0:
            h[k] = part
            k += 1
    if q != 0.0 or k == 0:
        h[k] = q
        k += 1
    return k


cdef inline int add(const double* e, int n, const double* f, int m, double* h) noexcept nogil:
    """h = e + f (h must not overlap f); returns h's length."""
    cdef int i, k = n
    for i in range(n):
        h[i] = e[i]
    for i in range(m):
        k = grow(h, k, f[i], h)
    return k


cdef inline int scale(const double* e, int n, double b, double* h) noexcept nogil:
    """h = e * b (h must not overlap e); returns h's length."""
    cdef double q, big, small, part
    cdef int i, k = 0
    two_prod(e[0], b, &q, &part)
    if part != 0.0:
        h[k] = part
        k += 1
    for i in range(1, n):
        two_prod(e[i], b, &big, &small)
        two_sum(q, small, &q, &part)
        if part != 0.0:
            h[k] = part
            k += 1
        two_sum(big, q, &q, &part)
        if part != 0.0:
            h[k] = part
            k += 1
    if q != 0.0 or k == 0:
        h[k] = q
        k += 1
    return k


cdef inline int sign_of(const double* e, int n) noexcept nogil:
    cdef int i = n - 1
    while i >= 0:
        if e[i] > 0.0:
            return 1
        if e[i] < 0.0:
            return -1
        i -= 1
    return 0


# Error bounds of the filters, written as literals in the functions (a pxd cannot hold
# module-level assignments): Shewchuk's ccwerrboundA = (3 + 16 eps) eps =
# 3.3306690738754716e-16 and iccerrboundA = (10 + 96 eps) eps = 1.1102230246251577e-15,
# eps = 2**-53.


cdef inline int orient2d_exact(double ax, double ay, double bx, double by, double cx,
                               double cy) noexcept nogil:
    # ax*by - ax*cy - cx*by - ay*bx + ay*cx + cy*bx (the cx*cy terms cancel).
    cdef double t[12]
    cdef double h[13]
    cdef int i, k = 0
    two_prod(ax, by, &t[0], &t[1])
    two_prod(-ax, cy, &t[2], &t[3])
    two_prod(-cx, by, &t[4], &t[5])
    two_prod(-ay, bx, &t[6], &t[7])
    two_prod(ay, cx, &t[8], &t[9])
    two_prod(cy, bx, &t[10], &t[11])
    h[0] = 0.0
    k = 1
    for i in range(12):
        k = grow(h, k, t[i], h)
    return sign_of(h, k)


cdef inline int orient2d(double ax, double ay, double bx, double by, double cx,
                         double cy) noexcept nogil:
    """+1 when a, b, c turn counter-clockwise (y up), -1 clockwise, 0 collinear."""
    cdef double left = (ax - cx) * (by - cy)
    cdef double right = (ay - cy) * (bx - cx)
    cdef double det = left - right
    cdef double bound = 3.3306690738754716e-16 * (fabs(left) + fabs(right))
    if det > bound:
        return 1
    if -det > bound:
        return -1
    return orient2d_exact(ax, ay, bx, by, cx, cy)


cdef inline int mul(const double* e, int n, const double* f, int m, double* h,
                    double* tmp) noexcept nogil:
    """h = e * f; tmp holds 2 n doubles; returns h's length."""
    cdef int i, j, k = 1, s
    h[0] = 0.0
    for i in range(m):
        s = scale(e, n, f[i], tmp)
        for j in range(s):
            k = grow(h, k, tmp[j], h)
    return k


cdef inline int lifted_term(const double* adx, int nadx, const double* ady, int nady,
                            const double* bdx, int nbdx, const double* bdy, int nbdy,
                            const double* cdx, int ncdx, const double* cdy, int ncdy,
                            double* total, int ntotal) noexcept nogil:
    """total += (adx^2 + ady^2) * (bdx cdy - cdx bdy), exactly; returns total's length."""
    cdef double p[8]
    cdef double q[8]
    cdef double lift[16]
    cdef double cross[16]
    cdef double term[512]
    cdef double tmp[64]
    cdef int np_, nq, nl, nc, nt, j
    np_ = mul(adx, nadx, adx, nadx, p, tmp)
    nq = mul(ady, nady, ady, nady, q, tmp)
    nl = add(p, np_, q, nq, lift)
    np_ = mul(bdx, nbdx, cdy, ncdy, p, tmp)
    nq = mul(cdx, ncdx, bdy, nbdy, q, tmp)
    for j in range(nq):
        q[j] = -q[j]
    nc = add(p, np_, q, nq, cross)
    nt = mul(lift, nl, cross, nc, term, tmp)
    for j in range(nt):
        ntotal = grow(total, ntotal, term[j], total)
    return ntotal


cdef inline int incircle_exact(double ax, double ay, double bx, double by, double cx,
                               double cy, double dx, double dy) noexcept nogil:
    cdef double adx[2]
    cdef double ady[2]
    cdef double bdx[2]
    cdef double bdy[2]
    cdef double cdx[2]
    cdef double cdy[2]
    cdef double total[1536]
    cdef int nadx, nady, nbdx, nbdy, ncdx, ncdy, ntotal = 1
    nadx = grow(&ax, 1, -dx, adx)
    nady = grow(&ay, 1, -dy, ady)
    nbdx = grow(&bx, 1, -dx, bdx)
    nbdy = grow(&by, 1, -dy, bdy)
    ncdx = grow(&cx, 1, -dx, cdx)
    ncdy = grow(&cy, 1, -dy, cdy)
    total[0] = 0.0
    # a-lift * (bdx cdy - cdx bdy) + b-lift * (cdx ady - adx cdy) + c-lift * (adx bdy - bdx ady)
    ntotal = lifted_term(adx, nadx, ady, nady, bdx, nbdx, bdy, nbdy, cdx, ncdx, cdy, ncdy,
                         total, ntotal)
    ntotal = lifted_term(bdx, nbdx, bdy, nbdy, cdx, ncdx, cdy, ncdy, adx, nadx, ady, nady,
                         total, ntotal)
    ntotal = lifted_term(cdx, ncdx, cdy, ncdy, adx, nadx, ady, nady, bdx, nbdx, bdy, nbdy,
                         total, ntotal)
    return sign_of(total, ntotal)


cdef inline int incircle(double ax, double ay, double bx, double by, double cx, double cy,
                         double dx, double dy) noexcept nogil:
    """+1 when d lies inside the circle through a, b, c (given counter-clockwise), -1
    outside, 0 on it; the sign flips when a, b, c are clockwise."""
    cdef double adx = ax - dx, ady = ay - dy, bdx = bx - dx, bdy = by - dy
    cdef double cdx = cx - dx, cdy = cy - dy
    cdef double bc = bdx * cdy - cdx * bdy, ca = cdx * ady - adx * cdy
    cdef double ab = adx * bdy - bdx * ady
    cdef double alift = adx * adx + ady * ady, blift = bdx * bdx + bdy * bdy
    cdef double clift = cdx * cdx + cdy * cdy
    cdef double det = alift * bc + blift * ca + clift * ab
    cdef double perm = ((fabs(bdx * cdy) + fabs(cdx * bdy)) * alift
                        + (fabs(cdx * ady) + fabs(adx * cdy)) * blift
                        + (fabs(adx * bdy) + fabs(bdx * ady)) * clift)
    cdef double bound = 1.1102230246251577e-15 * perm
    if det > bound:
        return 1
    if -det > bound:
        return -1
    return incircle_exact(ax, ay, bx, by, cx, cy, dx, dy)
