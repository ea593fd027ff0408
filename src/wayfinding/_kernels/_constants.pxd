# Constants shared by the compiled kernels, defined here once.  The numbers Python code also
# needs are exposed by ``wayfinding._kernels._codes``.

cdef extern from *:
    """
    #define WF_SQRT2 1.4142135623730951
    #define WF_SQRT2_M1 0.41421356237309515
    #define WF_TIE_EPS 1e-12
    #define WF_DH_EPS 1e-12
    """
    # Length of a diagonal step, and that less one (exactly SQRT2 - 1.0).
    const double SQRT2 "WF_SQRT2"
    const double SQRT2_M1 "WF_SQRT2_M1"
    # Relative tolerance under which two costs count as equal.  Floating sums of 1 and
    # sqrt 2 depend on the order of the terms, so equal-cost routes differ in the last bits;
    # without it nearly every cell would be "improved" by an ulp and pushed twice.  Costs are
    # unaffected beyond this tolerance.
    const double TIE_EPS "WF_TIE_EPS"
    # Differential heuristic: |d(p, v) - d(p, goal)| is lowered by DH_EPS * (d(p, v) +
    # d(p, goal)), more than the rounding error of the two table entries (float sums of up to
    # thousands of steps), so rounding does not lift it above the true bound, and what
    # rounding does to its consistency stays within the TIE_EPS tolerance.
    const double DH_EPS "WF_DH_EPS"

# Outcomes of a search or of one slice of a resumable search (``advance``); -1 means out of
# memory.
cdef enum:
    FAILED = 0
    FOUND = 1
    RUNNING = 2

# A JPS+ query that searches nothing because its start, or its goal, is outside the grid or
# blocked.
cdef enum:
    BAD_START = -1
    BAD_GOAL = -2

# Outcomes of an exit-table walk (``ExitLevel.walk``) other than FOUND: it needs the route of
# components from the level above and was given none; no table gives a move from where it
# stands; it went past its step limit.
cdef enum:
    NEED_ROUTE = -3
    NO_MOVE = -4
    NO_END = -5

# Heuristic kinds of the grid searches.
cdef enum:
    H_ZERO = 0
    H_MANHATTAN = 1
    H_OCTILE = 2
    H_EUCLIDEAN = 3
    H_CHEBYSHEV = 4

# Diagonal rules (``wayfinding.grid.rules.Diagonal``).
cdef enum:
    NEVER = 0
    NO_CORNER_CUTTING = 1
    ALLOW_ONE_BLOCKED = 2
    ALWAYS = 3
