import numpy as np
from numpy.typing import NDArray

def orient2d_many(
    a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64], out: NDArray[np.int8]
) -> None: ...
def incircle_many(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    c: NDArray[np.float64],
    d: NDArray[np.float64],
    out: NDArray[np.int8],
) -> None: ...
def orient_xy(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> int: ...
def incircle_xy(
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, dx: float, dy: float
) -> int: ...
