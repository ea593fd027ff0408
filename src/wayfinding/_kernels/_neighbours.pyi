import numpy as np
from numpy.typing import NDArray

def nearest(
    points: NDArray[np.float64],
    ranges: NDArray[np.float64],
    k: int,
    out: NDArray[np.int32],
    dist2: NDArray[np.float64],
) -> NDArray[np.int32]: ...
