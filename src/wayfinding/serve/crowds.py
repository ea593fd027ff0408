"""Crowd sessions: ORCA crowds (:class:`~wayfinding.crowd.Navigator`, its default ORCA
avoidance) on grid and 2D navmesh worlds, kept server-side, stepped on request.

A crowd is made with its agents (``POST /worlds/{name}/crowds``), stepped ``steps`` times
by ``dt`` seconds (``POST /crowds/{id}/step``), read (``GET /crowds/{id}``) and dropped
(``DELETE /crowds/{id}``).  At most :attr:`Limits.max_crowds` live at once (429 beyond); one
unused for :attr:`Limits.crowd_idle_seconds` is dropped.  A crowd steps on one request at a
time (409 for another meanwhile).  A step request that reaches the deadline stops between
two steps (503); the crowd keeps the steps made, which its ``steps`` count says."""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import finite_point, positive_float
from ..crowd import Navigator
from ..errors import WayfindingError
from ..grid import Grid
from .limits import MAX_DT, BadRequest, Limits, Refused, step_count, timed_out
from .worlds import World

#: A crowd's JSON answer and its binary form (:meth:`CrowdSession.snapshot`).
Snapshot = tuple[dict[str, Any], np.ndarray]

#: The options of an agent besides its ``position`` (:meth:`Navigator.add`'s).
AGENT_OPTIONS = ("goal", "radius", "max_speed")


@dataclass(eq=False, kw_only=True)
class CrowdSession:
    """A live crowd: its ``id``, the ``world`` it walks on, the navigator, the steps made
    and the simulated ``time`` (seconds)."""

    id: str
    world: str
    navigator: Navigator
    used: float
    steps: int = 0
    time: float = 0.0
    busy: threading.Lock = field(default_factory=threading.Lock)

    def snapshot(self) -> Snapshot:
        """The crowd now (call it while no step runs): as JSON, agent ``ids``,
        ``position``, ``velocity`` (rows in that order) and each agent's navigation
        ``state``; and a copy of the positions, ``(n, 2)`` float64, its binary form."""
        nav = self.navigator
        ids = nav.crowd.ids.tolist()
        return {"id": self.id, "world": self.world, "steps": self.steps, "time": self.time,
                "ids": ids, "position": nav.crowd.position.tolist(),
                "velocity": nav.crowd.velocity.tolist(),
                "state": [nav.state(a) for a in ids]}, nav.crowd.position.copy()


def _on(navigable: Any, point: np.ndarray) -> bool:
    """Whether ``point`` lies on the walkable part of a crowd's world (a grid's passable
    cells, a navigation mesh's polygons)."""
    if isinstance(navigable, Grid):
        cells, inside = navigable.world_to_cells(point[None])
        return bool(inside[0]) and bool(navigable.passable[cells[0, 1], cells[0, 0]])
    return navigable.locate(point) >= 0


class Crowds:
    """The live crowd sessions of one app, under its :class:`Limits`."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self._sessions: dict[str, CrowdSession] = {}
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        idle = self.limits.crowd_idle_seconds
        for key in [k for k, s in self._sessions.items() if now - s.used > idle]:
            del self._sessions[key]

    def create(self, world: World, body: dict[str, Any]) -> CrowdSession:
        """A new crowd on ``world`` with ``body["agents"]``: each ``{"position": [x, y],
        "goal": [x, y], "radius": r, "max_speed": s}`` (all but ``position`` optional)."""
        agents = body.get("agents")
        if not isinstance(agents, list) or not agents:
            raise BadRequest("agents must be a non-empty list of {\"position\": [x, y], ...}")
        if len(agents) > self.limits.max_agents:
            raise Refused(422, "too many agents", f"{len(agents)} agents, over the limit of "
                          f"{self.limits.max_agents} per crowd")
        nav = Navigator(world.navigable)
        for i, agent in enumerate(agents):
            if not isinstance(agent, dict) or "position" not in agent \
                    or set(agent) - {"position", *AGENT_OPTIONS}:
                raise BadRequest(f"agents[{i}] must be an object with position and any of "
                                 f"{', '.join(AGENT_OPTIONS)}, got {agent!r}")
            options = {k: agent[k] for k in AGENT_OPTIONS[1:] if k in agent}
            try:
                position = finite_point(f"agents[{i}].position", agent["position"])
                goal = None if agent.get("goal") is None else \
                    finite_point(f"agents[{i}].goal", agent["goal"])
                for k, v in options.items():
                    positive_float(f"agents[{i}].{k}", v)
                if not _on(world.navigable, position):
                    raise BadRequest(f"agents[{i}].position {position.tolist()} is off the "
                                     "walkable world (a wall, a blocked cell or beyond the edge)")
                nav.add(position, target=goal, **options)
            except WayfindingError as exc:
                raise BadRequest(str(exc)) from None
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            if len(self._sessions) >= self.limits.max_crowds:
                raise Refused(429, "too many crowds", f"{len(self._sessions)} crowds are live, "
                              f"the limit; delete one or wait "
                              f"{self.limits.crowd_idle_seconds:g} s for an idle one to expire")
            key = secrets.token_hex(8)
            session = self._sessions[key] = CrowdSession(id=key, world=world.name,
                                                         navigator=nav, used=now)
        return session

    def read(self, key: str) -> Snapshot:
        """Crowd ``key``'s :meth:`~CrowdSession.snapshot`, once a step under way ends."""
        session = self.get(key)
        with session.busy:
            return session.snapshot()

    def get(self, key: str) -> CrowdSession:
        """The live crowd ``key`` (404 when none, or expired)."""
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            session = self._sessions.get(key)
            if session is None:
                raise Refused(404, "unknown crowd", f"no crowd {key!r} (never made, deleted, "
                              f"or idle over {self.limits.crowd_idle_seconds:g} s)")
            session.used = now
        return session

    def delete(self, key: str) -> None:
        """Drop crowd ``key`` (404 when none)."""
        self.get(key)
        with self._lock:
            self._sessions.pop(key, None)

    def step(self, key: str, body: dict[str, Any], deadline: float) -> Snapshot:
        """Step crowd ``key`` ``body["steps"]`` times (default 1) by ``body["dt"]`` seconds
        (default 0.1), each step :meth:`Navigator.update`; its snapshot after."""
        session = self.get(key)
        n = step_count(body.get("steps", 1), self.limits)
        dt = positive_float("dt", body.get("dt", 0.1), max=MAX_DT, error=BadRequest)
        if not session.busy.acquire(blocking=False):
            raise Refused(409, "crowd busy", f"crowd {key!r} is stepping for another request")
        try:
            for done in range(n):
                if time.monotonic() > deadline:
                    raise timed_out(f"stepping crowd {key!r} (made {done} of {n} steps)",
                                    self.limits.max_seconds)
                session.navigator.update(dt)
                session.steps += 1
                session.time += dt
            return session.snapshot()
        finally:
            session.busy.release()
            session.used = time.monotonic()

