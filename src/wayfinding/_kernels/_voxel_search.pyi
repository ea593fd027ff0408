import numpy as np
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

_Result = tuple[bool, float, NDArray[np.int64], int, int, int, int]

@disjoint_base
class VoxelMoves:
    @property
    def n(self) -> int: ...
    @property
    def size(self) -> int: ...
    def __new__(
        cls,
        padded: NDArray[np.uint8],
        offsets: NDArray[np.int64],
        costs: NDArray[np.float64],
        need: NDArray[np.uint32],
        deltas: NDArray[np.int32],
        prune: NDArray[np.int8],
    ) -> Self: ...

@disjoint_base
class VoxelScratch:
    @property
    def size(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    def __new__(cls, size: int) -> Self: ...

def astar(ws: VoxelScratch, m: VoxelMoves, start: int, goal: int, heuristic: bool) -> _Result: ...
def bidirectional(
    fw: VoxelScratch, bw: VoxelScratch, m: VoxelMoves, start: int, goal: int
) -> _Result: ...
def flood(
    ws: VoxelScratch, m: VoxelMoves, source: int, max_cost: float, out: NDArray[np.float64]
) -> int: ...
