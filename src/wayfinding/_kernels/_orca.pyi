import numpy as np
from numpy.typing import NDArray

def obstacle_tree(
    point: NDArray[np.float64],
    unit: NDArray[np.float64],
    nxt: NDArray[np.int32],
    prv: NDArray[np.int32],
    convex: NDArray[np.uint8],
) -> tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.int32],
    NDArray[np.int32],
    NDArray[np.uint8],
    NDArray[np.int32],
    NDArray[np.int32],
    int,
]: ...
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
    wall_point: NDArray[np.float64] | None = None,
    wall_unit: NDArray[np.float64] | None = None,
    wall_next: NDArray[np.int32] | None = None,
    wall_prev: NDArray[np.int32] | None = None,
    wall_convex: NDArray[np.uint8] | None = None,
    tree_left: NDArray[np.int32] | None = None,
    tree_right: NDArray[np.int32] | None = None,
    tree_root: int = -1,
    time_horizon_obst: NDArray[np.float64] | None = None,
) -> None: ...
def obstacle_neighbours(
    wall_point: NDArray[np.float64],
    wall_unit: NDArray[np.float64],
    wall_next: NDArray[np.int32],
    wall_prev: NDArray[np.int32],
    wall_convex: NDArray[np.uint8],
    tree_left: NDArray[np.int32],
    tree_right: NDArray[np.int32],
    tree_root: int,
    x: float,
    y: float,
    reach: float,
) -> list[int]: ...
