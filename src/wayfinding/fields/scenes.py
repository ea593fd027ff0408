"""The hybrid vector field paper's test scenes, run with a small unit simulation.

``"lanes"``: two groups cross a corridor in opposite directions (lane formation);
``"congestion"``: a group crosses a wall with three gaps towards a goal level with the middle
one (it should spread over several gaps as the nearest one jams); ``"maze"``: a group crosses
a maze (the long-range path leads the field).  :func:`simulate` moves the units: each frame
every group's :class:`~wayfinding.fields.continuum.HybridPlanner` plan gives target
velocities, units accelerate towards them (limited), slide along walls, are pushed apart
where they overlap, and leave when they reach their goal.

>>> run = simulate_scene(scene("lanes", units=6), seconds=40.0)
>>> run.completion
1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._deprecated import alias, renamed_keywords
from .._validate import count, generator, positive_float, time_steps
from ..errors import InvalidQueryError
from ..grid.grid import Grid
from ..results import Arrivals, _fields_equal
from .continuum import ContinuumParams, HybridPlanner

SCENES = ("lanes", "congestion", "maze")


@dataclass
class Group:
    """Units (``(n, 2)`` start positions, cells) sent to one goal cell."""

    positions: np.ndarray
    goal: tuple[int, int]

    __eq__ = _fields_equal


@dataclass
class Scene:
    name: str
    grid: Grid
    groups: list[Group]


@dataclass
class SceneRun(Arrivals):
    """A simulation: ``positions`` per frame ``(frames, n, 2)`` (NaN once a unit has
    arrived), each unit's ``group`` and the seconds until it ``arrived`` (inf: never), the
    frame time ``dt``, the closest approach of two units (centre distance) seen and the
    number of overlapping pairs pushed apart, summed over frames."""

    scene: Scene
    dt: float
    positions: np.ndarray
    group: np.ndarray
    arrived: np.ndarray
    closest: float = math.inf
    overlaps: int = 0

    __eq__ = _fields_equal


def scene(name: str, *, units: int = 40, seed: int = 0) -> Scene:
    """One of :data:`SCENES` with about ``units`` units per group (at most one per free
    cell of its start box); ``seed``: an integer >= 0 or a numpy Generator."""
    units = count("units", units)
    rng = generator("seed", seed)
    if name == "lanes":
        free = np.ones((20, 64), dtype=bool)
        free[0, :] = free[-1, :] = False
        grid = Grid(free)
        left = _scatter(rng, units, (2, 12), (3, 16), grid)
        right = _scatter(rng, units, (51, 61), (3, 16), grid)
        return Scene(name, grid, [Group(left, (62, 10)), Group(right, (1, 10))])
    if name == "congestion":
        free = np.ones((40, 60), dtype=bool)
        free[:, 30] = False
        for y0 in (7, 19, 31):
            free[y0:y0 + 3, 30] = True
        grid = Grid(free)
        return Scene(name, grid, [Group(_scatter(rng, units, (38, 56), (12, 28), grid),
                                        (4, 20))])
    if name == "maze":
        free = np.ones((24, 40), dtype=bool)
        for k, x in enumerate((10, 20, 30)):
            free[:, x] = False
            free[(slice(19, 23) if k % 2 == 0 else slice(1, 5)), x] = True
        grid = Grid(free)
        return Scene(name, grid, [Group(_scatter(rng, units, (1, 7), (2, 8), grid),
                                        (37, 20))])
    raise InvalidQueryError(f"unknown scene {name!r}; expected one of: {', '.join(SCENES)}")


def _scatter(rng: np.random.Generator, n: int, xs: tuple[int, int], ys: tuple[int, int],
             grid: Grid) -> np.ndarray:
    """``n`` distinct passable cells' centres in the box, jittered a little."""
    cells = [(x, y) for y in range(ys[0], ys[1] + 1) for x in range(xs[0], xs[1] + 1)
             if grid.passable[y, x]]
    pick = rng.choice(len(cells), min(n, len(cells)), replace=False)
    return np.array([cells[i] for i in pick], dtype=float) + rng.uniform(-0.2, 0.2, (len(pick),
                                                                                      2))


