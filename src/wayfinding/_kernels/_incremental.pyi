from typing import final

import numpy as np
from numpy.typing import NDArray

@final
class IncrementalCore:
    h_scale: float
    initialised: int
    root: int
    target: int
    km: float
    expanded: int
    eps: float
    anytime: bool
    @staticmethod
    def on_grid(
        costs: NDArray[np.float64],
        need_sides: int,
        diagonal: bool,
        h_scale: float,
        root: int,
        target: int,
    ) -> IncrementalCore: ...
    @staticmethod
    def on_graph(
        n: int,
        pull_ptr: NDArray[np.int64],
        pull_nbr: NDArray[np.int32],
        pull_edge: NDArray[np.int64],
        push_ptr: NDArray[np.int64],
        push_nbr: NDArray[np.int32],
        push_edge: NDArray[np.int64],
        cost: NDArray[np.float64],
        coords: NDArray[np.float64],
        h_scale: float,
        root: int,
        target: int,
    ) -> IncrementalCore: ...
    def distance(self, a: int, b: int) -> float: ...
    def nodes_changed(self, nodes: NDArray[np.int64]) -> None: ...
    def reset_keys(self) -> None: ...
    def compute(self, budget: int = -1) -> float | None: ...
    def walk(self, s: int, limit: int) -> tuple[NDArray[np.int64], NDArray[np.int64], float]: ...
    def edge_costs(self, edges: NDArray[np.int64]) -> NDArray[np.float64]: ...
    def set_cells(self, cells: NDArray[np.int64], values: NDArray[np.float64]) -> float: ...
    @property
    def g(self) -> NDArray[np.float64]: ...
    @property
    def rhs(self) -> NDArray[np.float64]: ...
    def queued(self) -> tuple[list[int], bool]: ...
    def next_round(self, eps: float) -> None: ...
    def restart(self, root: int, target: int) -> None: ...

def pool_bytes() -> int: ...
def pool_cap(nbytes: int = -1) -> int: ...
def release_pool() -> int: ...
