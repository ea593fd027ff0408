# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The lengths and word choice of the shortest Reeds–Shepp and Dubins paths (the arithmetic
of :func:`wayfinding.paths.reeds_shepp_path` and :func:`wayfinding.paths.turning_path`,
whose docstrings define them), for those functions and for the car planner's heuristic and
analytic expansion (``_hybrid``, which cimports them).

Angles are floored as Python's ``%`` floors them, distances are correctly rounded (the
kernels' one ``hypot``, as Python's ``math.hypot`` has them) and a product is fused into a
sum only where the code says so (:func:`dot2`, :func:`vec_norm`: C's correctly rounded
``fma``; the kernel is compiled without contraction), so that the results depend neither on
the C library's ``hypot`` nor on the compiler.

Headings are unit direction vectors ``(d0, d1)`` (start) and ``(e0, e1)`` (goal), the goal
``(wx, wy)`` from the start, in world units."""

from libc.math cimport INFINITY, acos, asin, atan2, cos, fabs, ilogb, ldexp, sin, sqrt

from ._hypot cimport hypot

#: A Reeds–Shepp segment this short (relative to its word's length) on the wrong side of zero
#: counts as empty: a rounding error, not a change of direction; words this close (relative
#: to the shorter) tie.
cdef double ZERO = 1e-12
#: Dubins words this close (in radii) tie: the first tried wins.
cdef double TIE = 1e-12
#: Dubins words, in the order they are tried (ties go to the first).
WORDS = ("LSL", "LSR", "RSL", "RSR", "RLR", "LRL")
cdef int FIRST[6]
cdef int LAST[6]
FIRST[:] = [1, 1, -1, -1, -1, 1]
LAST[:] = [1, -1, 1, -1, -1, 1]
cdef const char* LETTERS = b"RSL"      # by steering + 1


# ------------------------------------------------------------------------------ Reeds–Shepp
# The base words, in the frame of a start at the origin facing +x and a radius of 1: each
# writes the words of its kind that reach the goal (x, y, phi) with arcs of at most pi (as
# every shortest path has) and returns how many.  L+ t from the origin ends at
# (sin t, 1 - cos t); the left circle of a pose (x, y, phi) has its centre at
# (x - sin phi, y + cos phi), the right one at (x + sin phi, y - cos phi).
#
# A goal far closer than the radius (x, y and phi tiny: the radius 1e13 or 1e300 times the
# distance) has a word as tiny, so every formula keeps the goal's offsets however small:
# 1 - cos phi and 1 + cos phi come from the half-angle (``vers``, ``covers``), a distance
# that nearly equals 2 from the product (gap - 2)(gap + 2), and an angle that is nearly a
# sum of right angles from one atan2 of rotated vectors.  Its errors then scale with the
# word, not with the radius.


cdef inline double angle(double a) noexcept nogil:
    """``a`` as an angle in ``[-pi, pi)`` (:func:`wrap`), kept as it is when it is one
    already, so that a tiny angle keeps its digits."""
    return a if -PI <= a < PI else wrap(a)


cdef inline double vers(double phi) noexcept nogil:
    """``1 - cos phi``, from the half-angle so as not to lose a tiny ``phi``."""
    cdef double h = sin(phi / 2)
    return 2 * (h * h)


cdef inline double covers(double phi) noexcept nogil:
    """``1 + cos phi``, from the half-angle so as not to lose ``phi`` near pi."""
    cdef double h = cos(phi / 2)
    return 2 * (h * h)
cdef inline void put(Word* w, int n, const char* letters, const char* signs, double t0,
                     double t1, double t2, double t3, double t4) noexcept nogil:
    """Make ``w`` the base word of ``n`` segments: their letters, signs and lengths."""
    cdef int i
    cdef double ts[5]
    ts[0] = t0
    ts[1] = t1
    ts[2] = t2
    ts[3] = t3
    ts[4] = t4
    w.n = n
    for i in range(n):
        w.steer[i] = 1 if letters[i] == b'L' else (-1 if letters[i] == b'R' else 0)
        w.sign[i] = -1 if signs[i] == b'-' else 1
        w.t[i] = ts[i]


cdef inline double opposite_square(double xi, double y, double phi) noexcept nogil:
    """``xi^2 + eta^2 - 4`` for ``eta = y - 1 - cos phi``, the difference of the start's
    left centre and the goal's right one being ``(xi, eta)``: ``xi^2 + (eta - 2)(eta + 2)``
    with ``eta + 2 = y + 1 - cos phi`` (``inf`` past 1e154 radii)."""
    return xi * xi + (y - covers(phi) - 2) * (y + vers(phi))


cdef int base_csc(double x, double y, double phi, Word* out) noexcept nogil:
    cdef double u, t, xi, eta, square, m, re, im, less
    cdef int n = 0
    # L+S+L+: the centres differ by u along the heading t after the first arc.
    xi = x - sin(phi)
    eta = y - vers(phi)
    u = hypot(xi, eta)
    t = atan2(eta, xi)
    put(&out[n], 3, b"LSL", b"+++", t, u, angle(phi - t), 0, 0)
    n += 1
    # L+S+R+: the centres differ by rot(t) (u, -2), with u^2 = |difference|^2 - 4.
    xi = x + sin(phi)
    eta = y - covers(phi)
    square = opposite_square(xi, y, phi)
    if square >= 0:
        # Past 1e154 radii the square overflows, and the 4 is below its rounding.
        u = sqrt(square) if square < INFINITY else hypot(xi, eta)
        # t = atan2(eta, xi) + atan2(2, u): the angle of (xi + i eta)(u + 2i), scaled by m
        # so that no product overflows; its imaginary part 2 (xi - u) + (eta + 2) u with
        # xi - u = -(eta - 2)(eta + 2) / (xi + u) when the two are near.
        m = max(max(fabs(xi), fabs(eta)), max(u, 2.0))
        less = xi - u if xi <= 0 else -((y - covers(phi) - 2) / m) * (y + vers(phi)) / (xi + u) * m
        re = (xi / m) * u - 2 * (eta / m)
        im = 2 * (less / m) + ((y + vers(phi)) / m) * u
        t = atan2(im, re)
        put(&out[n], 3, b"LSR", b"+++", t, u, angle(t - phi), 0, 0)
        n += 1
    return n


cdef int base_ccc(double x, double y, double phi, Word* out) noexcept nogil:
    # L+R-L±: the left circles 4 |sin(u / 2)| apart, the middle one touching both; the
    # centres differ by 4 sin(u / 2) (cos, sin)(t - u / 2), and phi = t - u + v.
    cdef double xi = x - sin(phi), eta = y - vers(phi), gap, u, t, v
    gap = hypot(xi, eta)
    if gap <= 4:
        u = -2 * asin(gap / 4)
        t = angle(atan2(-eta, -xi) + u / 2)
        v = angle(phi - t + u)
        put(&out[0], 3, b"LRL", b"+-+" if v >= 0 else b"+--", t, u, v, 0, 0)
        return 1
    return 0


cdef inline void turns(double u, double w, double a, double minus_b, double xi, double eta,
                       double phi, double* t, double* v) noexcept nogil:
    """First and last arcs of L t R u L w R v whose right circles' centres differ by
    ``(xi, eta)`` = 2 rot(t) (a, b), ``a = sin u - sin(u - w)``, ``minus_b = -b =
    1 - cos u + cos(u - w)`` (both given in a form that keeps a tiny ``u``), with
    phi = t - u + w - v: ``t`` the angle of (xi, eta) less that of (a, b), both turned a
    right angle first (where a short word has them nearly equal)."""
    t[0] = angle(atan2(xi, -eta) - atan2(a, minus_b))
    v[0] = angle(t[0] - u + w - phi)


cdef int base_cccc(double x, double y, double phi, Word* out) noexcept nogil:
    cdef double xi = x + sin(phi), eta = y - covers(phi), square, u, t = 0, v = 0
    cdef int n = 0
    square = opposite_square(xi, y, phi)           # gap^2 - 4, gap = |(xi, eta)|
    # L+R+L-R-, the middle arcs equal: 2 cos u - 1 = gap / 2 (Reeds and Shepp's root of
    # |2 cos u - 1| = gap / 2), so 1 - cos u = (2 - gap) / 4 = -square / 4 (2 + gap).
    if square <= 0:
        u = 2 * asin(sqrt(-square / (8 * (2 + hypot(xi, eta)))))
        turns(u, -u, -2 * cos(1.5 * u) * sin(u / 2), 1 - 2 * sin(1.5 * u) * sin(u / 2), xi,
              eta, phi, &t, &v)
        put(&out[n], 4, b"LRLR", b"++--", t, u, -u, v, 0)
        n += 1
    # L+R-L-R+, the middle arcs equal and at most pi / 2: 5 - 4 cos u = gap^2 / 4, so
    # 1 - cos u = square / 16.
    if 0 <= square <= 16:
        u = -2 * asin(sqrt(square / 32))
        turns(u, u, sin(u), 1 + vers(u), xi, eta, phi, &t, &v)
        put(&out[n], 4, b"LRLR", b"+--+", t, u, u, v, 0)
        n += 1
    return n


cdef int base_ccsc(double x, double y, double phi, Word* out) noexcept nogil:
    cdef double half = PI / 2, xi, eta, square, u, t, gap
    cdef int n = 0
    # L+R-(pi/2)S-L-: the left centres differ by rot(t) (-2, u - 2).
    xi = x - sin(phi)
    eta = y - vers(phi)
    square = xi * xi + eta * eta - 4
    if square >= 0:
        u = 2 - sqrt(square)
        t = angle(atan2(eta, xi) - atan2(u - 2, -2))
        put(&out[n], 4, b"LRSL", b"+---", t, -half, u, angle(phi - t - half), 0)
        n += 1
    # L+R-(pi/2)S-R-: the start's left centre and the goal's right one differ by
    # (2 - u) (sin t, -cos t).
    xi = x + sin(phi)
    eta = y - covers(phi)
    gap = hypot(xi, eta)
    if gap >= 2:
        t = atan2(xi, -eta)
        put(&out[n], 4, b"LRSR", b"+---", t, -half, 2 - gap, angle(t + half - phi), 0)
        n += 1
    return n


cdef int base_ccscc(double x, double y, double phi, Word* out) noexcept nogil:
    # L+R-(pi/2)S-L-(pi/2)R+: the start's left centre and the goal's right one differ by
    # rot(t) (-2, u - 4).
    cdef double half = PI / 2, xi = x + sin(phi), eta = y - covers(phi), square, u, t
    square = opposite_square(xi, y, phi)
    if square >= 0:
        u = 4 - sqrt(square)
        t = angle(atan2(eta, xi) - atan2(u - 4, -2))
        put(&out[0], 5, b"LRSLR", b"+---+", t, -half, u, -half, angle(t - phi))
        return 1
    return 0


cdef int base_words(int family, double x, double y, double phi, Word* out) noexcept nogil:
    """The base words of ``family``: 0 CSC, 1 CCC, 2 CCCC, 3 CCSC, 4 CCSCC."""
    if family == 0:
        return base_csc(x, y, phi, out)
    if family == 1:
        return base_ccc(x, y, phi, out)
    if family == 2:
        return base_cccc(x, y, phi, out)
    if family == 3:
        return base_ccsc(x, y, phi, out)
    return base_ccscc(x, y, phi, out)


cdef double rs_shortest(double x, double y, double phi, Word* best) noexcept nogil:
    """The shortest word (lengths in radii) to the goal ``(x, y, phi)`` from the origin
    facing +x, radius 1, and its length: every base word under time flip, reflection and,
    for the families that are not their own reverse, backward reading (the goal
    ``(x cos phi + y sin phi, x sin phi - y cos phi, phi)``, the segments in reverse order);
    ties to the first.  No word (``best.n`` 0) and an infinite length if none reaches it."""
    cdef double cp = cos(phi), sp = sin(phi), bx, by, gx, gy, gphi, length
    cdef double best_length = INFINITY, t, size
    cdef Word base[2]
    cdef Word w
    cdef int family, view, views, flip, mirror, k, m, i
    cdef bint ok
    best.n = 0
    for family in range(5):
        views = 2 if family == 1 or family == 3 else 1
        for view in range(views):
            if view == 0:
                bx, by = x, y
            else:
                bx = x * cp + y * sp
                by = x * sp - y * cp
            for flip in range(2):
                for mirror in range(2):
                    gx = -bx if flip else bx
                    gy = -by if mirror else by
                    gphi = -phi if flip != mirror else phi
                    m = base_words(family, gx, gy, gphi, base)
                    for k in range(m):
                        w = base[k]
                        ok = True
                        size = 0.0
                        for i in range(w.n):
                            size += fabs(w.t[i])
                        for i in range(w.n):
                            t = w.t[i]
                            if t == 0 or (t < 0) != (w.sign[i] < 0):
                                if fabs(t) > ZERO * size:
                                    ok = False
                                    break
                                w.t[i] = 0.0 if w.sign[i] > 0 else -0.0
                        if not ok:
                            continue
                        for i in range(w.n):
                            if flip:
                                w.t[i] = -w.t[i]
                            if mirror:
                                w.steer[i] = -w.steer[i]
                        if view == 1:
                            for i in range(w.n // 2):
                                w.t[i], w.t[w.n - 1 - i] = w.t[w.n - 1 - i], w.t[i]
                                w.steer[i], w.steer[w.n - 1 - i] = w.steer[w.n - 1 - i], w.steer[i]
                        length = 0.0
                        for i in range(w.n):
                            length += fabs(w.t[i])
                        if length < best_length - ZERO * length:
                            best[0] = w
                            best_length = length
    return best_length



cdef double reeds_shepp(double d0, double d1, double e0, double e1, double wx, double wy,
                        double radius, Word* best) noexcept nogil:
    """The shortest Reeds–Shepp word between the poses and its length in world units
    (infinite if none); the word's lengths stay in radii."""
    cdef double dx = wx / radius, dy = wy / radius
    return radius * rs_shortest(d0 * dx + d1 * dy, d0 * dy - d1 * dx,
                                atan2(d0 * e1 - d1 * e0, d0 * e0 + d1 * e1), best)


