"""Moving AI 3D benchmark files: ``.3dmap`` voxel maps and ``.3dmap.3dscen`` scenarios.

A ``.3dmap`` starts with ``voxel X Y Z`` and lists one blocked voxel ``x y z`` per line.  A
scenario starts with ``version 1`` and the map's file name, then one problem per line: start
``x y z``, goal ``x y z``, the optimal length (26-connected, costs 1, √2, √3, a move needing its
whole cube free) and the ratio of that length to the straight-line distance.  Errors name the
file and the line.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._io import atomic_write_text, read_text
from ..errors import MapFormatError, ScenarioFormatError, brief
from .grid import MAX_SIDE, VoxelGrid


def read_3dmap(path: str | os.PathLike, **options: Any) -> VoxelGrid:
    """Read a ``.3dmap`` file into a :class:`VoxelGrid` (``options``: ``origin``,
    ``voxel_size``, ``connectivity``).  Raises :class:`MapFormatError` naming the line."""
    text = read_text(path, MapFormatError)
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        raise MapFormatError("empty file", path)
    head = lines[first].split()
    if len(head) != 4 or head[0].lower() != "voxel" or not all(_digits(w) for w in head[1:]):
        raise MapFormatError(f"expected a header 'voxel X Y Z', got "
                             f"{brief(lines[first].strip())}", path, first + 1)
    size = tuple(int(w) for w in head[1:])
    if min(size) < 1 or max(size) >= MAX_SIDE:
        raise MapFormatError(f"map size {size} must be positive and below 2**20 a side",
                             path, first + 1)
    body = lines[first + 1:]
    rows = [w for w in (ln.split() for ln in body) if w]
    ok = all(len(w) == 3 and _digits(w[0]) and _digits(w[1]) and _digits(w[2]) for w in rows)
    if ok:
        try:
            cells = np.array(rows, dtype=np.int64).reshape(-1, 3)
        except OverflowError:            # beyond int64: outside the map
            ok = False
        else:
            ok = not ((cells >= size).any())
    if not ok:
        _find_bad_line(body, size, path, first + 2)
    return VoxelGrid.from_cells(size, cells, **options)


def _digits(word: str) -> bool:
    return word.isascii() and word.isdigit()


def _find_bad_line(body: list[str], size: tuple[int, ...], path: Any, line0: int) -> None:
    for i, ln in enumerate(body):
        w = ln.split()
        if not w:
            continue
        if len(w) != 3 or not all(_digits(v) for v in w):
            raise MapFormatError(f"expected a voxel 'x y z' of three non-negative integers, "
                                 f"got {brief(ln.strip())}", path, line0 + i)
        if any(int(v) >= s for v, s in zip(w, size, strict=True)):
            raise MapFormatError(f"voxel {tuple(int(v) for v in w)} is outside the map of "
                                 f"size {size}", path, line0 + i)
    raise MapFormatError("malformed voxel list", path)  # pragma: no cover - caught above


def format_3dmap(grid: VoxelGrid) -> str:
    """The text of a ``.3dmap`` file for ``grid``."""
    nx, ny, nz = grid.size
    z, y, x = np.nonzero(grid.blocked)
    order = np.lexsort((z, y, x))
    rows = "".join(f"{a} {b} {c}\n" for a, b, c in zip(x[order], y[order], z[order],
                                                       strict=True))
    return f"voxel {nx} {ny} {nz}\n{rows}"


def write_3dmap(grid: VoxelGrid, path: str | os.PathLike) -> Path:
    """Write ``grid`` as a ``.3dmap`` file (atomically)."""
    return atomic_write_text(path, format_3dmap(grid))


@dataclass(frozen=True)
class Problem3D:
    """One scenario line: start and goal voxels, the optimal length and its ratio to the
    straight-line distance."""

    start: tuple[int, int, int]
    goal: tuple[int, int, int]
    optimal: float
    ratio: float = 0.0
    line: int = field(default=0, compare=False)

    @property
    def tolerance(self) -> float:
        """How far a length may be from ``optimal`` and still match: 1e-3 or 1e-5 x optimal."""
        return max(1e-3, 1e-5 * self.optimal)

    def matches(self, length: float) -> bool:
        return abs(length - self.optimal) <= self.tolerance


@dataclass
class Scenario3D:
    """A ``.3dscen`` file: the map's file name and the problems."""

    map: str
    problems: list[Problem3D]
    path: Path | None = None

    def __len__(self) -> int:
        return len(self.problems)

    def __iter__(self) -> Iterator[Problem3D]:
        return iter(self.problems)

    def __getitem__(self, i: int) -> Problem3D:
        return self.problems[i]

    def find_map(self) -> Path:
        """The map file next to the scenario or in the sibling ``maps/`` tree
        (``…/scenarios/<set>/x.3dscen`` -> ``…/maps/<set>/``)."""
        name = Path(self.map.replace("\\", "/")).name
        if self.path is not None:
            here = self.path.parent
            for folder in (here, here.parent.parent / "maps" / here.name):
                if (folder / name).is_file():
                    return folder / name
        raise ScenarioFormatError(f"map {brief(name)} not found next to the scenario or in "
                                  f"its maps/ folder", self.path)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Starts and goals (``int64[n, 3]``) and optimal lengths (``float64[n]``)."""
        n = len(self.problems)
        starts = np.array([p.start for p in self.problems], np.int64).reshape(n, 3)
        goals = np.array([p.goal for p in self.problems], np.int64).reshape(n, 3)
        return starts, goals, np.array([p.optimal for p in self.problems], np.float64)


def read_3dscen(path: str | os.PathLike) -> Scenario3D:
    """Read a ``.3dscen`` file; raises :class:`ScenarioFormatError` naming the line."""
    text = read_text(path, ScenarioFormatError)
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip()]
    if not numbered:
        raise ScenarioFormatError("empty file", path)
    n, ln = numbered[0]
    if ln.split() != ["version", "1"]:
        raise ScenarioFormatError(f"expected 'version 1', got {brief(ln.strip())}", path, n)
    if len(numbered) < 2 or len(numbered[1][1].split()) != 1:
        raise ScenarioFormatError("expected the map's file name on the second line", path,
                                  numbered[1][0] if len(numbered) > 1 else n)
    map_name = numbered[1][1].strip()
    problems = []
    for n, ln in numbered[2:]:
        w = ln.split()
        if len(w) != 8 or not all(_digits(v) for v in w[:6]):
            raise ScenarioFormatError(f"expected 'sx sy sz gx gy gz length ratio', got "
                                      f"{brief(ln.strip())}", path, n)
        try:
            optimal, ratio = float(w[6]), float(w[7])
        except ValueError:
            raise ScenarioFormatError(f"length or ratio is not a number in "
                                      f"{brief(ln.strip())}", path, n) from None
        if not (math.isfinite(optimal) and optimal >= 0 and math.isfinite(ratio)):
            raise ScenarioFormatError(f"length {w[6]} must be a finite number >= 0", path, n)
        s = (int(w[0]), int(w[1]), int(w[2]))
        g = (int(w[3]), int(w[4]), int(w[5]))
        problems.append(Problem3D(s, g, optimal, ratio, line=n))
    return Scenario3D(map_name, problems, Path(path))


def format_3dscen(scenario: Scenario3D) -> str:
    rows = "".join(f"{p.start[0]} {p.start[1]} {p.start[2]} {p.goal[0]} {p.goal[1]} "
                   f"{p.goal[2]} {p.optimal:.8f} {p.ratio:.3f}\n" for p in scenario.problems)
    return f"version 1\n{scenario.map}\n{rows}"


def write_3dscen(scenario: Scenario3D, path: str | os.PathLike) -> Path:
    """Write ``scenario`` as a ``.3dscen`` file (atomically)."""
    return atomic_write_text(path, format_3dscen(scenario))
