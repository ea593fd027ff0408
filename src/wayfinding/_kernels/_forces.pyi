import numpy as np
from numpy.typing import NDArray

def pairs(
    kind: int,
    w: NDArray[np.float64],
    v: NDArray[np.float64],
    r: NDArray[np.float64],
    k: float,
    m: float,
    tau0: float,
    max_force: float,
    out: NDArray[np.float64],
) -> None: ...
def neighbours(
    kind: int,
    position: NDArray[np.float64],
    velocity: NDArray[np.float64],
    radius: NDArray[np.float64],
    rows: NDArray[np.int32],
    counts: NDArray[np.int32],
    k: float,
    m: float,
    tau0: float,
    max_force: float,
    out: NDArray[np.float64],
) -> None: ...

ANTICIPATORY: int
POWER_LAW: int
