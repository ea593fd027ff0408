"""Climb-graph generation: merged nodes where elements touch, implicit jump and drop links
by capabilities, line of sight against boxes and triangles, and bad input."""

import numpy as np
import pytest

from wayfinding.climbing import (
    Blockers,
    Capabilities,
    EdgeKind,
    ElementKind,
    TraversalElement,
    build_climb_graph,
    transform_points,
)
from wayfinding.errors import InvalidGeometryError, InvalidQueryError

LEDGE, PIPE, LADDER = ElementKind.LEDGE, ElementKind.PIPE, ElementKind.LADDER


def element(kind, *points):
    return TraversalElement(kind, points)


def links(g, kind):
    return {tuple(map(int, e)) for e in g.edges[g.edge_kinds == kind]}


def test_ledges_sharing_an_end_share_one_node():
    g = build_climb_graph([element(LEDGE, (0, 0, 3), (4, 0, 3)),
                           element(LEDGE, (4, 0, 3), (4, 4, 3))])
    shared = [i for i, p in enumerate(g.nodes) if np.allclose(p, (4, 0, 3))]
    assert len(shared) == 1
    assert g.num_nodes == 5                      # 3 + 3 nodes, one merged
    n = shared[0]
    assert {int(v) for u, v in g.edges if u == n} == {
        i for i, p in enumerate(g.nodes) if np.allclose(p, (2, 0, 3)) or np.allclose(p, (4, 2, 3))}
    assert g.num_links == 0                      # touching ends are no jump


def test_ledge_crossing_a_pipe_has_an_intersection_node_with_four_edges():
    g = build_climb_graph([element(LEDGE, (0, 0, 3), (4, 0, 3)),
                           element(PIPE, (1, 0, 0), (1, 0, 8))],
                          capabilities=Capabilities(max_jump_distance=0, max_drop_height=0))
    cross = int(np.flatnonzero(np.all(np.isclose(g.nodes, (1, 0, 3)), axis=1))[0])
    out = {tuple(np.round(g.nodes[v], 6)) for u, v in g.edges if u == cross}
    # neighbours along each element: the ledge's start and centre, the pipe's foot and centre
    assert out == {(0, 0, 3), (2, 0, 3), (1, 0, 0), (1, 0, 4)}
    assert set(g.edge_kinds.tolist()) == {EdgeKind.CLIMB}


def test_an_isolated_element_has_its_ends_and_centre():
    g = build_climb_graph([element(LADDER, (0, 0, 0), (0, 0, 5))])
    assert g.nodes[:, 2].tolist() == [0.0, 2.5, 5.0]
    assert g.edge_lengths.tolist() == [2.5, 2.5, 2.5, 2.5]


def test_parallel_ledges_link_within_the_thresholds_only():
    low = element(LEDGE, (0, 0, 3), (4, 0, 3))
    near = element(LEDGE, (0, 0, 4), (4, 0, 4))
    far = element(LEDGE, (0, 0, 9), (4, 0, 9))
    g = build_climb_graph([low, near])
    assert len(links(g, EdgeKind.JUMP)) == 3 and len(links(g, EdgeKind.DROP)) == 3
    for u, v in links(g, EdgeKind.JUMP):
        assert g.nodes[v, 2] - g.nodes[u, 2] == 1.0
    assert build_climb_graph([low, far]).num_links == 0


def test_capabilities_change_the_graph():
    low = element(LEDGE, (0, 0, 3), (4, 0, 3))
    high = element(LEDGE, (0, 0, 4), (4, 0, 4))
    pipe = element(PIPE, (6, 0, 0), (6, 0, 8))
    full = build_climb_graph([low, high, pipe])
    assert links(full, EdgeKind.JUMP)
    no_jump = build_climb_graph([low, high, pipe],
                                capabilities=Capabilities(max_jump_distance=0))
    assert not links(no_jump, EdgeKind.JUMP)
    assert links(no_jump, EdgeKind.DROP)         # straight down still
    no_drop = build_climb_graph([low, high], capabilities=Capabilities(max_drop_height=0))
    assert not links(no_drop, EdgeKind.DROP) and links(no_drop, EdgeKind.JUMP)
    ledges_only = build_climb_graph([low, high, pipe],
                                    capabilities=Capabilities(kinds={LEDGE}))
    assert len(ledges_only.stops[2]) == 0 and not np.any(ledges_only.nodes[:, 0] == 6)
    shallow = build_climb_graph([low, high],
                                capabilities=Capabilities(max_jump_angle=30))
    assert not links(shallow, EdgeKind.JUMP)     # straight up is 90 degrees


