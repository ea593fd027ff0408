"""The mid-level lattice planner: node sets at intervals along a route, one node per lane,
every path through them scored, the ``k`` cheapest kept, and speed limits passed backwards.

A lattice has ``n_sets`` node sets ahead of the vehicle and ``n_lanes`` lanes; node
``(i, j)`` is lane ``j`` of set ``i``.  The vehicle stands before set 0 in ``start_lane``.  A
path picks one lane per set; the step into node ``(i, j)`` from lane ``p`` costs
``straight`` when ``j == p``, ``lane_change * |j - p|`` otherwise (steps of more than
``max_lane_change`` lanes are not allowed), plus the node's own cost (penalties for being
near another car, for the lane's type...; ``inf`` marks an unusable node).  A path's cost is
the sum of its steps.

>>> costs = LatticeCosts()
>>> node = np.zeros((2, 2)); node[1, 0] = np.inf       # lane 0 blocked at set 1
>>> [(p.cost, p.lanes.tolist()) for p in plan_lattice(node, 0, costs=costs, k=2)]
[(3.0, [0, 1]), (3.0, [1, 1])]
>>> propagate_speeds([70, 30, 70, 70], [1, 1, 1, 1], start_limit=70, deceleration=800
...                  ).round(1).tolist()
[64.0, 50.0, 30.0, 70.0, 70.0]
"""

from __future__ import annotations

import heapq
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError, brief
from ..results import _fields_equal
from .prediction import CarField


@dataclass(frozen=True, kw_only=True)
class LatticeCosts:
    """The step costs of a lattice (any non-negative numbers; the defaults are the worked
    example of *Driver San Francisco*, Fig 20.4).

    ``straight``: a step that keeps its lane.  ``lane_change``: a step per lane crossed.
    ``near_car``: added to a node within ``near_distance`` (world units) of another car's
    predicted position at the node's arrival time.  ``lane_type``: added per node by the
    type of its lane (e.g. ``{"oncoming": 1.0}``; a type not listed adds 0, ``inf`` forbids
    it).  ``max_lane_change``: the most lanes one step may cross (>= 0)."""

    straight: float = 1.0
    lane_change: float = 2.0
    near_car: float = 1.0
    near_distance: float = 2.0
    lane_type: tuple[tuple[str, float], ...] = (("oncoming", 1.0),)
    max_lane_change: int = 1

    def __post_init__(self) -> None:
        for name in ("straight", "lane_change", "near_car", "near_distance"):
            _validate.positive_float(name, getattr(self, name), allow_zero=True)
        _validate.count("max_lane_change", self.max_lane_change, min=0)
        if not isinstance(self.lane_type, tuple):
            raise InvalidQueryError(f"lane_type {brief(self.lane_type)} must be a tuple of "
                                    "(type, cost) pairs")
        for entry in self.lane_type:
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)):
                raise InvalidQueryError(f"lane_type entry {entry!r} must be a (type, cost) pair")
            _validate.positive_float(f"lane_type cost of {entry[0]!r}", entry[1],
                                     allow_zero=True, allow_inf=True)

    def type_cost(self, lane_type: str) -> float:
        """The cost added to a node in a lane of type ``lane_type`` (0 for a type not listed)."""
        return dict(self.lane_type).get(lane_type, 0.0)


@dataclass(frozen=True, eq=False)
class LatticePath:
    """One path through a lattice: its total ``cost`` and ``lanes``, the lane picked in each
    set (``(n_sets,)`` int64)."""

    cost: float
    lanes: np.ndarray

    __eq__ = _fields_equal


def _node_costs(node_costs: Any) -> np.ndarray:
    arr = _validate.reals("node_costs", node_costs)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise InvalidQueryError(f"node_costs of shape {arr.shape} must be an (n_sets, n_lanes) "
                                "array with at least one set and one lane")
    if np.isnan(arr).any() or (arr < 0).any():
        raise InvalidQueryError("node_costs must be >= 0 or inf (they hold NaN or a negative "
                                "cost)")
    return arr


