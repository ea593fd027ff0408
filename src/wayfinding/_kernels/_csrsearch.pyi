import numpy as np
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

from ._workspace import Workspace

@disjoint_base
class CSRRun:
    @property
    def status(self) -> int: ...
    def __new__(
        cls,
        ws: Workspace,
        indptr: NDArray[np.int64],
        indices: NDArray[np.int32],
        weights: NDArray[np.float64],
        coords: NDArray[np.float64],
        start: int,
        goal: int,
        hscale: float,
        record: bool,
        to_pivot: NDArray[np.float64] = ...,
        from_pivot: NDArray[np.float64] = ...,
        boxes: NDArray[np.float32] = ...,
        zone: NDArray[np.int32] = ...,
        zone_table: NDArray[np.float64] = ...,
    ) -> Self: ...
    @property
    def stale(self) -> bool: ...
    @property
    def cost(self) -> float: ...
    @property
    def counters(self) -> tuple[int, int, int]: ...
    def advance(self, max_expansions: int = -1, max_seconds: float = ...) -> int: ...

def search(
    ws: Workspace,
    indptr: NDArray[np.int64],
    indices: NDArray[np.int32],
    weights: NDArray[np.float64],
    coords: NDArray[np.float64],
    start: int,
    goal: int,
    hscale: float,
    record: bool,
    to_pivot: NDArray[np.float64] = ...,
    from_pivot: NDArray[np.float64] = ...,
    boxes: NDArray[np.float32] = ...,
    zone: NDArray[np.int32] = ...,
    zone_table: NDArray[np.float64] = ...,
) -> tuple[bool, float, int, int, int]: ...
def distances(ws: Workspace, out: NDArray[np.float64]) -> None: ...
def weak_components(
    indptr: NDArray[np.int64], indices: NDArray[np.int32], out: NDArray[np.int32]
) -> int: ...
def goal_bounds(
    ws: Workspace,
    indptr: NDArray[np.int64],
    indices: NDArray[np.int32],
    weights: NDArray[np.float64],
    coords: NDArray[np.float64],
    first: int,
    last: int,
    masks: NDArray[np.uint64],
    order: NDArray[np.int32],
    out: NDArray[np.float32],
) -> None: ...
