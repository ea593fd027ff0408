import numpy as np
from numpy.typing import NDArray

def build_polymesh(
    verts: NDArray[np.int32],
    first: NDArray[np.int64],
    regs: NDArray[np.uint16],
    areas: NDArray[np.uint8],
    nvp: int,
    width: int,
    depth: int,
    border: int,
) -> tuple[NDArray[np.uint16], NDArray[np.uint16], NDArray[np.uint16], NDArray[np.uint8]]: ...
