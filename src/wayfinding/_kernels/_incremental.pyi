from typing import Any

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

@disjoint_base
class IncrementalCore:
    h_scale: float
    g: Any  # typed memoryview of float64
    rhs: Any  # typed memoryview of float64
    root: int
    target: int
    km: float
    expanded: int
    eps: float
    anytime: bool
    def __init__(
        self,
        n: int,
        pull_ptr: NDArray[np.int64],
        pull_nbr: NDArray[np.int32],
        pull_edge: NDArray[np.int64],
        push_ptr: NDArray[np.int64],
        push_nbr: NDArray[np.int32],
        cost: NDArray[np.float64],
        coords: NDArray[np.float64],
        h_scale: float,
        root: int,
        target: int,
    ) -> None: ...
    def nodes_changed(self, nodes: NDArray[np.int64]) -> None: ...
    def reset_keys(self) -> None: ...
    def compute(self, budget: int = -1) -> float | None: ...
    def walk(self, s: int, limit: int) -> tuple[NDArray[np.int64], NDArray[np.int64], float]: ...
    def queued(self) -> tuple[list[int], bool]: ...
    def next_round(self, eps: float) -> None: ...
    def restart(self, root: int, target: int) -> None: ...

def grid_cells_changed(
    core: IncrementalCore,
    cells_cost: NDArray[np.float64],
    cells: NDArray[np.int64],
    values: NDArray[np.float64],
    by_source: NDArray[np.int64],
    src: NDArray[np.int64],
    dst: NDArray[np.int64],
    need_sides: int,
    backward: bool,
) -> float: ...
