import numpy as np
from numpy.typing import NDArray

def distance_field(
    first: NDArray[np.int64],
    con: NDArray[np.uint32],
    area: NDArray[np.uint8],
    width: int,
    depth: int,
) -> tuple[NDArray[np.uint16], int]: ...
def watershed(
    first: NDArray[np.int64],
    con: NDArray[np.uint32],
    area: NDArray[np.uint8],
    dist: NDArray[np.uint16],
    max_distance: int,
    width: int,
    depth: int,
    border: int,
    min_area: int,
    merge_area: int,
) -> tuple[NDArray[np.uint16], int, int]: ...
def monotone(
    first: NDArray[np.int64],
    con: NDArray[np.uint32],
    area: NDArray[np.uint8],
    width: int,
    depth: int,
    border: int,
    min_area: int,
    merge_area: int,
) -> tuple[NDArray[np.uint16], int, int]: ...
def layers(
    first: NDArray[np.int64],
    con: NDArray[np.uint32],
    area: NDArray[np.uint8],
    y: NDArray[np.uint16],
    width: int,
    depth: int,
    border: int,
    min_area: int,
) -> tuple[NDArray[np.uint16], int]: ...