# ------------------------------------------------------------------------------ Dubins
cdef inline double turn(double angle) noexcept nogil:
    """``angle`` in ``[0, 2 pi)``, as an arc's turn; within 1e-12 of a whole turn, none."""
    cdef double sweep = py_mod(angle, TAU)
    return 0.0 if sweep > TAU - 1e-12 else sweep


cdef inline void set_best(Dubins* best, int word, double length, double dx, double dy,
                          double a0, double a1, double a2, int n) noexcept nogil:
    """Make the candidate ``best``."""
    best.word = word
    best.length = length
    best.dx = dx
    best.dy = dy
    best.arcs[0] = a0
    best.arcs[1] = a1
    best.arcs[2] = a2
    best.arcs_n = n


cdef void dubins(double d0, double d1, double e0, double e1, double wx, double wy,
                 double r, Dubins* best) noexcept nogil:
    """The shortest forward (Dubins) word between the poses, ``r`` the turning radius;
    beyond 1e140 or within 1e-140 (where the squares of the circles' distances would
    overflow or underflow), solved scaled by a power of two (exactly: the word is
    scale-free)."""
    cdef double m = max(fabs(wx), fabs(wy), r), scale
    if 1e-140 < m < 1e140:
        dubins_words(d0, d1, e0, e1, wx, wy, r, best)
        return
    scale = ldexp(1.0, -ilogb(m))
    dubins_words(d0, d1, e0, e1, wx * scale, wy * scale, r * scale, best)
    best.length /= scale
    best.dx /= scale
    best.dy /= scale
    best.ax /= scale
    best.ay /= scale
    best.bx /= scale
    best.by /= scale


