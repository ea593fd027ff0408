"""Dirichlet domains: each node owns the region of the world nearest to its seed point, with
optional multiplicative weights."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options, renamed_keywords, warn
from .._validate import flag
from ..errors import InvalidQueryError
from ..geometry.nearest import PointIndex
from ..geometry.obstacles import Obstacles, as_points, check_radius
from .positioned import PositionedGraph, check_clear_points
from .visibility import _bounds

#: Default number of raster samples along the longer side of the bounds.
DEFAULT_SAMPLES = 512


class DirichletDomains(PositionedGraph):
    """Dirichlet domains (Voronoi regions) of seed points, as a graph of bordering domains.

    ``seeds``: ``(n, 2)`` distinct world points, the nodes' characteristic points (and their
    :meth:`localize`).  ``weights``: optional ``(n,)`` finite slopes > 0; a point belongs to
    ``argmin_i weights[i] · |p − seeds[i]|`` (a multiplicatively weighted Voronoi diagram),
    ties to the lowest index.  A heavier (steeper) seed claims less; a light one's region can
    reach around a heavier seed and reappear beyond it ("peak back out"), so weighted domains
    may be disconnected and may even enclose other seeds.

    Adjacency (``adjacency``):

    * ``"exact"`` (unweighted only; needs shapely, the ``[geometry]`` extra, for the Delaunay
      triangulation): two domains are linked when their Voronoi cells share a boundary of
      positive length (> 1e-9 × the seeds' extent): the Delaunay edges minus the
      zero-length contacts of co-circular seeds.
    * ``"raster"``: the label of each sample point of a lattice over ``bounds`` with step
      ``cell_size`` (world units; default the longer side / 512) is computed, and domains
      whose labels meet between two horizontally or vertically adjacent samples are linked.
      Borders shorter than about ``cell_size``, or outside the bounds, may be missed, and
      two domains less than one step apart across such a short border may be linked.
    * ``"auto"`` (default): ``"exact"`` without weights, ``"raster"`` with them.

    With ``obstacles``, seeds must be clear for the ``radius`` and links whose straight
    segment is not clear are dropped (``check_links``), so paths are legal; links still do
    not guarantee that every pair of points of two linked domains see each other.

    >>> d = DirichletDomains([(0, 0), (10, 0)], weights=[0.5, 1.0], bounds=(-5, -5, 40, 5))
    >>> d.quantize([(6, 0), (15, 0), (30, 0)]).tolist()
    [0, 1, 0]
    """

    @renamed_keywords(resolution="cell_size")
    @positional_options("weights")
    def __init__(self, seeds: ArrayLike, *, weights: ArrayLike | None = None,
                 obstacles: Obstacles | None = None, radius: float = 0.0,
                 bounds: ArrayLike | None = None, adjacency: str = "auto",
                 cell_size: float | None = None, check_links: bool = True):
        check_links = flag("check_links", check_links)
        pts = as_points(seeds, "seeds")
        if not len(pts):
            raise InvalidQueryError("Dirichlet domains need at least one seed")
        uniq, counts = np.unique(pts, axis=0, return_counts=True)
        if np.any(counts > 1):
            dup = uniq[int(np.argmax(counts > 1))]
            same = np.flatnonzero(np.all(pts == dup, axis=1))[:2].tolist()
            raise InvalidQueryError(f"seeds {same[0]} and {same[1]} coincide at "
                                    f"{dup.tolist()}")
        w = None
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64).ravel()
            if w.shape != (len(pts),) or not np.all(np.isfinite(w)) or w.min() <= 0:
                raise InvalidQueryError(f"weights must be {len(pts)} finite values > 0")
            w.flags.writeable = False
        if adjacency not in ("auto", "exact", "raster"):
            raise InvalidQueryError(f"unknown adjacency {adjacency!r}; expected 'auto', "
                                    "'exact' or 'raster'")
        if adjacency == "auto":
            adjacency = "raster" if w is not None else "exact"
        if adjacency == "exact" and w is not None:
            raise InvalidQueryError("exact adjacency is for unweighted domains; use "
                                    "adjacency='raster' with weights")
        obs = obstacles if obstacles is not None else Obstacles()
        r = check_radius(radius)
        check_clear_points(pts, obs, r, "seed")
        self._seed_weights = w
        self._bounds = _bounds(bounds) if bounds is not None else _default_bounds(pts, obs)
        if cell_size is None:
            x0, y0, x1, y1 = self._bounds
            cell_size = max(x1 - x0, y1 - y0) / DEFAULT_SAMPLES
        if not (np.isfinite(cell_size) and cell_size > 0):
            raise InvalidQueryError(f"cell_size {cell_size!r} must be finite and > 0")
        self._cell_size = float(cell_size)
        self._adjacency = adjacency
        if adjacency == "exact":
            pairs = _bordering_pairs(pts)
        else:
            pairs = _raster_pairs(_raster(pts, w, self._bounds, self._cell_size)[0])
        if check_links and len(obs) and len(pairs):
            pairs = pairs[obs.segments_clear(pts[pairs[:, 0]], pts[pairs[:, 1]], radius=r)]
        super().__init__(pts, pairs, obstacles=obs, radius=r)

    @property
    def seed_weights(self) -> np.ndarray | None:
        """``(n,)`` float64 weights (slopes), or None when unweighted."""
        return self._seed_weights

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)``: the raster area (default: seeds and obstacles with a
        5% border)."""
        return self._bounds

    @property
    def cell_size(self) -> float:
        """World size of a cell of the label raster."""
        return self._cell_size

    @property
    def resolution(self) -> float:
        """Deprecated name of :attr:`cell_size`."""
        warn("DirichletDomains.resolution", "DirichletDomains.cell_size")
        return self._cell_size

    @property
    def adjacency(self) -> str:
        """How the links were found: ``"exact"`` or ``"raster"``."""
        return self._adjacency

    def quantize(self, points: ArrayLike) -> np.ndarray:
        """``(m,)`` int64 domain of each world point.  Unweighted: nearest seed through a
        bucket grid (O(1) expected per point on evenly spread seeds); weighted: brute force
        over the seeds, vectorised in chunks, O(n) per point.  Ties to the lowest index."""
        p = as_points(points, "points")
        if self._seed_weights is None:
            return self._point_index.nearest(p)
        return _weighted_labels(self.positions, self._seed_weights, p)

    def label_raster(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The domain of every sample point of the raster: ``(labels, xs, ys)`` with
        ``labels`` ``(H, W)`` int64 indexed ``[row, column]`` and the sample coordinates
        ``xs`` ``(W,)``, ``ys`` ``(H,)`` (cell centres of step :attr:`cell_size` over
        :attr:`bounds`)."""
        return _raster(self.positions, self._seed_weights, self._bounds, self._cell_size)


def _weighted_labels(seeds: np.ndarray, w: np.ndarray, p: np.ndarray) -> np.ndarray:
    """argmin_i w[i]·|p − seeds[i]| for each point (first index on ties), in chunks."""
    out = np.empty(len(p), dtype=np.int64)
    step = max(1, 2_000_000 // len(seeds))
    for lo in range(0, len(p), step):
        diff = p[lo:lo + step, None, :] - seeds[None]
        cost = w[None] * np.sqrt(diff[..., 0] ** 2 + diff[..., 1] ** 2)
        out[lo:lo + step] = np.argmin(cost, axis=1)
    return out


def _raster(seeds: np.ndarray, w: np.ndarray | None, bounds: tuple[float, ...],
            step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x0, y0, x1, y1 = bounds
    xs = x0 + step * (np.arange(max(1, int(np.ceil((x1 - x0) / step)))) + 0.5)
    ys = y0 + step * (np.arange(max(1, int(np.ceil((y1 - y0) / step)))) + 0.5)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1)
    labels = PointIndex(seeds).nearest(pts) if w is None else _weighted_labels(seeds, w, pts)
    return labels.reshape(len(ys), len(xs)), xs, ys


def _raster_pairs(lab: np.ndarray) -> np.ndarray:
    """Pairs of labels meeting between horizontally or vertically adjacent samples."""
    a = np.concatenate([lab[:, :-1].ravel(), lab[:-1, :].ravel()])
    b = np.concatenate([lab[:, 1:].ravel(), lab[1:, :].ravel()])
    diff = a != b
    pairs = np.sort(np.stack([a[diff], b[diff]], axis=1), axis=1)
    return np.unique(pairs, axis=0) if len(pairs) else np.empty((0, 2), dtype=np.int64)


def _default_bounds(pts: np.ndarray, obs: Obstacles) -> tuple[float, float, float, float]:
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    if len(obs):
        b = obs.bounds
        lo, hi = np.minimum(lo, b[:2]), np.maximum(hi, b[2:])
    pad = 0.05 * max(float((hi - lo).max()), 1.0)
    return (float(lo[0] - pad), float(lo[1] - pad), float(hi[0] + pad), float(hi[1] + pad))


def _bordering_pairs(pts: np.ndarray) -> np.ndarray:
    """Pairs of seeds whose Voronoi cells share a boundary of positive length: the Delaunay
    edges (shapely) on the convex hull (their shared boundary is an unbounded ray) and the
    inner ones whose two triangles have circumcentres more than 1e-9 × the seeds' extent
    apart (co-circular seeds give a zero-length border, whichever diagonal is chosen).  GEOS's
    triangulation is first made Delaunay with exact predicates (:func:`_legalize`), as its own
    can be wrong for seeds close to a line."""
    try:
        import shapely
    except ImportError:
        raise ImportError("exact Dirichlet adjacency needs shapely: install the [geometry] "
                          "extra (pip install 'wayfinding[geometry]') or use "
                          "adjacency='raster'") from None
    n = len(pts)
    extent = max(float((pts.max(axis=0) - pts.min(axis=0)).max()), 1e-300)
    coords = shapely.get_coordinates(shapely.delaunay_triangles(shapely.multipoints(pts)))
    tri = np.empty((0, 3), dtype=np.int64)
    if len(coords):
        corners = coords.reshape(-1, 4, 2)[:, :3].reshape(-1, 2)
        _, inverse = np.unique(np.concatenate([pts, corners]), axis=0, return_inverse=True)
        inverse = inverse.ravel()
        seed_of = np.empty(n, dtype=np.int64)
        seed_of[inverse[:n]] = np.arange(n)
        tri = _legalize(pts, seed_of[inverse[n:]].reshape(-1, 3))
    if not len(tri):
        # all seeds on one line: each borders the next along it
        if n < 2:
            return np.empty((0, 2), dtype=np.int64)
        direction = pts[np.argmax(np.hypot(*(pts - pts[0]).T))] - pts[0]
        order = np.argsort((pts - pts[0]) @ direction, kind="stable")
        return np.sort(np.stack([order[:-1], order[1:]], axis=1), axis=1)
    a, b, c = pts[tri[:, 0]], pts[tri[:, 1]], pts[tri[:, 2]]
    with np.errstate(divide="ignore", invalid="ignore"):
        centres = _circumcentres(a, b, c)  # a sliver's (beyond float range) is not finite
    edges = np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
    owner = np.tile(np.arange(len(tri)), 3)
    order = np.lexsort((edges[:, 1], edges[:, 0]))
    edges, owner = edges[order], owner[order]
    first = np.ones(len(edges), dtype=bool)
    first[1:] = np.any(edges[1:] != edges[:-1], axis=1)
    start = np.flatnonzero(first)
    count = np.diff(np.append(start, len(edges)))
    pairs = edges[start]
    keep = count == 1  # hull edges
    inner = np.flatnonzero(count == 2)
    with np.errstate(invalid="ignore"):
        gap = np.hypot(*(centres[owner[start[inner]]] - centres[owner[start[inner] + 1]]).T)
    keep[inner] = ~(gap <= 1e-9 * extent)  # NaN: a sliver's centre, far away
    return pairs[keep]


def _circumcentres(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``(t, 2)`` circumcentres of triangles ``a, b, c`` (relative to a, for precision)."""
    bx, by = (b - a).T
    cx, cy = (c - a).T
    d = 2.0 * (bx * cy - by * cx)
    b2, c2 = bx * bx + by * by, cx * cx + cy * cy
    ux = (cy * b2 - by * c2) / d
    uy = (bx * c2 - cx * b2) / d
    return a + np.stack([ux, uy], axis=1)


def _orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> Fraction:
    """Exact twice-signed area of ``a, b, c`` (> 0 counter-clockwise)."""
    ax, ay, bx, by, cx, cy = (Fraction(float(v)) for v in (*a, *b, *c))
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


def _incircle(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> Fraction:
    """Exact sign test: > 0 when ``d`` is inside the circle through the counter-clockwise
    ``a, b, c``, 0 on it."""
    dx, dy = Fraction(float(d[0])), Fraction(float(d[1]))
    rows = []
    for p in (a, b, c):
        x, y = Fraction(float(p[0])) - dx, Fraction(float(p[1])) - dy
        rows.append((x, y, x * x + y * y))
    (ax, ay, al), (bx, by, bl), (cx, cy, cl) = rows
    return (ax * (by * cl - bl * cy) - ay * (bx * cl - bl * cx) + al * (bx * cy - by * cx))


def _legalize(pts: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Make a triangulation of ``pts`` Delaunay with exact predicates: ``tri`` (from GEOS,
    whose floating-point predicates can keep zero-area or illegal triangles for seeds close to
    a line) is checked edge by edge; only triangles the floating-point check cannot clear are
    looked at exactly, flipped until every edge is legal, and zero-area triangles left on the
    hull are dropped."""
    a, b, c = pts[tri[:, 0]], pts[tri[:, 1]], pts[tri[:, 2]]
    area = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    scale = np.abs(np.concatenate([b - a, c - a], axis=1)).max(axis=1) ** 2
    doubtful = np.abs(area) <= 1e-6 * scale
    if not doubtful.any():
        return tri
    tris = [list(t) for t in tri.tolist()]
    for t in tris:
        if _orient(*pts[t]) < 0:
            t[1], t[2] = t[2], t[1]
    by_edge: dict[tuple[int, int], set[int]] = {}

    def link(k: int) -> None:
        for e in range(3):
            by_edge.setdefault(_key(tris[k][e], tris[k][(e + 1) % 3]), set()).add(k)

    def unlink(k: int) -> None:
        for e in range(3):
            by_edge[_key(tris[k][e], tris[k][(e + 1) % 3])].discard(k)

    for k in range(len(tris)):
        link(k)
    stack = [_key(tris[k][e], tris[k][(e + 1) % 3])
             for k in np.flatnonzero(doubtful).tolist() for e in range(3)]
    for _ in range(100 * len(tris) + 100):
        if not stack:
            break
        edge = stack.pop()
        owners = sorted(by_edge.get(edge, ()))
        if len(owners) != 2:
            continue
        k1, k2 = owners
        u, v = edge
        p, q = (next(w for w in tris[k] if w not in edge) for k in (k1, k2))
        side_p = _orient(pts[u], pts[v], pts[p])
        if side_p < 0 or (side_p == 0 and _orient(pts[u], pts[v], pts[q]) > 0):
            k1, k2, p, q = k2, k1, q, p  # p left of u -> v, q right
        illegal = (_orient(*pts[tris[k1]]) == 0 or _orient(*pts[tris[k2]]) == 0
                   or _incircle(pts[u], pts[v], pts[p], pts[q]) > 0)
        if not illegal or _orient(pts[u], pts[q], pts[p]) <= 0 \
                or _orient(pts[q], pts[v], pts[p]) <= 0:
            continue
        unlink(k1)
        unlink(k2)
        tris[k1], tris[k2] = [u, q, p], [q, v, p]
        link(k1)
        link(k2)
        stack += [_key(u, q), _key(q, v), _key(v, p), _key(p, u)]
    kept = [t for t in tris if _orient(*pts[t]) != 0]
    return np.array(kept, dtype=np.int64).reshape(-1, 3)


def _key(u: int, v: int) -> tuple[int, int]:
    return (u, v) if u < v else (v, u)
