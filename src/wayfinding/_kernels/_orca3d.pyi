import numpy as np
from numpy.typing import NDArray

def nearest(
    points: NDArray[np.float64],
    ranges: NDArray[np.float64],
    k: int,
    out: NDArray[np.int32],
    dist2: NDArray[np.float64],
) -> NDArray[np.int32]: ...
def velocities(
    position: NDArray[np.float64],
    velocity: NDArray[np.float64],
    preferred: NDArray[np.float64],
    radius: NDArray[np.float64],
    max_speed: NDArray[np.float64],
    neighbours: NDArray[np.int32],
    counts: NDArray[np.int32],
    time_horizon: NDArray[np.float64],
    dt: float,
    out: NDArray[np.float64],
) -> None: ...
def planes(
    position: NDArray[np.float64],
    velocity: NDArray[np.float64],
    radius: NDArray[np.float64],
    rows: NDArray[np.int32],
    agent: int,
    time_horizon: float,
    dt: float,
) -> NDArray[np.float64]: ...
def sweep_boxes(
    free: NDArray[np.uint8],
    ox: float,
    oy: float,
    oz: float,
    size: float,
    position: NDArray[np.float64],
    move: NDArray[np.float64],
    half: NDArray[np.float64],
    stopped: NDArray[np.uint8],
) -> None: ...
def voxel_push(
    free: NDArray[np.uint8],
    ox: float,
    oy: float,
    oz: float,
    size: float,
    position: NDArray[np.float64],
    half: NDArray[np.float64],
    margin: NDArray[np.float64],
    normal_speed: NDArray[np.float64],
    speed: NDArray[np.float64],
    out: NDArray[np.float64],
) -> None: ...
