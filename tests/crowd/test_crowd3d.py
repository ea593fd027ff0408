"""Crowds on voxel navmeshes (Navigator3D): agents cross a two-storey level by its stairs,
bridge and jump link, stay on the ground of the detail mesh, keep apart on their own
storey only, fly links with their state; ORCA's per-agent walls and neighbour rule."""

import numpy as np
import pytest

from wayfinding.crowd import ORCA, Crowd, Navigator
from wayfinding.crowd.surface import ARRIVED, MOVING, NO_PATH, ON_LINK, Navigator3D
from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh3d import BuildSettings, build, generate, with_flags
from wayfinding.navmesh3d.obstacles import Cylinder
from wayfinding.navmesh3d.query import WALK
from wayfinding.navmesh3d.tilecache import TileCache

RADIUS = 0.6


@pytest.fixture(scope="module")
def level():
    lvl = generate.multi_storey()
    mesh = with_flags(build(lvl))
    a, b = generate.GAP_EDGES
    link = OffMeshLink((a - 0.9, 3.0, 12.0), (b + 0.9, 3.0, 12.0), bidirectional=True,
                       kind="jump")
    return mesh.with_links([link])


#: (route, start, target): up the stairs, over the bridge, over the gap both ways, under
#: the platforms both ways.
AGENTS = [
    ("stairs", (1.5, 0.0, 9.0), (8.0, 3.0, 13.0)),
    ("stairs", (2.5, 0.0, 12.0), (9.5, 3.0, 11.0)),
    ("bridge", (8.0, 3.0, 5.0), (19.0, 3.0, 4.0)),
    ("bridge", (19.5, 3.0, 13.0), (7.0, 3.0, 9.5)),
    ("jump", (19.0, 3.0, 10.0), (28.0, 3.0, 6.0)),
    ("jump", (20.0, 3.0, 14.0), (27.0, 3.0, 13.0)),
    ("jump", (29.0, 3.0, 12.0), (18.5, 3.0, 6.0)),
    ("under", (29.0, 0.0, 12.0), (2.0, 0.0, 13.0)),
    ("under", (3.0, 0.0, 6.0), (28.0, 0.0, 5.0)),
]


@pytest.fixture(scope="module")
def run(level):
    """The agents of AGENTS walked for at most 60 s: positions, states and corridor
    first polygons per frame."""
    nav = Navigator3D(level)
    ids = [nav.add(s, target=t, max_speed=1.4) for _, s, t in AGENTS]
    frames, states = [nav.positions], [nav.states]
    for _ in range(600):
        nav.update(0.1)
        frames.append(nav.positions)
        states.append(nav.states)
        if all(s == ARRIVED for s in states[-1]):
            break
    return nav, ids, np.array(frames), np.array(states)


def test_every_agent_arrives(run):
    nav, ids, frames, states = run
    assert (states[-1] == ARRIVED).all()
    for (_, _, target), agent in zip(AGENTS, ids):
        p = nav.position(agent)
        assert np.hypot(p[0] - target[0], p[2] - target[2]) <= nav.arrive_distance + 1e-9
        assert abs(p[1] - target[1]) < 0.3


def test_routes_take_their_storeys(run):
    _, _, frames, states = run
    y = frames[..., 1]
    for k, (route, _, _) in enumerate(AGENTS):
        if route == "under":
            assert y[:, k].max() < 0.5                       # never climbs
        if route == "stairs":
            assert y[0, k] < 0.5 and y[-1, k] > 2.5
            rising = np.diff(y[:, k])
            assert (rising > -0.05).all()                    # up the stairs, no falls
        if route in ("bridge", "jump"):
            assert y[:, k].min() > 2.5                       # never falls off
        assert ((states[:, k] == ON_LINK).any()) == (route == "jump")


def ground_triangles(mesh):
    """The ground's triangles ``(m, 3, 3)`` as Detour reads them: each polygon's detail
    triangles, with the polygon's own corners where they use its first vertices."""
    polys = mesh.polygons()
    out, base = [], 0
    for t in mesh.tiles:
        d = t.detail
        for p, (vb, _, tb, nt) in enumerate(d.meshes.tolist()):
            corners = polys[base + p]
            for row in d.tris[tb:tb + nt, :3].tolist():
                out.append([corners[i] if i < len(corners) else d.verts[vb + i]
                            for i in row])
        base += t.polymesh.num_polys
    return np.array(out, np.float64)