def test_jump_reaches_across_a_gap():
    a = element(LEDGE, (0, 0, 3), (4, 0, 3))
    b = element(LEDGE, (5.5, 0, 3), (9, 0, 3))
    g = build_climb_graph([a, b])
    jumps = {(tuple(g.nodes[u]), tuple(g.nodes[v])) for u, v in links(g, EdgeKind.JUMP)}
    assert ((4.0, 0.0, 3.0), (5.5, 0.0, 3.0)) in jumps
    assert build_climb_graph([a, b], capabilities=Capabilities(max_jump_distance=1.4)
                             ).num_links == 0


@pytest.mark.parametrize("blockers, blocked", [
    (Blockers(boxes=[[(-1, -1, 3.2), (5, 1, 3.8)]]), True),        # between the ledges
    (Blockers(boxes=[[(1, 0, 0), (3, 2, 3)]]), False),              # a wall they sit on
    (Blockers(triangles=[[(-1, -1, 3.5), (9, -1, 3.5), (0, 9, 3.5)]]), True),
    (Blockers(triangles=[[(-1, 1, 3.5), (9, 1, 3.5), (0, 9, 3.5)]]), False),
])
def test_line_of_sight_blocks_a_jump(blockers, blocked):
    els = [element(LEDGE, (0, 0, 3), (4, 0, 3)), element(LEDGE, (0, 0, 4), (4, 0, 4))]
    g = build_climb_graph(els, blockers=blockers)
    assert (g.num_links == 0) is blocked
    assert build_climb_graph(els).num_links == 6


def test_segment_tests_match_sampling():
    rng = np.random.default_rng(4)
    block = Blockers(boxes=[[(0, 0, 0), (1, 1, 1)]])
    for _ in range(200):
        a, b = rng.uniform(-1, 2, 3), rng.uniform(-1, 2, 3)
        t = np.linspace(0, 1, 4001)[:, None]
        pts = a + t * (b - a)
        inside = np.all((pts > 1e-6) & (pts < 1 - 1e-6), axis=1).any()
        assert block.blocks(a, b) == inside


def test_graph_moves_rigidly_with_its_markup():
    els = [element(LEDGE, (0, 0, 3), (4, 0, 3)), element(LEDGE, (0, 0, 4), (4, 0, 4)),
           element(PIPE, (2, 0, 0), (2, 0, 6))]
    c, s = np.cos(0.7), np.sin(0.7)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    t = (5.0, -2.0, 1.0)
    moved = build_climb_graph([e.transformed(rot, t) for e in els])
    g = build_climb_graph(els).transformed(rot, t)
    assert np.array_equal(g.edges, moved.edges)
    assert np.allclose(g.nodes, moved.nodes) and np.allclose(g.edge_lengths, moved.edge_lengths)
    assert np.allclose(transform_points([(0, 0, 3)], rot, t), [(5.0, -2.0, 4.0)])


@pytest.mark.parametrize("make, error", [
    (lambda: TraversalElement("rope", [(0, 0, 0), (1, 0, 0)]), InvalidGeometryError),
    (lambda: TraversalElement(LEDGE, [(0, 0, 0)]), InvalidGeometryError),
    (lambda: TraversalElement(LEDGE, [(0, 0, 0), (0, 0, 0)]), InvalidGeometryError),
    (lambda: TraversalElement(LEDGE, [(0, 0, np.nan), (1, 0, 0)]), InvalidGeometryError),
    (lambda: TraversalElement(LEDGE, [(0, 0, 2e75), (1, 0, 2e75)]), InvalidGeometryError),
    (lambda: Blockers(boxes=[[(0, 0, 0), (1, 1, 1e76)]]), InvalidGeometryError),
    (lambda: Blockers(triangles=[[(0, 0, 0), (-1e300, 0, 0), (0, 1, 0)]]),
     InvalidGeometryError),
    (lambda: Capabilities(max_jump_distance=-1), InvalidQueryError),
    (lambda: Capabilities(max_jump_angle=120), InvalidQueryError),
    (lambda: Capabilities(kinds={"rope"}), InvalidQueryError),
    (lambda: Blockers(boxes=[[(1, 1, 1), (0, 0, 0)]]), InvalidGeometryError),
    (lambda: Blockers(triangles=[[(0, 0, 0), (1, 0, 0)]]), InvalidGeometryError),
    (lambda: build_climb_graph([(0, 0, 0)]), InvalidGeometryError),
    (lambda: build_climb_graph([], touch=0), InvalidGeometryError),
    (lambda: transform_points([(0, 0, 0)], np.eye(3) * 2, (0, 0, 0)), InvalidQueryError),
])
def test_bad_input_is_refused(make, error):
    with pytest.raises(error):
        make()


