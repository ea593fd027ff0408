# Reading one query's points and choosing whether a single query keeps the GIL: shared by
# the mesh query and the exact (Polyanya) search, which read plain points without a Python
# call layer.
cimport numpy as cnp
from libc.math cimport isfinite


cdef inline bint plain_number(object v, double* out):
    """A float, or an int of at most 2**53 in size, as a double; False for anything else."""
    if type(v) is float:
        out[0] = <double> v
        return True
    if type(v) is int and -9007199254740992 <= v <= 9007199254740992:
        out[0] = <double> v
        return True
    return False


cdef inline bint plain_xy(object v, double* x, double* y):
    """A point given as a tuple or list of two plain numbers or a (2,) float64 array, when
    finite; False for anything else (the caller checks it the slow way)."""
    cdef cnp.ndarray a
    if type(v) is tuple or type(v) is list:
        if len(v) != 2 or not plain_number(v[0], x) or not plain_number(v[1], y):
            return False
    elif cnp.PyArray_CheckExact(v):
        a = <cnp.ndarray> v
        if cnp.PyArray_NDIM(a) != 1 or cnp.PyArray_DIM(a, 0) != 2 \
                or cnp.PyArray_TYPE(a) != cnp.NPY_DOUBLE or not cnp.PyArray_ISNOTSWAPPED(a):
            return False
        x[0] = (<double*> cnp.PyArray_GETPTR1(a, 0))[0]
        y[0] = (<double*> cnp.PyArray_GETPTR1(a, 1))[0]
    else:
        return False
    return isfinite(x[0]) and isfinite(y[0])


# A single query on a mesh of at most this many polygons keeps the GIL: handing it over
# and taking it back costs about as much as such a search.
cdef enum:
    HOLD_GIL_POLYGONS = 64
