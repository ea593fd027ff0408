from typing import Any

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

from ._guard import Guard

@disjoint_base
class MeshQuery:
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
        link_ptr: NDArray[np.int64],
        link_to: NDArray[np.int32],
        link_pts: NDArray[np.float64],
        link_cost: NDArray[np.float64],
        link_ref: NDArray[np.int32],
    ) -> None: ...
    def portal(self, p: int, q: int) -> tuple[int, int] | None: ...
    def locate_one(self, x: float, y: float) -> int: ...
    def use_filter(
        self,
        allowed: NDArray[np.uint8],
        cost: NDArray[np.float64],
        link_ok: NDArray[np.uint8],
        h_scale: float,
        both_ways: bool,
        corner: NDArray[np.uint8] | None = None,
        exact: Any = None,
    ) -> None: ...
    def bind(self, guard: Guard, path_type: type, statuses: tuple[Any, ...]) -> None: ...
    def find_path(self, start: object, goal: object, partial: object) -> Any: ...
    def find_many(
        self, starts: object, goals: object, partial: bool
    ) -> (
        tuple[
            NDArray[np.int8],
            NDArray[np.float64],
            NDArray[np.int64],
            NDArray[np.int64],
            NDArray[np.int32],
            NDArray[np.int64],
            NDArray[np.float64],
            NDArray[np.uint8],
        ]
        | None
    ): ...

def locate(
    verts: NDArray[np.float64],
    polys: NDArray[np.int32],
    sizes: NDArray[np.int32],
    cell_ptr: NDArray[np.int64],
    cell_polys: NDArray[np.int32],
    ox: float,
    oy: float,
    cell: float,
    nx: int,
    ny: int,
    points: NDArray[np.float64],
    out: NDArray[np.int32],
) -> None: ...
def nearest(
    verts: NDArray[np.float64],
    polys: NDArray[np.int32],
    sizes: NDArray[np.int32],
    cell_ptr: NDArray[np.int64],
    cell_polys: NDArray[np.int32],
    ox: float,
    oy: float,
    cell: float,
    nx: int,
    ny: int,
    allowed: NDArray[np.uint8],
    points: NDArray[np.float64],
    out: NDArray[np.int32],
    snapped: NDArray[np.float64],
) -> None: ...
def funnel(
    left: NDArray[np.float64],
    right: NDArray[np.float64],
    out: NDArray[np.float64],
    index: NDArray[np.int32],
) -> int: ...
