"""The array build of climb graphs equals a plain reference build (kept here: element by
element, point by point) on random levels with touching, crossing and bent elements,
blockers and every capability, and on the benchmark's facades."""

import sys
from pathlib import Path

import numpy as np
import pytest

from wayfinding.climbing import (
    Blockers,
    Capabilities,
    EdgeKind,
    ElementKind,
    TraversalElement,
    build_climb_graph,
    climbing_wall,
)

LEDGE, PIPE, LADDER = ElementKind.LEDGE, ElementKind.PIPE, ElementKind.LADDER
DEFAULT, OPEN = Capabilities(), Blockers()


def segment_closest(p0, p1, q0, q1):
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, f = d1 @ d1, d2 @ d2, d2 @ r
    c, b = d1 @ r, d1 @ d2
    den = a * e - b * b
    s = min(max((b * f - c * e) / den, 0.0), 1.0) if den > 1e-12 * a * e else 0.0
    t = (b * s + f) / e
    if t < 0.0:
        t, s = 0.0, min(max(-c / a, 0.0), 1.0)
    elif t > 1.0:
        t, s = 1.0, min(max((b - c) / a, 0.0), 1.0)
    return s, t, float(np.linalg.norm(p0 + s * d1 - q0 - t * d2))


def link_kind(p, q, caps):
    d = q - p
    rise, run, dist = d[2], float(np.hypot(d[0], d[1])), float(np.linalg.norm(d))
    if rise < 0:
        ok = -rise <= caps.max_drop_height and run <= caps.max_jump_distance
        return EdgeKind.DROP if ok else None
    steep = bool(np.degrees(np.arctan2(rise, run)) <= caps.max_jump_angle) if dist else True
    ok = dist <= caps.max_jump_distance and rise <= caps.max_jump_height and steep
    return EdgeKind.JUMP if ok else None


def reference_build(els, caps=DEFAULT, block=OPEN, tol=1e-6):
    """Every pair of elements, every segment pair, every link and every stop one by one."""
    use = [i for i, e in enumerate(els) if e.kind in caps.kinds]
    stops = [[] for _ in els]
    for i in use:
        e = els[i]
        stops[i] += [(float(c), p) for c, p in zip(e.cumulative, e.points)]
        stops[i].append((e.length / 2, e.point_at(e.length / 2)))
    reach = caps.reach + tol
    links = []
    for ia in range(len(use)):
        for ja in range(ia + 1, len(use)):
            i, j = use[ia], use[ja]
            a, b = els[i], els[j]
            for u in range(len(a.points) - 1):
                for v in range(len(b.points) - 1):
                    s, t, d = segment_closest(a.points[u], a.points[u + 1],
                                              b.points[v], b.points[v + 1])
                    if d <= tol:
                        da = a.cumulative[u] + s * (a.cumulative[u + 1] - a.cumulative[u])
                        db = b.cumulative[v] + t * (b.cumulative[v + 1] - b.cumulative[v])
                        stops[i].append((float(da), a.point_at(da)))
                        stops[j].append((float(db), b.point_at(db)))
            for x, y in ((i, j), (j, i)):
                src, dst = els[x], els[y]
                for ds in (0.0, src.length / 2, src.length):
                    p = src.point_at(ds)
                    dd, q = dst.closest(p)
                    if tol < np.linalg.norm(q - p) <= reach:
                        links.append((x, ds, y, dd))
                        stops[y].append((dd, q))
    nodes, per_element = np.empty((0, 3)), []
    for i in range(len(els)):
        rows = []
        for d, p in sorted(stops[i], key=lambda s: s[0]):
            near = np.flatnonzero(np.linalg.norm(nodes - p, axis=1) <= tol)
            k = int(near[0]) if len(near) else len(nodes)
            if k == len(nodes):
                nodes = np.vstack([nodes, p])
            if not rows or rows[-1][1] != k:
                rows.append((d, k))
        per_element.append(np.array(rows, dtype=np.float64).reshape(-1, 2))
    pos = nodes
    edges = {}

    def add(u, v, kind, length):
        if u != v and (u, v) not in edges:
            edges[(u, v)] = (kind, length)

    for table in per_element:
        for (d0, u), (d1, v) in zip(table[:-1], table[1:]):
            add(int(u), int(v), EdgeKind.CLIMB, float(d1 - d0))
            add(int(v), int(u), EdgeKind.CLIMB, float(d1 - d0))
    for x, ds, y, dd in links:
        rows_x, rows_y = per_element[x], per_element[y]
        u = int(rows_x[int(np.argmin(np.abs(rows_x[:, 0] - ds))), 1])
        v = int(rows_y[int(np.argmin(np.abs(rows_y[:, 0] - dd))), 1])
        if block.blocks(pos[u], pos[v]):
            continue
        for a, b in ((u, v), (v, u)):
            kind = link_kind(pos[a], pos[b], caps)
            if kind is not None:
                add(a, b, kind, float(np.linalg.norm(pos[b] - pos[a])))
    return pos, edges, per_element


def assert_same_graph(g, els, caps=DEFAULT, block=OPEN, tol=1e-6, atol=1e-9):
    pos, edges, rows = reference_build(els, caps, block, tol)
    assert g.nodes.shape == pos.shape and np.allclose(g.nodes, pos, rtol=0, atol=atol)
    assert [tuple(e) for e in g.edges.tolist()] == list(edges)
    assert g.edge_kinds.tolist() == [k for k, _ in edges.values()]
    assert np.allclose(g.edge_lengths, [length for _, length in edges.values()], atol=atol)
    assert len(g.stops) == len(rows)
    for got, want in zip(g.stops, rows):
        assert np.array_equal(got[:, 1], want[:, 1]) and np.allclose(got[:, 0], want[:, 0])
    assert g.edge_ids == {e: k for k, e in enumerate(edges)}


