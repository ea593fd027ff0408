import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

def morton_encode3(cells: NDArray[np.int64], out: NDArray[np.uint64]) -> None: ...
def morton_decode3(codes: NDArray[np.uint64], out: NDArray[np.int64]) -> None: ...
def leaf_masks(
    words: NDArray[np.uint64],
    nx: int,
    ny: int,
    nz: int,
    lz0: int,
    lz1: int,
    out: NDArray[np.uint64],
) -> None: ...
def neighbour_links(
    codes: NDArray[np.uint64],
    parent_global: NDArray[np.int64],
    neigh: NDArray[np.uint32],
    layer: int,
    side: int,
    start: int,
    lo: int,
    hi: int,
) -> None: ...
def shortcut(padded: NDArray[np.uint8], cells: NDArray[np.int64]) -> NDArray[np.int64]: ...

@disjoint_base
class SvoQuery:
    num_layers: int
    num_nodes: int
    def __new__(
        cls,
        child: NDArray[np.uint32],
        neigh: NDArray[np.uint32],
        leaves: NDArray[np.uint64],
        start: NDArray[np.int64],
        lo: NDArray[np.int32],
        layer: NDArray[np.uint8],
    ) -> SvoQuery: ...
    @property
    def nbytes(self) -> int: ...
    def locate(self, cells: NDArray[np.int64], out: NDArray[np.uint32]) -> None: ...
    def find_path(
        self,
        sx: int,
        sy: int,
        sz: int,
        gx: int,
        gy: int,
        gz: int,
        *,
        weight: float,
        unit: float,
        kg: float,
        kh: float,
        face: bool,
        connectivity: int,
        max_expanded: int,
    ) -> tuple[
        int, NDArray[np.int64], NDArray[np.uint32], int, int, NDArray[np.int64]
    ]: ...

def tighten(
    padded: NDArray[np.uint8], cells: NDArray[np.int64], connectivity: int
) -> NDArray[np.int64]: ...
def segments_clear(
    padded: NDArray[np.uint8], pts: NDArray[np.float64], margin: float, out: NDArray[np.uint8]
) -> None: ...
def catmull_rom_spans(
    p: NDArray[np.float64], spacing: float, alpha: float
) -> tuple[NDArray[np.float64], NDArray[np.int64]]: ...
