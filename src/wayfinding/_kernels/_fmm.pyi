import numpy as np
from numpy.typing import NDArray

def march(
    inv_speed2: NDArray[np.float64],
    T: NDArray[np.float64],
    flag: NDArray[np.uint8],
    width: int,
    h: float,
    order: int,
    limit: float,
) -> int: ...
