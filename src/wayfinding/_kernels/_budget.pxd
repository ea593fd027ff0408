# Work budgets of resumable searches: a number of expansions and a wall-clock deadline.
from libc.math cimport INFINITY
from libc.stdint cimport int64_t

from ._portable cimport monotonic

# The outcomes of a slice (FAILED, FOUND, RUNNING) are in _constants.pxd.


cdef struct Budget:
    int64_t expansions  # expansions allowed in this slice; < 0: no limit
    double deadline     # monotonic clock time to stop at; INFINITY: none


cdef inline Budget make_budget(int64_t max_expansions, double max_seconds) noexcept nogil:
    cdef Budget b
    b.expansions = max_expansions
    b.deadline = monotonic() + max_seconds if max_seconds < INFINITY else INFINITY
    return b


cdef inline bint spent(const Budget* b, int64_t done) noexcept nogil:
    """Whether a slice that has made ``done`` expansions must stop.  The clock is read every
    16 expansions, and a timed slice always makes at least one."""
    if b.expansions >= 0 and done >= b.expansions:
        return True
    return b.deadline < INFINITY and done > 0 and (done & 15) == 0 \
        and monotonic() >= b.deadline
