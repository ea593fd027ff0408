import numpy as np
from numpy.typing import NDArray

from ._workspace import Workspace

def flood(
    ws: Workspace,
    moves: NDArray[np.uint8],
    width: int,
    sources: NDArray[np.int64],
    limit: float,
    out: NDArray[np.float64],
    record: bool = False,
) -> tuple[int, int, int, int, NDArray[np.int64] | None]: ...