def ground_heights(mesh, points):
    """Per point, the heights of the ground triangles under it (xz), by barycentric
    interpolation in numpy: an oracle apart from the kernel's."""
    tri = ground_triangles(mesh)
    out = []
    for x, _, z in points:
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        v0, v1 = c[:, [0, 2]] - a[:, [0, 2]], b[:, [0, 2]] - a[:, [0, 2]]
        v2 = np.array([x, z]) - a[:, [0, 2]]
        den = v0[:, 0] * v1[:, 1] - v1[:, 0] * v0[:, 1]
        ok = np.abs(den) > 1e-12
        den = np.where(ok, den, 1)
        u = (v2[:, 0] * v1[:, 1] - v1[:, 0] * v2[:, 1]) / den
        v = (v0[:, 0] * v2[:, 1] - v2[:, 0] * v0[:, 1]) / den
        inside = ok & (u >= -1e-4) & (v >= -1e-4) & (u + v <= 1 + 1e-4)
        out.append(a[inside, 1] + u[inside] * (c[inside, 1] - a[inside, 1])
                   + v[inside] * (b[inside, 1] - a[inside, 1]))
    return out


def test_walking_agents_stay_on_the_ground(run, level):
    _, _, frames, states = run
    for t in range(0, len(frames), 3):
        walking = states[t] != ON_LINK
        pts = frames[t][walking]
        for p, heights in zip(pts, ground_heights(level, pts)):
            assert len(heights) and np.abs(heights - p[1]).min() < 1e-3, (t, p)


def test_agents_on_one_storey_never_overlap_much(run):
    nav, _, frames, states = run
    r = nav.crowd.radius
    worst = np.inf
    for t in range(len(frames)):
        p, grounded = frames[t], states[t] != ON_LINK
        d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 2] - p[None, :, 2])
        same = np.abs(p[:, None, 1] - p[None, :, 1]) < nav.height
        pair = same & grounded[:, None] & grounded[None, :] & ~np.eye(len(p), dtype=bool)
        if pair.any():
            worst = min(worst, float((d - (r[:, None] + r[None, :]))[pair].min()))
    assert worst > -0.1 * 2 * RADIUS


def test_jumps_fly_a_parabola_over_the_gap(run, level):
    nav, _, frames, states = run
    a, b = generate.GAP_EDGES
    for k, (route, _, _) in enumerate(AGENTS):
        if route != "jump":
            continue
        air = np.flatnonzero(states[:, k] == ON_LINK)
        assert len(air) >= 5 and (np.diff(air) == 1).all()     # one flight
        y = frames[air, k, 1]
        assert y.max() > 3.0 + 0.8 * nav.jump_height            # up to about the apex
        x = frames[air, k, 0]
        assert x.min() < a and x.max() > b                      # over the gap
        after = air[-1] + 1
        assert states[after, k] in (MOVING, ARRIVED)


def test_agents_on_other_storeys_are_not_neighbours(level):
    """One agent on platform A and one under it walk the same line in xz, opposite ways:
    neither steps aside.  On one storey they do."""
    nav = Navigator3D(level)
    up = nav.add((6.5, 3.0, 12.0), target=(10.0, 3.0, 12.0))
    down = nav.add((10.0, 0.0, 12.1), target=(6.5, 0.0, 12.1))
    for _ in range(50):
        nav.update(0.1)
        assert abs(nav.position(up)[2] - 12.0) < 1e-6
        assert abs(nav.position(down)[2] - 12.1) < 1e-6
    assert nav.state(up) == nav.state(down) == ARRIVED
    flat = Navigator3D(level)
    one = flat.add((6.5, 0.0, 12.0), target=(10.0, 0.0, 12.0))
    other = flat.add((10.0, 0.0, 12.1), target=(6.5, 0.0, 12.1))
    off = 0.0
    for _ in range(50):
        flat.update(0.1)
        off = max(off, abs(flat.position(one)[2] - 12.0), abs(flat.position(other)[2] - 12.1))
    assert off > 0.3


