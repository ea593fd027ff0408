# Array front ends of the exact predicates in _predicates.pxd.
cimport numpy as cnp
from libc.stdint cimport int8_t

from ._predicates cimport incircle, orient2d

cnp.import_array()


def orient2d_many(const double[:, ::1] a, const double[:, ::1] b, const double[:, ::1] c,
                  int8_t[::1] out):
    """out[i] = orientation sign of (a[i], b[i], c[i])."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = orient2d(a[i, 0], a[i, 1], b[i, 0], b[i, 1], c[i, 0], c[i, 1])


def incircle_many(const double[:, ::1] a, const double[:, ::1] b, const double[:, ::1] c,
                  const double[:, ::1] d, int8_t[::1] out):
    """out[i] = in-circle sign of d[i] against the circle through a[i], b[i], c[i]."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = incircle(a[i, 0], a[i, 1], b[i, 0], b[i, 1], c[i, 0], c[i, 1],
                              d[i, 0], d[i, 1])


def orient_xy(double ax, double ay, double bx, double by, double cx, double cy):
    """Orientation sign of one triple of points given as coordinates."""
    return orient2d(ax, ay, bx, by, cx, cy)


def incircle_xy(double ax, double ay, double bx, double by, double cx, double cy,
                double dx, double dy):
    """In-circle sign of (dx, dy) against the circle through a, b, c, as coordinates."""
    return incircle(ax, ay, bx, by, cx, cy, dx, dy)
