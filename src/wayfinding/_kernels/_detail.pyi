import numpy as np
from numpy.typing import NDArray

def build(
    first: NDArray[np.int64],
    con: NDArray[np.uint32],
    y: NDArray[np.uint16],
    reg: NDArray[np.uint16],
    width: int,
    depth: int,
    cs: float,
    ch: float,
    mverts: NDArray[np.uint16],
    polys: NDArray[np.uint16],
    regs: NDArray[np.uint16],
    bmin: NDArray[np.float32],
    border: int,
    max_edge_error: float,
    sample_dist: float,
    max_error: float,
) -> tuple[NDArray[np.uint32], NDArray[np.float32], NDArray[np.uint8]]: ...
