import numpy as np
from numpy.typing import NDArray

from ._workspace import Workspace

def astar(
    ws: Workspace,
    padded: NDArray[np.uint8],
    offsets: NDArray[np.int64],
    costs: NDArray[np.float64],
    need: NDArray[np.uint32],
    start: int,
    goal: int,
    heuristic: bool,
) -> tuple[bool, float, NDArray[np.int64], int, int, int, int]: ...
def bidirectional(
    fw: Workspace,
    bw: Workspace,
    padded: NDArray[np.uint8],
    offsets: NDArray[np.int64],
    costs: NDArray[np.float64],
    need: NDArray[np.uint32],
    start: int,
    goal: int,
) -> tuple[bool, float, NDArray[np.int64], int, int, int, int]: ...
def flood(
    ws: Workspace,
    padded: NDArray[np.uint8],
    offsets: NDArray[np.int64],
    costs: NDArray[np.float64],
    need: NDArray[np.uint32],
    source: int,
    max_cost: float,
    out: NDArray[np.float64],
) -> int: ...
