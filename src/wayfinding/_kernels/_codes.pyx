# The kernels' shared constants (``_constants.pxd``, ``_steps.pxd``) as Python values, for
# the Python layers that pass codes to the kernels or read the codes they return.
cimport wayfinding._kernels._constants as c
from wayfinding._kernels._steps cimport step_dx, step_dy

#: The eight grid steps as (dx, dy), in the bit order of the move masks: N, E, S, W, NE, SE,
#: SW, NW (y grows downward).
DIRECTIONS = tuple((step_dx(d), step_dy(d)) for d in range(8))
#: Length of a diagonal grid step.
SQRT2 = c.SQRT2
#: Relative rounding margin of the differential heuristic's bounds.
DH_EPS = c.DH_EPS

#: Outcomes of a search slice (``advance``).
FAILED = c.FAILED
FOUND = c.FOUND
RUNNING = c.RUNNING
#: A JPS+ query whose start (goal) is outside the grid or blocked.
BAD_START = c.BAD_START
BAD_GOAL = c.BAD_GOAL
#: Outcomes of an exit-table walk: it needs the route from the level above, no table gives a
#: move, it does not end within its step limit.
NEED_ROUTE = c.NEED_ROUTE
NO_MOVE = c.NO_MOVE
NO_END = c.NO_END

#: Heuristic name -> kernel code.
HEURISTIC_CODES = {"zero": c.H_ZERO, "manhattan": c.H_MANHATTAN, "octile": c.H_OCTILE,
                   "euclidean": c.H_EUCLIDEAN, "chebyshev": c.H_CHEBYSHEV}
#: Diagonal rule value (``Diagonal.value``) -> kernel code.
DIAGONAL_CODES = {"never": c.NEVER, "no_corner_cutting": c.NO_CORNER_CUTTING,
                  "allow_one_blocked": c.ALLOW_ONE_BLOCKED, "always": c.ALWAYS}
