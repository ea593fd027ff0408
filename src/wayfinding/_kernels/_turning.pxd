# The Reeds–Shepp and Dubins arithmetic of wayfinding.paths (reeds_shepp_path,
# turning_path), shared with the car planner (_hybrid): defined once, in _turning.pyx, but
# for the small helpers below, inlined where they are used.
from libc.math cimport copysign, fma, fmod, sqrt

cdef extern from *:
    """
    #define WF_TURN_PI 3.141592653589793
    #define WF_TURN_TAU 6.283185307179586
    """
    # math.pi (the double nearest pi) and twice it.
    const double PI "WF_TURN_PI"
    const double TAU "WF_TURN_TAU"


cdef inline double py_mod(double a, double b) noexcept nogil:
    """``a % b`` as Python floors it (the sign of ``b``)."""
    cdef double m = fmod(a, b)
    if m != 0.0:
        if (b < 0) != (m < 0):
            m += b
    else:
        m = copysign(0.0, b)
    return m


cdef inline double wrap(double a) noexcept nogil:
    """``a`` as an angle in ``[-pi, pi)``."""
    return py_mod(a + PI, TAU) - PI


cdef inline double dot2(double x0, double x1, double y0, double y1) noexcept nogil:
    """``x0 y0 + x1 y1``, the second product fused into the sum (C's ``fma``, correctly
    rounded, so the same on every machine)."""
    return fma(x1, y1, x0 * y0)


cdef inline double vec_norm(double x, double y) noexcept nogil:
    """The length of the vector ``(x, y)``: the square root of :func:`dot2` (``0`` for a
    vector so short that its square underflows, ``inf`` for one so long that it
    overflows)."""
    return sqrt(dot2(x, y, x, y))


# A Reeds–Shepp word.
cdef struct Word:
    int n                # segments
    int steer[5]         # +1 left, -1 right, 0 straight
    int sign[5]          # +1 forward, -1 reverse (base words only)
    double t[5]          # signed lengths in radii


# The shortest Dubins word, with what draws it, in the start's frame (the start at the
# origin facing +x), from the first steering circle's centre.
cdef struct Dubins:
    int word             # index in LSL, LSR, RSL, RSR, RLR, LRL; -1: none
    int arcs_n           # 2 (arc-segment-arc) or 3 (three arcs)
    double arcs[3]       # the turn on each arc, radians
    double length
    double dx, dy        # the last circle's centre
    double ax, ay        # the segment's first end, or the middle circle's centre
    double bx, by        # the segment's last end


cdef double reeds_shepp(double d0, double d1, double e0, double e1, double wx, double wy,
                        double radius, Word* best) noexcept nogil
cdef void dubins(double d0, double d1, double e0, double e1, double wx, double wy,
                 double r, Dubins* best) noexcept nogil
cdef void dubins_parts(const Dubins* best, double r, int* steer,
                       double* spans) noexcept nogil