def walls_at(q, height):
    """The xz wall segments of the polygons whose corners lie at about ``height``."""
    polys = q.mesh.polygons()
    keep = [p for p in range(len(polys)) if abs(polys[p][:, 1].mean() - height) < 0.5]
    return {tuple(np.round(w[:, [0, 2]], 4).ravel()) for p in keep
            for w in q.wall_segments(p).astype(np.float64)}


@pytest.mark.parametrize("where, other", [((8.0, 3.0, 12.0), 0.0), ((8.0, 0.0, 12.0), 3.0)])
def test_walls_come_from_the_agents_storey(level, where, other):
    """An agent on platform A and one under it: each one's walls (Detour's local boundary)
    hold walls of its own storey, none of the other's within reach."""
    nav = Navigator3D(level)
    _, (x, y, z) = nav.query.nearest(where)
    mine = {tuple(np.round(w, 4).ravel())
            for w in nav._walls.near(x, y, z, nav.collision_range, nav.height)}
    theirs = walls_at(nav.query, other)
    reach = [w for w in theirs
             if min(np.hypot(w[0] - x, w[1] - z), np.hypot(w[2] - x, w[3] - z)) < 5]
    assert mine and reach and not mine & theirs
    assert mine <= walls_at(nav.query, where[1]) | walls_at(nav.query, 1.5)


def test_a_target_set_in_flight_is_planned_on_landing(level):
    nav = Navigator3D(level)
    a = nav.add((19.0, 3.0, 10.0), target=(28.0, 3.0, 6.0))
    while nav.state(a) != ON_LINK:
        nav.update(0.1)
    nav.set_target(a, (25.0, 3.0, 14.0))
    assert nav.state(a) == ON_LINK
    for _ in range(200):
        nav.update(0.1)
    assert nav.state(a) == ARRIVED
    assert nav.position(a)[[0, 2]] == pytest.approx([25.0, 14.0], abs=0.06)


def test_agents_wait_for_the_landing_to_clear(level):
    nav = Navigator3D(level)
    a, b = generate.GAP_EDGES
    slow = nav.add((b + 0.9, 3.0, 12.0), target=(b + 0.9, 3.0, 2.0), max_speed=0.002)
    jumper = nav.add((19.0, 3.0, 11.0), target=(28.0, 3.0, 12.0))
    for _ in range(80):                       # the one on the far end walks on, slowly
        nav.update(0.1)
        assert nav.state(jumper) != ON_LINK
    nav.remove(slow)
    seen = set()
    for _ in range(120):
        nav.update(0.1)
        seen.add(nav.state(jumper))
    assert ON_LINK in seen and nav.state(jumper) == ARRIVED


def test_agents_standing_on_the_landing_are_landed_beside(level):
    nav = Navigator3D(level)
    a, b = generate.GAP_EDGES
    sitter = nav.add((b + 0.9, 3.0, 12.0))               # idle on the far end
    jumper = nav.add((19.0, 3.0, 11.0), target=(28.0, 3.0, 12.0))
    seen = set()
    for _ in range(150):
        nav.update(0.1)
        seen.add(nav.state(jumper))
    assert ON_LINK in seen and nav.state(jumper) == ARRIVED
    # the sitter gives way (idle agents are parted too: landed on its point, ORCA and the
    # collision passes part the two), by less than its radius
    assert nav.position(sitter)[[0, 2]] == pytest.approx([b + 0.9, 12.0], abs=nav.radius)
    gap = np.hypot(*(nav.position(sitter) - nav.position(jumper))[[0, 2]])
    assert gap >= 2 * nav.radius - 0.05


def test_agents_queueing_at_both_ends_of_a_link_all_cross(level):
    nav = Navigator3D(level)
    a, b = generate.GAP_EDGES
    east = [nav.add((19.0, 3.0, 11.0 + k), target=(28.0, 3.0, 10.0 + 2 * k))
            for k in range(3)]
    west = [nav.add((29.0, 3.0, 11.0 + k), target=(18.5, 3.0, 4.0 + 2 * k))
            for k in range(3)]
    for _ in range(600):
        nav.update(0.1)
        if all(nav.state(x) == ARRIVED for x in east + west):
            break
    assert all(nav.state(x) == ARRIVED for x in east + west)


