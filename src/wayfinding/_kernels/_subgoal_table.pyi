from typing import Any

import numpy as np
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

RESULT_FIELDS: tuple[str, ...]
STATS_FIELDS: tuple[str, ...]

def build_table(
    top_nodes: NDArray[np.int32],
    top_index: NDArray[np.int32],
    indptr: NDArray[np.int64],
    core_end: NDArray[np.int64],
    targets: NDArray[np.int32],
    costs: NDArray[np.float64],
    xy: NDArray[np.int32],
) -> NDArray[np.uint32] | None: ...
def table_square(triangle: NDArray[np.uint32]) -> NDArray[np.uint32]: ...
def table_lengths(table: NDArray[np.uint32]) -> NDArray[np.float64]: ...

@disjoint_base
class TableQuery:
    def __new__(
        cls,
        moves: NDArray[np.uint8],
        clear: NDArray[np.uint16],
        sid: NDArray[np.int32],
        width: int,
        cells: NDArray[np.int32],
        xy: NDArray[np.int32],
        level: NDArray[np.int8],
        indptr: NDArray[np.int64],
        core_end: NDArray[np.int64],
        targets: NDArray[np.int32],
        costs: NDArray[np.float64],
        top: int,
        top_index: NDArray[np.int32],
        table: NDArray[np.float64] | NDArray[np.uint32],
        components: NDArray[np.int32],
        result: Any,
        stats: Any,
        algorithm: str,
        found: Any,
        failed: Any,
    ) -> Self: ...
    @property
    def nbytes(self) -> int: ...
    def find_path(self, start: Any, goal: Any) -> Any: ...
    def find_paths(self, starts: NDArray[np.int64], goals: NDArray[np.int64]) -> list[Any]: ...
    def find_costs(
        self, starts: NDArray[np.int64], goals: NDArray[np.int64]
    ) -> NDArray[np.float64]: ...
    def waypoints(self) -> NDArray[np.int64]: ...