def _moves(n_lanes: int, costs: LatticeCosts) -> list[list[tuple[int, int]]]:
    """For each lane ``j``, the allowed steps into it: ``(p, cost)`` pairs, ``p`` the lane
    left and ``cost`` the step's exact cost (:func:`_exact`; ``lane_change`` times the lanes
    crossed, exactly)."""
    straight, change = _exact(float(costs.straight)), _exact(float(costs.lane_change))
    return [[(p, straight if p == j else change * abs(j - p)) for p in range(n_lanes)
             if abs(j - p) <= costs.max_lane_change] for j in range(n_lanes)]


def plan_lattice(node_costs: Any, start_lane: int, *, costs: LatticeCosts,
                 k: int = 5) -> list[LatticePath]:
    """The ``k`` cheapest paths from ``start_lane`` through every set of the lattice to any
    lane of the last set, cheapest first.

    ``node_costs``: ``(n_sets, n_lanes)`` float64, each node's own cost (>= 0; ``inf`` =
    unusable), e.g. from :func:`lattice_node_costs`.  Every path is scored exactly: each node
    keeps the ``k`` best paths reaching it, which is exact on a layered lattice, and a path's
    cost is summed without rounding (its step and node costs as the exact numbers they are),
    so paths are ranked by their exact costs; exact ties are broken by the lane sequence
    (lexicographically smaller first).  A path's ``cost`` is its exact cost correctly
    rounded (``inf`` past the largest float).  Fewer than ``k`` paths come back when fewer
    avoid the unusable nodes (none: an empty list)."""
    arr = _node_costs(node_costs)
    n_sets, n_lanes = arr.shape
    start = _validate.count("start_lane", start_lane, min=0, max=n_lanes - 1)
    k = _validate.count("k", k, min=1)
    if not isinstance(costs, LatticeCosts):
        raise InvalidQueryError(f"costs {brief(costs)} must be a LatticeCosts")
    # each node keeps up to k paths, built one by one: no more than there are paths
    paths = k if n_sets * math.log(n_lanes) >= math.log(k) else n_lanes ** n_sets
    _validate.allocation(f"the {k} best paths kept at {n_sets} x {n_lanes} nodes",
                         float(paths) * n_sets * n_lanes, limit=_validate.MAX_PIECES)
    # Costs as exact integers in units of the smallest float, 2**-1074; None: unusable.
    node = [[None if c == math.inf else _exact(c) for c in row] for row in arr.tolist()]
    moves = _moves(n_lanes, costs)
    # best[j]: up to k (cost, lanes) pairs reaching lane j of the current set, sorted.
    best: list[list[tuple[int, tuple[int, ...]]]] = []
    for j in range(n_lanes):
        first, here = dict(moves[j]).get(start), node[0][j]
        best.append([] if first is None or here is None else [(first + here, (j,))])
    for i in range(1, n_sets):
        nxt: list[list[tuple[int, tuple[int, ...]]]] = []
        for j in range(n_lanes):
            here = node[i][j]
            if here is None:
                nxt.append([])
                continue
            merged = ((c + s + here, lanes + (j,))
                      for p, s in moves[j] for c, lanes in best[p])
            nxt.append(heapq.nsmallest(k, merged))
        best = nxt
    top = heapq.nsmallest(k, (entry for entries in best for entry in entries))
    return [LatticePath(_rounded(cost), np.array(lanes, dtype=np.int64)) for cost, lanes in top]


#: Every float is a whole multiple of this power of two: ``2**-_FLOAT_BITS``.
_FLOAT_BITS = 1074


def _exact(cost: float) -> int:
    """The finite ``cost`` (>= 0) as an exact integer in units of ``2**-1074``."""
    num, den = cost.as_integer_ratio()      # den is a power of two
    return num << (_FLOAT_BITS + 1 - den.bit_length())


