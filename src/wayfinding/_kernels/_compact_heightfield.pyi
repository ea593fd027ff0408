import numpy as np
from numpy.typing import NDArray

def build(
    first: NDArray[np.int64],
    smin: NDArray[np.uint16],
    smax: NDArray[np.uint16],
    area: NDArray[np.uint8],
    width: int,
    depth: int,
    walkable_height: int,
    climb: int,
) -> tuple[
    NDArray[np.int64],
    NDArray[np.uint16],
    NDArray[np.uint8],
    NDArray[np.uint8],
    NDArray[np.uint32],
    int,
]: ...
def erode(
    first: NDArray[np.int64],
    con: NDArray[np.uint32],
    area: NDArray[np.uint8],
    width: int,
    depth: int,
    radius: int,
) -> None: ...
def median_filter(
    first: NDArray[np.int64],
    con: NDArray[np.uint32],
    area: NDArray[np.uint8],
    width: int,
    depth: int,
) -> None: ...
def mark_convex(
    first: NDArray[np.int64],
    y: NDArray[np.uint16],
    area: NDArray[np.uint8],
    width: int,
    depth: int,
    bmin: NDArray[np.float32],
    cell_size: float,
    cell_height: float,
    polygon: NDArray[np.float32],
    ymin: float,
    ymax: float,
    area_id: int,
) -> None: ...
