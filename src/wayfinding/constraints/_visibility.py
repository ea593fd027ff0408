"""The region a viewer sees within a sector, past occluding segments, as a union of pieces.

Directions are measured as offsets ``0..fov`` counter-clockwise from the sector's first
edge.  Between two consecutive critical directions (the sector's edges, the occluders' ends,
their crossings with the range circle and with each other) the nearest occluder along the
sight line stays the same segment, and it stays inside or outside the range: the view there
is a triangle up to that segment, or a sector of open view.
"""

from __future__ import annotations

import numpy as np

from ..geometry.obstacles import TOLERANCE, _cross
from ._pieces import TWO_PI, Pieces, chunks, crossing_pairs


def _offsets(points: np.ndarray, eye: np.ndarray, start: float) -> np.ndarray:
    d = points - eye
    return (np.arctan2(d[:, 1], d[:, 0]) - start) % TWO_PI


def _critical(eye: np.ndarray, start: float, fov: float, rng: float, a: np.ndarray,
              b: np.ndarray) -> np.ndarray:
    """Sorted distinct critical direction offsets in ``[0, fov]``."""
    e = b - a
    pts = [a, b]
    # crossings with the range circle: |a + t e - eye| = rng, 0 <= t <= 1
    f = a - eye
    qa = np.einsum("ij,ij->i", e, e)
    qb = 2.0 * np.einsum("ij,ij->i", f, e)
    qc = np.einsum("ij,ij->i", f, f) - rng * rng
    disc = qb * qb - 4.0 * qa * qc
    ok = disc >= 0
    root = np.sqrt(np.where(ok, disc, 0.0))
    for sign in (-1.0, 1.0):
        t = (-qb + sign * root) / (2.0 * qa)
        keep = ok & (t >= 0) & (t <= 1)
        pts.append(a[keep] + t[keep, None] * e[keep])
    # crossings of two occluders
    i, j = crossing_pairs(a, b, touching=False)
    t = _cross(a[j] - a[i], e[j]) / _cross(e[i], e[j])
    pts.append(a[i] + t[:, None] * e[i])
    offs = _offsets(np.concatenate(pts), eye, start)
    offs = np.concatenate([[0.0, fov], offs[offs <= fov]])
    return np.unique(offs)


def visible_pieces(eye: np.ndarray, start: float, fov: float, rng: float, segs: np.ndarray
                   ) -> Pieces:
    """The points within ``rng`` of ``eye`` whose direction lies ``0..fov`` radians
    counter-clockwise from ``start``, and whose sight line crosses none of the
    ``(k, 2, 2)`` segments ``segs`` (none of which passes through the eye).  A view walled
    in closer than the tolerance all round is the eye alone."""
    a, b = segs[:, 0], segs[:, 1]
    e = b - a
    crit = _critical(eye, start, fov, rng, a, b)
    lo, hi = crit[:-1], crit[1:]
    wide = hi - lo > 1e-12
    lo, hi = lo[wide], hi[wide]
    mid = start + 0.5 * (lo + hi)
    d = np.stack([np.cos(mid), np.sin(mid)], axis=1)
    k = len(a)
    best = np.full(len(lo), np.inf)
    which = np.full(len(lo), -1)
    f = a - eye
    for part in chunks(len(lo), k):
        dc = d[part]
        denom = _cross(dc[:, None, :], e[None])
        with np.errstate(divide="ignore", invalid="ignore"):
            s = _cross(f[None], e[None]) / denom
            t = _cross(f[None], dc[:, None, :]) / denom
        s = np.where((denom != 0) & (s > 0) & (t >= 0) & (t <= 1), s, np.inf)
        which[part] = s.argmin(axis=1)
        best[part] = s.min(axis=1)
    blocked = best < rng
    triangles: list[np.ndarray] = []
    if blocked.any():
        w = which[blocked]
        ends = []
        for ang in (lo[blocked], hi[blocked]):
            u = np.stack([np.cos(start + ang), np.sin(start + ang)], axis=1)
            s = _cross(f[w], e[w]) / _cross(u, e[w])
            ends.append(eye + s[:, None] * u)
        p, q = ends
        keep = 0.5 * _cross(p - eye, q - eye) > TOLERANCE
        triangles = list(np.stack([np.broadcast_to(eye, p.shape)[keep], p[keep], q[keep]],
                                  axis=1))
    # open view: merge runs of consecutive open intervals into one sector each
    idx = np.flatnonzero(~blocked)
    new = np.ones(len(idx), dtype=bool)
    new[1:] = (idx[1:] != idx[:-1] + 1) | (lo[idx[1:]] != hi[idx[:-1]])
    first = idx[new]
    last = idx[np.append(np.flatnonzero(new)[1:] - 1, len(idx) - 1)] if len(idx) else idx
    sectors = np.column_stack([np.broadcast_to(eye, (len(first), 2)), np.full(len(first), rng),
                               start + lo[first], hi[last] - lo[first]])
    if not triangles and not len(sectors):      # walled in closer than the tolerance
        return Pieces(discs=np.array([[eye[0], eye[1], 0.0]]))
    return Pieces(triangles, sectors=sectors)
