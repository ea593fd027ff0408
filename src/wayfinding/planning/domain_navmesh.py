"""The two domains over a navigation mesh (Kapadia et al., ch. 9): Σ1, the static mesh, and
Σ2, the same mesh with a time-varying density of movable agents and obstacles per polygon.

A state is a polygon id; a transition goes to a polygon sharing an edge (cost: the
distance between the two polygons' centres, :meth:`NavMesh.centroids`) or along one of the
mesh's off-mesh links (jumps: the link's own ``cost`` when it has one, else ``jump_cost``
times the centre distance).  A problem's ``ends`` (its start and goal points) may stand
for their polygons instead of the centres: the edges of those two polygons then cost the
distance from the point (a large polygon's centre can be far from where the agent is).
The heuristic is the Euclidean distance between the polygons' points scaled by the lowest
cost per unit length of any edge (:class:`~wayfinding.graph.CSRGraph`'s rule, at no
density), so it never overestimates.

Σ2 scales every edge by the density it crosses (erratum #27 of the notes: the seed gives no
formula): ``cost = length · (1 + k · (φ_u(t) + φ_v(t)) / 2)``, the mean of the two
polygons' densities at time ``t``, which keeps the cost symmetric and never below Σ1's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validate import finite_point, number
from ..errors import InvalidQueryError, brief
from ..graph.csr import CSRGraph
from ..navmesh.mesh import NavMesh
from .domain_base import Domain


class NavMeshDomain(Domain):
    """Σ1: the polygons of ``mesh`` as states, point-mass agent, static geometry only.

    Parameters
    ----------
    mesh : NavMesh
        The mesh; its off-mesh links become jump transitions.
    jump_cost : float, default 2.0
        Cost of a link without its own ``cost``, per unit of the distance between the two
        polygons' centres (>= 1: a jump costs more than walking the same distance).

    Attributes: ``centres`` ``(P, 2)`` float64; ``sources``, ``targets`` ``(k,)`` int64 and
    ``lengths`` ``(k,)`` float64 of the transitions (edges both ways, then links), in the
    order of :meth:`graph`'s edge ids; ``jumps`` ``(k,)`` bool marks the links.
    """

    name = "static"

    def __init__(self, mesh: NavMesh, *, jump_cost: float = 2.0):
        if not isinstance(mesh, NavMesh):
            raise InvalidQueryError(f"mesh must be a NavMesh, got {type(mesh).__name__}")
        self.jump_cost = number("jump_cost", jump_cost, min=1.0)
        self.mesh = mesh
        self.centres = mesh.centroids()
        p, m = mesh.polygons.shape
        ok = mesh.neighbours >= 0
        pairs = np.unique(np.stack([np.repeat(np.arange(p), m)[ok.ravel()],
                                    mesh.neighbours.ravel()[ok.ravel()]], 1), axis=0)
        src, dst = [pairs[:, 0]], [pairs[:, 1]]
        base = [np.hypot(*(self.centres[pairs[:, 1]] - self.centres[pairs[:, 0]]).T)]
        jumps = [np.zeros(len(pairs), dtype=bool)]
        for link, (a, b) in zip(mesh.links, mesh.link_polygons.tolist()):
            far = float(np.hypot(*(self.centres[b] - self.centres[a])))
            c = self.jump_cost * far if link.cost is None else float(link.cost)
            ends = [(a, b)] + ([(b, a)] if link.bidirectional else [])
            src.append(np.array([e[0] for e in ends]))
            dst.append(np.array([e[1] for e in ends]))
            base.append(np.full(len(ends), c))
            jumps.append(np.ones(len(ends), dtype=bool))
        sources = np.concatenate(src).astype(np.int64)
        order = np.argsort(sources, kind="stable")     # CSR edge ids: sorted by source
        self.sources = sources[order]
        self.targets = np.concatenate(dst).astype(np.int64)[order]
        self.lengths = np.concatenate(base)[order]
        self.jumps = np.concatenate(jumps)[order]
        self._ptr = np.searchsorted(self.sources, np.arange(p + 1))
        far = np.hypot(*(self.centres[self.targets] - self.centres[self.sources]).T)
        ratio = self.lengths[far > 0] / far[far > 0]
        self._h_scale = float(ratio.min()) if ratio.size else 0.0
        self._graphs: dict[float, CSRGraph] = {}

    @property
    def num_states(self) -> int:
        return self.mesh.num_polygons

    def placed(self, *, ends: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Where each polygon stands and what each walking transition measures:
        ``(P, 2)`` points (the centres, but the polygons of ``ends``, a problem's
        ``(start, goal)`` world points, at those points; start first where they share one)
        and ``(k,)`` lengths (the distances between those points; links keep their cost).
        """
        if ends is None:
            return self.centres, self.lengths
        try:
            start, goal = ends
        except (TypeError, ValueError):
            raise InvalidQueryError(f"ends {brief(ends)} must be (start, goal) points") \
                from None
        at = self.centres.copy()
        moved = []
        for point in (goal, start):
            p = finite_point("ends", point)
            moved.append(self.state(p))
            at[moved[-1]] = p
        touched = np.isin(self.sources, moved) | np.isin(self.targets, moved)
        touched &= ~self.jumps
        lengths = self.lengths.copy()
        lengths[touched] = np.hypot(*(at[self.targets[touched]]
                                      - at[self.sources[touched]]).T)
        return at, lengths

    def edge_costs(self, *, t: float = 0.0, ends: Any = None) -> np.ndarray:
        """``(k,)`` float64: every transition's cost at time ``t`` (seconds), for a
        problem between ``ends`` (see :meth:`placed`; None: centre to centre)."""
        return self.placed(ends=ends)[1]

    def graph(self, *, t: float = 0.0, ends: Any = None) -> CSRGraph:
        """The domain as a :class:`CSRGraph` at time ``t``: node ``i`` is polygon ``i`` at
        its centre (the polygons of ``ends`` at those points, see :meth:`placed`), edge
        ids in the order of ``sources``."""
        if ends is not None:
            return CSRGraph(self._ptr, self.targets, self.edge_costs(t=t, ends=ends),
                            coords=self.placed(ends=ends)[0])
        if t not in self._graphs:
            self._graphs = {t: CSRGraph(self._ptr, self.targets, self.edge_costs(t=t),
                                        coords=self.centres)}
        return self._graphs[t]

    def actions(self, s: Any) -> list[int]:
        s = self.graph().node(s, name="state")
        return self.targets[self._ptr[s]:self._ptr[s + 1]].tolist()

    def cost(self, s: Any, n: Any, *, t: float = 0.0) -> float:
        s = self.graph().node(s, name="state")
        lo, hi = self._ptr[s], self._ptr[s + 1]
        hits = lo + np.flatnonzero(self.targets[lo:hi] == n)
        return float(self.edge_costs(t=t)[hits].min()) if len(hits) else math.inf

    def heuristic(self, s: Any, goal: Any) -> float:
        a, b = self.position(s), self.position(goal)
        return self._h_scale * float(np.hypot(*(b - a)))

    def valid(self, s: Any, n: Any) -> bool:
        return bool(np.isin(n, self.actions(s)))

    def position(self, s: Any) -> np.ndarray:
        return self.centres[self.graph().node(s, name="state")]

    def state(self, point: Any) -> int:
        p = finite_point("point", point)
        poly = self.mesh.locate(p)
        if poly < 0:
            raise InvalidQueryError(f"point {tuple(p.tolist())} is off the mesh")
        return poly


