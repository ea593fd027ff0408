import numpy as np
from numpy.typing import NDArray

def lines_of_sight(
    padded: NDArray[np.uint8],
    a: NDArray[np.int64],
    b: NDArray[np.int64],
    out: NDArray[np.uint8],
) -> None: ...
def components(padded: NDArray[np.uint8], out: NDArray[np.int32]) -> int: ...
