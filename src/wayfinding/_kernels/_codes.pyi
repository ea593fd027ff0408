DIRECTIONS: tuple[tuple[int, int], ...]
SQRT2: float
DH_EPS: float
FAILED: int
FOUND: int
RUNNING: int
HEURISTIC_CODES: dict[str, int]
DIAGONAL_CODES: dict[str, int]
