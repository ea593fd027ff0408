import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

from ._workspace import Workspace

JPS: int
JPS2: int

@disjoint_base
class JumpGrid:
    width: int
    height: int
    size: int
    def __init__(
        self, moves: NDArray[np.uint8], width: int, islands: NDArray[np.int32] | None = None
    ) -> None: ...
    @property
    def nbytes(self) -> int: ...
    def reach_bits(self, d: int) -> NDArray[np.bool_]: ...
    def diagonal_stops(self, d: int) -> NDArray[np.bool_]: ...
    def search(
        self,
        ws: Workspace,
        start: object,
        goal: object,
        record: bool = False,
        variant: int = 0,
    ) -> tuple[int, float, int, int, int, int, NDArray[np.int64] | None] | None: ...

def jps_search(
    ws: Workspace, moves: NDArray[np.uint8], width: int, start: int, goal: int, record: bool
) -> tuple[bool, float, int, int, int, int]: ...
def jump_path(ws: Workspace, goal: int, width: int) -> NDArray[np.int64]: ...