def _rounded(cost: int) -> float:
    """The float nearest the exact ``cost`` (in units of ``2**-1074``); ``inf`` past the
    largest float."""
    try:
        return cost / (1 << _FLOAT_BITS)
    except OverflowError:
        return math.inf


def turn_speed_limits(points: Any, *, max_speed: float,
                      lateral_acceleration: float) -> np.ndarray:
    """The most speed each point of a path allows on its own: ``sqrt(a · R)`` where ``R`` is
    the radius of the circle through the point and its two neighbours (``inf`` on a
    straight), capped at ``max_speed``.

    ``points``: ``(n, 2)`` float64, the path (e.g. the vehicle then one lattice node per
    set).  ``max_speed``: the driver's desired speed (> 0).  ``lateral_acceleration``: the
    most sideways acceleration the car holds, ``a`` (> 0; speed² per distance unit).  The
    two ends have no turn and get ``max_speed``.  Returns ``(n,)`` float64, the ``limits``
    of :func:`propagate_speeds` after the first (the vehicle's ``start_limit``)."""
    pts, _ = _validate.finite_points("points", points)
    top = _validate.positive_float("max_speed", max_speed)
    lat = _validate.positive_float("lateral_acceleration", lateral_acceleration)
    out = np.full(pts.shape[0], top)
    if pts.shape[0] < 3:
        return out
    # scaled by a power of two into [-2, 2]: exact, and the radii's products cannot
    # overflow however far out the points are
    scale = math.ldexp(1.0, math.frexp(float(np.abs(pts).max()))[1] - 1)
    unit = pts / scale
    a, b, c = unit[:-2], unit[1:-1], unit[2:]
    ab, bc, ca = (np.hypot(*(q - p).T) for p, q in ((a, b), (b, c), (c, a)))
    cross = np.abs((b - a)[:, 0] * (c - a)[:, 1] - (b - a)[:, 1] * (c - a)[:, 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        radius = np.where(cross > 0, ab * bc * ca / (2.0 * cross), np.inf)
    # On one line a path that turns back stops there (radius 0); a repeated point makes
    # no turn.
    back = (cross == 0) & (((b - a) * (c - b)).sum(axis=1) < 0)
    radius[back] = 0.0
    radius[(ab == 0) | (bc == 0)] = np.inf
    with np.errstate(over="ignore"):
        out[1:-1] = np.minimum(top, np.sqrt(lat * (radius * scale)))
    return out


def propagate_speeds(limits: Any, distances: Any, *, start_limit: float,
                     deceleration: float) -> np.ndarray:
    """Speeds at the vehicle and at each node set after the backward pass.

    ``limits``: ``(n_sets,)`` the most speed each set allows on its own (from its turn angle
    and the car; the last one is usually the driver's desired speed).  ``distances``:
    ``(n_sets,)`` the length of the step into each set (the first from the vehicle).
    ``start_limit``: the vehicle's own limit.  ``deceleration``: the most braking ``a``, so
    that the speed squared falls by at most ``2·a·d`` over a step of length ``d`` (units
    consistent with the speeds and distances).  Returns ``(n_sets + 1,)`` float64, ``v``:
    the vehicle's speed then each set's, from the last set backwards with
    ``v = min(limit, sqrt(v_next² + 2·a·d))`` where ``d`` is the step to the next set, so
    the car brakes before a slow stretch; a slow node never lowers the speeds after it."""
    lim = _validate.reals("limits", limits)
    dist = _validate.reals("distances", distances)
    if lim.ndim != 1 or lim.size < 1 or dist.shape != lim.shape:
        raise InvalidQueryError(f"limits of shape {lim.shape} and distances of shape "
                                f"{dist.shape} must be two (n_sets,) arrays, n_sets >= 1")
    if not (np.isfinite(lim).all() and (lim >= 0).all()):
        raise InvalidQueryError("limits must be finite speeds >= 0")
    if not (np.isfinite(dist).all() and (dist >= 0).all()):
        raise InvalidQueryError("distances must be finite lengths >= 0")
    first = _validate.positive_float("start_limit", start_limit, allow_zero=True)
    dec = _validate.positive_float("deceleration", deceleration, allow_zero=True)
    caps = np.concatenate(([first], lim))
    out = caps.copy()
    for i in range(lim.size - 1, -1, -1):
        out[i] = min(caps[i], math.hypot(out[i + 1], _braking_speed(dec, float(dist[i]))))
    return out


def _braking_speed(deceleration: float, distance: float) -> float:
    """``sqrt(2·a·d)``, the speed braking ``a`` takes off over ``d``, without the product
    overflowing or underflowing (speeds far out or tiny keep their exact limits)."""
    product = 2.0 * deceleration * distance
    if product == math.inf or product < sys.float_info.min and deceleration and distance:
        return math.sqrt(2.0) * math.sqrt(deceleration) * math.sqrt(distance)
    return math.sqrt(product)


def lattice_node_costs(positions: Any, arrival_times: Any, lane_types: Sequence[str], *,
                       costs: LatticeCosts, cars: CarField | None = None,
                       blocked: Any = None) -> np.ndarray:
    """Each lattice node's own cost for :func:`plan_lattice`: ``costs.near_car`` when another
    car's predicted position at the node's arrival time is within ``costs.near_distance``,
    plus the cost of the lane's type, ``inf`` where ``blocked``.

    ``positions``: ``(n_sets, n_lanes, 2)`` float64, the nodes (x, y).  ``arrival_times``:
    ``(n_sets,)`` seconds, when the vehicle reaches each set.  ``lane_types``: ``n_lanes``
    names (e.g. ``"driving"``, ``"oncoming"``).  ``blocked``: optional ``(n_sets, n_lanes)``
    bool, nodes on static obstacles.  Returns ``(n_sets, n_lanes)`` float64."""
    pos = _validate.reals("positions", positions)
    if pos.ndim != 3 or pos.shape[2] != 2 or pos.shape[0] < 1 or pos.shape[1] < 1:
        raise InvalidQueryError(f"positions of shape {pos.shape} must be (n_sets, n_lanes, 2)")
    if not np.isfinite(pos).all():
        raise InvalidQueryError("positions must be finite (they hold NaN or infinity)")
    n_sets, n_lanes, _ = pos.shape
    times = _validate.reals("arrival_times", arrival_times)
    if times.shape != (n_sets,) or not np.isfinite(times).all():
        raise InvalidQueryError(f"arrival_times of shape {times.shape} must be {n_sets} finite "
                                "times, one per set")
    if not isinstance(costs, LatticeCosts):
        raise InvalidQueryError(f"costs {brief(costs)} must be a LatticeCosts")
    if cars is not None and not isinstance(cars, CarField):
        raise InvalidQueryError(f"cars {brief(cars)} must be a CarField or None")
    types = list(lane_types) if isinstance(lane_types, Iterable) else [None]
    if len(types) != n_lanes or not all(isinstance(t, str) for t in types):
        raise InvalidQueryError(f"lane_types {brief(lane_types)} must name the type of each of the "
                                f"{n_lanes} lanes")
    out = np.tile(np.array([costs.type_cost(t) for t in types]), (n_sets, 1))
    if cars is not None:
        flat = pos.reshape(-1, 2)
        near = cars.distance(flat, np.repeat(times, n_lanes)) <= costs.near_distance
        out += costs.near_car * near.reshape(n_sets, n_lanes)
    if blocked is not None:
        try:
            mask = np.asarray(blocked)
        except (ValueError, TypeError):     # ragged sequences
            mask = np.empty(0, dtype=object)
        if mask.dtype != bool or mask.shape != (n_sets, n_lanes):
            raise InvalidQueryError(f"blocked of dtype {mask.dtype} and shape {mask.shape} "
                                    f"must be a ({n_sets}, {n_lanes}) bool array")
        out[mask] = np.inf
    return out
