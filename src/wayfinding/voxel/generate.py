"""Seeded voxel worlds for demos, tests and benchmarks, made with numpy alone.

Each generator returns a 26-connected :class:`~wayfinding.voxel.grid.VoxelGrid` of ``size =
(nx, ny, nz)`` voxels, y up, and is deterministic: the same arguments and ``seed`` give the
same world on every machine (numpy's PCG64 stream).  Every world is *well connected*: after
it is drawn, the free voxels outside its largest connected component are filled in, so any
two free voxels are joined by a path (for every connectivity: components do not depend on it).

>>> from wayfinding.voxel import generate
>>> g = generate.tunnels((24, 16, 24), seed=1)
>>> g.size, g.num_components, g == generate.tunnels((24, 16, 24), seed=1)
((24, 16, 24), 1, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import count, number
from ..errors import InvalidGridError, brief
from .grid import VoxelGrid

#: Largest side a generator accepts.
MAX_SIDE = 2048

__all__ = ["MAX_SIDE", "asteroids", "random_voxels", "towers", "tunnels"]


# ------------------------------------------------------------------ argument checks
def _int(name: str, value: Any, lo: int, hi: int) -> int:
    return count(name, value, min=lo, max=hi, error=InvalidGridError)


def _float(name: str, value: Any, lo: float, hi: float, *, open_hi: bool = False) -> float:
    return number(name, value, min=lo, max=hi, max_open=open_hi, error=InvalidGridError)


def _size(size: Any, least: int) -> tuple[int, int, int]:
    try:
        values = tuple(size)
    except TypeError:
        values = ()
    if len(values) != 3:
        raise InvalidGridError(f"size {brief(size)} must be three integers (nx, ny, nz)")
    nx, ny, nz = (_int(f"size[{i}]", v, least, MAX_SIDE) for i, v in enumerate(values))
    return nx, ny, nz


def _rng(seed: Any) -> np.random.Generator:
    return np.random.default_rng(_int("seed", seed, 0, 2**63 - 1))


def _connected(blocked: np.ndarray) -> VoxelGrid:
    """The grid of ``blocked`` with every free voxel outside the largest component filled."""
    grid = VoxelGrid(blocked)
    labels = grid.components()
    if grid.num_components <= 1:
        return grid
    sizes = np.bincount(labels[labels >= 0])
    return VoxelGrid(labels != int(np.argmax(sizes)))


def _ball(blocked: np.ndarray, centre: np.ndarray, radius: float, value: bool) -> None:
    """Set the voxels whose centres lie within ``radius`` of ``centre`` (x, y, z) to
    ``value``."""
    nz, ny, nx = blocked.shape
    lo = np.maximum(np.floor(centre - radius).astype(int), 0)
    hi = np.minimum(np.ceil(centre + radius).astype(int) + 1, (nx, ny, nz))
    if (hi <= lo).any():
        return
    z, y, x = np.ogrid[lo[2]:hi[2], lo[1]:hi[1], lo[0]:hi[0]]
    inside = ((x + 0.5 - centre[0]) ** 2 + (y + 0.5 - centre[1]) ** 2
              + (z + 0.5 - centre[2]) ** 2) <= radius * radius
    blocked[lo[2]:hi[2], lo[1]:hi[1], lo[0]:hi[0]][inside] = value


# ------------------------------------------------------------------ generators
def random_voxels(size: Any, *, density: float = 0.2, seed: int = 0) -> VoxelGrid:
    """Each voxel blocked independently with probability ``density`` in [0, 1), then made
    well connected.  Below about 0.3 nearly every free voxel is in the largest component
    (6-connected site percolation in 3D holds up to about 0.69 blocked)."""
    nx, ny, nz = _size(size, 1)
    p = _float("density", density, 0.0, 1.0, open_hi=True)
    return _connected(_rng(seed).random((nz, ny, nx)) < p)


def asteroids(size: Any, *, count: int | None = None,
              radius: tuple[float, float] = (2.0, 6.0), seed: int = 0) -> VoxelGrid:
    """Open space with ``count`` lumpy rocks (default: one per 1500 voxels, about a third of
    the space with the default radii): each the union of 1–4 balls whose radii are drawn in
    ``radius = (min, max)`` voxels, the later balls centred on the first one's surface.  Rocks
    may touch and enclose pockets, which are filled in."""
    nx, ny, nz = _size(size, 1)
    n = max(1, nx * ny * nz // 1500) if count is None else _int("count", count, 0, 100_000)
    try:
        r_lo, r_hi = radius
    except (TypeError, ValueError):
        raise InvalidGridError(f"radius {brief(radius)} must be a (min, max) pair") from None
    r_lo = _float("radius minimum", r_lo, 0.5, float(MAX_SIDE))
    r_hi = _float("radius maximum", r_hi, r_lo, float(MAX_SIDE))
    rng = _rng(seed)
    blocked = np.zeros((nz, ny, nx), bool)
    extent = np.array([nx, ny, nz], float)
    for _ in range(n):
        centre = rng.random(3) * extent
        r = rng.uniform(r_lo, r_hi)
        _ball(blocked, centre, r, True)
        for _ in range(int(rng.integers(0, 4))):
            d = rng.normal(size=3)
            d *= r / max(float(np.linalg.norm(d)), 1e-9)
            _ball(blocked, centre + d, rng.uniform(r_lo, r) * 0.8, True)
    return _connected(blocked)


def towers(size: Any, *, block: int = 12, street: int = 4, bridges: float = 0.5,
         seed: int = 0) -> VoxelGrid:
    """A city, y up: the ground (layer y = 0), a grid of blocks ``block`` voxels wide
    separated by streets ``street`` wide, one tower per block (a random footprint inside its
    block and a height up to ``ny - 3``, so the sky above stays open), and, with probability
    ``bridges`` for each pair of towers facing each other across a street, a footbridge two
    voxels wide and one thick across it at a height both towers reach."""
    nx, ny, nz = _size(size, 4)
    b = _int("block", block, 2, MAX_SIDE)
    s = _int("street", street, 1, MAX_SIDE)
    p = _float("bridges", bridges, 0.0, 1.0)
    rng = _rng(seed)
    blocked = np.zeros((nz, ny, nx), bool)
    blocked[:, 0, :] = True
    pitch = b + s
    towers: dict[tuple[int, int], tuple[int, int, int, int, int]] = {}
    for i, x0 in enumerate(range(s, nx, pitch)):
        for j, z0 in enumerate(range(s, nz, pitch)):
            x1, z1 = min(x0 + b, nx), min(z0 + b, nz)
            w, d = x1 - x0, z1 - z0
            fx, fz = int(rng.integers(max(w // 2, 1), w + 1)), int(rng.integers(
                max(d // 2, 1), d + 1))
            ox, oz = x0 + int(rng.integers(0, w - fx + 1)), z0 + int(rng.integers(0, d - fz + 1))
            h = int(rng.integers(min(3, ny - 3), max(ny - 3, 3) + 1))
            blocked[oz:oz + fz, :h, ox:ox + fx] = True
            towers[i, j] = (ox, ox + fx, oz, oz + fz, h)
    for (i, j), (ax0, ax1, az0, az1, ah) in towers.items():
        for other, along_x in (((i + 1, j), True), ((i, j + 1), False)):
            if other not in towers or rng.random() >= p:
                continue
            bx0, bx1, bz0, bz1, bh = towers[other]
            top = min(ah, bh) - 1
            if top < 2:
                continue
            y = int(rng.integers(1, top + 1))
            if along_x:
                lo, hi = max(az0, bz0), min(az1, bz1)
                if hi - lo < 2:
                    continue
                z = int(rng.integers(lo, hi - 1))
                blocked[z:z + 2, y, ax1:bx0] = True
            else:
                lo, hi = max(ax0, bx0), min(ax1, bx1)
                if hi - lo < 2:
                    continue
                x = int(rng.integers(lo, hi - 1))
                blocked[az1:bz0, y, x:x + 2] = True
    return _connected(blocked)


def tunnels(size: Any, *, chambers: int | None = None,
          radius: tuple[float, float] = (1.5, 3.0), seed: int = 0) -> VoxelGrid:
    """Solid rock with ``chambers`` round chambers (default: one per 4000 voxels, at least 4)
    joined by winding tunnels: from the first chamber, each tunnel goes to the nearest chamber
    not yet reached, a random walk drifting towards it that carves a ball of radius drawn in
    ``radius = (min, max)`` voxels at each step (chambers are twice as wide)."""
    nx, ny, nz = _size(size, 3)
    n = max(4, nx * ny * nz // 4000) if chambers is None else _int("chambers", chambers, 1,
                                                                     10_000)
    try:
        r_lo, r_hi = radius
    except (TypeError, ValueError):
        raise InvalidGridError(f"radius {brief(radius)} must be a (min, max) pair") from None
    r_lo = _float("radius minimum", r_lo, 0.5, float(MAX_SIDE))
    r_hi = _float("radius maximum", r_hi, r_lo, float(MAX_SIDE))
    rng = _rng(seed)
    blocked = np.ones((nz, ny, nx), bool)
    extent = np.array([nx, ny, nz], float)
    margin = np.minimum(extent / 2, 1.0)
    points = margin + rng.random((n, 3)) * (extent - 2 * margin)
    for c in points:
        _ball(blocked, c, 2 * rng.uniform(r_lo, r_hi), False)
    order = [0]
    left = np.ones(n, bool)
    left[0] = False
    for _ in range(n - 1):
        d = np.abs(points - points[order[-1]]).sum(axis=1)
        d[~left] = np.inf
        order.append(int(np.argmin(d)))
        left[order[-1]] = False
    points = points[order]
    for a, b in zip(points[:-1], points[1:], strict=True):
        pos = a.copy()
        for _ in range(int(4 * np.abs(b - a).sum()) + 8):
            gap = b - pos
            dist = float(np.linalg.norm(gap))
            if dist < 1.0:
                break
            step = gap / dist + rng.normal(scale=0.8, size=3)
            pos = np.clip(pos + step / max(float(np.linalg.norm(step)), 1e-9), margin,
                          extent - margin)
            _ball(blocked, pos, rng.uniform(r_lo, r_hi), False)
        _ball(blocked, b, r_hi, False)
        # A walk that ran out of steps ends in a straight bore, so the chain never breaks.
        for t in np.linspace(0.0, 1.0, 2 * int(np.linalg.norm(b - pos)) + 2):
            _ball(blocked, pos + t * (b - pos), max(r_lo, 1.0), False)
    return _connected(blocked)
