import numpy as np
from numpy.typing import NDArray

def goal_bounds(
    cost: NDArray[np.float64],
    moves: NDArray[np.uint8],
    width: int,
    goals: NDArray[np.int64],
    canonical: bool,
    boxes: NDArray[np.uint16],
    threads: int = 1,
) -> int: ...
def source_boxes(
    cost: NDArray[np.float64],
    moves: NDArray[np.uint8],
    width: int,
    sources: NDArray[np.int64],
    canonical: bool,
    out: NDArray[np.uint16],
    threads: int = 1,
) -> int: ...
