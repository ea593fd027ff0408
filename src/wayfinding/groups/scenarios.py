"""Formation scenarios, each a small deterministic scene run with formation followers in
``"autonomous"`` mode under one crowd :class:`~wayfinding.crowd.ORCA` (every agent avoids
every other and the walls); each returns its :class:`~wayfinding.groups.metrics.FormationRun`.

* ``formation_door``: a box of ``n`` walks to a wall with a doorway ``width`` wide, turns
  into a column to pass it, and past it :func:`~wayfinding.groups.reform` chooses between
  the box and a line (the box preferred) for the rest of the way.
* ``formation_crossing``: two boxes of ``n`` whose paths cross at right angles.
* ``formation_crowd``: a box of ``n`` walking through ``crowd`` single agents coming the
  other way.

Members are discs of radius 0.25 with a top speed of 1.3; slots are ``spacing`` 0.8 apart.

>>> run = formation_scenario("formation_crossing", n=4)
>>> run.completion, run.max_overlap_ratio() <= 0.01
(1.0, True)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validate import count, positive_float
from ..crowd import ORCA, Crowd
from ..crowd.scenarios import _box
from ..errors import InvalidQueryError
from ..geometry import Obstacles
from .assign import assign_slots
from .following import FormationFollower, step_formations
from .metrics import FormationRun
from .reform import reform
from .shapes import FormationShape

RADIUS, SPEED, SPACING, DT = 0.25, 1.3, 0.8, 0.1
#: How near its slot (world units) every member must be for a formation to have arrived.
SETTLED = 0.02


def _place(crowd: Crowd, shape: FormationShape, at: tuple[float, float],
           heading: tuple[float, float]) -> np.ndarray:
    """Add one member on each slot of ``shape`` at ``at`` facing ``heading``; their ids."""
    return np.array([crowd.add(p, radius=RADIUS, max_speed=SPEED)
                     for p in shape.world_slots(at, heading)], dtype=np.int64)


def _follower(crowd: Crowd, ids: np.ndarray, shape: FormationShape, path: list) -> \
        FormationFollower:
    """A follower of ``shape`` along ``path`` with the members ``ids`` put in its slots by
    the optimal assignment from where they stand."""
    start = np.asarray(path[0], dtype=float)
    heading = np.asarray(path[1], dtype=float) - start
    rows = [crowd.row(a) for a in ids.tolist()]
    order = assign_slots(crowd.position[rows], shape.world_slots(start, heading))
    return FormationFollower(crowd, ids[order], shape, path, mode="autonomous")


class _Recorder:
    """Positions of every agent and slots of every member, step by step."""

    def __init__(self, crowd: Crowd, members: np.ndarray):
        self.crowd, self.members = crowd, members
        self.column = {int(a): k for k, a in enumerate(crowd.ids.tolist())}
        self.positions: list[np.ndarray] = []
        self.slots: list[np.ndarray] = []

    def slots_of(self, followers: list[FormationFollower]) -> np.ndarray:
        """The members' slots now, in the order of :attr:`members`."""
        slot_of = {int(a): s for f in followers for a, s in zip(f.agents.tolist(), f.slots())}
        return np.array([slot_of[int(a)] for a in self.members.tolist()])

    def take(self, followers: list[FormationFollower]) -> None:
        self.positions.append(self.crowd.position.copy())
        self.slots.append(self.slots_of(followers))

    def run(self, name: str, goal: np.ndarray, obstacles: list[np.ndarray], *,
            formation: np.ndarray | None = None, reformed: int = 0) -> FormationRun:
        positions = np.array(self.positions)
        radius = self.crowd.radius.copy()
        gap = np.hypot(*np.moveaxis(positions - goal, -1, 0))
        there = gap <= radius
        arrived = np.where(there.any(axis=0), there.argmax(axis=0) * DT, np.inf)
        cols = np.array([self.column[int(a)] for a in self.members.tolist()], dtype=np.int64)
        return FormationRun(positions, DT, radius, goal, arrived, slots=np.array(self.slots),
                            members=cols, formation=formation, reformed=reformed,
                            obstacles=obstacles, name=name)


def _goals(crowd: Crowd, followers: list[FormationFollower]) -> np.ndarray:
    """Every agent's goal: a member's, its slot at the end of its follower's path."""
    goal = crowd.goal.copy()
    for f in followers:
        end = f.shape.world_slots(f.path[-1], f.facing)
        goal[[crowd.row(a) for a in f.agents.tolist()]] = end
    return goal


def _orca(obstacles: list[np.ndarray]) -> ORCA:
    return ORCA(time_horizon=2.0, time_horizon_obst=1.0, obstacles=obstacles or None)


def _walk(crowd: Crowd, followers: list[FormationFollower], orca: ORCA, rec: _Recorder,
          steps: int, done: Callable[[], bool]) -> None:
    """Step the formations until ``done()`` or ``steps`` steps."""
    for _ in range(steps):
        if done():
            return
        step_formations(crowd, followers, DT, orca=orca)
        rec.take(followers)


