# The cells that grid queries hand straight to a kernel, (x, y) tuples of two ints, and the
# answers such a query gets without a search.
from libc.math cimport INFINITY
from libc.stdint cimport int32_t

from ._constants cimport BAD_GOAL, BAD_START, FAILED, FOUND
from ._workspace cimport Workspace, check_workspace


cdef inline bint plain_cells(object start, object goal):
    """Whether ``start`` and ``goal`` are both tuples of two ints (anything else the caller
    normalises first)."""
    return (type(start) is tuple and type(goal) is tuple and len(<tuple> start) == 2
            and len(<tuple> goal) == 2 and type((<tuple> start)[0]) is int
            and type((<tuple> start)[1]) is int and type((<tuple> goal)[0]) is int
            and type((<tuple> goal)[1]) is int)


cdef inline object answer_without_search(Workspace ws, const int32_t[:, ::1] islands,
                                         long sx, long sy, long gx, long gy):
    """The answer (status, cost, expanded, generated, updated, max_open, path) of a search
    from cell (sx, sy) to (gx, gy) on a grid of ``islands`` ids (-1 on blocked cells) when
    it needs none: BAD_START or BAD_GOAL (outside the grid or blocked), FOUND at cost 0 (the
    same cell; ``ws`` begun and holding it), FAILED (other islands; ``ws`` begun); else
    None."""
    cdef Py_ssize_t h = islands.shape[0], w = islands.shape[1]
    cdef int cell
    if not (0 <= sx < w and 0 <= sy < h) or islands[sy, sx] < 0:
        return (BAD_START, INFINITY, 0, 0, 0, 0, None)
    if not (0 <= gx < w and 0 <= gy < h) or islands[gy, gx] < 0:
        return (BAD_GOAL, INFINITY, 0, 0, 0, 0, None)
    if islands[sy, sx] != islands[gy, gx] or (sx == gx and sy == gy):
        check_workspace(ws, (h + 2) * (w + 2))
        ws.begin()
        if islands[sy, sx] != islands[gy, gx]:
            return (FAILED, INFINITY, 0, 0, 0, 0, None)
        cell = <int> ((gy + 1) * (w + 2) + gx + 1)
        ws.g[cell] = 0.0
        ws.parent[cell] = -1
        return (FOUND, 0.0, 0, 0, 0, 0, ws.path_cells(cell, <int> w + 2))
    return None