@renamed_keywords(acceleration="max_accel")
def simulate_scene(sc: Scene, *, seconds: float = 60.0, dt: float = 0.1,
                   max_speed: float = 1.5, max_accel: float = 6.0, radius: float = 0.35,
                   arrive: float = 1.5, params: ContinuumParams | None = None) -> SceneRun:
    """Run ``sc`` for ``seconds`` in frames of ``dt``: units of ``radius`` (cells) with top
    speed ``max_speed`` (cells per second) and acceleration at most ``max_accel`` (cells
    per second squared) follow their group's hybrid plan, and leave within ``arrive`` cells
    of their goal."""
    seconds, dt, max_speed, max_accel, radius, arrive = (
        positive_float(name, value) for name, value in (
            ("seconds", seconds), ("dt", dt), ("max_speed", max_speed),
            ("max_accel", max_accel), ("radius", radius), ("arrive", arrive)))
    grid = sc.grid
    planner = HybridPlanner(grid, params=params)
    pos = np.concatenate([g.positions for g in sc.groups]).astype(float)
    group = np.concatenate([np.full(len(g.positions), k) for k, g in enumerate(sc.groups)])
    goals = np.array([g.goal for g in sc.groups], dtype=float)[group]
    vel = np.zeros_like(pos)
    active = np.ones(len(pos), dtype=bool)
    arrived = np.full(len(pos), -1)
    frames = [pos.copy()]
    closest, overlaps = math.inf, 0
    for frame in range(1, round(time_steps(seconds, dt, "a scene")) + 1):
        target = np.zeros_like(pos)
        for k, g in enumerate(sc.groups):
            mine = active & (group == k)
            if mine.any():
                plan = planner.plan(pos[mine], vel[mine] / max_speed, g.goal)
                target[mine] = plan.targets(pos[mine], vel[mine] / max_speed) * max_speed
        change = target - vel
        size = np.hypot(change[:, 0], change[:, 1])
        limit = max_accel * dt
        scale = np.where(size > limit, limit / np.maximum(size, 1e-12), 1.0)
        vel = np.where(active[:, None], vel + change * scale[:, None], 0.0)
        before = pos
        pos = _move(grid, pos, vel, dt, active)
        pos, gap, n_over = _separate(grid, pos, active, radius)
        # What the crowd sees is how units actually moved (jammed units stand still).
        vel = (pos - before) / dt
        closest, overlaps = min(closest, gap), overlaps + n_over
        done = active & (np.hypot(*(pos - goals).T) <= arrive)
        arrived[done] = frame
        active &= ~done
        frames.append(np.where(active[:, None], pos, np.nan))
        if not active.any():
            break
    return SceneRun(sc, dt, np.array(frames), group,
                    np.where(arrived >= 0, arrived * dt, np.inf), closest, overlaps)


#: Deprecated name of :func:`simulate_scene`.
simulate = alias(simulate_scene, "simulate")


def _move(grid: Grid, pos: np.ndarray, vel: np.ndarray, dt: float,
          active: np.ndarray) -> np.ndarray:
    """Step every active unit, sliding along walls: an axis whose move would enter a wall
    cell is dropped."""
    out = pos.copy()
    for axis in (0, 1):
        trial = out.copy()
        trial[:, axis] += vel[:, axis] * dt
        ok = active & _free(grid, trial)
        out[ok] = trial[ok]
    return out


def _free(grid: Grid, pts: np.ndarray) -> np.ndarray:
    h, w = grid.shape
    c = np.round(pts).astype(np.int64)
    inside = (c[:, 0] >= 0) & (c[:, 0] < w) & (c[:, 1] >= 0) & (c[:, 1] < h)
    ok = inside.copy()
    ok[inside] = grid.passable[c[inside, 1], c[inside, 0]]
    return ok


def _separate(grid: Grid, pos: np.ndarray, active: np.ndarray, radius: float
              ) -> tuple[np.ndarray, float, int]:
    """Push overlapping active units apart (half the overlap each, not into walls); returns
    the positions, the closest centre distance before and the number of overlapping pairs."""
    idx = np.flatnonzero(active)
    if len(idx) < 2:
        return pos, math.inf, 0
    p = pos[idx]
    d = p[:, None, :] - p[None, :, :]
    dist = np.hypot(d[..., 0], d[..., 1])
    np.fill_diagonal(dist, np.inf)
    closest = float(dist.min())
    over = np.clip(2 * radius - dist, 0, None)
    n_over = int((np.triu(over) > 0).sum())
    if n_over:
        push = (d / np.maximum(dist, 1e-9)[..., None] * (0.5 * over)[..., None]).sum(axis=1)
        moved = p + push
        ok = _free(grid, moved)
        p[ok] = moved[ok]
        pos = pos.copy()
        pos[idx] = p
    return pos, closest, n_over
