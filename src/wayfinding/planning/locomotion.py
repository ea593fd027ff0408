"""Locomotion planning for animation-driven characters: the path a character's clips follow,
kept as a corridor of navigation-mesh polygons and as points, and made playable.

A character moved by its clips' root motion needs room for every start, turn and stop clip,
so the straight path of a navigation mesh is post-processed before any clip is chosen
(:func:`process_path`):

* **minimum segment length** — the shortest segment is mended first (ties: the one nearer
  the start): its two inner ends are merged into their midpoint, or else into the point
  where the segments before and after it meet (when that lies beyond both ends: the corner
  that goes round them), or else its later (then its earlier) inner end is dropped,
  whichever first keeps every changed segment walkable; a segment
  that cannot be mended stays, as does a last segment into the goal when only the start
  and goal are left;
* **tight opposite turns** — two neighbouring inner points that turn at least
  ``sharp_turn`` each, in opposite directions, closer than ``turn_space`` (the room two
  sharp-turn clips need back to back), are pushed apart along the line joining them until
  that segment is ``turn_space`` long, where the mesh has room and the outer segments keep
  ``min_segment``; otherwise the first of them is marked a **fail-safe stop**: the character
  stops there, steps toward the next point and starts again.  A push turns the path anew
  at the two points before the pair: a pair there that it makes tight is marked too, so
  that no tight opposite turns are left unmarked.

"Walkable" is checked on the mesh when one is given (a ray along the segment from a point on
a usable polygon reaches its end, :meth:`~wayfinding.navmesh.NavMesh.raycast`, going on past
a corner it only grazes); points alone are taken to lie in open space.

>>> import numpy as np
>>> p = process_path([(0, 0), (5, 0), (5.3, 0.1), (10, 0)], min_segment=1.0)
>>> p.points.tolist(), p.stops.tolist()
([[0.0, 0.0], [5.15, 0.05], [10.0, 0.0]], [False, False, False])
>>> zigzag = process_path([(0, 0), (5, 0), (5, 1.2), (10, 1.2)], turn_space=2.0)
>>> np.round(zigzag.points, 6).tolist()
[[0.0, 0.0], [5.0, -0.4], [5.0, 1.6], [10.0, 1.2]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import finite_points, number, positive_float
from ..errors import InvalidQueryError, brief
from ..navmesh import NavMesh, QueryFilter
from ..navmesh.records import DEFAULT_FILTER
from ..results import Status, _fields_equal

#: Default shortest segment (world units, metres in the examples): the space of a short
#: stop clip.
MIN_SEGMENT = 1.0
#: Default room two sharp turn clips need back to back (world units).
TURN_SPACE = 2.0
#: Default least turn (radians) that counts as sharp for :func:`process_path`.
SHARP_TURN = math.pi / 3
#: How near a mesh vertex (relative to the coordinates' size) a ray's stop counts as
#: grazing that corner.
_GRAZE = 1e-7


@dataclass(slots=True)
class LocomotionPath:
    """A path made playable by clips.

    ``points``: ``(n, 2)`` float64 world points from start to goal (empty when no path);
    ``stops``: ``(n,)`` bool, the fail-safe stops (the character stops at the point, steps
    toward the next and starts again); ``corridor``: ``(m,)`` int32 polygons of the mesh the
    path was found in, in order (empty when made from points alone); ``status``:
    :attr:`~wayfinding.results.Status.FOUND`, or that of the failed mesh query.
    """

    points: np.ndarray
    stops: np.ndarray
    corridor: np.ndarray
    status: Status

    __eq__ = _fields_equal

    @property
    def found(self) -> bool:
        return self.status is Status.FOUND

    def lengths(self) -> np.ndarray:
        """The ``(n - 1,)`` float64 segment lengths."""
        return np.hypot(*np.diff(self.points, axis=0).T)

    def turns(self) -> np.ndarray:
        """The ``(n - 2,)`` float64 signed turns at the inner points, radians in
        ``[-pi, pi]``, counter-clockwise positive."""
        return _turns(self.points)


def _turns(points: np.ndarray) -> np.ndarray:
    d = np.diff(points, axis=0)
    a, b = d[:-1], d[1:]
    cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    return np.arctan2(cross, (a * b).sum(axis=1))


class _Walkable:
    """Whether segments are walkable: on ``mesh`` when given (with ``filter``), else
    always."""

    def __init__(self, mesh: NavMesh | None, filter: QueryFilter):
        if mesh is not None and not isinstance(mesh, NavMesh):
            raise InvalidQueryError(f"mesh must be a NavMesh or None, got {type(mesh).__name__}")
        self.mesh, self.filter = mesh, filter

    def __call__(self, *points: np.ndarray) -> bool:
        return self.mesh is None or all(self._segment(a, b)
                                        for a, b in zip(points[:-1], points[1:]))

    def _segment(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Whether the segment ``a``-``b`` is walkable.  A ray that only grazes a corner of
        the mesh (stops within :data:`_GRAZE` of a mesh vertex, and goes on into the mesh
        just past it) is followed on from there: rounding can stop a ray along a path
        segment that leaves a corner."""
        mesh = self.mesh
        assert mesh is not None
        start = np.asarray(a, dtype=np.float64)
        end = np.asarray(b, dtype=np.float64)
        for _ in range(8):
            try:
                hit = mesh.raycast(start, end, filter=self.filter)
            except InvalidQueryError:          # a point off the usable polygons
                return False
            if not hit.hit:
                return True
            p = np.array(hit.point)
            left = float(np.hypot(*(end - p)))
            scale = _GRAZE * max(1.0, float(np.abs(p).max()))
            if left <= scale:
                return True
            if np.hypot(*(mesh.vertices - p).T).min() > scale:
                return False
            start = p + (end - p) * (scale / left)
        return False


