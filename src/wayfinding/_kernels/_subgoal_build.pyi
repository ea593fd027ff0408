from typing import Any

import numpy as np
from numpy.typing import NDArray

def find_subgoals(
    free: NDArray[np.uint8], width: int
) -> tuple[NDArray[np.int32], NDArray[np.int32]]: ...
def clearances(
    moves: NDArray[np.uint8], sid: NDArray[np.int32], width: int
) -> NDArray[np.uint16]: ...
def reachable_from(
    moves: NDArray[np.uint8],
    clear: NDArray[np.uint16],
    sid: NDArray[np.int32],
    width: int,
    cell: int,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]: ...
def build_graph(
    moves: NDArray[np.uint8],
    clear: NDArray[np.uint16],
    sid: NDArray[np.int32],
    width: int,
    cells: NDArray[np.int32],
    levels: int,
) -> tuple[
    NDArray[np.int8],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int32],
    NDArray[np.float64],
    dict[str, Any],
]: ...
