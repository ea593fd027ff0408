# The canonical flood's state, shared with the goal-bound builder (_goal_bounds), which
# floods from every source with it.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

from ._heap cimport IntVec


# An open-list entry of a jump point: a cell may appear several times (once per improvement),
# the stale entries being skipped when popped.
cdef struct Entry:
    double g
    int32_t cell
    int32_t arrival


cdef struct EntryHeap:
    Entry* items
    Py_ssize_t size
    Py_ssize_t capacity


cdef struct Canon:
    # Scratch and results of one canonical flood.
    double* g
    uint32_t* stamp
    uint32_t label          # stamp of a labelled cell in this flood
    const uint8_t* moves
    int offset[8]
    double limit
    EntryHeap heap
    IntVec* order           # when not NULL: every newly labelled cell, in labelling order
    IntVec* jumps           # when not NULL: every jump point pushed, in push order
    long pushes
    long reopened
    long expanded
    long labels
    int status              # 0 ok, -1 out of memory


cdef void canon_init(Canon* c, double* g, uint32_t* stamp, uint32_t label,
                     const uint8_t* moves, int width, double limit) noexcept nogil
cdef int canonical_run(Canon* c, const int64_t* sources, Py_ssize_t n) noexcept nogil
