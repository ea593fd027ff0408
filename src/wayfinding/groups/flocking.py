"""Boids behind a virtual leader, and social groups walking together in a crowd: both give
preferred velocities for a :class:`~wayfinding.crowd.Crowd`, which its avoidance (ORCA)
then turns into velocities that keep the agents apart.

- :class:`Flock`: members of a crowd flock (separation, alignment and cohesion among
  themselves, after Reynolds) round a virtual leader, a point that walks a path at a set
  speed and waits while the flock lags behind it.
- :func:`social_velocities`: small groups (2 to 4 people) that walk together, abreast, in a
  V (the middle ones a step behind, so that all can talk) or in a lane (one behind the
  other), each keeping its place round the group's centre while the group walks to its
  goal.

>>> from wayfinding.crowd import Crowd, ORCA
>>> crowd = Crowd()
>>> pair = [crowd.add((0.0, y), goal=(10.0, y), radius=0.3) for y in (0.4, -0.4)]
>>> orca = ORCA(time_horizon=2.0)
>>> for _ in range(120):
...     orca.step(crowd, 0.1, preferred=social_velocities(crowd, [pair], 0.1, shape="abreast"))
>>> crowd.position.round(1).tolist()                  # arrived side by side
[[10.0, 0.4], [10.0, -0.4]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, choice, count, finite_points, positive_float
from ..crowd import Crowd
from ..errors import InvalidQueryError, brief
from ..geometry.obstacles import MAX_EXTENT

#: The social group shapes :func:`social_offsets` knows.
SOCIAL_SHAPES = ("abreast", "v", "lane")


def _ids(members: Any, name: str) -> list:
    """``members`` as a non-empty list of agent ids."""
    if isinstance(members, (str, bytes)) or not hasattr(members, "__iter__") \
            or not list(members):
        raise InvalidQueryError(f"{name} {brief(members)} must be a non-empty sequence of "
                                "agent ids")
    return list(members)


def _rows(crowd: Crowd, members: Any, name: str) -> np.ndarray:
    """The crowd rows of agent ids ``members`` (distinct ids of live agents)."""
    rows = np.array([crowd.row(a) for a in _ids(members, name)], dtype=np.int64)
    if len(np.unique(rows)) != len(rows):
        raise InvalidQueryError(f"{name} {brief(members)} names an agent twice")
    return rows


def _preferred(terms: list[tuple[float, Any]], top: np.ndarray) -> np.ndarray:
    """The sum of ``weight * vectors`` over ``terms`` (``vectors``: ``(n, 2)`` or one
    ``(2,)``), each row cut to its top speed ``top``.  A row whose sum is too long for a
    float is summed again with the weights scaled by 2**-1000, which keeps its direction,
    and cut to its top speed."""
    v = np.zeros((len(top), 2))
    with np.errstate(over="ignore", invalid="ignore"):
        for w, a in terms:
            v += w * np.asarray(a)
        speed = np.hypot(v[:, 0], v[:, 1])
    scale = np.where(speed > top, top / np.where(speed > 0, speed, 1.0), 1.0)
    far = ~np.isfinite(speed)
    if far.any():
        v[far] = 0.0
        with np.errstate(under="ignore"):
            for w, a in terms:
                v[far] += w * 2.0 ** -1000 * np.broadcast_to(a, v.shape)[far]
        length = np.hypot(v[far, 0], v[far, 1])
        scale[far] = top[far] / np.where(length > 0, length, 1.0)
    return v * scale[:, None]


class Flock:
    """Boids round a virtual leader that walks ``path`` (``(m, 2)`` world points) at
    ``speed`` (world units per second).

    Each member's preferred velocity is the leader's velocity plus ``follow`` times its
    offset to the leader (1/s), ``cohesion`` times its offset to the centre of the other
    members within ``distance`` (1/s), ``alignment`` times the difference of their mean
    velocity and its own, and ``separation`` times the sum over those members of ``d / |d|²``
    (``d`` from them to it; world units² per second), cut to its top speed.  The leader
    waits while the members' mean distance to it exceeds ``slack`` (world units).  The rules
    look at every pair of members in one numpy pass: flocks of tens to a few hundred.
    """

    def __init__(self, members: Any, path: ArrayLike, *, speed: float,
                 follow: float = 0.5, cohesion: float = 0.3, alignment: float = 0.5,
                 separation: float = 1.0, distance: float = 3.0, slack: float = 3.0):
        pts, _ = finite_points("path", path)
        if len(pts) < 1:
            raise InvalidQueryError("path must hold at least one point")
        if not (np.abs(pts) <= MAX_EXTENT).all():
            raise InvalidQueryError(f"path {brief(path)} lies beyond ±{MAX_EXTENT:g}, the "
                                    "largest world coordinate of an agent")
        self.members = _ids(members, "members")
        self.path = pts
        self.speed = positive_float("speed", speed)
        self.follow = positive_float("follow", follow, allow_zero=True)
        self.cohesion = positive_float("cohesion", cohesion, allow_zero=True)
        self.alignment = positive_float("alignment", alignment, allow_zero=True)
        self.separation = positive_float("separation", separation, allow_zero=True)
        self.distance = positive_float("distance", distance)
        self.slack = positive_float("slack", slack)
        steps = np.diff(pts, axis=0)
        self._along = np.concatenate([[0.0], np.cumsum(np.hypot(steps[:, 0], steps[:, 1]))])
        self.s = 0.0

    @property
    def leader(self) -> np.ndarray:
        """The virtual leader's position ``(2,)``."""
        return self._at(self.s)

    @property
    def leader_velocity(self) -> np.ndarray:
        """The virtual leader's velocity ``(2,)`` while it walks (zero at the path's end)."""
        if self.s >= self._along[-1]:
            return np.zeros(2)
        ahead = self._at(min(self.s + 1e-6 * max(1.0, self._along[-1]), self._along[-1]))
        d = ahead - self.leader
        return d / float(np.hypot(*d)) * self.speed

    def _at(self, s: float) -> np.ndarray:
        if len(self.path) == 1:
            return self.path[0].copy()
        return np.array([np.interp(s, self._along, self.path[:, 0]),
                         np.interp(s, self._along, self.path[:, 1])])

    def velocities(self, crowd: Crowd, dt: float) -> np.ndarray:
        """Preferred velocities ``(n, 2)`` for every agent of ``crowd`` for a step of ``dt``
        seconds: the members' by the flock's rules, the others'
        :meth:`Crowd.preferred_velocity`."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        out = crowd.preferred_velocity(positive_float("dt", dt))
        rows = _rows(crowd, self.members, "members")
        x, v = crowd.position[rows], crowd.velocity[rows]
        d = x[:, None, :] - x[None, :, :]                  # from member j to member i
        d2 = (d * d).sum(-1)
        near = (d2 <= self.distance ** 2) & ~np.eye(len(rows), dtype=bool)
        k = near.sum(1)
        has = (k > 0)[:, None]
        centre = np.where(has, (near[..., None] * x[None]).sum(1) / np.maximum(k, 1)[:, None], x)
        mean_v = np.where(has, (near[..., None] * v[None]).sum(1) / np.maximum(k, 1)[:, None], v)
        push = np.where((near & (d2 > 0))[..., None], d / np.where(d2 > 0, d2, 1.0)[..., None],
                        0.0).sum(1)
        out[rows] = _preferred([(1.0, self.leader_velocity), (self.follow, self.leader - x),
                                (self.cohesion, centre - x), (self.alignment, mean_v - v),
                                (self.separation, push)], crowd.max_speed[rows])
        return out

    def advance(self, crowd: Crowd, dt: float) -> None:
        """Move the leader ``speed * dt`` along the path, unless the members' mean
        distance to it exceeds ``slack``."""
        rows = _rows(crowd, self.members, "members")
        lag = float(np.hypot(*(crowd.position[rows] - self.leader).T).mean())
        if lag <= self.slack:
            self.s = min(self.s + self.speed * positive_float("dt", dt), float(self._along[-1]))


def social_offsets(shape: str, size: int, *, spacing: float = 0.8) -> np.ndarray:
    """Slot offsets ``(size, 2)`` (+x forward, +y left, centred on the group's centre) of a
    social group of ``size`` people ``spacing`` apart: ``"abreast"`` (side by side, the
    first on the left), ``"v"`` (abreast with the middle ones half a ``spacing`` behind the
    outer ones) or ``"lane"`` (one behind the other, the first in front).

    >>> social_offsets("v", 3, spacing=1.0).round(3).tolist()
    [[0.167, 1.0], [-0.333, 0.0], [0.167, -1.0]]
    """
    shape = choice("shape", shape, SOCIAL_SHAPES)
    size = count("size", size)
    spacing = positive_float("spacing", spacing)
    allocation(f"a social group of {size} slots", 2.0 * size)
    across = (size - 1) / 2 - np.arange(size)          # at unit spacing, then scaled
    if shape == "lane":
        unit = np.stack([across, np.zeros(size)], axis=1)
    else:
        depth = np.zeros(size)
        if shape == "v" and size > 2:
            depth = -0.5 * (1 - np.abs(across) / np.abs(across).max())
        unit = np.stack([depth - depth.mean(), across], axis=1)
    with np.errstate(over="ignore"):
        out = unit * spacing
    if not np.isfinite(out).all():
        raise InvalidQueryError(f"spacing {spacing:g}: a social group of {size} spans more "
                                "than the largest float")
    return out


def social_velocities(crowd: Crowd, groups: Any, dt: float, *, shape: str = "abreast",
                      spacing: float = 0.8, gain: float = 1.0) -> np.ndarray:
    """Preferred velocities ``(n, 2)`` for every agent of ``crowd`` for a step of ``dt``
    seconds, where ``groups`` (sequences of agent ids, 2 to 4 each, no agent in two) walk
    together in ``shape`` (see :func:`social_offsets`) ``spacing`` apart.  A group walks
    from its members' centre to the centre of their goals at the top speed of its slowest
    member, facing its way, until it comes within half a ``spacing`` of that centre (then
    each member prefers its own goal, as :meth:`Crowd.preferred_velocity`); its members
    take the slots in their order across the group's way (along it for a lane), so that
    none crosses another, and each prefers the group's velocity plus ``gain`` (1/s) times
    its offset to its slot, cut to its top speed.  The other agents prefer
    :meth:`Crowd.preferred_velocity`."""
    if not isinstance(crowd, Crowd):
        raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
    dt = positive_float("dt", dt)
    gain = positive_float("gain", gain, allow_zero=True)
    spacing = positive_float("spacing", spacing)
    shape = choice("shape", shape, SOCIAL_SHAPES)
    out = crowd.preferred_velocity(dt)
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__iter__"):
        raise InvalidQueryError(f"groups {brief(groups)} must be a sequence of groups of ids")
    seen: set[int] = set()
    for g in groups:
        rows = _rows(crowd, g, "group")
        if not 2 <= len(rows) <= 4:
            raise InvalidQueryError(f"group {brief(g)} has {len(rows)} members; a social "
                                    "group has 2 to 4")
        if seen & set(rows.tolist()):
            raise InvalidQueryError(f"group {brief(g)} shares an agent with another group")
        seen |= set(rows.tolist())
        x = crowd.position[rows]
        top = crowd.max_speed[rows]
        centre, goal = x.mean(0), crowd.goal[rows].mean(0)
        to_goal = goal - centre
        dist = float(np.hypot(*to_goal))
        if dist <= 0.5 * spacing:                  # arrived: each to its own goal
            continue
        heading = to_goal / dist
        group_v = heading * min(float(top.min()), dist / dt)
        offs = social_offsets(shape, len(rows), spacing=spacing)
        left = np.array([-heading[1], heading[0]])
        axis = heading if shape == "lane" else left
        rows = rows[np.argsort(-((x - centre) @ axis), kind="stable")]   # in slot order
        x, top = crowd.position[rows], crowd.max_speed[rows]
        slots = centre + offs[:, :1] * heading + offs[:, 1:] * left
        out[rows] = _preferred([(1.0, group_v), (gain, slots - x)], top)
    return out

