from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

FOUND: int
FAILED: int
OUT_OF_BUDGET: int

@disjoint_base
class Walls:
    def __init__(
        self,
        a: NDArray[np.float64],
        b: NDArray[np.float64],
        ptr: NDArray[np.int64],
        members: NDArray[np.int32],
        ox: float,
        oy: float,
        cell: float,
        nx: int,
        ny: int,
    ) -> None: ...
    def clear(self, points: NDArray[np.float64], radius: float) -> bool: ...

@disjoint_base
class Field:
    def at(self, x: float, y: float) -> float: ...

@disjoint_base
class GridField(Field):
    def __init__(
        self,
        ox: float,
        oy: float,
        cs: float,
        free: NDArray[np.uint8],
        distance: Callable[[float, float], float],
    ) -> None: ...

@disjoint_base
class MeshField(Field):
    def __init__(
        self,
        verts: NDArray[np.float64],
        polys: NDArray[np.int32],
        sizes: NDArray[np.int32],
        neighbours: NDArray[np.int32],
        cell_ptr: NDArray[np.int64],
        cell_polys: NDArray[np.int32],
        box_x: float,
        box_y: float,
        box_cell: float,
        nx: int,
        ny: int,
        distance: Callable[[float, float], float],
        lx: float,
        ly: float,
        spacing: float,
        columns: int,
    ) -> None: ...

def least_turn(h: float, dx: float, dy: float, gh: float, tol: float, htol: float) -> float: ...
def plan(
    walls: Walls,
    field: Field,
    clip_from: NDArray[np.int32],
    clip_to: NDArray[np.int32],
    dx: NDArray[np.float64],
    dy: NDArray[np.float64],
    rotation: NDArray[np.float64],
    cost: NDArray[np.float64],
    sample_ptr: NDArray[np.int64],
    samples: NDArray[np.float64],
    follow_ptr: NDArray[np.int64],
    follow: NDArray[np.int32],
    ends: NDArray[np.uint8],
    start: NDArray[np.float64],
    start_state: int,
    goal: NDArray[np.float64],
    *,
    tol: float,
    htol: float,
    radius: float,
    position_resolution: float,
    heading_resolution: float,
    vmax: float,
    turning: float,
    exact: bool,
    field_after: int,
    limit: int,
) -> tuple[int, NDArray[np.float64], NDArray[np.int32], int, int, int, int, int]: ...
