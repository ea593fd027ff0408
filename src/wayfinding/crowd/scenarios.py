"""Standard crowd scenarios, each a fresh :class:`~wayfinding.crowd.Crowd` with its
obstacles, time step and time limit; :func:`simulate_crowd` runs one under a model and records
it (:mod:`~wayfinding.crowd.metrics`).

* ``circle``: RVO2's Circle (agents evenly on a circle, each bound for its antipode;
  RVO2's time step 0.25 s, radius 1.5, top speed 2; 1e-4 of preferred-velocity noise).
* ``crossing``: two agents whose straight paths cross at ``angle`` degrees (90, 135 or
  180 for head on), meeting at the crossing at the same time.
* ``swap``: two groups of ``n`` (5 × 5 for 25) facing each other across a gap, swapping
  sides (25-to-25).
* ``blocks``: RVO2's Blocks (four groups of 5 × 5 in the corners bound for the opposite
  corners, four square obstacles between; 1e-4 of noise on the preferred velocities, as in
  RVO2's example, breaks the symmetry).
* ``bottleneck``: ``n`` agents behind a wall with a doorway ``width`` wide.
* ``crossing_flows``: two streams crossing at ``angle`` degrees.
* ``one_way``: a corridor of agents all walking the same way, faster ones behind.

>>> run = simulate_crowd(scenario("crossing", angle=90))
>>> run.completion, run.collisions()
(1.0, 0)
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np

from .._deprecated import alias, positional_options, renamed_keywords, warn
from .._validate import count, generator, number, positive_float
from ..errors import InvalidQueryError
from ..results import _fields_equal
from .agents import Crowd
from .metrics import Run, record
from .orca import ORCA


@positional_options("obstacles", "noise")
@dataclass
class CrowdScenario:
    """A crowd, its obstacles (counter-clockwise polygons), a time step, a time limit and
    the preferred-velocity noise of its reference (0: none)."""

    name: str
    crowd: Crowd
    dt: float
    seconds: float
    _: KW_ONLY
    obstacles: list[np.ndarray] = field(default_factory=list)
    noise: float = 0.0

    __eq__ = _fields_equal


def _box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], dtype=float)   # CCW


@positional_options("n", "size")
def circle(*, n: int = 250, size: float = 200.0) -> CrowdScenario:
    n, size = count("n", n), positive_float("size", size)
    crowd = Crowd(neighbour_dist=15.0, max_neighbours=10)
    for i in range(n):
        a = 2 * math.pi * i / n
        p = size * np.array([math.cos(a), math.sin(a)])
        crowd.add(p, goal=-p, radius=1.5, max_speed=2.0)
    # 5 times the straight crossing; the noise breaks the exact symmetry that double
    # precision would otherwise keep (RVO2's single precision breaks it by rounding).
    return CrowdScenario("circle", crowd, 0.25, 5.0 * size, noise=1e-4)


def _headings(angle: float) -> list[np.ndarray]:
    """Unit vectors along x and at ``angle`` degrees (0 < angle <= 180) from it."""
    angle = number("angle", angle, min=0.0, min_open=True, max=180.0)
    return [np.array([math.cos(a), math.sin(a)]) for a in (0.0, math.radians(angle))]


@positional_options("angle", "distance")
def crossing(*, angle: float = 90.0, distance: float = 8.0) -> CrowdScenario:
    distance = positive_float("distance", distance)
    crowd = Crowd()
    for heading in _headings(angle):
        crowd.add(-distance * heading, goal=distance * heading, radius=0.3, max_speed=1.3)
    return CrowdScenario(f"crossing {angle:g}°", crowd, 0.1, 60.0, noise=1e-4)


@positional_options("n", "gap")
def swap(*, n: int = 25, gap: float = 10.0) -> CrowdScenario:
    n, gap = count("n", n), positive_float("gap", gap)
    side = math.ceil(math.sqrt(n))
    crowd = Crowd()
    for sign in (-1, 1):
        for k in range(n):
            row, col = divmod(k, side)
            p = np.array([sign * (gap / 2 + col * 1.0), (row - (side - 1) / 2) * 1.0])
            crowd.add(p, goal=p * [-1, 1], radius=0.3, max_speed=1.3)
    return CrowdScenario(f"swap {n}-{n}", crowd, 0.1, 120.0, noise=1e-4)


def blocks() -> CrowdScenario:
    crowd = Crowd(neighbour_dist=15.0, max_neighbours=10)
    for sx in (-1, 1):
        for sy in (-1, 1):
            for i in range(5):
                for j in range(5):
                    p = np.array([sx * (55 + 10 * i), sy * (55 + 10 * j)], dtype=float)
                    crowd.add(p, goal=(-75 * sx, -75 * sy), radius=2.0, max_speed=2.0)
    obstacles = [_box(-40, 10, -10, 40), _box(10, 10, 40, 40), _box(10, -40, 40, -10),
                 _box(-40, -40, -10, -10)]
    return CrowdScenario("blocks", crowd, 0.25, 2000.0, obstacles=obstacles, noise=1e-4)


@positional_options("n", "width")
def bottleneck(*, n: int = 40, width: float = 1.2) -> CrowdScenario:
    n, width = count("n", n), positive_float("width", width)
    crowd = Crowd()
    side = math.ceil(math.sqrt(n))
    for k in range(n):
        row, col = divmod(k, side)
        crowd.add((-3 - 0.8 * col, (row - (side - 1) / 2) * 0.8), goal=(6, 0), radius=0.25,
                  max_speed=1.3)
    half = width / 2
    obstacles = [_box(-0.25, half, 0.25, 20), _box(-0.25, -20, 0.25, -half)]
    return CrowdScenario("bottleneck", crowd, 0.05, 200.0, obstacles=obstacles, noise=1e-4)


@positional_options("n", "angle")
def crossing_flows(*, n: int = 20, angle: float = 90.0) -> CrowdScenario:
    """Two streams of ``n`` agents each (in files of two), crossing at ``angle`` degrees."""
    n = count("n", n)
    crowd = Crowd()
    for heading in _headings(angle):
        side = np.array([-heading[1], heading[0]])
        for k in range(n):
            p = -(8 + 1.2 * (k // 2)) * heading + (k % 2 - 0.5) * 1.2 * side
            crowd.add(p, goal=p + (16 + 1.2 * (n // 2)) * heading, radius=0.3, max_speed=1.3)
    return CrowdScenario(f"crossing flows {angle:g}°", crowd, 0.1, 120.0, noise=1e-4)


@positional_options("n", "width", "length")
def one_way(*, n: int = 30, width: float = 4.0, length: float = 20.0) -> CrowdScenario:
    """``n`` agents walking the same way down a corridor ``width`` wide between walls, the
    slower ones ahead (top speeds 0.9 to 1.5)."""
    n, length = count("n", n), positive_float("length", length)
    width = number("width", width, min=1.0, min_open=True)
    crowd = Crowd()
    rows = max(int(width / 0.9), 1)
    speeds = np.linspace(1.5, 0.9, n)
    for k in range(n):
        row, col = k % rows, k // rows
        y = (row - (rows - 1) / 2) * 0.8
        crowd.add((-length / 2 + 0.9 * col, y), goal=(length / 2 + 5, y), radius=0.3,
                  max_speed=float(speeds[k]))
    half = width / 2
    obstacles = [_box(-length, half, length + 10, half + 1),
                 _box(-length, -half - 1, length + 10, -half)]
    return CrowdScenario("one-way flow", crowd, 0.1, 120.0, obstacles=obstacles, noise=1e-4)


#: The named scenarios: ``SCENARIOS[name](**options)`` builds one (keyword options only).
SCENARIOS: dict[str, Callable[..., CrowdScenario]] = {
    "circle": circle, "crossing": crossing, "swap": swap, "blocks": blocks,
    "bottleneck": bottleneck, "crossing_flows": crossing_flows, "one_way": one_way}


def scenario(name: str, **options: float) -> CrowdScenario:
    """A fresh scenario by name (see the module's list), with its options."""
    if not isinstance(name, str) or name not in SCENARIOS:
        raise InvalidQueryError(f"unknown scenario {name!r}; one of {sorted(SCENARIOS)}")
    return SCENARIOS[name](**options)


@renamed_keywords(model="avoidance")
@positional_options("avoidance")
def simulate_crowd(sc: CrowdScenario, *, avoidance: Any = None, seed: int = 0) -> Run:
    """Run a scenario until everyone has arrived or time is up, under ``avoidance``: any
    model with ``step(crowd, dt, *, preferred)`` (default: ``ORCA(time_horizon=5,
    time_horizon_obst=2)`` with the scenario's obstacles).  An ORCA made without
    ``obstacles`` is copied and the copy takes the scenario's.  Only ORCA takes obstacles:
    a scenario with obstacles refuses the others."""
    if avoidance is not None and not callable(getattr(avoidance, "step", None)):
        raise InvalidQueryError("avoidance must have a step(crowd, dt, *, preferred) method")
    if sc.obstacles and avoidance is not None and not isinstance(avoidance, ORCA):
        raise InvalidQueryError(f"{sc.name!r} has obstacles, which only ORCA takes; "
                                f"{type(avoidance).__name__} would walk through them")
    if avoidance is None:
        avoidance = ORCA(time_horizon=5.0, time_horizon_obst=2.0, obstacles=sc.obstacles)
    elif isinstance(avoidance, ORCA) and avoidance.obstacles is None:
        avoidance = copy.copy(avoidance)            # the caller's keeps no obstacles
        avoidance.set_obstacles(sc.obstacles)
    model = avoidance
    rng = generator("seed", seed)

    def step(crowd: Crowd, dt: float) -> None:
        pref = crowd.preferred_velocity(dt)
        if sc.noise:
            a = rng.uniform(0, 2 * math.pi, len(crowd))
            pref = pref + sc.noise * rng.uniform(0, 1, len(crowd))[:, None] \
                * np.stack([np.cos(a), np.sin(a)], 1)
        model.step(crowd, dt, preferred=pref)

    return record(sc.crowd, step, dt=sc.dt, seconds=sc.seconds)


#: Deprecated name of :func:`simulate_crowd`.
simulate = alias(simulate_crowd, "simulate")


def __getattr__(name: str) -> Any:
    """``Scenario``, the deprecated name of :class:`CrowdScenario` (the class itself)."""
    if name == "Scenario":
        warn(f"{__name__}.Scenario", "CrowdScenario")
        return CrowdScenario
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