def test_navigator_on_a_3d_mesh_is_the_3d_navigator(level):
    nav = Navigator(level, radius=RADIUS)
    assert isinstance(nav, Navigator3D) and nav.radius == RADIUS
    a = nav.add((2.0, 0.0, 8.0), target=(4.0, 0.0, 8.0))
    assert nav.state(a) == MOVING and nav.path(a).shape[1] == 3
    assert len(nav) == 1 and "1 agents" in repr(nav)
    nav.update(0.1)
    assert list(nav.stage_ms) == ["corners", "boundary", "avoidance", "move", "links"]
    assert all(ms >= 0 for ms in nav.stage_ms.values())


def test_unreachable_targets_and_idle_agents(level):
    nav = Navigator3D(level)
    idle = nav.add((2.0, 0.0, 8.0))
    far = nav.add((2.0, 0.0, 14.0), target=(2.0, 0.0, 500.0))
    assert nav.state(idle) == "idle"
    assert nav.state(far) == "no path"
    for _ in range(10):
        nav.update(0.1)
    assert nav.position(idle)[[0, 2]] == pytest.approx([2.0, 8.0])
    assert nav.position(far)[[0, 2]] == pytest.approx([2.0, 14.0])


@pytest.mark.parametrize("call, match", [
    (lambda m: Navigator3D("mesh"), "NavMesh3D"),
    (lambda m: Navigator3D(m, filter="walk"), "QueryFilter"),
    (lambda m: Navigator3D(m, avoidance="rvo"), "avoidance"),
    (lambda m: Navigator3D(m, radius=-1.0), "radius"),
    (lambda m: Navigator3D(m, crowd=Crowd()).add((500.0, 0.0, 500.0)), "off the mesh"),
    (lambda m: Navigator3D(m).add((np.nan, 0.0, 1.0)), "position"),
    (lambda m: Navigator3D(m).add((2.0, 0.0, 8.0), target=(1.0, 2.0)), "target"),
    (lambda m: Navigator3D(m).update(-0.1), "dt"),
    (lambda m: Navigator3D(m).state(3), "no agent"),
])
def test_bad_input(level, call, match):
    with pytest.raises(InvalidQueryError, match=match):
        call(level)


# ---------------------------------------------------------------------- ORCA's options
def crowd_of(points, goals):
    c = Crowd()
    for p, g in zip(points, goals):
        c.add(p, goal=g, radius=0.5, max_speed=1.0)
    return c


def test_per_agent_walls_match_the_same_obstacles():
    seg = np.array([[2.0, -3.0], [2.0, 3.0]])
    c = crowd_of([(0.0, 0.0), (0.0, 1.0), (4.0, 0.5)], [(4.0, 0.0), (4.0, 1.0), (0.0, 0.5)])
    tree = ORCA(time_horizon=2.0, time_horizon_obst=2.0, obstacles=[seg])
    own = ORCA(time_horizon=2.0, time_horizon_obst=2.0)
    walls = (np.array([0, 1, 2, 3]), np.stack([seg] * 3))
    np.testing.assert_allclose(own.velocities(c, 0.1, walls=walls),
                               tree.velocities(c, 0.1), atol=1e-12)
    free = own.velocities(c, 0.1, walls=(np.zeros(4, np.int64), np.zeros((0, 2, 2))))
    np.testing.assert_allclose(free, ORCA(time_horizon=2.0).velocities(c, 0.1), atol=1e-12)
    mine_only = own.velocities(c, 0.1, walls=(np.array([0, 1, 1, 1]), seg[None]))
    np.testing.assert_allclose(mine_only[0], tree.velocities(c, 0.1)[0], atol=1e-12)


def test_wall_radius_lets_agents_reach_the_wall():
    seg = np.array([[1.0, -3.0], [1.0, 3.0]])
    c = crowd_of([(0.0, 0.0)], [(5.0, 0.0)])
    orca = ORCA(time_horizon=2.0, time_horizon_obst=1.0)
    walls = (np.array([0, 1]), seg[None])
    for _ in range(40):
        orca.step(c, 0.1, walls=walls, wall_radius=0.0)
    assert c.position[0, 0] == pytest.approx(1.0, abs=0.02)
    c2 = crowd_of([(0.0, 0.0)], [(5.0, 0.0)])
    for _ in range(40):
        orca.step(c2, 0.1, walls=walls)
    assert c2.position[0, 0] == pytest.approx(0.5, abs=0.02)


