from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

KEY_RANGE: int
FOUND: int
FAILED: int
OUT_OF_BUDGET: int

@disjoint_base
class Body:
    def clear(self, poses: NDArray[np.float64]) -> bool: ...

@disjoint_base
class GridBody(Body):
    def __init__(
        self,
        blocked: NDArray[np.uint8],
        near: NDArray[np.uint8],
        ox: float,
        oy: float,
        cs: float,
        a: float,
        b: float,
        step: float,
    ) -> None: ...
    def aim(self, distances: NDArray[np.float64]) -> None: ...

@disjoint_base
class MeshBody(Body):
    def __init__(
        self,
        verts: NDArray[np.float64],
        polys: NDArray[np.int32],
        sizes: NDArray[np.int32],
        cell_ptr: NDArray[np.int64],
        cell_polys: NDArray[np.int32],
        box_x: float,
        box_y: float,
        box_cell: float,
        nx: int,
        ny: int,
        wall_a: NDArray[np.float64],
        wall_b: NDArray[np.float64],
        normals: NDArray[np.float64],
        a: float,
        b: float,
        step: float,
    ) -> None: ...
    def aim(self, distance: Callable[[float, float], float]) -> None: ...

def plan(
    body: Body,
    start: NDArray[np.float64],
    goal: NDArray[np.float64],
    *,
    radius: float,
    reverse: bool,
    back_cost: float,
    cell: float,
    bins: int,
    every: int,
    limit: int,
) -> tuple[int, NDArray[np.float64], NDArray[np.int8], float, float, int, int, int]: ...
