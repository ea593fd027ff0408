import numpy as np
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

from ._workspace import Workspace

@disjoint_base
class GridRun:
    @property
    def status(self) -> int: ...
    def __new__(
        cls,
        ws: Workspace,
        cost: NDArray[np.float64],
        moves: NDArray[np.uint8],
        width: int,
        start: int,
        goal: int,
        hkind: int,
        hscale: float,
        greedy: bool,
        record: bool,
        uniform: bool = False,
        pivots: NDArray[np.float64] = ...,
        pscale: float = 1.0,
        bounds: NDArray[np.uint16] | None = None,
    ) -> Self: ...
    @property
    def stale(self) -> bool: ...
    @property
    def cost(self) -> float: ...
    @property
    def counters(self) -> tuple[int, int, int, int]: ...
    def advance(self, max_expansions: int = -1, max_seconds: float = ...) -> int: ...

@disjoint_base
class BfsRun:
    @property
    def status(self) -> int: ...
    def __new__(
        cls,
        ws: Workspace,
        moves: NDArray[np.uint8],
        width: int,
        start: int,
        goal: int,
        record: bool,
    ) -> Self: ...
    @property
    def stale(self) -> bool: ...
    @property
    def counters(self) -> tuple[int, int, int, int]: ...
    def advance(self, max_expansions: int = -1, max_seconds: float = ...) -> int: ...

@disjoint_base
class BidirectionalRun:
    @property
    def meet(self) -> int: ...
    @property
    def status(self) -> int: ...
    def __new__(
        cls,
        fw: Workspace,
        bw: Workspace,
        cost: NDArray[np.float64],
        moves: NDArray[np.uint8],
        width: int,
        start: int,
        goal: int,
        hkind: int,
        hscale: float,
    ) -> Self: ...
    @property
    def stale(self) -> bool: ...
    @property
    def counters(self) -> tuple[int, int, int, int]: ...
    @property
    def cost(self) -> float: ...
    def advance(self, max_expansions: int = -1, max_seconds: float = ...) -> int: ...

def search(
    ws: Workspace,
    cost: NDArray[np.float64],
    moves: NDArray[np.uint8],
    width: int,
    start: int,
    goal: int,
    hkind: int,
    hscale: float,
    greedy: bool,
    record: bool,
    uniform: bool = False,
    pivots: NDArray[np.float64] = ...,
    pscale: float = 1.0,
    bounds: NDArray[np.uint16] | None = None,
) -> tuple[bool, float, int, int, int, int]: ...
@disjoint_base
class CellSearch:
    def __init__(
        self,
        cost: NDArray[np.float64],
        moves: NDArray[np.uint8],
        islands: NDArray[np.int32],
        uniform: bool,
    ) -> None: ...
    def find(
        self,
        ws: Workspace,
        start: object,
        goal: object,
        hkind: int,
        hscale: float,
        greedy: bool,
    ) -> tuple[int, float, int, int, int, int, NDArray[np.int64] | None] | None: ...

def flood(
    ws: Workspace,
    cost: NDArray[np.float64],
    moves: NDArray[np.uint8],
    width: int,
    sources: NDArray[np.int64],
    limit: float,
    out: NDArray[np.float64],
) -> int: ...