class DensityDomain(NavMeshDomain):
    """Σ2: :class:`NavMeshDomain` whose costs grow with a density field per polygon.

    Parameters
    ----------
    mesh : NavMesh
    density : array_like or callable
        ``(P,)`` densities >= 0 (agents and movable obstacles per polygon, any unit), or
        a function ``density(t) -> (P,)`` of the time in seconds.
    k : float, default 1.0
        Weight of the density (>= 0): an edge costs ``length · (1 + k · mean density of
        its two polygons)``; 0 gives Σ1's costs.
    jump_cost : float, default 2.0
        As :class:`NavMeshDomain`.
    """

    name = "dynamic"

    def __init__(self, mesh: NavMesh, density: Any, *, k: float = 1.0,
                 jump_cost: float = 2.0):
        super().__init__(mesh, jump_cost=jump_cost)
        self.k = number("k", k, min=0.0)
        if callable(density):
            self._density: Callable[[float], Any] = density
        else:
            fixed = self._checked(density, None)
            self._density = lambda t: fixed
        self._checked(self._density(0.0), 0.0)

    def _checked(self, values: Any, t: float | None) -> np.ndarray:
        when = "" if t is None else f" at t={t:g}"
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidQueryError(f"density{when} {brief(values)} must be numbers") \
                from None
        if arr.shape != (self.num_states,) or not np.all(np.isfinite(arr)) \
                or (arr < 0).any():
            raise InvalidQueryError(f"density{when} must be ({self.num_states},) finite "
                                    f"numbers >= 0, got {brief(values)}")
        return arr

    def density(self, *, t: float = 0.0) -> np.ndarray:
        """``(P,)`` float64: the density of each polygon at time ``t``."""
        return self._checked(self._density(t), t)

    def edge_costs(self, *, t: float = 0.0, ends: Any = None) -> np.ndarray:
        d = self.density(t=t)
        return self.placed(ends=ends)[1] * (1.0 + self.k * 0.5 * (d[self.sources]
                                                             + d[self.targets]))
