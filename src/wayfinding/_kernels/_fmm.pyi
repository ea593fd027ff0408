import numpy as np
from numpy.typing import NDArray

def march(
    slowness: NDArray[np.float64],
    T: NDArray[np.float64],
    flag: NDArray[np.uint8],
    width: int,
    h: float,
    order: int,
    limit: float,
) -> int: ...

def eikonal(
    world: NDArray[np.float64],
    sources: NDArray[np.int64] | list[tuple[int, int]] | tuple[tuple[int, int], ...],
    costs: bool,
    h: float,
    order: int,
    limit: float,
) -> tuple[NDArray[np.float64] | None, int, int]: ...
