import numpy as np
from numpy.typing import NDArray

def mark_walkable(
    vertices: NDArray[np.float32],
    triangles: NDArray[np.int32],
    max_slope_degrees: float,
    areas: NDArray[np.uint8],
) -> None: ...
def rasterize(
    vertices: NDArray[np.float32],
    triangles: NDArray[np.int32],
    areas: NDArray[np.uint8],
    bmin: NDArray[np.float32],
    bmax: NDArray[np.float32],
    cell_size: float,
    cell_height: float,
    width: int,
    depth: int,
    merge_threshold: int,
) -> tuple[NDArray[np.int64], NDArray[np.uint16], NDArray[np.uint16], NDArray[np.uint8]]: ...
def filter_low_hanging(
    first: NDArray[np.int64], smax: NDArray[np.uint16], area: NDArray[np.uint8], climb: int
) -> None: ...
def filter_ledges(
    first: NDArray[np.int64],
    smin: NDArray[np.uint16],
    smax: NDArray[np.uint16],
    area: NDArray[np.uint8],
    width: int,
    depth: int,
    walkable_height: int,
    climb: int,
) -> None: ...
def filter_low_height(
    first: NDArray[np.int64],
    smin: NDArray[np.uint16],
    smax: NDArray[np.uint16],
    area: NDArray[np.uint8],
    walkable_height: int,
) -> None: ...
