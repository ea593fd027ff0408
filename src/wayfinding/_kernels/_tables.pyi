from typing import Any

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

@disjoint_base
class NextTable:
    def __init__(self, nxt: NDArray[Any]) -> None: ...
    def walk(self, s: int, g: int) -> NDArray[np.int64]: ...

@disjoint_base
class ExitLevel:
    def __init__(
        self,
        indptr: NDArray[Any],
        indices: NDArray[Any],
        weights: NDArray[Any],
        tile: NDArray[Any],
        comp: NDArray[Any],
        centre: NDArray[Any],
        goal_pos: NDArray[Any],
        tnode_ptr: NDArray[Any],
        blk_ptr: NDArray[Any],
        blk_nodes: NDArray[Any],
        near_ptr: NDArray[Any],
        near: NDArray[Any],
        leg_ptr: NDArray[Any],
        leg_nodes: NDArray[Any],
        leg_slot: NDArray[Any],
        tw: int,
    ) -> None: ...
    def walk(
        self, route: NDArray[np.int64], s: int, g: int, limit: int
    ) -> tuple[int, NDArray[np.int64], float, int]: ...
