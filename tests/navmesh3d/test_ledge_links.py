"""Jump and drop links along the ledges of voxel navmeshes: levels made here with known
ledges (a platform over a floor, platforms across gaps, a wall and a ceiling in the way),
every link's ends read back through the Detour-style queries, paths across the links, and
nav_test from the Recast data."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh3d import BuildSettings, Level, build, generate
from wayfinding.navmesh3d.generate import _Soup
from wayfinding.navmesh3d.links import DROP, JUMP, ledge_links
from wayfinding.navmesh3d.query import OFFMESH, NavMesh3DQuery, with_flags
from wayfinding.results import Status

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from recast_data import nav_test  # noqa: E402

SETTINGS = BuildSettings()
CLIMB = SETTINGS.agent_max_climb


def platform_over_floor(height: float = 2.0) -> Level:
    """A floor 12 x 8 (top at 0) and on it a platform ``height`` high over x in [0, 5]:
    one ledge, along x = 5."""
    s = _Soup()
    s.box((0, -0.5, 0), (12, 0, 8))
    s.box((0, 0, 0), (5, height, 8))
    return s.level()


def platforms(gap: float, *, wall: bool = False, ceiling: bool = False) -> Level:
    """Two platforms (tops at 0, over nothing) ``gap`` apart along x; a wall 2 high
    standing in the gap, or a thin slab 1.2 over it."""
    s = _Soup()
    s.box((0, -2, 0), (5, 0, 8))
    s.box((5 + gap, -2, 0), (10 + gap, 0, 8))
    if wall:
        s.box((5 + gap / 2 - 0.05, -2, 0), (5 + gap / 2 + 0.05, 2, 8))
    if ceiling:
        s.box((5, 1.2, 0), (5 + gap, 1.3, 8))
    return s.level()


def query(mesh) -> NavMesh3DQuery:
    return NavMesh3DQuery(with_flags(mesh))


def polygon_at(q: NavMesh3DQuery, point, *, on_ground: bool = True) -> int:
    """The polygon under ``point`` (xz on it or its outline), by the query itself; the
    point on its ground unless ``on_ground`` is false (then within the climb of it)."""
    poly, got = q.nearest(point, half_extents=(1e-3, CLIMB, 1e-3))
    assert poly >= 0, point
    assert got == pytest.approx(point, abs=1e-4 if on_ground else CLIMB)
    return poly


def test_a_platform_over_a_floor_has_drops_down_only():
    level = platform_over_floor()
    mesh = build(level)
    q = query(mesh)
    floor = polygon_at(q, (8.0, 0.0, 4.0), on_ground=False)
    top = polygon_at(q, (2.0, 2.0, 4.0), on_ground=False)
    for given in (None, level):
        links = ledge_links(mesh, level=given)
        assert links and {x.kind for x in links} == {DROP}
        for x in links:
            assert not x.bidirectional
            assert polygon_at(q, x.start) == top and polygon_at(q, x.end) == floor
            assert x.start[1] - x.end[1] == pytest.approx(2.0, abs=1e-4)
            assert x.start[0] == pytest.approx(4.2, abs=1e-4)   # on the platform's edge
            assert 5 < x.end[0] < 4.2 + (2 + 2 * 0.6)              # past the foot, in reach
    # one wall, one floor polygon below: the samples along the ledge make one link
    assert len(ledge_links(mesh, spacing=0.3)) == len(ledge_links(mesh, spacing=2.0)) == 1


@pytest.mark.parametrize("height, drops", [(0.5, 0), (1.5, 1), (3.0, 1), (3.8, 1), (4.5, 0)])
def test_a_platform_drops_when_higher_than_the_climb_and_no_deeper_than_max_drop(height,
                                                                                 drops):
    # 0.5: within the climb, the floor and platform are walked between; 4.5: deeper than
    # the default max_drop (twice the agent's height).  From 3 up the floor inside the
    # platform's box is walkable too: only the level's walls keep it from jumping out.
    level = platform_over_floor(height)
    links = ledge_links(build(level), level=level)
    assert len(links) == drops and all(x.kind == DROP for x in links)


def test_a_lower_platform_across_a_gap():
    s = _Soup()
    s.box((0, -2, 0), (5, 0, 8))
    s.box((6, -4, 0), (11, -2, 8))          # 2 lower, 1 away
    level = s.level()
    mesh = build(level)
    (down,) = ledge_links(mesh, level=level)
    assert down.kind == DROP and down.start[0] < 5 < 6 < down.end[0]
    assert down.start[1] - down.end[1] == pytest.approx(2.0, abs=1e-4)
    links = ledge_links(mesh, level=level, max_jump_up=2.1)
    assert links[0] == down and len(links) == 2
    up = links[1]
    assert up.kind == JUMP and not up.bidirectional and up.end[1] - up.start[1] == \
        pytest.approx(2.0, abs=1e-4)


def test_a_drop_off_a_slab_lands_clear_of_it():
    # a slab 0.3 thick, its top at 3, over a floor that runs on under it
    s = _Soup()
    s.box((0, -0.5, 0), (12, 0, 8))
    s.box((0, 2.7, 0), (5, 3.0, 8))
    level = s.level()
    mesh = build(level)
    (under,) = ledge_links(mesh)                 # the mesh alone: the first ground below
    assert under.kind == DROP and under.end[0] < 5
    (drop,) = ledge_links(mesh, level=level)
    body = SETTINGS.agent_radius - SETTINGS.cell_size / 2
    assert drop.kind == DROP and 5 + body <= drop.end[0] < 5 + body + SETTINGS.cell_size
    assert drop.start[1] - drop.end[1] == pytest.approx(3.0, abs=1e-4)


def test_the_limits_of_a_drop():
    mesh = build(platform_over_floor(height=2.0))
    assert ledge_links(mesh, max_drop=1.9) == []
    assert len(ledge_links(mesh, max_drop=2.1)) == 1
    assert ledge_links(mesh, max_jump=1.0) == []      # the floor lies 1.6 out: beyond reach


def test_a_jump_up_a_platform_is_one_way():
    level = platform_over_floor(height=1.5)
    mesh = build(level)
    links = ledge_links(mesh, level=level, max_jump_up=1.8)
    up = [x for x in links if x.kind == JUMP]
    down = [x for x in links if x.kind == DROP]
    assert len(up) == 1 and len(down) == 1
    rise = up[0].end[1] - up[0].start[1]        # the voxels round the platform's top up
    assert not up[0].bidirectional and 1.5 <= rise <= 1.5 + SETTINGS.cell_height
    assert ledge_links(mesh, max_jump_up=1.5) == down        # too high to jump


@pytest.mark.parametrize("gap", [0.5, 1.0])
def test_a_gap_narrower_than_a_jump_is_jumped_both_ways(gap):
    level = platforms(gap)
    mesh = build(level)
    q = query(mesh)
    left, right = polygon_at(q, (2.0, 0.0, 4.0), on_ground=False), \
        polygon_at(q, (8.0 + gap, 0.0, 4.0), on_ground=False)
    links = ledge_links(mesh, level=level)
    assert len(links) == 1
    (x,) = links
    assert x.kind == JUMP and x.bidirectional
    assert {polygon_at(q, x.start), polygon_at(q, x.end)} == {left, right}
    assert x.start[1] == pytest.approx(x.end[1], abs=1e-4)
    length = np.hypot(x.end[0] - x.start[0], x.end[2] - x.start[2])
    assert gap + 2 * 0.6 < length <= SETTINGS.agent_height + 2 * 0.6   # the default reach


def test_a_gap_wider_than_a_jump_is_not():
    assert ledge_links(build(platforms(2.5))) == []
    mesh = build(platforms(1.0))
    assert ledge_links(mesh, max_jump=2.5) == []      # the mesh's gap is 2.7 wide
    assert len(ledge_links(mesh, max_jump=3.0)) == 1


@pytest.mark.parametrize("gap, rise, jump_up, want", [
    (0.6, 0.0, 0.0, {(JUMP, "left", True)}),
    (1.2, -0.5, 0.0, {(JUMP, "left", True)}),       # within the climb: both ways
    (1.2, 0.5, 0.0, {(JUMP, "left", True)}),
    (0.6, -2.0, 0.0, {(DROP, "left", False)}),
    (0.6, -2.0, 2.5, {(DROP, "left", False), (JUMP, "right", False)}),
    (0.6, 1.5, 0.0, {(DROP, "right", False)}),
    (0.6, 1.5, 1.4, {(DROP, "right", False)}),      # too high to jump up
    (0.6, 1.5, 1.8, {(DROP, "right", False), (JUMP, "left", False)}),
    (0.6, -5.0, 0.0, set()),                        # deeper than max_drop
    (2.0, 0.0, 0.0, set()),                         # wider than max_jump
])
def test_two_platforms_across_a_gap(gap, rise, jump_up, want):
    """The right platform's top ``rise`` above the left's; which links, from which side."""
    s = _Soup()
    s.box((0, -8, 0), (5, 0, 8))
    s.box((5 + gap, -8, 0), (10 + gap, rise, 8))
    level = s.level()
    links = ledge_links(build(level), level=level, max_jump_up=jump_up)
    got = {(x.kind, "left" if x.start[0] < 5 else "right", x.bidirectional) for x in links}
    assert got == want and len(links) == len(want)
    for x in links:
        assert abs(x.end[1] - x.start[1] - (rise if x.start[0] < 5 else -rise)) <= \
            SETTINGS.cell_height + 1e-4


@pytest.mark.parametrize("what", ["wall", "ceiling"])
def test_the_level_blocks_a_jump(what):
    level = platforms(1.0, **{what: True})
    mesh = build(level)
    assert len(ledge_links(mesh)) == 1          # the mesh alone cannot see it
    assert ledge_links(mesh, level=level) == []


def test_a_mesh_with_links_gives_the_same_links():
    level = generate.building()
    mesh = build(level)
    links = ledge_links(mesh, level=level)
    assert ledge_links(mesh.with_links(links), level=level) == links


def test_a_mesh_without_polygons_has_no_links():
    wall = _Soup()
    wall.box((0, 0, 0), (0.2, 3, 5))          # too narrow to stand on
    mesh = build(wall.level())
    assert mesh.num_polygons == 0
    assert ledge_links(mesh, level=wall.level()) == []


@pytest.mark.parametrize("tile_size", [0, 32])
def test_the_multi_storey_gap_is_jumped_and_the_platforms_dropped_from(tile_size):
    level = generate.multi_storey()
    mesh = with_flags(build(level, tile_size=tile_size))
    links = ledge_links(mesh, level=level)
    west, east = generate.GAP_EDGES
    gap = [x for x in links if min(x.start[0], x.end[0]) < west < east < max(x.start[0],
                                                                             x.end[0])]
    assert gap and all(x.kind == JUMP and x.bidirectional for x in gap)
    drops = [x for x in links if x.kind == DROP]
    assert all(x.start[1] - x.end[1] > CLIMB and x.end[1] < 0.3 for x in drops)
    assert any(x.start[1] > 2.9 for x in drops)     # off the platforms (others: the stairs)
    q = NavMesh3DQuery(mesh.with_links(links))
    a, c = (8.0, 3.0, 12.0), (28.0, 3.0, 12.0)        # platform A, platform C
    for start, goal in ((a, c), (c, a)):
        r = q.find_path(start, goal)
        assert r.status is Status.FOUND
        assert any(links[k] in gap for k in r.links.tolist())
    assert NavMesh3DQuery(mesh).find_path(a, c).status is Status.FAILED


def test_a_floor_in_tiles_has_no_ledge_inside():
    # tile borders are no walls; the floor's own outline has nothing beyond it
    mesh = build(generate.floor(size=20), tile_size=16)
    assert mesh.num_tiles > 1
    assert ledge_links(mesh) == []


def test_tiled_and_whole_builds_find_the_same_drop():
    level = platform_over_floor()
    whole = ledge_links(build(level), level=level)
    tiled_mesh = build(level, tile_size=16)
    tiled = ledge_links(tiled_mesh, level=level)
    assert tiled_mesh.num_tiles > 1 and len(tiled) >= len(whole) == 1
    q = query(tiled_mesh)
    for x in tiled:
        assert x.kind == DROP and x.start[0] == pytest.approx(4.2, abs=1e-4)
        polygon_at(q, x.start), polygon_at(q, x.end)


def test_links_are_deterministic_and_never_doubled():
    level = generate.building()
    mesh = build(level)
    a = ledge_links(mesh, level=level)
    assert a == ledge_links(mesh, level=level)
    assert a, "the stairwell's edges are ledges"
    ends = [(x.start, x.end) for x in a]
    assert len(set(ends)) == len(ends)
    two = {(x.start, x.end) for x in a if x.bidirectional}
    assert not any((e, s) in two for s, e in two)


def test_ends_lie_on_the_ground_the_queries_read():
    level = generate.building()
    mesh = build(level)
    q = query(mesh)
    for x in ledge_links(mesh, level=level):
        for end in (x.start, x.end):
            polygon_at(q, end)
        drop = x.start[1] - x.end[1]
        assert drop > CLIMB if x.kind == DROP else abs(drop) <= CLIMB


def test_nav_test_links():
    level = nav_test()
    mesh = build(level)
    q = query(mesh)
    r = SETTINGS.agent_radius
    free = ledge_links(mesh)
    links = ledge_links(mesh, level=level)
    assert {x.kind for x in links} == {DROP, JUMP}
    assert len(links) < len(free)             # the level blocks some
    for x in links:
        for end in (x.start, x.end):
            poly, got = q.nearest(end, half_extents=(r, CLIMB, r))
            assert poly >= 0 and np.hypot(got[0] - end[0], got[2] - end[2]) <= r
        if x.kind == DROP:
            assert not x.bidirectional and x.end[1] < x.start[1] - CLIMB
        else:
            assert x.end[1] >= x.start[1] - CLIMB
    joined = NavMesh3DQuery(with_flags(mesh).with_links(links))
    assert not len(joined.unconnected_links)


@pytest.mark.parametrize("options, message", [
    ({"max_drop": -1.0}, "max_drop -1.0 must be a finite number > 0"),
    ({"max_jump": 0}, "max_jump 0 must be a finite number > 0"),
    ({"max_jump_up": -0.5}, "max_jump_up -0.5 must be a finite number >= 0"),
    ({"spacing": float("nan")}, "spacing nan must be"),
    ({"spacing": "1"}, "spacing '1' must be"),
    ({"max_drop": True}, "max_drop True must be"),
    ({"level": "level.obj"}, "level must be a Level or None, got str"),
    ({"spacing": 1e-7}, "make more than .* probes"),
])
def test_bad_options_are_refused(options, message):
    mesh = build(platform_over_floor())
    with pytest.raises(InvalidQueryError, match=message.replace("(", r"\(").replace(
            ")", r"\)")):
        ledge_links(mesh, **options)


def test_a_mesh_is_required():
    with pytest.raises(InvalidQueryError, match="mesh must be a NavMesh3D, got Level"):
        ledge_links(platform_over_floor())


def test_triangle_box_overlaps_agree_with_a_linear_program():
    from scipy.optimize import linprog

    from wayfinding.navmesh3d.links import _overlaps

    rng = np.random.default_rng(5)
    tri = rng.normal(0, 1.5, (400, 3, 3))
    half = rng.uniform(0.1, 1.5, (400, 3))
    got = _overlaps(tri, half)
    want = []
    for t, h in zip(tri, half):
        # a point of the triangle (barycentric weights >= 0 summing to 1) inside the box
        a = np.vstack([t.T, -t.T])
        b = np.concatenate([h, h])
        r = linprog(np.zeros(3), A_ub=a, b_ub=b, A_eq=np.ones((1, 3)), b_eq=[1],
                    bounds=[(0, None)] * 3)
        want.append(r.status == 0)
    assert 50 < sum(want) < 350
    assert got.tolist() == want


def test_a_path_drops_from_the_platform_and_cannot_climb_back():
    level = platform_over_floor()
    mesh = with_flags(build(level))
    links = ledge_links(mesh, level=level)
    q = NavMesh3DQuery(mesh.with_links(links))
    assert not len(q.unconnected_links)
    top, floor = (2.0, 2.0, 4.0), (10.0, 0.0, 4.0)
    down = q.find_path(top, floor)
    assert down.status is Status.FOUND and down.links.tolist() == [0]
    k = int(np.flatnonzero(down.flags & OFFMESH)[0])
    assert down.path[k] == pytest.approx(links[0].start, abs=1e-4)
    assert down.path[k + 1] == pytest.approx(links[0].end, abs=1e-4)
    assert q.find_path(floor, top).status is Status.FAILED
    assert NavMesh3DQuery(mesh).find_path(top, floor).status is Status.FAILED


def test_paths_jump_a_gap_both_ways():
    level = platforms(1.0)
    mesh = with_flags(build(level))
    q = NavMesh3DQuery(mesh.with_links(ledge_links(mesh, level=level)))
    a, b = (1.5, 0.0, 2.0), (9.5, 0.0, 6.0)
    there, back = q.find_path(a, b), q.find_path(b, a)
    for r in (there, back):
        assert r.status is Status.FOUND and r.links.tolist() == [0]
        assert np.count_nonzero(r.flags & OFFMESH) == 1
    assert there.cost == pytest.approx(back.cost, rel=1e-6)


def test_too_long_a_jump_is_blamed_with_spacing():
    with pytest.raises(InvalidQueryError, match="max_jump 1000000.0 .*lower max_jump"):
        ledge_links(build(generate.building()), max_jump=1e6)
