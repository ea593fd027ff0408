"""The adaptive highway domain: fewer states expanded than the dense domain, with and without
constraints, and its costs between the dense optimum and the junction graph's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from test_domain_dense_grid import random_constraints
from test_domain_mesh import random_world

from wayfinding.constraints import Constraint, ConstraintSet, Disc, Region
from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import NavMesh
from wayfinding.navmesh.constraint_domains import AdaptiveDomain, DenseMeshDomain

#: The comparison world: 40 × 24 with two buildings, a repeller, an attractor and a hard disc.
OUTLINE = [(0, 0), (40, 0), (40, 24), (0, 24)]
HOLES = [[(10, 5), (14, 5), (14, 15), (10, 15)], [(24, 10), (30, 10), (30, 20), (24, 20)]]
FIELD = ConstraintSet([Constraint(Disc((20, 10), 3), -4, near=True),
                       Constraint(Region([(3, 12), (8, 12), (8, 18)]), 3),
                       Constraint.hard(Disc((34, 6), 2))])


@pytest.mark.parametrize("field", [None, FIELD], ids=["no constraints", "constraints"])
def test_fewer_states_are_expanded_than_in_the_dense_domain(field):
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    dense = DenseMeshDomain(mesh, spacing=0.5).find_path((0, 0), (38, 22), field)
    adaptive = AdaptiveDomain(mesh, spacing=0.5).find_path((0, 0), (38, 22), field)
    assert dense.found and adaptive.found
    assert adaptive.stats.expanded < dense.stats.expanded
    assert dense.cost <= adaptive.cost <= 1.05 * dense.cost


def junction_cost(d, costs, u, v):
    """The cheapest path from junction u to junction v over whole runs, each costing its
    dense steps."""
    steps = costs[d._run_steps].sum(axis=1)
    ok = np.isfinite(steps)
    a, b = d.runs[ok, 0], d.runs[ok, -1]
    m = csr_array((np.concatenate([steps[ok], steps[ok]]),
                   (np.concatenate([a, b]), np.concatenate([b, a]))),
                  shape=(d.num_nodes,) * 2)
    return float(dijkstra(m, indices=u)[v])


@pytest.mark.parametrize("seed", range(10))
def test_costs_lie_between_the_dense_optimum_and_the_junction_graph(seed):
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size))
    d = AdaptiveDomain(mesh, spacing=1.0)
    junctions = np.flatnonzero((d.lattice % d.max_skips == 0).all(axis=1))
    u, v = (int(x) for x in rng.choice(junctions, 2, replace=False))
    r = d.find_path(d.points[u], d.points[v], field)
    dense = DenseMeshDomain(mesh, spacing=1.0).find_path(d.points[u], d.points[v], field)
    bound = junction_cost(d, DenseMeshDomain.costs(d, field), u, v)
    assert r.found == dense.found
    if r.found:
        assert r.nodes[0] == u and r.nodes[-1] == v
        assert dense.cost * (1 - 1e-12) <= r.cost <= bound * (1 + 1e-12)
    else:
        assert bound == np.inf


def test_one_skip_is_the_dense_domain():
    mesh, _, _ = random_world(4)
    one = AdaptiveDomain(mesh, spacing=1.0, max_skips=1)
    dense = DenseMeshDomain(mesh, spacing=1.0)
    a = one.find_path((1, 1), (11, 9), FIELD)
    b = dense.find_path((1, 1), (11, 9), FIELD)
    assert a.cost == b.cost and a.stats.expanded == b.stats.expanded


def test_a_higher_threshold_cancels_fewer_runs():
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    counts = [int(AdaptiveDomain(mesh, spacing=0.5, threshold=x).cancelled(FIELD).sum())
              for x in (0.0, 1.0, 10.0, 1e9)]
    assert counts[0] > 0 and counts == sorted(counts, reverse=True)
    assert counts[-1] == int(AdaptiveDomain(mesh, spacing=0.5).cancelled(
        ConstraintSet([Constraint.hard(Disc((34, 6), 2))])).sum())


def test_runs_skip_only_where_no_constraint_acts():
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    d = AdaptiveDomain(mesh, spacing=0.5)
    off = d.cancelled(FIELD)
    pts = d.points[d.runs]                                   # (R, K + 1, 2)
    mid = 0.5 * (pts[:, 1:] + pts[:, :-1]).reshape(-1, 2)
    touched = np.zeros(len(mid), dtype=bool)
    for c in FIELD:
        touched |= c.weights(mid) != 0
    assert np.all(off[touched.reshape(len(off), -1).any(axis=1)])
    assert not d.cancelled(None).any()


@pytest.mark.parametrize("options, match", [
    ({"max_skips": 0}, "max_skips"), ({"max_skips": 2.5}, "max_skips"),
    ({"threshold": -1.0}, "threshold"), ({"threshold": float("nan")}, "threshold"),
    ({"spacing": 0.0}, "spacing")])
def test_bad_options_are_refused(options, match):
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    with pytest.raises(InvalidQueryError, match=match):
        AdaptiveDomain(mesh, **{"spacing": 1.0, **options})