cdef void dubins_words(double d0, double d1, double e0, double e1, double wx, double wy,
                       double r, Dubins* best) noexcept nogil:
    """:func:`dubins` for distances whose squares neither overflow nor underflow."""
    cdef double g0, g1, phi, sin_phi, versine, dx, dy, ll, k, ux, uy, h, seg, length
    cdef double dist, hm, nx, ny, mx, my, ha, hb, half_s, a0, a1, a2
    cdef int word, s1, s2, side
    best.word = -1
    best.length = INFINITY
    # The goal in the start's frame, and the turn between the headings.
    g0 = dot2(d0, d1, wx, wy)
    g1 = dot2(-d1, d0, wx, wy)
    phi = atan2(d0 * e1 - d1 * e0, d0 * e0 + d1 * e1)
    sin_phi = sin(phi)
    half_s = sin(phi / 2)
    versine = 2 * (half_s * half_s)       # 1 - cos phi, kept when phi is tiny
    for word in range(6):
        s1 = FIRST[word]
        s2 = LAST[word]
        # From the start's circle centre (0, s1 r) to the goal's:
        # g + s2 r (-sin, cos)(phi) - (0, s1 r).
        dx = g0 + r * (-s2 * sin_phi)
        dy = g1 + r * ((s2 - s1) - s2 * versine)
        if word < 4:
            # The tangent leaving the first circle on its side s1 and joining the last on
            # its side s2, in the direction (ux, uy) and seg long (seg^2 + k^2 = ll, the
            # squared distance between the centres); none when the circles are too close.
            ll = dx * dx + dy * dy
            k = (s2 - s1) * r
            if not (ll == 0 or ll < k * k):
                seg = sqrt(ll - k * k)
                ux = (seg * dx + k * dy) / ll
                uy = (seg * dy - k * dx) / ll
                h = atan2(uy, ux)
                a0 = turn(s1 * h)
                a1 = turn(s2 * (phi - h))
                length = r * (a0 + a1) + seg
                if length < best.length - TIE * r:
                    best.ax = s1 * r * uy
                    best.ay = -s1 * r * ux
                    best.bx = dx + s2 * r * uy
                    best.by = dy - s2 * r * ux
                    set_best(best, word, length, dx, dy, a0, a1, 0.0, 2)
            elif s1 == s2 and dx == 0 and dy == 0:
                # One circle through both poses: its arc.
                a0 = turn(s1 * phi)
                length = r * a0
                if length < best.length - TIE * r:
                    best.ax = best.bx = g0
                    best.ay = best.by = g1 - s1 * r
                    set_best(best, word, length, dx, dy, a0, 0.0, 0.0, 2)
        else:
            # The middle circles touching both from outside, 2 r from each centre; none when
            # the circles coincide (the middle arc would be empty or whole).
            dist = vec_norm(dx, dy)
            if dist == 0 or dist > 4 * r:
                continue
            hm = sqrt(max(4 * r * r - dist * dist / 4, 0.0))
            nx = -dy / dist
            ny = dx / dist
            for side in range(2):
                if side == 0:
                    mx = dx / 2 + hm * nx
                    my = dy / 2 + hm * ny
                else:
                    mx = dx / 2 - hm * nx
                    my = dy / 2 - hm * ny
                ha = atan2(my, mx) + s1 * PI / 2      # the headings where it touches
                hb = atan2(my - dy, mx - dx) + s1 * PI / 2
                a0 = turn(s1 * ha)
                a1 = turn(-s1 * (hb - ha))
                a2 = turn(s1 * (phi - hb))
                length = r * (a0 + a1 + a2)
                if length < best.length - TIE * r:
                    best.ax = mx
                    best.ay = my
                    set_best(best, word, length, dx, dy, a0, a1, a2, 3)


