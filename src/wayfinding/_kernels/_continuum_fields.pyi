import numpy as np
from numpy.typing import NDArray

def splat(
    positions: NDArray[np.float64],
    velocities: NDArray[np.float64],
    radius: float,
    width: int,
    height: int,
    density: NDArray[np.float64],
    vx: NDArray[np.float64],
    vy: NDArray[np.float64],
) -> None: ...
def speed_and_cost(
    cells: NDArray[np.float64],
    walls: NDArray[np.uint8],
    width: int,
    height: int,
    offset: int,
    rho_min: float,
    rho_max: float,
    alpha: float,
    beta: float,
    min_speed: float,
    speed: NDArray[np.float64],
    cost: NDArray[np.float64],
) -> None: ...
