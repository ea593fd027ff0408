"""The entity hierarchy: groups whose members are agents of a crowd or other groups, their
derived properties, membership changes and an ordered update pipeline per group.

Every update reads a :class:`Snapshot`, a read-only copy of the crowd taken at the start of
the step, never the state other updates are writing: members and groups can be updated
in any order (or in parallel) with the same result.  A group's derived properties
(:class:`GroupState`) come from its members' in that snapshot: each member is a disc (an
agent: its position and radius; a sub-group: its barycentre and bulk radius) weighted by
the agents it holds.

A :class:`Pipeline` is an ordered list of :class:`Stage` s, each a callable with a period:
the conventional order is :data:`STAGES` (planning, formation, steering, avoidance), and a
stage of period k runs on the steps ``phase, phase + k, ...`` only (a partial update).

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a, b = crowd.add((0.0, 0.0), max_speed=2.0), crowd.add((4.0, 0.0), max_speed=1.0)
>>> g = AgentGroup([a, b], shape=FormationShape.line(2))
>>> s = g.refresh(Snapshot.of(crowd))
>>> s.barycentre.tolist(), s.bulk_radius, s.max_speed
([2.0, 0.0], 2.5, 1.0)
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike

from .._validate import count
from ..crowd import Crowd
from ..errors import InvalidQueryError, brief
from ..results import _fields_equal
from .assign import assign_slots
from .shapes import FormationShape, unit_heading

#: The conventional order of a pipeline's stages.
STAGES = ("planning", "formation", "steering", "avoidance")


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A read-only copy of a crowd's agents at one moment: ``ids`` ``(n,)`` int64 and, in
    the same row order, ``position`` and ``velocity`` ``(n, 2)``, ``radius``, ``max_speed``
    and ``max_accel`` ``(n,)`` (float64, world units and seconds)."""

    ids: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    radius: np.ndarray
    max_speed: np.ndarray
    max_accel: np.ndarray
    _row: dict = field(default_factory=dict, repr=False, compare=False, kw_only=True)

    __eq__ = _fields_equal

    @classmethod
    def of(cls, crowd: Crowd) -> Snapshot:
        """The crowd's state now (copied, so the crowd can move on)."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        arrays = [np.array(a) for a in (crowd.ids, crowd.position, crowd.velocity,
                                        crowd.radius, crowd.max_speed, crowd.max_accel)]
        for a in arrays:
            a.flags.writeable = False
        return cls(*arrays, _row={int(i): r for r, i in enumerate(arrays[0].tolist())})

    def rows(self, agents: ArrayLike) -> np.ndarray:
        """The rows of agent ids ``agents`` (each must be in the snapshot)."""
        try:
            return np.array([self._row[int(a)] for a in np.asarray(agents).ravel()],
                            dtype=np.int64)
        except KeyError as exc:
            raise InvalidQueryError(f"agent {exc.args[0]} is not in the crowd") from None


@dataclass(frozen=True, eq=False)
class GroupState:
    """A group's derived properties in one snapshot: ``barycentre`` ``(2,)`` (the mean of
    its agents' positions), ``bulk_radius`` (the disc about the barycentre that holds every
    member's disc), ``max_speed`` (its slowest member's), ``turn_rate`` (rad/s: the least
    over its members; an agent's is ``max_accel / max_speed``, how fast it can turn at top
    speed, inf without an acceleration limit) and ``agents`` (how many it holds)."""

    barycentre: np.ndarray
    bulk_radius: float
    max_speed: float
    turn_rate: float
    agents: int

    __eq__ = _fields_equal


Member = Union[int, "AgentGroup"]


def _check_member(member: Any) -> Member:
    if isinstance(member, AgentGroup):
        return member
    if isinstance(member, (int, np.integer)) and not isinstance(member, bool) and member >= 0:
        return int(member)
    raise InvalidQueryError(f"member {brief(member)} must be an agent id (an int >= 0) or an "
                            "AgentGroup")


def _disjoint(given: Any, new: tuple[set[Any], set[int]],
              held: tuple[set[Any], set[int]]) -> None:
    """Refuse groups and agents of ``new`` that ``held`` already has (``given``: the member
    that brings them, named in the message)."""
    if new[0] & held[0]:
        raise InvalidQueryError(f"member {brief(given)} is already in the group's tree (a "
                                "group may appear in it once)")
    twice = new[1] & held[1]
    if twice:
        raise InvalidQueryError(f"agent {min(twice)} is already in the group's tree (an "
                                "agent may appear in it once)")


class AgentGroup:
    """A group of agents (crowd ids) and of other groups, in a formation.

    ``members``: agent ids and :class:`AgentGroup` s (each agent and group at most once in
    the whole tree of groups it belongs to, no group inside itself); ``shape``: the
    formation its members hold (fitted to their number as they join and leave; ``None``:
    none); ``pipeline``: its update stages (``None``: none).
    """

    def __init__(self, members: Iterable[Any], *, shape: FormationShape | None = None,
                 pipeline: Pipeline | None = None):
        if shape is not None and not isinstance(shape, FormationShape):
            raise InvalidQueryError(f"shape {brief(shape)} must be a FormationShape or None")
        if pipeline is not None and not isinstance(pipeline, Pipeline):
            raise InvalidQueryError(f"pipeline {brief(pipeline)} must be a Pipeline or None")
        self._members: list[Member] = []
        self._parents: weakref.WeakSet[AgentGroup] = weakref.WeakSet()
        #: The groups and the agents below this group, kept as members come and go (so a
        #: join costs the newcomers' size, not the tree's).
        self._below: tuple[set[AgentGroup], set[int]] = (set(), set())
        self._base = shape
        self.shape: FormationShape | None = None
        self.pipeline = pipeline
        #: Member index (into :attr:`members`) per slot of :attr:`shape`, from the last
        #: :meth:`assign`; ``None`` until then and after every membership change.
        self.assignment: np.ndarray | None = None
        self.state: GroupState | None = None
        if not isinstance(members, Iterable):
            raise InvalidQueryError(f"members {brief(members)} must be a sequence of agent "
                                    "ids")
        self._take(list(members))

    def __len__(self) -> int:
        return len(self._members)

    def __repr__(self) -> str:
        return f"AgentGroup({len(self._members)} members, {len(self.agents)} agents)"

    @property
    def members(self) -> tuple[Member, ...]:
        return tuple(self._members)

    @property
    def agents(self) -> np.ndarray:
        """Every agent id in the group and its sub-groups, depth first."""
        out: list[int] = []
        for m in self._members:
            out.extend(m.agents.tolist() if isinstance(m, AgentGroup) else [m])
        return np.array(out, dtype=np.int64)

    def _above(self) -> list[AgentGroup]:
        """This group and every group it is inside, each once."""
        out: dict[int, AgentGroup] = {}
        todo = [self]
        while todo:
            g = todo.pop()
            if id(g) not in out:
                out[id(g)] = g
                todo.extend(g._parents)
        return list(out.values())

    def add(self, member: Any) -> None:
        """Add an agent id or a group; the shape is fitted to the new count and the slots
        wait for the next :meth:`assign`."""
        self._take([member])

    def _take(self, members: list[Any]) -> None:
        """Add ``members`` once all are checked (none is added when one is refused)."""
        new = [_check_member(m) for m in members]
        groups: set[AgentGroup] = set()
        agents: set[int] = set()
        for given, m in zip(members, new):
            if isinstance(m, AgentGroup):
                if m is self or self in m._below[0]:
                    raise InvalidQueryError("a group cannot be inside itself")
                below = ({m} | m._below[0], m._below[1])
            else:
                below = (set(), {m})
            _disjoint(given, below, (groups, agents))
            groups |= below[0]
            agents |= below[1]
        above = self._above()
        for top in above:      # the outermost groups (a top among the groups: refused above)
            if not top._parents:
                _disjoint(members[0] if len(members) == 1 else members, (groups, agents),
                          top._below)
        for m in new:
            if isinstance(m, AgentGroup):
                m._parents.add(self)
        for up in above:
            up._below[0].update(groups)
            up._below[1].update(agents)
        self._members.extend(new)
        if new:
            self._changed()

    def remove(self, member: Any) -> None:
        """Remove an agent id or a group (as :meth:`add`, the shape is fitted again)."""
        m = _check_member(member)
        for k, x in enumerate(self._members):
            if x is m or (not isinstance(m, AgentGroup) and m == x):
                gone = ({m} | m._below[0], m._below[1]) if isinstance(m, AgentGroup) \
                    else ((), (m,))
                if isinstance(m, AgentGroup):
                    m._parents.discard(self)
                for up in self._above():
                    up._below[0].difference_update(gone[0])
                    up._below[1].difference_update(gone[1])
                del self._members[k]
                self._changed()
                return
        raise InvalidQueryError(f"member {brief(member)} is not in the group")

    def _changed(self) -> None:
        n = len(self._members)
        self.shape = self._base.fit(n) if self._base is not None and n else None
        self.assignment = None

    def _discs(self, snapshot: Snapshot) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                   np.ndarray, np.ndarray]:
        """Per member: centre ``(m, 2)``, radius, agents held, max speed, turn rate."""
        m = len(self._members)
        centre, radius = np.empty((m, 2)), np.empty(m)
        weight, speed, turn = np.empty(m), np.empty(m), np.empty(m)
        agents = [k for k, x in enumerate(self._members) if not isinstance(x, AgentGroup)]
        if agents:
            rows = snapshot.rows(np.array([self._members[k] for k in agents], dtype=np.int64))
            centre[agents] = snapshot.position[rows]
            radius[agents] = snapshot.radius[rows]
            weight[agents] = 1.0
            top = snapshot.max_speed[rows]
            speed[agents] = top
            with np.errstate(divide="ignore", invalid="ignore"):
                rate = snapshot.max_accel[rows] / top
            turn[agents] = np.where(np.isnan(rate) | (top == 0), math.inf, rate)
        for k, x in enumerate(self._members):
            if isinstance(x, AgentGroup):
                s = x.refresh(snapshot)
                centre[k], radius[k], weight[k] = s.barycentre, s.bulk_radius, s.agents
                speed[k], turn[k] = s.max_speed, s.turn_rate
        return centre, radius, weight, speed, turn

    def refresh(self, snapshot: Snapshot) -> GroupState:
        """Compute :attr:`state` (and every sub-group's) from ``snapshot`` and return it."""
        if not isinstance(snapshot, Snapshot):
            raise InvalidQueryError(f"expected a Snapshot, got {type(snapshot).__name__}")
        if not self._members:
            raise InvalidQueryError("an empty group has no state")
        centre, radius, weight, speed, turn = self._discs(snapshot)
        bary = (centre * weight[:, None]).sum(axis=0) / weight.sum()
        bulk = float((np.hypot(*(centre - bary).T) + radius).max())
        self.state = GroupState(bary, bulk, float(speed.min()), float(turn.min()),
                                int(weight.sum()))
        return self.state

    def member_positions(self, snapshot: Snapshot) -> np.ndarray:
        """Each member's position in ``snapshot`` (a sub-group's: its barycentre),
        ``(m, 2)``."""
        return self._discs(snapshot)[0]

    def assign(self, snapshot: Snapshot, heading: ArrayLike, *, method: str = "optimal"
               ) -> np.ndarray:
        """Match members to the slots of :attr:`shape` placed at the group's barycentre
        facing ``heading`` (:func:`~wayfinding.groups.assign_slots` with ``method``), keep
        it as :attr:`assignment` and return it."""
        if self.shape is None:
            raise InvalidQueryError("the group has no shape to assign slots of")
        state = self.refresh(snapshot)
        slots = self.shape.world_slots(state.barycentre, unit_heading(heading))
        self.assignment = assign_slots(self.member_positions(snapshot), slots,
                                       method=method, heading=heading)
        return self.assignment

    def slot_members(self) -> list[Member]:
        """The member in each slot, in slot order (after :meth:`assign`)."""
        if self.assignment is None:
            raise InvalidQueryError("slots are not assigned: call assign() first")
        return [self._members[k] for k in self.assignment.tolist()]


@dataclass(frozen=True)
class Stage:
    """One stage of a :class:`Pipeline`: ``run(group, snapshot, step)`` is called on the
    steps where ``step % period == phase`` (``period >= 1``; ``0 <= phase < period``)."""

    name: str
    run: Callable[[AgentGroup, Snapshot, int], None]
    period: int = field(default=1, kw_only=True)
    phase: int = field(default=0, kw_only=True)

    def __post_init__(self) -> None:
        if not callable(self.run):
            raise InvalidQueryError(f"stage {self.name!r}: run {brief(self.run)} must be "
                                    "callable")
        count("period", self.period)
        count("phase", self.phase, min=0, max=self.period - 1)


class Pipeline:
    """Stages run in the order given, each only on its own steps."""

    def __init__(self, stages: Sequence[Stage]):
        stages = tuple(stages)
        for s in stages:
            if not isinstance(s, Stage):
                raise InvalidQueryError(f"stage {brief(s)} must be a Stage")
        names = [s.name for s in stages]
        if len(set(names)) != len(names):
            raise InvalidQueryError(f"stage names {names} must differ")
        self.stages = stages

    def due(self, step: int) -> tuple[Stage, ...]:
        """The stages that run on ``step`` (an int >= 0), in order."""
        step = count("step", step, min=0)
        return tuple(s for s in self.stages if step % s.period == s.phase)

    def run(self, group: AgentGroup, snapshot: Snapshot, step: int) -> tuple[str, ...]:
        """Run the stages due on ``step`` for ``group``; return their names."""
        due = self.due(step)
        for s in due:
            s.run(group, snapshot, step)
        return tuple(s.name for s in due)


def update_groups(groups: Iterable[AgentGroup], crowd: Crowd, step: int) -> Snapshot:
    """One step of the hierarchy: take a snapshot of ``crowd``, refresh every group's state
    from it, then run each group's pipeline (if any) on ``step``; return the snapshot.
    Stages read the snapshot, so the groups' order does not change what they compute."""
    if not isinstance(groups, Iterable):
        raise InvalidQueryError(f"groups {brief(groups)} must be a sequence of AgentGroups")
    snapshot = Snapshot.of(crowd)
    groups = list(groups)
    for g in groups:
        if not isinstance(g, AgentGroup):
            raise InvalidQueryError(f"expected AgentGroups, got {type(g).__name__}")
        g.refresh(snapshot)
    for g in groups:
        if g.pipeline is not None:
            g.pipeline.run(g, snapshot, step)
    return snapshot