def random_level(seed):
    """Ledges, pipes, ladders and bent ledges, most on one wall and on a half-metre lattice
    (so that many touch, cross and share ends), a few at random spots; random boxes and
    triangles; random capabilities."""
    rng = np.random.default_rng(seed)
    els = []
    for _ in range(int(rng.integers(5, 30))):
        lattice = rng.random() < 0.7
        x, y, z = (rng.integers(0, 12, 3) / 2) if lattice else rng.uniform(0, 6, 3)
        y = y if rng.random() < 0.3 else 0.0                 # most on one wall
        n = int(rng.integers(1, 8)) / 2 if lattice else rng.uniform(0.5, 4)
        kind = [LEDGE, PIPE, LADDER, "bent"][int(rng.integers(4))]
        if kind == "bent":
            els.append(TraversalElement(LEDGE, [(x, y, z), (x + n, y, z), (x + n, y + n, z)]))
        elif kind == LEDGE:
            els.append(TraversalElement(LEDGE, [(x, y, z), (x + n, y, z)] if rng.random() < 0.5
                                        else [(x, y, z), (x, y + n, z)]))
        else:
            els.append(TraversalElement(kind, [(x, y, z), (x, y, z + n)]))
    lo = rng.uniform((0, -1, 0), (6, 0.5, 6), (int(rng.integers(0, 5)), 3))
    boxes = np.stack([lo, lo + rng.uniform(0.2, 2, lo.shape)], axis=1)
    tris = rng.uniform(0, 6, (int(rng.integers(0, 3)), 3, 3))
    caps = Capabilities(max_jump_distance=float(rng.uniform(0, 3)),
                        max_jump_height=float(rng.uniform(0, 2)),
                        max_drop_height=float(rng.uniform(0, 4)),
                        max_jump_angle=float(rng.choice([90.0, rng.uniform(10, 90)])),
                        kinds={list(ElementKind)[k] for k in
                               rng.choice(3, int(rng.integers(2, 4)), replace=False)})
    return els, caps, Blockers(boxes=boxes, triangles=tris)


@pytest.mark.parametrize("seed", range(24))
def test_build_equals_the_reference_on_random_levels(seed):
    els, caps, block = random_level(seed)
    assert_same_graph(build_climb_graph(els, capabilities=caps, blockers=block), els, caps,
                      block)


@pytest.mark.parametrize("seed", range(8))
def test_build_equals_the_reference_with_a_coarse_touch(seed):
    """Points up to 0.3 m apart merge: each joins the earliest node within reach."""
    els, caps, block = random_level(seed)
    g = build_climb_graph(els, capabilities=caps, blockers=block, touch=0.3)
    assert_same_graph(g, els, caps, block, tol=0.3)


@pytest.mark.parametrize("seed", range(3))
def test_build_equals_the_reference_on_generated_walls(seed):
    wall = climbing_wall(bays=4, floors=3, seed=seed)
    assert_same_graph(wall.graph(), wall.elements, DEFAULT, wall.blockers)


def test_build_equals_the_reference_on_a_benchmark_facade():
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    try:
        from climbing import facade
    finally:
        sys.path.pop(0)
    els = facade(5, 5)
    assert_same_graph(build_climb_graph(els), els)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("offset", [2.0**44, -3e14])
def test_build_far_from_the_origin_equals_the_reference(seed, offset):
    """Node cells of 1e-6 m number beyond int64 there; the build stays exact."""
    els, caps, block = random_level(seed)
    els = [TraversalElement(e.kind, e.points + offset) for e in els]
    block = Blockers(boxes=block.boxes + offset, triangles=block.triangles + offset)
    g = build_climb_graph(els, capabilities=caps, blockers=block)
    assert_same_graph(g, els, caps, block, atol=abs(offset) * 1e-15)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("seed", range(4))
def test_build_with_a_touch_far_below_the_coordinates_equals_the_reference(seed):
    els, caps, block = random_level(seed)
    g = build_climb_graph(els, capabilities=caps, blockers=block, touch=1e-300)
    assert_same_graph(g, els, caps, block, tol=1e-300)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scale", [2.0**-60, 2.0**-200])
def test_build_of_a_level_scaled_down_equals_the_reference(seed, scale):
    """Distances along elements a hair long stay exact beside the other elements'."""
    els, caps, block = random_level(seed)
    els = [TraversalElement(e.kind, e.points * scale) for e in els]
    block = Blockers(boxes=block.boxes * scale, triangles=block.triangles * scale)
    caps = Capabilities(max_jump_distance=caps.max_jump_distance * scale,
                        max_jump_height=caps.max_jump_height * scale,
                        max_drop_height=caps.max_drop_height * scale,
                        max_jump_angle=caps.max_jump_angle, kinds=caps.kinds)
    g = build_climb_graph(els, capabilities=caps, blockers=block, touch=1e-6 * scale)
    assert_same_graph(g, els, caps, block, tol=1e-6 * scale, atol=1e-9 * scale)


def test_empty_and_single_element_builds():
    assert build_climb_graph([]).num_nodes == 0
    g = build_climb_graph([TraversalElement(PIPE, [(0, 0, 0), (0, 0, 4)])],
                          capabilities=Capabilities(kinds={LEDGE}))
    assert g.num_nodes == 0 and len(g.edges) == 0 and g.stops[0].shape == (0, 2)