def _options(min_segment: Any, turn_space: Any, sharp_turn: Any) -> tuple[float, float, float]:
    return (positive_float("min_segment", min_segment, allow_zero=True),
            positive_float("turn_space", turn_space, allow_zero=True),
            number("sharp_turn", sharp_turn, min=0.0, max=math.pi))


def process_path(points: ArrayLike, *, mesh: NavMesh | None = None,
                 filter: QueryFilter = DEFAULT_FILTER, min_segment: float = MIN_SEGMENT,
                 turn_space: float = TURN_SPACE, sharp_turn: float = SHARP_TURN,
                 corridor: ArrayLike = ()) -> LocomotionPath:
    """Post-process an ``(n, 2)`` path (n >= 2, start to goal) for clip playback: minimum
    segment length, then tight opposite turns pushed apart or marked as fail-safe stops (see
    the module text).

    ``min_segment``: the shortest segment wanted (world units, >= 0; the shortest stop clip's
    space is a good choice); ``turn_space``: the room two opposite sharp-turn clips need
    back to back (>= 0); ``sharp_turn``: the least turn in radians (in ``[0, pi]``) that
    counts as sharp; ``mesh``/``filter``: the navigation mesh the path lies in, whose walls
    the changes must respect (``None``: open space); ``corridor``: the polygons the path
    was found through, kept in the result.
    """
    min_seg, space, sharp = _options(min_segment, turn_space, sharp_turn)
    pts, _ = finite_points("points", points)
    if len(pts) < 2:
        raise InvalidQueryError(f"points must hold a start and a goal, got {len(pts)} point(s)")
    walkable = _Walkable(mesh, filter)
    path = [p.copy() for p in pts]
    _merge_short(path, min_seg, walkable)
    stops = _separate_turns(path, min_seg, space, sharp, walkable)
    corr = _corridor(corridor)
    return LocomotionPath(np.array(path, dtype=np.float64).reshape(-1, 2), stops, corr,
                          Status.FOUND)


def _corridor(corridor: ArrayLike) -> np.ndarray:
    """``corridor`` as an int32 ``(m,)`` array of polygon ids (integers in ``[0, 2**31)``,
    in one flat sequence)."""
    try:
        corr = np.asarray(corridor)
    except (ValueError, TypeError):         # ragged sequences
        corr = np.empty(1, dtype=object)
    if corr.size and (corr.dtype.kind not in "iu" or corr.ndim != 1):
        raise InvalidQueryError(f"corridor {brief(corridor)} must be a flat sequence of "
                                "polygon ids (integers)")
    if corr.size and (corr.min() < 0 or corr.max() > np.iinfo(np.int32).max):
        raise InvalidQueryError(f"corridor {brief(corridor)} must hold polygon ids in "
                                f"[0, {np.iinfo(np.int32).max}]")
    return corr.astype(np.int32).reshape(-1)


