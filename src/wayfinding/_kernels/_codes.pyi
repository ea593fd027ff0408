DIRECTIONS: tuple[tuple[int, int], ...]
SQRT2: float
DH_EPS: float
FAILED: int
FOUND: int
RUNNING: int
BAD_START: int
BAD_GOAL: int
NEED_ROUTE: int
NO_MOVE: int
NO_END: int
HEURISTIC_CODES: dict[str, int]
DIAGONAL_CODES: dict[str, int]
