from typing import Any

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
        cell_ptr: NDArray[np.int64],
        cell_polys: NDArray[np.int32],
        ox: float,
        oy: float,
        cell: float,
        nx: int,
        ny: int,
    ) -> None: ...
    def find(
        self,
        allowed: NDArray[np.uint8],
        corner: NDArray[np.uint8],
        sx: float,
        sy: float,
        gx: float,
        gy: float,
        start_poly: int = -1,
        goal_poly: int = -1,
    ) -> tuple[Any, ...]: ...
    def find_at(
        self,
        allowed: NDArray[np.uint8],
        corner: NDArray[np.uint8],
        start: object,
        goal: object,
    ) -> tuple[float, float, float, float, tuple[Any, ...]] | None: ...