@pytest.mark.filterwarnings("error")
def test_elements_at_the_documented_extent_build_exactly():
    # closest points between segments multiply two squared lengths: finite up to the bound
    from wayfinding.climbing.markup import MAX_EXTENT

    s = MAX_EXTENT / 8
    g = build_climb_graph([element(LEDGE, (-8 * s, 0, 0), (8 * s, 0, 0)),
                           element(PIPE, (0, -8 * s, -8 * s), (0, 8 * s, 8 * s))],
                          capabilities=Capabilities(max_jump_distance=0, max_drop_height=0))
    assert g.num_nodes == 5 and g.num_links == 0           # one node where they cross
    assert np.isfinite(g.edge_lengths).all()
    with pytest.raises(InvalidGeometryError, match="beyond"):
        element(LEDGE, (-16 * s, 0, 0), (0, 0, 0))


def test_each_climb_edge_knows_its_element():
    els = [element(LEDGE, (0, 0, 3), (4, 0, 3)), element(PIPE, (1, 0, 0), (1, 0, 8)),
           element(LEDGE, (0, 0, 4), (4, 0, 4))]
    g = build_climb_graph(els)
    owner = g.edge_elements()
    assert ((owner == -1) == (g.edge_kinds != EdgeKind.CLIMB)).all()
    for (u, v), e in zip(g.edges.tolist(), owner.tolist()):
        if e >= 0:
            rows = g.stops[e][:, 1].tolist()
            assert u in rows and v in rows and abs(rows.index(u) - rows.index(v)) == 1
    assert set(owner.tolist()) == {-1, 0, 1, 2}


def crosses(tri, p, q):
    """Whether segment p-q crosses triangle tri strictly between its ends (plain
    Möller–Trumbore, one pair)."""
    d, e1, e2 = q - p, tri[1] - tri[0], tri[2] - tri[0]
    h = np.cross(d, e2)
    det = e1 @ h
    if det == 0:
        return False
    s = p - tri[0]
    u = (s @ h) / det
    qv = np.cross(s, e1)
    v, t = (d @ qv) / det, (e2 @ qv) / det
    return u >= 0 and v >= 0 and u + v <= 1 and 0 < t < 1


def inside_box(box, p, q):
    t = np.linspace(0, 1, 4001)[:, None]
    pts = p + t * (q - p)
    return bool(np.all((pts > box[0] + 1e-9) & (pts < box[1] - 1e-9), axis=1).any())


def test_batched_line_of_sight_matches_plain_tests():
    rng = np.random.default_rng(9)
    lo = rng.uniform(0, 4, (3, 3))
    boxes = np.stack([lo, lo + rng.uniform(0.5, 1.5, lo.shape)], axis=1)
    tris = rng.uniform(0, 5, (4, 3, 3))
    p, q = rng.uniform(-1, 6, (150, 3)), rng.uniform(-1, 6, (150, 3))
    q[:20, 2] = p[:20, 2]                                # level segments (a flat slab axis)
    by_tris = Blockers(triangles=tris)._blocks_many(p, q)
    by_boxes = Blockers(boxes=boxes)._blocks_many(p, q)
    assert by_tris.tolist() == [any(crosses(t, a, b) for t in tris) for a, b in zip(p, q)]
    assert by_boxes.tolist() == [any(inside_box(x, a, b) for x in boxes)
                                 for a, b in zip(p, q)]
    assert 0 < by_tris.sum() < len(p) and 0 < by_boxes.sum() < len(p)