def formation_door(*, n: int = 6, width: float = 1.2, seconds: float = 60.0) -> FormationRun:
    """A box of ``n`` through a doorway ``width`` wide in a wall along x = 0, in column,
    reformed past it (see the module)."""
    n = count("n", n, min=2)
    width = positive_float("width", width)
    if width < 4 * RADIUS:
        raise InvalidQueryError(f"width {width!r} must be at least {4 * RADIUS:g}, twice a "
                                "member's width: ORCA jams in narrower doorways")
    steps = max(int(round(positive_float("seconds", seconds) / DT)), 1)
    half = width / 2
    walls = [_box(-0.25, half, 0.25, 5.0), _box(-0.25, -5.0, 0.25, -half)]
    box, column = FormationShape.box(n, spacing=SPACING), FormationShape.column(n,
                                                                                spacing=SPACING)
    line = FormationShape.line(n, spacing=SPACING)
    crowd = Crowd()
    ids = _place(crowd, box, (-8.0, 0.0), (1.0, 0.0))
    orca = _orca(walls)
    rec = _Recorder(crowd, ids)
    length = float(np.ptp(column.offsets[:, 0]))        # front to rear slot
    approach = _follower(crowd, ids, box, [(-8.0, 0.0), (-1.0 - length / 2, 0.0)])
    rec.take([approach])
    _walk(crowd, [approach], orca, rec, steps, lambda: approach.arrived)
    past = 0.25 + length / 2 + SPACING
    through = _follower(crowd, ids, column, [approach.position, (past + 0.5, 0.0)])
    rows = [crowd.row(a) for a in ids.tolist()]
    _walk(crowd, [through], orca, rec, steps - len(rec.positions) + 1,
          lambda: through.arrived and bool((crowd.position[rows, 0] > 0.25 + RADIUS).all()))
    p, v = crowd.position[rows], crowd.velocity[rows]
    choice = reform(p, v, [box.offsets, line.offsets], through.position, (1.0, 0.0),
                    velocity=through.velocity, radius=RADIUS, max_speed=SPEED,
                    obstacles=Obstacles(walls))
    shape = (box, line)[choice.best]
    after = _follower(crowd, ids, shape, [through.position, (8.0, 0.0)])
    reformed = len(rec.positions) - 1               # from here on, the new slots
    rec.slots[reformed] = rec.slots_of([after])
    _walk(crowd, [after], orca, rec, steps - len(rec.positions) + 1,
          lambda: after.arrived and bool(after.slot_error().max() <= SETTLED))
    return rec.run("formation door", _goals(crowd, [after]), walls, reformed=reformed)


def formation_crossing(*, n: int = 6, seconds: float = 60.0) -> FormationRun:
    """Two boxes of ``n`` crossing at right angles, the second a little behind."""
    n = count("n", n, min=1)
    steps = max(int(round(positive_float("seconds", seconds) / DT)), 1)
    box = FormationShape.box(n, spacing=SPACING)
    crowd = Crowd()
    a = _place(crowd, box, (-8.0, 0.0), (1.0, 0.0))
    b = _place(crowd, box, (0.0, -9.0), (0.0, 1.0))
    fa = _follower(crowd, a, box, [(-8.0, 0.0), (8.0, 0.0)])
    fb = _follower(crowd, b, box, [(0.0, -9.0), (0.0, 8.0)])
    followers = [fa, fb]
    rec = _Recorder(crowd, np.concatenate([fa.agents, fb.agents]))
    rec.take(followers)
    _walk(crowd, followers, _orca([]), rec, steps, lambda: all(
        f.arrived and f.slot_error().max() <= SETTLED for f in followers))
    return rec.run("formation crossing", _goals(crowd, followers), [],
                   formation=np.repeat([0, 1], len(box)))


def formation_crowd(*, n: int = 6, crowd: int = 16, seconds: float = 60.0) -> FormationRun:
    """A box of ``n`` walking +x through ``crowd`` single agents walking -x."""
    n = count("n", n, min=1)
    others = count("crowd", crowd, min=0)
    steps = max(int(round(positive_float("seconds", seconds) / DT)), 1)
    box = FormationShape.box(n, spacing=SPACING)
    scene = Crowd()
    ids = _place(scene, box, (-8.0, 0.0), (1.0, 0.0))
    rows = 4
    for k in range(others):
        y = (k % rows - (rows - 1) / 2) * 1.1 + 0.3 * (k // rows % 2)
        x = 3.0 + 1.2 * (k // rows)
        scene.add((x, y), goal=(x - 16.0, y), radius=RADIUS, max_speed=SPEED)
    f = _follower(scene, ids, box, [(-8.0, 0.0), (8.0, 0.0)])
    rec = _Recorder(scene, f.agents)
    rec.take([f])
    _walk(scene, [f], _orca([]), rec, steps, lambda: f.arrived and bool(
        f.slot_error().max() <= SETTLED) and bool(
            (np.hypot(*(scene.position - scene.goal).T)[len(ids):] <= RADIUS).all()))
    return rec.run("formation through a crowd", _goals(scene, [f]), [])


#: The named formation scenarios: ``FORMATION_SCENARIOS[name](**options)`` runs one.
FORMATION_SCENARIOS: dict[str, Callable[..., FormationRun]] = {
    "formation_door": formation_door, "formation_crossing": formation_crossing,
    "formation_crowd": formation_crowd}


def formation_scenario(name: str, **options: float) -> FormationRun:
    """Run a formation scenario by name (see the module's list) with its options."""
    if name not in FORMATION_SCENARIOS:
        raise InvalidQueryError(f"unknown formation scenario {name!r}; one of "
                                f"{sorted(FORMATION_SCENARIOS)}")
    return FORMATION_SCENARIOS[name](**options)
