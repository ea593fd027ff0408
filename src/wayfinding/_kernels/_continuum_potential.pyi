import numpy as np
from numpy.typing import NDArray

def ring_size(alpha: float, beta: float, min_speed: float) -> int: ...
def shared_words() -> int: ...
def update(
    cells: NDArray[np.float64],
    link: NDArray[np.int32],
    bits: NDArray[np.uint64],
    order: NDArray[np.int32],
    shared: NDArray[np.uint64],
    walls: NDArray[np.uint8],
    positions: NDArray[np.float64],
    velocities: NDArray[np.float64],
    goals: NDArray[np.int32],
    width: int,
    height: int,
    radius: float,
    offset: int,
    rho_min: float,
    rho_max: float,
    alpha: float,
    beta: float,
    min_speed: float,
    vectors: NDArray[np.float64],
    epoch: int,
) -> int: ...
def assist(
    cells: NDArray[np.float64],
    order: NDArray[np.int32],
    shared: NDArray[np.uint64],
    walls: NDArray[np.uint8],
    positions: NDArray[np.float64],
    velocities: NDArray[np.float64],
    width: int,
    height: int,
    radius: float,
    offset: int,
    rho_min: float,
    rho_max: float,
    alpha: float,
    beta: float,
    min_speed: float,
    vectors: NDArray[np.float64],
    epoch: int,
) -> None: ...