cdef void dubins_parts(const Dubins* best, double r, int* steer,
                       double* spans) noexcept nogil:
    """The three parts of the word ``best`` (one found, for the turning radius ``r``), in
    driving order: ``steer`` their steering (+1 left, -1 right, 0 straight) and ``spans``
    their lengths in world units (>= 0): an arc's, ``r`` times its turn; the segment's, the
    word's length less its arcs'."""
    cdef int s1 = FIRST[best.word]
    steer[0] = s1
    steer[2] = LAST[best.word]
    spans[0] = r * best.arcs[0]
    if best.arcs_n == 2:
        steer[1] = 0
        spans[1] = best.length - r * (best.arcs[0] + best.arcs[1])
        spans[2] = r * best.arcs[1]
    else:
        steer[1] = -s1
        spans[1] = r * best.arcs[1]
        spans[2] = r * best.arcs[2]


# ------------------------------------------------------------------------------ Python
def norm(double x, double y):
    """The length of the vector ``(x, y)`` as the kernels take it when they make a heading
    a unit vector (:func:`vec_norm`)."""
    return vec_norm(x, y)


def reeds_shepp_word(double d0, double d1, double e0, double e1, double wx, double wy,
                     double radius):
    """The shortest Reeds–Shepp word from a start facing the unit direction ``(d0, d1)``
    to the goal ``(wx, wy)`` away facing ``(e0, e1)``, for ``radius`` > 0: ``(heading,
    goal_heading, letters, lengths, length)``, the headings in radians (``atan2``), the
    letters ``L``, ``R`` and ``S`` as a string, their signed lengths in radii (negative
    when reversing) and the length in world units; ``("", (), inf)`` for the last three
    when no word reaches the goal."""
    cdef Word w
    cdef double length
    cdef int i
    with nogil:
        length = reeds_shepp(d0, d1, e0, e1, wx, wy, radius, &w)
    return (atan2(d1, d0), atan2(e1, e0),
            "".join([chr(LETTERS[w.steer[i] + 1]) for i in range(w.n)]),
            tuple([w.t[i] for i in range(w.n)]), length)


def dubins_word(double d0, double d1, double e0, double e1, double wx, double wy,
                double radius):
    """The shortest Dubins word from a start facing the unit direction ``(d0, d1)`` to the
    goal ``(wx, wy)`` away facing ``(e0, e1)``, for ``radius`` > 0: ``(word, arcs, length,
    last, via)``, ``word`` one of :data:`WORDS` (``""`` when none reaches the goal),
    ``arcs`` the turn on each arc (radians) and, in the start's frame (at the origin facing
    +x) from the first steering circle's centre, ``last`` the last one's centre and
    ``via`` the ends of the segment, or the middle circle's centre."""
    cdef Dubins b
    with nogil:
        dubins(d0, d1, e0, e1, wx, wy, radius, &b)
    if b.word < 0:
        return "", (), INFINITY, (), ()
    if b.arcs_n == 2:
        return (WORDS[b.word], (b.arcs[0], b.arcs[1]), b.length, (b.dx, b.dy),
                ((b.ax, b.ay), (b.bx, b.by)))
    return (WORDS[b.word], (b.arcs[0], b.arcs[1], b.arcs[2]), b.length, (b.dx, b.dy),
            ((b.ax, b.ay),))
