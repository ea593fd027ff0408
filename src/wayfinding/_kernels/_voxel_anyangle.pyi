import numpy as np
from numpy.typing import NDArray

from ._workspace import Workspace

def theta_star(
    ws: Workspace,
    padded: NDArray[np.uint8],
    offsets: NDArray[np.int64],
    costs: NDArray[np.float64],
    cube: NDArray[np.int64],
    cube_n: NDArray[np.int32],
    start: int,
    goal: int,
    lazy: bool,
) -> tuple[bool, float, NDArray[np.int64], int, int, int, int, int]: ...
