"""Random obstacle worlds: valid rooms with convex holes at any angle, inside the bounds and
apart from each other by the gap, the same for the same seed, and meshed to full coverage by
every builder; bad arguments refused."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon, box

from wayfinding.errors import InvalidGeometryError
from wayfinding.navmesh import NavMesh
from wayfinding.navmesh.worlds import obstacle_world

SEEDS = range(6)


def holes(world):
    return [Polygon(h) for h in world.interiors]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_world_is_a_valid_room_with_the_obstacles_asked_for(seed):
    world = obstacle_world(80, 50, obstacles=15, seed=seed)
    assert world.is_valid and world.geom_type == "Polygon"
    assert world.exterior.equals(box(0, 0, 80, 50).exterior)
    assert len(world.interiors) == 15
    assert world.area == pytest.approx(4000 - sum(h.area for h in holes(world)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("gap", [0.5, 2.0])
def test_obstacles_are_convex_inside_the_room_and_gap_apart(seed, gap):
    world = obstacle_world(60, 60, obstacles=12, gap=gap, seed=seed)
    room = box(0, 0, 60, 60)
    for h in holes(world):
        assert h.area > 0 and h.convex_hull.area == pytest.approx(h.area)
        assert room.exterior.distance(h) >= gap - 1e-9 and room.contains(h)
    for a, b in itertools.combinations(holes(world), 2):
        assert a.distance(b) >= gap - 1e-9


@pytest.mark.parametrize("seed", SEEDS)
def test_worlds_have_edges_at_any_angle(seed):
    world = obstacle_world(100, 100, obstacles=10, seed=seed)
    pts = np.concatenate([np.asarray(h.coords) for h in world.interiors])
    edges = np.concatenate([np.diff(np.asarray(h.coords), axis=0) for h in world.interiors])
    slanted = (np.abs(edges) > 1e-9 * np.abs(pts).max()).all(axis=1)
    assert slanted.sum() >= len(edges) // 2


@settings(max_examples=30, deadline=None)
@given(width=st.floats(5, 200), height=st.floats(5, 200), obstacles=st.integers(0, 12),
       gap=st.floats(0.05, 3), seed=st.integers(0, 2**63 - 1))
def test_any_world_made_keeps_the_rules_or_is_refused(width, height, obstacles, gap, seed):
    try:
        world = obstacle_world(width, height, obstacles=obstacles, gap=gap, seed=seed)
    except InvalidGeometryError as exc:
        assert "could not place obstacle" in str(exc)
        return
    assert world.is_valid and len(world.interiors) == obstacles
    assert world.exterior.equals(box(0, 0, width, height).exterior)
    shapes = holes(world)
    for h in shapes:
        assert world.exterior.distance(h) >= gap * (1 - 1e-9)
        assert h.convex_hull.area == pytest.approx(h.area)
    for a, b in itertools.combinations(shapes, 2):
        assert a.distance(b) >= gap * (1 - 1e-9)


def test_the_same_seed_gives_the_same_world_and_others_differ():
    a = obstacle_world(50, 40, obstacles=8, seed=4)
    assert a.equals_exact(obstacle_world(50, 40, obstacles=8, seed=4), tolerance=0)
    assert not a.equals(obstacle_world(50, 40, obstacles=8, seed=5))


def test_no_obstacles_is_the_bare_room():
    assert obstacle_world(7, 3, obstacles=0).equals(box(0, 0, 7, 3))


def sides(h):
    """The two side lengths of the smallest rectangle round ``h``, short first."""
    c = np.asarray(shapely.oriented_envelope(h).exterior.coords)
    return sorted(np.hypot(*np.diff(c[:3], axis=0).T))


def test_all_three_kinds_appear():
    # Walls are thin (thickness / length <= 0.2), boxes are not (>= 1/3); pillars have 3 to
    # 8 corners.
    shapes = [h for seed in SEEDS for h in holes(obstacle_world(100, 100, seed=seed))]
    corners = {len(h.exterior.coords) - 1 for h in shapes}
    assert {3, 4} <= corners and max(corners) > 4
    ratios = [a / b for a, b in map(sides, shapes)]
    quads = [r for h, r in zip(shapes, ratios) if len(h.exterior.coords) == 5]
    assert min(quads) <= 0.2 and max(quads) >= 1 / 3


@pytest.mark.parametrize("method", ["delaunay", "subtractive"])
def test_every_builder_covers_a_world(method):
    world = obstacle_world(70, 45, obstacles=14, seed=9)
    mesh = NavMesh.build(world, method=method)
    union = shapely.union_all([Polygon(mesh.polygon(i)) for i in range(mesh.num_polygons)])
    assert union.symmetric_difference(world).area < 1e-9 * world.area


def test_a_crowded_room_is_refused_naming_the_obstacle():
    with pytest.raises(InvalidGeometryError, match="could not place obstacle .* of 500"):
        obstacle_world(20, 20, obstacles=500, seed=0)


@pytest.mark.parametrize("args, kwargs, name", [
    ((0, 10), {}, "width"), ((10, math.nan), {}, "height"), ((10, 10), {"obstacles": -1},
                                                                "obstacles"),
    ((10, 10), {"obstacles": 2.0}, "obstacles"), ((10, 10), {"gap": 0}, "gap"),
    ((10, 10), {"seed": -1}, "seed"), ((10, 10), {"seed": True}, "seed"),
])
def test_bad_arguments_are_refused_naming_them(args, kwargs, name):
    with pytest.raises(InvalidGeometryError, match=name):
        obstacle_world(*args, **kwargs)