def _merge_short(path: list[np.ndarray], min_seg: float, walkable: _Walkable) -> None:
    """Mend the segments of ``path`` shorter than ``min_seg``, shortest first (see the
    module text), in place."""
    kept: set[tuple[float, ...]] = set()      # short segments that cannot be mended
    while len(path) > 2:
        best, best_len = -1, min_seg
        for i in range(len(path) - 1):
            length = float(np.hypot(*(path[i + 1] - path[i])))
            if length < best_len and (*path[i], *path[i + 1]) not in kept:
                best, best_len = i, length
        if best < 0:
            return
        i, last = best, len(path) - 1
        if 0 < i and i + 1 < last:
            mid = (path[i] + path[i + 1]) / 2
            meet = _meeting(*path[i - 1:i + 3])
            # the corner's two new legs extend segments already walked: only they are cast
            if walkable(path[i - 1], mid, path[i + 2]):
                path[i:i + 2] = [mid]
                continue
            if meet is not None and walkable(path[i], meet, path[i + 1]):
                path[i:i + 2] = [meet]
                continue
        if i + 1 < last and walkable(path[i], path[i + 2]):
            del path[i + 1]
        elif i > 0 and walkable(path[i - 1], path[i + 1]):
            del path[i]
        else:
            kept.add((*path[i], *path[i + 1]))


def _meeting(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray | None:
    """Where the line from ``a`` through ``b`` meets the line from ``d`` through ``c``, when
    that is beyond ``b`` and beyond ``c`` (a corner that goes round both); else None."""
    u, v = b - a, c - d
    den = u[0] * v[1] - u[1] * v[0]
    if den == 0:
        return None
    w = d - a
    s = (w[0] * v[1] - w[1] * v[0]) / den
    t = (w[0] * u[1] - w[1] * u[0]) / den
    return a + s * u if s >= 1 and t >= 1 else None


def _separate_turns(path: list[np.ndarray], min_seg: float, space: float, sharp: float,
                    walkable: _Walkable) -> np.ndarray:
    """Push apart or mark the tight opposite turns of ``path`` (in place), from the start;
    the fail-safe stops as an ``(n,)`` bool array."""
    stops = np.zeros(len(path), dtype=bool)
    for i in range(1, len(path) - 2):
        a, b, c, d = path[i - 1], path[i], path[i + 1], path[i + 2]
        if not _tight(a, b, c, d, space, sharp):
            continue
        length = float(np.hypot(*(c - b)))
        u = (c - b) / length
        shift = (space - length) / 2
        b2, c2 = b - shift * u, c + shift * u
        if (np.hypot(*(b2 - a)) >= min_seg and np.hypot(*(d - c2)) >= min_seg
                and walkable(a, b2, c2, d)):
            path[i], path[i + 1] = b2, c2
            # moving b turns the path at a and b too: a pair before that is now tight is
            # marked
            for j in range(max(i - 2, 1), i):
                stops[j] |= _tight(path[j - 1], path[j], path[j + 1], path[j + 2], space,
                                   sharp)
        else:
            stops[i] = True
    return stops


def _tight(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, space: float,
           sharp: float) -> bool:
    """Whether ``b`` and ``c`` of the path ``a b c d`` turn at least ``sharp`` each, in
    opposite directions, closer than ``space``."""
    t1, t2 = _turns(np.array([a, b, c, d]))
    return bool(t1 * t2 < 0 and min(abs(t1), abs(t2)) >= sharp
                and float(np.hypot(*(c - b))) < space)


def locomotion_path(mesh: NavMesh, start: ArrayLike, goal: ArrayLike, *,
                    filter: QueryFilter = DEFAULT_FILTER, min_segment: float = MIN_SEGMENT,
                    turn_space: float = TURN_SPACE, sharp_turn: float = SHARP_TURN
                    ) -> LocomotionPath:
    """The playable path from ``start`` to ``goal`` on ``mesh``: the mesh's straight path
    (:meth:`~wayfinding.navmesh.NavMesh.find_path`, whose corridor is kept) post-processed by
    :func:`process_path` with the same options.  No route gives an empty path whose
    ``status`` is the query's."""
    if not isinstance(mesh, NavMesh):
        raise InvalidQueryError(f"mesh must be a NavMesh, got {type(mesh).__name__}")
    _options(min_segment, turn_space, sharp_turn)
    got = mesh.find_path(start, goal, filter=filter)
    if not got.found:
        return LocomotionPath(np.empty((0, 2)), np.zeros(0, dtype=bool),
                              np.zeros(0, dtype=np.int32), got.status)
    path = got.path if len(got.path) >= 2 else np.vstack([got.path, got.path])
    return process_path(path, mesh=mesh, filter=filter, min_segment=min_segment,
                        turn_space=turn_space, sharp_turn=sharp_turn, corridor=got.corridor)