def test_given_neighbours_replace_the_crowd_s():
    c = crowd_of([(0.0, 0.0), (3.0, 0.05)], [(3.0, 0.0), (0.0, 0.05)])
    orca = ORCA(time_horizon=5.0)
    alone = ORCA(time_horizon=5.0, max_neighbours=0).velocities(c, 0.1)
    none = (np.full((2, 1), -1), np.zeros(2, np.int64))
    np.testing.assert_allclose(orca.velocities(c, 0.1, neighbours=none), alone)
    np.testing.assert_allclose(orca.velocities(c, 0.1, neighbours=c.neighbours()),
                               orca.velocities(c, 0.1))
    one_way = (np.array([[1], [-1]]), np.array([1, 0]))      # only the first sees the second
    v = orca.velocities(c, 0.1, neighbours=one_way)
    np.testing.assert_allclose(v[1], alone[1])
    assert not np.allclose(v[0], alone[0])


@pytest.mark.parametrize("options, match", [
    (dict(walls=(np.array([0, 1]), np.zeros((1, 2, 2)))), "ptr"),
    (dict(walls=(np.array([0, 0, 1]), np.full((1, 2, 2), np.nan))), "finite"),
    (dict(walls="walls"), "walls"),
    (dict(walls=(np.array([0.0, np.inf, 1.0]), np.zeros((1, 2, 2)))), "ptr integers"),
    (dict(walls=(np.array([0.0, 0.5, 1.0]), np.zeros((1, 2, 2)))), "ptr integers"),
    (dict(walls=(np.array([0, 0, 1]), np.zeros((1, 2, 2), bool))), "walls"),
    (dict(wall_radius=-1.0), "wall_radius"),
    (dict(neighbours=(np.zeros((2, 1), int), np.array([1, 2]))), "neighbours"),
    (dict(neighbours=(np.array([[5], [0]]), np.array([1, 1]))), "neighbours"),
    (dict(neighbours=(np.array([[-1], [0]]), np.array([1, 1]))), "neighbours"),
    (dict(neighbours="all"), "neighbours"),
])
def test_bad_orca_options(options, match):
    c = crowd_of([(0.0, 0.0), (3.0, 0.0)], [(3.0, 0.0), (0.0, 0.0)])
    with pytest.raises(InvalidQueryError, match=match):
        ORCA().velocities(c, 0.1, **options)


