import numpy as np
from numpy.typing import NDArray

def build(
    first: NDArray[np.int64],
    con: NDArray[np.uint32],
    area: NDArray[np.uint8],
    reg: NDArray[np.uint16],
    y: NDArray[np.uint16],
    width: int,
    depth: int,
    border: int,
    max_regions: int,
    max_error: float,
    max_edge_len: int,
) -> tuple[
    NDArray[np.int32],
    NDArray[np.int64],
    NDArray[np.int32],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
    int,
]: ...
