import numpy as np
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

@disjoint_base
class SubgoalQuery:
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
        components: NDArray[np.int32],
    ) -> Self: ...
    @property
    def nbytes(self) -> int: ...
    def query(
        self, sx: int, sy: int, tx: int, ty: int, record: bool = False
    ) -> tuple[int, float, int, int, int, int, NDArray[np.int64] | None]: ...
    def path(self) -> NDArray[np.int64]: ...
    def waypoints(self) -> NDArray[np.int64]: ...
    def recorded(self) -> NDArray[np.int64]: ...
    def open_cells(self) -> NDArray[np.int64]: ...
