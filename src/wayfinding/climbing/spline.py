"""Smoothed climb paths: a cubic Bézier spline through a climb path's points and a
look-ahead target on it, the "virtual stick" a climbing controller follows.

The spline passes through every path point; each span is a cubic Bézier whose inner
control points follow the Catmull–Rom tangents ``(P[i+1] - P[i-1]) / 6`` (end points
repeated), so corners are rounded outward.  Distances along it are arc lengths measured on
``samples`` points per span.

>>> s = ClimbSpline([(0, 0, 0), (0, 0, 2), (0, 0, 4), (0, 0, 6)])
>>> s.length
6.0
>>> a = s.lookahead((0, 0, 1))          # 2.8 m ahead along the curve
>>> a.target.round(6).tolist(), a.vector.round(6).tolist()
([0.0, 0.0, 3.8], [0.0, 0.0, 2.8])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import allocation, count, finite_points, number
from ..errors import InvalidQueryError
from ..results import _fields_equal
from .markup import _within

LOOKAHEAD = 2.8     # metres: the diagonal of a 2 m x 2 m move


@dataclass(frozen=True, eq=False)
class LookAhead:
    """A controller input: ``position`` (``(3,)``) is the spline point nearest the
    character, ``distance`` its arc length along the spline, ``target`` (``(3,)``) the point
    the look-ahead further along (the end at most), ``vector`` = ``target - position``."""

    position: np.ndarray
    distance: float
    target: np.ndarray
    vector: np.ndarray

    __eq__ = _fields_equal

    def axes(self, right: Any, up: Any) -> np.ndarray:
        """``vector`` as strengths on the character's axes: ``(right, up, forward)``, the
        components along the unit ``right`` and ``up`` directions and their cross product
        ``forward = up x right`` (into the wall for a character facing it), divided by the
        vector's length (zeros for a zero vector)."""
        r = finite_points("right", right, 3)[0][0]
        u = finite_points("up", up, 3)[0][0]
        if np.linalg.norm(r) == 0 or np.linalg.norm(u) == 0:
            raise InvalidQueryError("right and up must be non-zero directions")
        r, u = r / np.linalg.norm(r), u / np.linalg.norm(u)
        f = np.cross(u, r)
        n = float(np.linalg.norm(self.vector))
        return np.zeros(3) if n == 0 else np.array([r @ self.vector, u @ self.vector,
                                                    f @ self.vector]) / n


class ClimbSpline:
    """A cubic Bézier spline through ``points`` (``(n, 3)``, n >= 2, within
    ``±``:data:`~wayfinding.climbing.markup.MAX_EXTENT`; consecutive points must differ).
    ``samples``: points per span for arc lengths (>= 2)."""

    def __init__(self, points: Any, *, samples: int = 32):
        pts = finite_points("points", points, 3)[0]
        _within("points", pts, error=InvalidQueryError)
        if len(pts) < 2:
            raise InvalidQueryError(f"a spline needs at least 2 points, got {len(pts)}")
        if (np.linalg.norm(np.diff(pts, axis=0), axis=1) == 0).any():
            raise InvalidQueryError("consecutive spline points must differ")
        k = count("samples", samples, min=2)
        allocation(f"a spline of {len(pts) - 1} spans of {k} samples", 4.0 * (len(pts) - 1) * k)
        ext = np.vstack([pts[:1], pts, pts[-1:]])
        tangent = (ext[2:] - ext[:-2]) / 6.0
        self.controls = np.stack([pts[:-1], pts[:-1] + tangent[:-1], pts[1:] - tangent[1:],
                                  pts[1:]], axis=1)
        """``(n - 1, 4, 3)`` float64: each span's four Bézier control points."""
        t = np.linspace(0.0, 1.0, k + 1)[:-1]
        w = np.stack([(1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t ** 2, t ** 3], 1)
        self.samples = np.vstack([np.einsum("sk,nkd->nsd", w, self.controls).reshape(-1, 3),
                                  pts[-1:]])
        """``((n - 1) * samples + 1, 3)`` float64 points along the curve."""
        step = np.linalg.norm(np.diff(self.samples, axis=0), axis=1)
        self.arc = np.concatenate([[0.0], np.cumsum(step)])
        """Arc length at each sample, metres."""

    @property
    def length(self) -> float:
        return float(self.arc[-1])

    def at(self, distance: float) -> np.ndarray:
        """The ``(3,)`` point ``distance`` metres along the curve (clamped to its ends)."""
        d = min(max(number("distance", distance), 0.0), self.length)
        i = min(int(np.searchsorted(self.arc, d, side="right")) - 1, len(self.arc) - 2)
        a, b = self.arc[i], self.arc[i + 1]
        return self.samples[i] + (d - a) / (b - a) * (self.samples[i + 1] - self.samples[i])

    def project(self, point: Any, *, span: Any = None) -> float:
        """The arc length of the curve point nearest ``point`` (on the sampled curve).
        ``span``: ``(first, last)`` arc lengths to search between (a follower's window
        round its last position, so that a path passing near itself is not skipped;
        default the whole curve)."""
        p = finite_points("point", point, 3)[0][0]
        lo, hi = 0, len(self.samples) - 1
        if span is not None:
            first, last = (number("span", v, infinite=True) for v in np.ravel(span)) \
                if np.size(span) == 2 else (np.nan, np.nan)
            if not first <= last:
                raise InvalidQueryError(f"span {span!r} must be two arc lengths, first <= last")
            lo = min(max(int(np.searchsorted(self.arc, first, side="right")) - 1, 0), hi - 1)
            hi = max(int(np.searchsorted(self.arc, last)), lo + 1)
            hi = min(hi, len(self.samples) - 1)
        a, b = self.samples[lo:hi], self.samples[lo + 1:hi + 1]
        ab = b - a
        t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.einsum("ij,ij->i", ab, ab), 0, 1)
        i = int(np.argmin(np.linalg.norm(a + t[:, None] * ab - p, axis=1)))
        return float(self.arc[lo + i] + t[i] * (self.arc[lo + i + 1] - self.arc[lo + i]))

    def lookahead(self, point: Any, *, distance: float = LOOKAHEAD,
                  span: Any = None) -> LookAhead:
        """The controller input for a character at ``point``: the target ``distance``
        metres (>= 0, default 2.8) along the curve beyond the curve point nearest it
        (searched within ``span``, see :meth:`project`)."""
        d = number("distance", distance, min=0.0)
        s = self.project(point, span=span)
        here, there = self.at(s), self.at(s + d)
        return LookAhead(here, s, there, there - here)