def test_agents_plan_round_polygons_closed_under_them():
    mesh = with_flags(build(generate.terrain(size=24, seed=1), tile_size=16))
    nav = Navigator3D(mesh)
    a = nav.add((3.0, 0.0, 3.0), target=(20.0, 0.0, 20.0))
    for _ in range(10):
        nav.update(0.1)
    corridor = nav.corridor(a).polygons
    closed = int(corridor[len(corridor) // 2])
    mesh.set_flags(closed, 0)
    nav.update(0.1)
    assert closed not in nav.corridor(a).polygons.tolist()
    for _ in range(400):
        nav.update(0.1)
        assert closed not in nav.corridor(a).polygons.tolist()
    assert nav.state(a) == ARRIVED
    assert nav.position(a)[[0, 2]] == pytest.approx([20.0, 20.0], abs=0.06)


def test_removing_agents_on_the_ground_and_in_the_air(level):
    nav = Navigator3D(level)
    jumper = nav.add((19.0, 3.0, 11.0), target=(28.0, 3.0, 12.0))
    walker = nav.add((2.0, 0.0, 8.0), target=(28.0, 0.0, 8.0))
    other = nav.add((2.0, 0.0, 12.0), target=(28.0, 0.0, 12.0))
    while nav.state(jumper) != ON_LINK:
        nav.update(0.1)
    nav.remove(jumper)
    nav.remove(walker)
    assert len(nav) == 1 and nav.crowd.ids.tolist() == [other]
    for _ in range(300):
        nav.update(0.1)
    assert nav.state(other) == ARRIVED
    with pytest.raises(InvalidQueryError, match="no agent"):
        nav.position(jumper)


def test_without_avoidance_agents_walk_their_corners(level):
    nav = Navigator3D(level, avoidance=None)
    a = nav.add((1.5, 0.0, 12.0), target=(9.0, 3.0, 12.0))
    b = nav.add((1.5, 0.0, 12.5), target=(9.0, 3.0, 14.5))      # overlapping: parted
    corners = nav.path(a)
    for _ in range(200):
        nav.update(0.1)
    assert nav.state(a) == nav.state(b) == ARRIVED
    assert len(corners) >= 3 and corners[-1] == pytest.approx(nav.position(a), abs=0.06)


def test_a_crowd_given_must_be_empty(level):
    crowd = Crowd()
    nav = Navigator3D(level, crowd=crowd)
    assert nav.crowd is crowd
    nav.add((2.0, 0.0, 8.0))
    with pytest.raises(InvalidQueryError, match="empty Crowd"):
        Navigator3D(level, crowd=crowd)


def test_agents_carry_on_over_a_tile_cache_s_new_meshes():
    cache = TileCache(generate.floor(size=30.0), tile_size=32, flags=WALK)
    nav = Navigator3D(cache.mesh)
    walker = nav.add((2.0, 0.0, 15.0), target=(28.0, 0.0, 15.0))
    bystander = nav.add((3.0, 0.0, 3.0), target=(5.0, 0.0, 3.0))
    for _ in range(30):
        nav.update(0.1)
    oid = cache.add(Cylinder((15.0, -1.0, 15.0), radius=2.0, height=4.0))
    assert cache.update() and cache.changed
    kept = nav.corridor(bystander)
    nav.set_mesh(cache.mesh)
    assert nav.query.mesh is cache.mesh and nav.corridor(bystander) is kept
    assert kept.query is nav.query and kept.is_valid()
    closest = np.inf
    for _ in range(400):
        nav.update(0.1)
        p = nav.position(walker)
        closest = min(closest, float(np.hypot(p[0] - 15.0, p[2] - 15.0)))
    assert nav.state(walker) == nav.state(bystander) == ARRIVED
    assert closest > 2.0 + RADIUS - 0.35              # round the obstacle, not through it
    cache.remove(oid)
    cache.update()
    nav.set_mesh(cache.mesh)
    nav.set_target(walker, (2.0, 0.0, 15.0))
    for _ in range(300):
        nav.update(0.1)
    p = nav.position(walker)
    assert nav.state(walker) == ARRIVED and abs(p[2] - 15.0) < 0.3   # straight back


def test_an_obstacle_dropped_on_an_agent_leaves_it_no_path():
    cache = TileCache(generate.floor(size=30.0), tile_size=32, flags=WALK)
    nav = Navigator3D(cache.mesh)
    a = nav.add((15.0, 0.0, 15.0), target=(25.0, 0.0, 15.0))
    cache.add(Cylinder((15.0, -1.0, 15.0), radius=4.0, height=4.0))
    cache.update()
    nav.set_mesh(cache.mesh)
    assert nav.state(a) == "no path"
    for _ in range(5):
        nav.update(0.1)
    assert nav.position(a)[[0, 2]] == pytest.approx([15.0, 15.0])
    with pytest.raises(InvalidQueryError, match="same settings"):
        nav.set_mesh(with_flags(build(generate.floor(size=30.0), settings=BuildSettings(
            cell_size=0.5))))


def _linked_floor():
    m = with_flags(build(generate.floor(size=30), tile_size=16))
    return m.with_links([OffMeshLink((2, 0, 2), (27, 0, 27), cost=0.0)])


def test_a_landing_closed_under_a_corridor_is_planned_around():
    m = _linked_floor()
    nav = Navigator3D(m)
    a = nav.add((1, 0, 1), target=(28, 0, 28))
    nav.update(0.1)
    m.set_flags(int(nav.corridor(a).polygons[-1]), 0)
    for _ in range(5):
        nav.update(0.1)
    assert nav.state(a) in (MOVING, ON_LINK)


def test_set_mesh_carries_corridors_ending_after_a_link():
    cache = TileCache(generate.floor(size=30), tile_size=32, flags=WALK)
    cache.set_links([OffMeshLink((3, 0, 3), (25, 0, 25), cost=0.0)])
    nav = Navigator3D(cache.mesh)
    a = nav.add((2, 0, 2), target=(26, 0, 26))
    cache.add(Cylinder((26, 0, 26), radius=0.5, height=2))
    cache.update()
    nav.set_mesh(cache.mesh)
    assert nav.query.mesh is cache.mesh and nav.corridor(a).query is nav.query
    assert nav.state(a) == MOVING


def test_an_agent_in_flight_over_a_rebuilt_landing_lands():
    cache = TileCache(generate.floor(size=30), tile_size=32, flags=WALK)
    cache.set_links([OffMeshLink((3, 0, 3), (25, 0, 25), cost=0.0, kind="drop")])
    nav = Navigator3D(cache.mesh)
    a = nav.add((2, 0, 2), target=(26, 0, 26))
    for _ in range(40):
        nav.update(0.1)
        if nav.state(a) == ON_LINK:
            break
    assert nav.state(a) == ON_LINK
    cache.add(Cylinder((25, 0, 25), radius=5, height=2))       # over the landing
    cache.update()
    nav.set_mesh(cache.mesh)
    assert nav.state(a) == ON_LINK
    for _ in range(300):
        nav.update(0.1)
    # it flies on and lands, where no polygon is left: it stays there
    assert nav.state(a) == NO_PATH and not nav._flights
    assert nav.position(a)[[0, 2]] == pytest.approx([25, 25])


def test_agents_overhead_take_no_neighbour_places():
    nav = Navigator3D(with_flags(build(generate.multi_storey())))
    g1, g2 = nav.add((8.0, 0, 12.0)), nav.add((8.0, 0, 14.5))     # under platform A
    for k in range(24):                                          # a crowd right overhead
        nav.add((6.0 + (k % 6) * 0.8, 3.0, 11.0 + (k // 6) * 0.7))
    rows, counts = nav._neighbours(nav.crowd.field("surface_state") != 4)
    i1 = nav.crowd.row(g1)
    assert rows[i1][:counts[i1]].tolist() == [nav.crowd.row(g2)]


def test_idle_agents_added_at_one_point_are_parted():
    nav = Navigator3D(with_flags(build(generate.floor(size=10))))
    a, b = nav.add((2, 0, 2)), nav.add((2, 0, 2))
    for _ in range(20):
        nav.update(0.1)
    gap = np.hypot(*(nav.position(a) - nav.position(b))[[0, 2]])
    assert gap >= 2 * nav.radius - 0.05 and nav.states == ["idle", "idle"]


def test_an_agent_with_no_path_tries_again_when_flags_change():
    m = with_flags(build(generate.floor(size=30), tile_size=16))
    nav = Navigator3D(m)
    a = nav.add((1, 0, 1), target=(28, 0, 28))
    m.set_flags(list(range(m.num_polygons)), 0)              # every door shut
    nav.update(0.1)
    assert nav.state(a) == NO_PATH
    m.set_flags(list(range(m.num_polygons)), 1)
    for _ in range(300):
        nav.update(0.1)
    assert nav.state(a) == ARRIVED


def test_walls_are_read_again_when_flags_change():
    m = with_flags(build(generate.floor(size=30), tile_size=16))
    nav = Navigator3D(m)
    a = nav.add((8, 0, 8), target=(9, 0, 8))
    nav.update(0.1)
    before = len(nav._boundary(np.ones(1, bool))[1])
    here = nav.query.nearest((8, 0, 8))[0]
    m.set_flags([p for p in range(m.num_polygons) if p != here], 0)
    nav.update(0.1)
    assert len(nav._boundary(np.ones(1, bool))[1]) != before
    assert nav.state(a) in (MOVING, ARRIVED)


def test_navigator_on_a_3d_mesh_names_options_navigator3d_lacks():
    m = with_flags(build(generate.floor(size=10)))
    assert isinstance(Navigator(m, radius=0.3), Navigator3D)
    with pytest.raises(InvalidQueryError, match="Navigator3D, which takes no corner_radius"):
        Navigator(m, corner_radius=0.3)
