import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

@disjoint_base
class PolyanyaKernel:
    def __init__(
        self,
        verts: NDArray[np.float64],
        polys: NDArray[np.int32],
        sizes: NDArray[np.int32],
        neigh: NDArray[np.int32],
    ) -> None: ...
    def find(
        self,
        allowed: NDArray[np.uint8],
        corner: NDArray[np.uint8],
        start_poly: int,
        sx: float,
        sy: float,
        goal_poly: int,
        gx: float,
        gy: float,
    ) -> tuple[
        bool, int, int, NDArray[np.float64], NDArray[np.int32], NDArray[np.int32]
    ]: ...
