import numpy as np
from numpy.typing import NDArray

from ._workspace import Workspace

def jps_search(
    ws: Workspace, moves: NDArray[np.uint8], width: int, start: int, goal: int, record: bool
) -> tuple[bool, float, int, int, int, int]: ...
def jump_path(ws: Workspace, goal: int, width: int) -> NDArray[np.int64]: ...
