"""Collision avoidance for whole groups: each group, a disc or an oriented box round its
members, takes one velocity for the group that keeps clear of the other groups and of single
agents, by ORCA's rule (van den Berg, Guy, Lin and Manocha) applied to the group's shape.

For each neighbour the group builds the neighbour's shape grown by its own (their
Minkowski sum, convex: a polygon, discs drawn as regular polygons round them so that the
polygon holds the disc), and from it the velocity obstacle: the cone of relative velocities
that reach that polygon, cut at ``time_horizon``.  A change ``u`` of the relative velocity
gives a half-plane of the group's velocities, at ``v + share * u`` facing along ``u``:
already overlapping or touching, ``u`` leads out of the polygon in one time step; inside
the obstacle (a collision within the horizon), ``u`` leads out across the nearer side of
the cone (the right side on a tie, as both groups of a pair see it), not through the cut
(flat faces of boxes would otherwise only slow groups that meet head on, never turn them);
outside it, ``u`` leads to the obstacle's nearest point as in ORCA, except in front of the
cut, where no half-plane is set until the collision comes within the horizon.  ``share`` is 1/2
between two groups (each takes half of the change) and ``agent_share`` (default 1: the
agents need not see the group) against agents.  The group takes the velocity nearest its
preferred one within the half-planes and its top speed; when they leave none, the one that
violates them least (all by the same amount, the least possible).  The groups' shapes keep
their headings through a step; a loop over the groups and their neighbours in Python, for
tens of groups.

>>> avoid = GroupAvoidance(time_horizon=8.0)
>>> position = np.array([[-6.0, 0.0], [6.0, 0.1]])       # two groups head on
>>> velocity = np.array([[1.0, 0.0], [-1.0, 0.0]])
>>> v = avoid.velocities(position, velocity, 0.1, preferred=velocity, max_speed=1.5,
...                      radius=[2.0, 2.0])
>>> bool(v[0, 1] < 0 < v[1, 1])                            # each turns to its own right
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, count, positive_float, reals
from ..crowd import Crowd
from ..errors import InvalidQueryError, brief


class GroupAvoidance:
    """ORCA for groups as discs or oriented boxes (see the module).

    ``time_horizon`` (s, > 0): how long a chosen velocity must stay clear of the neighbours;
    ``neighbour_dist`` (world units, > 0): the neighbours a group considers are those whose
    shapes come that near its own (centre to centre, less the two shapes' outer radii);
    ``sides`` (>= 3, default 16): the sides of the regular polygons drawn round discs (more
    is closer to the disc, each side costs time); ``agent_share`` (0 to 1, default 1): the
    share of the avoidance a group takes against single agents.
    """

    def __init__(self, *, time_horizon: float = 5.0, neighbour_dist: float = 20.0,
                 sides: int = 16, agent_share: float = 1.0):
        self.time_horizon = positive_float("time_horizon", time_horizon)
        self.neighbour_dist = positive_float("neighbour_dist", neighbour_dist)
        self.sides = count("sides", sides, min=3)
        allocation(f"polygons of {self.sides} sides", 2.0 * self.sides)
        self.agent_share = positive_float("agent_share", agent_share, allow_zero=True)
        if self.agent_share > 1:
            raise InvalidQueryError(f"agent_share {brief(agent_share)} must be in [0, 1]")
        angle = 2 * math.pi * (np.arange(self.sides) + 0.5) / self.sides
        self._ring = np.stack([np.cos(angle), np.sin(angle)], axis=1) / math.cos(
            math.pi / self.sides)

    def shapes(self, n: int, *, radius: ArrayLike | None = None,
               half_extents: ArrayLike | None = None, heading: ArrayLike | None = None
               ) -> list[np.ndarray]:
        """The ``n`` groups' shapes as convex polygons about their centres (counter-
        clockwise ``(k, 2)`` arrays): discs of ``radius`` (``(n,)``), or boxes of
        ``half_extents`` (``(n, 2)``: half their length along ``heading``, half their width)
        turned to ``heading`` (``(n, 2)``, nonzero vectors)."""
        if (radius is None) == (half_extents is None):
            raise InvalidQueryError("give either radius (discs) or half_extents (boxes)")
        if radius is not None:
            r = _array("radius", radius, (n,))
            if (r <= 0).any():
                raise InvalidQueryError(f"radius {brief(radius)} must be > 0")
            return [self._ring * ri for ri in r]
        ext = _array("half_extents", half_extents, (n, 2))
        if (ext <= 0).any():
            raise InvalidQueryError(f"half_extents {brief(half_extents)} must be > 0")
        if heading is None:
            raise InvalidQueryError("boxes need a heading (n, 2)")
        h = _array("heading", heading, (n, 2))
        size = np.hypot(h[:, 0], h[:, 1])
        if (size == 0).any():
            raise InvalidQueryError(f"heading {brief(heading)} must hold nonzero vectors")
        f = h / size[:, None]
        left = np.stack([-f[:, 1], f[:, 0]], axis=1)
        corners = np.array([[1, -1], [1, 1], [-1, 1], [-1, -1]], dtype=np.float64)
        return [(corners[:, :1] * e[0]) * fi + (corners[:, 1:] * e[1]) * li
                for e, fi, li in zip(ext, f, left, strict=True)]

    def velocities(self, position: ArrayLike, velocity: ArrayLike, dt: float, *,
                   preferred: ArrayLike, max_speed: Any, radius: ArrayLike | None = None,
                   half_extents: ArrayLike | None = None, heading: ArrayLike | None = None,
                   agents: Crowd | None = None) -> np.ndarray:
        """The groups' new velocities ``(n, 2)`` for a step of ``dt`` seconds, from their
        centres ``position`` and velocities ``velocity`` (``(n, 2)``), their ``preferred``
        velocities (``(n, 2)``) and top speeds ``max_speed`` (a number or ``(n,)``), shaped
        as :meth:`shapes` takes them; ``agents``: single agents to keep clear of (a
        :class:`~wayfinding.crowd.Crowd`, discs of their radii moving at their
        velocities)."""
        dt = positive_float("dt", dt)
        p = _array("position", position, (-1, 2))
        n = len(p)
        v = _array("velocity", velocity, (n, 2))
        pref = _array("preferred", preferred, (n, 2))
        one = isinstance(max_speed, (int, float, np.number)) \
            or (isinstance(max_speed, np.ndarray) and max_speed.ndim == 0)
        top = np.broadcast_to(_array("max_speed", max_speed, ()), (n,)) if one \
            else _array("max_speed", max_speed, (n,))
        if (top < 0).any():
            raise InvalidQueryError(f"max_speed {brief(max_speed)} must be >= 0")
        shapes = self.shapes(n, radius=radius, half_extents=half_extents, heading=heading)
        reach = np.array([np.hypot(s[:, 0], s[:, 1]).max() for s in shapes])
        if agents is not None and not isinstance(agents, Crowd):
            raise InvalidQueryError(f"agents must be a Crowd, got {type(agents).__name__}")
        ap = np.empty((0, 2)) if agents is None else agents.position
        av = np.empty((0, 2)) if agents is None else agents.velocity
        ar = np.empty(0) if agents is None else agents.radius
        fastest = float(max(top.max(initial=0.0), np.hypot(av[:, 0], av[:, 1]).max(initial=0.0),
                            np.hypot(v[:, 0], v[:, 1]).max(initial=0.0)))
        out = np.empty((n, 2))
        for i in range(n):
            planes: list[tuple[np.ndarray, np.ndarray] | None] = []
            gap = np.hypot(*(p - p[i]).T) - reach - reach[i]
            for j in np.flatnonzero(gap <= self.neighbour_dist):
                if j != i:
                    planes.append(self._plane(shapes[j], shapes[i], p[j] - p[i], v[i], v[j],
                                              0.5, dt, fastest))
            agap = np.hypot(*(ap - p[i]).T) - ar - reach[i]
            for j in np.flatnonzero(agap <= self.neighbour_dist):
                planes.append(self._plane(self._ring * ar[j], shapes[i], ap[j] - p[i], v[i],
                                          av[j], self.agent_share, dt, fastest))
            out[i] = _nearest(pref[i], float(top[i]), [q for q in planes if q is not None])
        return out

    def _plane(self, other: np.ndarray, own: np.ndarray, offset: np.ndarray,
               v_own: np.ndarray, v_other: np.ndarray, share: float, dt: float,
               fastest: float) -> tuple[np.ndarray, np.ndarray] | None:
        """The half-plane ``(point, normal)`` of the own velocities allowed against one
        neighbour (allowed: ``(v - point) . normal >= 0``), or None when it sets none."""
        body = _minkowski(other, -own) + offset
        rel = v_own - v_other
        gap = _distance(body, np.zeros(2))
        if gap == 0.0 or _inside(body, np.zeros(2)):    # touching or overlapping: apart in
            closest, normal = _boundary(body / dt, rel)          # one step
            return v_own + share * (closest - rel), normal
        # The cone's sides touch the body at its vertices seen furthest right and left.
        centre = body.mean(axis=0)
        c = centre / float(np.hypot(*centre))
        angle = np.arctan2(_cross(c, body), body @ c)
        right, left = int(np.argmin(angle)), int(np.argmax(angle))
        k = len(body)
        back = body[(right + np.arange((left - right) % k + 1)) % k]
        front = body[(left + np.arange((right - left) % k + 1)) % k]
        far = (4.0 * fastest + float(np.hypot(*rel))) / gap \
            + 1.0 / self.time_horizon + 1.0
        cone = np.concatenate([back * far, front / self.time_horizon])
        if _inside(cone, rel):
            # Collision within the horizon: out across the nearer side of the cone (the
            # right one on a tie, which both groups of a pair see alike).
            d_right = body[right] / float(np.hypot(*body[right]))
            d_left = body[left] / float(np.hypot(*body[left]))
            if _cross(d_right, rel) <= _cross(rel, d_left) + 1e-12:
                d, normal = d_right, np.array([d_right[1], -d_right[0]])
            else:
                d, normal = d_left, np.array([-d_left[1], d_left[0]])
            return v_own + share * (d * float(rel @ d) - rel), normal
        closest, normal, edge = _boundary(cone, rel, edge=True)
        if len(back) <= edge < len(cone) - 1:           # in front of the horizon's cap
            return None
        return v_own + share * (closest - rel), normal


def _minkowski(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The Minkowski sum of two convex counter-clockwise polygons (counter-clockwise): their
    edges merged by direction from the sum of their lowest vertices."""
    def edges(poly: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        start = int(np.lexsort((poly[:, 0], poly[:, 1]))[0])
        poly = np.roll(poly, -start, axis=0)
        step = np.roll(poly, -1, axis=0) - poly
        return poly[0], step

    a0, ea = edges(a)
    b0, eb = edges(b)
    steps = np.concatenate([ea, eb])
    order = np.argsort(np.arctan2(steps[:, 1], steps[:, 0]) % (2 * math.pi), kind="stable")
    return a0 + b0 + np.concatenate([[[0.0, 0.0]], np.cumsum(steps[order], axis=0)[:-1]])


def _array(name: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as a finite float64 array of ``shape`` (-1: any length)."""
    arr = np.asarray(reals(name, value), dtype=np.float64)
    if arr.size == 0 and len(shape) == 2:          # no groups
        arr = arr.reshape(0, shape[1])
    if arr.ndim != len(shape) or any(w not in (-1, s) for w, s in zip(shape, arr.shape,
                                                                         strict=True)) \
            or not np.isfinite(arr).all():
        want = tuple("n" if w == -1 else w for w in shape)
        raise InvalidQueryError(f"{name} {brief(value)} must be a finite array of shape {want}")
    return arr


def _cross(a: np.ndarray, b: np.ndarray) -> Any:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _inside(poly: np.ndarray, x: np.ndarray) -> bool:
    edge = np.roll(poly, -1, axis=0) - poly
    return bool((_cross(edge, x - poly) > 0).all())


def _distance(poly: np.ndarray, x: np.ndarray) -> float:
    return float(np.hypot(*(_edge_points(poly, x) - x).T).min())


def _edge_points(poly: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The nearest point to ``x`` on each edge of ``poly``."""
    edge = np.roll(poly, -1, axis=0) - poly
    t = np.clip(((x - poly) * edge).sum(1) / (edge * edge).sum(1), 0.0, 1.0)
    return poly + t[:, None] * edge


def _boundary(poly: np.ndarray, x: np.ndarray, *, edge: bool = False) -> Any:
    """The point of the boundary of convex ``poly`` nearest ``x`` and the outward normal
    there (for ``x`` outside, the direction from that point to ``x``); with ``edge``, also
    the index of the edge it lies on (edge ``i`` from vertex ``i`` to the next)."""
    near = _edge_points(poly, x)
    d = np.hypot(*(near - x).T)
    k = int(np.argmin(d))
    if not _inside(poly, x) and d[k] > 1e-12:
        normal = (x - near[k]) / d[k]
    else:
        side = np.roll(poly, -1, axis=0)[k] - poly[k]
        normal = np.array([side[1], -side[0]]) / float(np.hypot(*side))
    return (near[k], normal, k) if edge else (near[k], normal)


def _nearest(pref: np.ndarray, top: float, planes: list) -> np.ndarray:
    """The velocity nearest ``pref`` within speed ``top`` and the half-planes; when they
    leave none, within them all moved back by the least equal amount that leaves one."""
    if not planes:
        return _clip(pref, top)
    point = np.array([p for p, _ in planes])
    normal = np.array([q for _, q in planes])
    best = _solve(pref, top, point, normal, 0.0)
    if best is not None:
        return best
    # With this much slack a standstill is allowed by every half-plane.
    lo, hi = 0.0, float(np.maximum((point * normal).sum(1), 0.0).max()) + 1.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if _solve(pref, top, point, normal, mid) is None:
            lo = mid
        else:
            hi = mid
    found = _solve(pref, top, point, normal, hi)
    return np.zeros(2) if found is None else found


def _clip(v: np.ndarray, top: float) -> np.ndarray:
    size = float(np.hypot(*v))
    return v * (top / size) if size > top else v.copy()


def _solve(pref: np.ndarray, top: float, point: np.ndarray, normal: np.ndarray,
           slack: float) -> np.ndarray | None:
    """The nearest velocity to ``pref`` with ``|v| <= top`` and ``(v - point) . normal >=
    -slack`` for every half-plane, by its candidates: ``pref`` clipped to the speed, its
    projection on each line (kept within the speed), each line's ends within the speed, and
    each two lines' crossing; None when none is allowed."""
    base = point - slack * normal
    offset = (base * normal).sum(1)                  # line: v . normal = offset
    tangent = np.stack([-normal[:, 1], normal[:, 0]], axis=1)
    cands = [_clip(pref, top)[None]]
    foot = normal * offset[:, None]                   # the line's point nearest the origin
    reach2 = top * top - offset * offset
    on = reach2 >= 0
    half = np.sqrt(np.where(on, reach2, 0.0))
    along = ((pref - foot) * tangent).sum(1)
    t = np.clip(along, -half, half)
    cands += [(foot + t[:, None] * tangent)[on], (foot + half[:, None] * tangent)[on],
              (foot - half[:, None] * tangent)[on]]
    k = len(normal)
    if k > 1:
        i, j = np.triu_indices(k, 1)
        det = _cross(normal[i], normal[j])
        ok = np.abs(det) > 1e-12
        i, j, det = i[ok], j[ok], det[ok]
        x = (offset[i] * normal[j, 1] - offset[j] * normal[i, 1]) / det
        y = (normal[i, 0] * offset[j] - normal[j, 0] * offset[i]) / det
        cands.append(np.stack([x, y], axis=1))
    c = np.concatenate(cands)
    tol = 1e-9 * max(top, 1.0)
    ok = (np.hypot(c[:, 0], c[:, 1]) <= top + tol) & \
        ((c @ normal.T) - offset >= -tol).all(1)
    if not ok.any():
        return None
    c = c[ok]
    best = c[int(np.argmin(np.hypot(*(c - pref).T)))]
    return _clip(best, top)
