import numpy as np
from numpy.typing import NDArray

from ._workspace import Workspace

def corridor_search(
    ws: Workspace,
    cost: NDArray[np.float64],
    moves: NDArray[np.uint8],
    width: int,
    start: int,
    goal: int,
    zone: NDArray[np.int32],
    mark: NDArray[np.uint32],
    stamp: int,
    hkind: int,
    hscale: float,
    uniform: bool,
) -> tuple[bool, float, int, int]: ...
def abstract_search(
    ws: Workspace,
    indptr: NDArray[np.int64],
    indices: NDArray[np.int32],
    weights: NDArray[np.float64],
    xy: NDArray[np.int32],
    start: int,
    goal: int,
    hkind: int,
    hscale: float,
) -> tuple[bool, float, int, int, int]: ...
def corridor_jps(
    ws: Workspace,
    cost: NDArray[np.float64],
    width: int,
    start: int,
    goal: int,
    zone: NDArray[np.int32],
    mark: NDArray[np.uint32],
    stamp: int,
) -> tuple[bool, float, int, int, NDArray[np.int64]]: ...
