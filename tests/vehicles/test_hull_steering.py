"""Hull steering against compound vehicles: caching, side choice, pockets, street crossing."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, event, example, given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidGeometryError, InvalidQueryError
from wayfinding.vehicles.hull_steering import (
    CARRIAGE,
    CrossingRun,
    Direction,
    Vehicle,
    VehicleHull,
    _clip,
    avoid_hulls,
    braking_factor,
    relative_direction,
    street_crossing,
)
from wayfinding.vehicles.hulls import box_polygon, point_in_polygon


def box_gap(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Signed distance of each point to the nearest clockwise convex box (negative inside)."""
    out = np.full(len(points), np.inf)
    for b in boxes:
        e = np.roll(b, -1, axis=0) - b
        rel = points[:, None, :] - b[None]
        t = np.clip((rel * e).sum(axis=2) / (e * e).sum(axis=1), 0.0, 1.0)
        d = np.hypot(*(rel - t[..., None] * e).transpose(2, 0, 1)).min(axis=1)
        inside = ((e[None, :, 0] * rel[..., 1] - e[None, :, 1] * rel[..., 0]) < 0).all(axis=1)
        out = np.minimum(out, np.where(inside, -d, d))
    return out


def enters(p: np.ndarray, q: np.ndarray, poly: np.ndarray, samples: int = 2001) -> bool:
    """Whether the segment p→q passes through the polygon's interior (dense sampling, with
    points within 1e-7 of the boundary counted as outside)."""
    pts = p + np.linspace(0, 1, samples)[:, None] * (q - p)
    inside = np.asarray(point_in_polygon(pts, poly))
    e = np.roll(poly, -1, axis=0) - poly
    rel = pts[:, None, :] - poly[None]
    t = np.clip((rel * e).sum(axis=2) / (e * e).sum(axis=1), 0.0, 1.0)
    gap = np.hypot(*(rel - t[..., None] * e).transpose(2, 0, 1)).min(axis=1)
    return bool((inside & (gap > 1e-7)).any())


def cart(**kwargs: object) -> Vehicle:
    return Vehicle(CARRIAGE, **kwargs)  # type: ignore[arg-type]


def test_hull_is_cached_and_shared() -> None:
    v = cart(position=(1.0, 2.0), heading=0.3)
    h = v.hull(0.3)
    assert v.hull(0.3) is h and v.hull(0.5) is not h
    v.move((4.0, 2.0), 0.3)
    moved = v.hull(0.3)
    assert moved is not h
    np.testing.assert_allclose(moved.contour - h.contour, np.tile([3.0, 0.0], (len(h.contour), 1)))


def test_parts_can_be_lost_and_added() -> None:
    v = cart()
    full = v.hull(0.3)
    v.remove_part(2)
    assert v.hull(0.3) is not full and len(v.parts) == 2
    assert not point_in_polygon((2.3, -0.45), v.hull(0.3).contour)
    v.add_part((-2.5, 0.0, 0.5, 0.5, 0.0))
    assert point_in_polygon((-2.7, 0.0), v.hull(0.3).hull)


def test_hull_covers_the_grown_boxes_and_pockets_fill_the_gap() -> None:
    h = cart(heading=1.0).hull(0.3)
    area = [0.5 * abs(np.dot(p[:, 0], np.roll(p[:, 1], -1)) - np.dot(np.roll(p[:, 0], -1), p[:, 1]))
            for p in (h.hull, h.contour)]
    tri = sum(0.5 * abs(np.linalg.det(np.stack([t[1] - t[0], t[2] - t[0]]))) for t in h.pockets)
    np.testing.assert_allclose(area[0], area[1] + tri)
    assert (h.lo == h.hull.min(axis=0)).all() and (h.hi == h.hull.max(axis=0)).all()


def test_clear_segment_walks_straight() -> None:
    h = Vehicle([(5.0, 0.0, 2.0, 1.0, 0.0)]).hull(0.5)
    assert avoid_hulls((0.0, 3.0), (10.0, 3.0), [h]).tolist() == [10.0, 3.0]


@pytest.mark.parametrize("y, side", [(0.4, 1.0), (-0.4, -1.0)])
def test_blocked_segment_takes_the_side_turning_least(y: float, side: float) -> None:
    h = Vehicle([(5.0, 0.0, 2.0, 1.0, 0.0)]).hull(0.5)
    p, goal = np.array([0.0, y]), np.array([10.0, y])
    wp = avoid_hulls(p, goal, [h], margin=0.0)
    assert wp.tolist() == [2.5, 1.5 * side]
    assert not enters(p, wp, h.hull)
    other = np.array([2.5, -1.5 * side])
    angle = [abs(math.atan2(float(np.linalg.det(np.stack([goal - p, d]))), float((goal - p) @ d)))
             for d in (wp - p, other - p)]
    assert angle[0] < angle[1]


def test_the_furthest_visible_vertex_is_chosen() -> None:
    h = Vehicle([(0.0, 0.0, 1.0, 1.0, math.pi / 4)]).hull(0.0)
    p, goal = np.array([-3.0, 0.2]), np.array([3.0, 0.2])
    wp = avoid_hulls(p, goal, [h], margin=0.0)
    np.testing.assert_allclose(wp, [0.0, math.sqrt(2)], atol=1e-12)
    assert not enters(p, wp, h.hull)


def test_moving_vehicle_is_passed_behind() -> None:
    parked = Vehicle([(0.0, 0.0, 2.0, 0.5, 0.0)], position=(0.0, 3.0))
    driving = Vehicle([(0.0, 0.0, 2.0, 0.5, 0.0)], position=(0.0, 3.0), velocity=(-1.0, 0.0))
    p, goal = np.array([0.5, 0.0]), np.array([0.5, 6.0])
    assert avoid_hulls(p, goal, [parked.hull(0.3)], margin=0.0)[0] > 0
    assert avoid_hulls(p, goal, [driving.hull(0.3)], margin=0.0)[0] > 0
    driving.move((0.0, 3.0), 0.0, velocity=(1.0, 0.0))
    assert avoid_hulls(p, goal, [driving.hull(0.3)], margin=0.0)[0] < 0


def test_broad_phase_skips_hulls_whose_box_misses() -> None:
    h = Vehicle([(5.0, 0.0, 2.0, 1.0, 0.0)]).hull(0.0)
    far = VehicleHull(h.contour, h.hull, h.pockets, h.lo + 100, h.hi + 100, h.velocity)
    assert avoid_hulls((0.0, 0.0), (10.0, 0.0), [far]).tolist() == [10.0, 0.0]


def walk(p: np.ndarray, goal: np.ndarray, h: VehicleHull, steps: int = 400) -> np.ndarray:
    trail = [p]
    for _ in range(steps):
        wp = avoid_hulls(p, goal, [h], margin=0.0)
        assert not enters(p, wp, h.contour)
        gap = wp - p
        d = float(np.hypot(*gap))
        p = p + gap * min(1.0, 0.1 / d) if d > 0 else p
        trail.append(p)
        if np.allclose(p, goal):
            break
    return np.array(trail)


def test_interaction_point_in_a_pocket_is_reached_without_entering_the_contour() -> None:
    h = cart().hull(0.0)
    door = np.array([2.5, 0.0])               # between the two horses
    assert point_in_polygon(door, h.hull) and not point_in_polygon(door, h.contour)
    assert avoid_hulls((4.0, 0.0), door, [h]).tolist() == door.tolist()
    assert avoid_hulls((2.5, 3.0), door, [h]).tolist() != door.tolist()
    trail = walk(np.array([2.5, 3.0]), door, h)
    np.testing.assert_allclose(trail[-1], door)


def test_agent_in_a_pocket_gets_out_round_the_contour() -> None:
    h = cart().hull(0.0)
    start, goal = np.array([2.5, 0.0]), np.array([2.5, 3.0])
    trail = walk(start, goal, h)
    np.testing.assert_allclose(trail[-1], goal)


def test_agent_inside_the_contour_heads_out() -> None:
    h = Vehicle([(0.0, 0.0, 2.0, 1.0, 0.0)]).hull(0.0)
    wp = avoid_hulls((0.5, 0.8), (0.5, 5.0), [h], margin=0.1)
    np.testing.assert_allclose(wp, [0.5, 1.1])


@pytest.mark.parametrize("kwargs, match", [
    (dict(position=(0, float("nan")), destination=(1, 1)), "position"),
    (dict(position=(0, 0), destination="a"), "destination"),
    (dict(position=(0, 0), destination=(1, 1), margin=-1.0), "margin"),
    (dict(position=(0, 0), destination=(1, 1), cross_angle=2.0), "cross_angle"),
])
def test_avoid_refuses_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(InvalidQueryError, match=match):
        avoid_hulls(hulls=[], **kwargs)


@pytest.mark.parametrize("hulls", [None, 1.5, "cart", [None], [(0.0, 0.0)]])
def test_hulls_that_are_not_vehicle_hulls_are_refused(hulls: object) -> None:
    with pytest.raises(InvalidQueryError, match="hulls"):
        avoid_hulls((0, 0), (1, 1), hulls)  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="hulls"):
        braking_factor((0, 0), (1, 0), hulls)  # type: ignore[arg-type]


def test_vehicle_refuses_bad_input() -> None:
    with pytest.raises(InvalidGeometryError, match="parts"):
        Vehicle([(0.0, 0.0, 1.0)])
    with pytest.raises(InvalidGeometryError, match="half_width"):
        Vehicle([(0.0, 0.0, 1.0, 0.0, 0.0)])
    with pytest.raises(InvalidGeometryError, match="half_length"):
        cart().add_part((0.0, 0.0, -1.0, 1.0, 0.0))
    with pytest.raises(InvalidGeometryError, match="radius"):
        cart().hull(-0.1)
    with pytest.raises(InvalidGeometryError, match="velocity"):
        cart(velocity=(math.inf, 0.0))
    lone = Vehicle([(0.0, 0.0, 1.0, 1.0, 0.0)])
    with pytest.raises(InvalidQueryError, match="last part"):
        lone.remove_part(0)
    with pytest.raises(InvalidQueryError, match="index"):
        cart().remove_part(7)


@pytest.mark.parametrize("pedestrians, seed", [
    (1, 0), (1, 1), pytest.param(4, 2, marks=pytest.mark.slow)])
def test_street_crossing_never_enters_a_vehicle_and_reaches_the_goals(pedestrians: int,
                                                                      seed: int) -> None:
    run = street_crossing(pedestrians=pedestrians, seed=seed, duration=30.0)
    assert run.reached.all()
    for pos, boxes in zip(run.positions, run.boxes):
        assert (box_gap(pos, boxes) >= run.radius).all()
    speed = 1.4 * run.dt * np.arange(len(run.positions))
    walked = np.minimum(speed[:, None] / 10.0, 1.0)
    straight = run.positions[0] + walked[..., None] * (run.goals - run.positions[0])
    assert min(box_gap(p, b).min() for p, b in zip(straight, run.boxes)) < run.radius


def test_street_crossing_refuses_bad_input() -> None:
    with pytest.raises(InvalidQueryError, match="pedestrians"):
        street_crossing(pedestrians=0)
    with pytest.raises(InvalidQueryError, match="dt"):
        street_crossing(dt=0.0)


def test_the_way_to_a_chosen_vertex_is_checked_against_the_other_hulls() -> None:
    a = Vehicle([(5.0, 0.0, 2.0, 1.0, 0.0)]).hull(0.5)
    b = Vehicle([(1.3, 0.95, 0.3, 0.3, 0.0)]).hull(0.0)
    p, goal = np.array([0.0, 0.4]), np.array([10.0, 0.4])
    assert avoid_hulls(p, goal, [a], margin=0.0).tolist() == [2.5, 1.5]
    assert enters(p, np.array([2.5, 1.5]), b.hull)
    wp = avoid_hulls(p, goal, [a, b], margin=0.0)
    np.testing.assert_allclose(wp, [1.6, 0.65])
    assert not enters(p, wp, a.hull) and not enters(p, wp, b.hull)


@settings(max_examples=150, deadline=None)
@example(parts=[(0.0, 0.0, 1.0, 1.0, 0.0), (0.0, 0.0, 2.0, 1.0, 0.0)], start=(0.0, 2.0),
         shift=(1.1125369292536007e-308, 0.0))     # a line all but parallel to two sides
@given(st.lists(st.tuples(st.floats(-2, 2), st.floats(-2, 2), st.floats(0.3, 2),
                          st.floats(0.2, 1), st.floats(0.0, math.pi)), min_size=1, max_size=3),
       st.tuples(st.floats(-8, 8), st.floats(-8, 8)), st.tuples(st.floats(-3, 3),
                                                                st.floats(-3, 3)))
def test_waypoints_never_lead_through_a_hull(parts: list, start: tuple, shift: tuple) -> None:
    try:
        h = Vehicle(parts).hull(0.3)
    except InvalidGeometryError as exc:
        assume("degenerately" not in str(exc))
        raise
    p = np.array(start)
    goal = -p + np.array(shift)             # mostly across the vehicle
    assume(not point_in_polygon(np.stack([p, goal]), h.hull).any())
    assume(box_gap(np.stack([p, goal]), h.hull[None]).min() > 1e-3)
    wp = avoid_hulls(p, goal, [h], margin=0.0)
    assert not enters(p, wp, h.hull)
    if not enters(p, goal, h.hull):
        assert wp.tolist() == goal.tolist()
    else:
        event("the straight line crosses the hull")
        assert (np.abs(h.hull - wp).sum(axis=1) < 1e-9).any()


@pytest.mark.parametrize("heading, velocity, expected", [
    ((1.0, 0.0), (2.0, 0.0), Direction.SAME),
    ((1.0, 0.9), (2.0, 0.0), Direction.SAME),
    ((-1.0, 0.5), (2.0, 0.0), Direction.OPPOSITE),
    ((0.0, 1.0), (2.0, 0.0), Direction.CROSSING),
    ((-1.0, 2.0), (2.0, 0.0), Direction.CROSSING),
    ((1.0, 0.0), (0.0, 0.0), Direction.STILL),
    ((0.0, 0.0), (1.0, 0.0), Direction.STILL),
])
def test_relative_direction(heading: tuple, velocity: tuple, expected: Direction) -> None:
    assert relative_direction(heading, velocity) is expected
    assert relative_direction(velocity, heading) is expected


def test_relative_direction_refuses_bad_angle() -> None:
    with pytest.raises(InvalidQueryError, match="cross_angle"):
        relative_direction((1, 0), (1, 0), cross_angle=-0.1)


@pytest.mark.parametrize("pockets", ["plan", "hug"])
def test_a_destination_inside_a_box_is_approached_not_entered(pockets: str) -> None:
    h = Vehicle([(0.0, 0.0, 2.0, 1.0, 0.0)]).hull(0.0)
    wp = avoid_hulls((-5.0, 0.5), (0.0, 0.5), [h], margin=0.0, pockets=pockets)
    np.testing.assert_allclose(wp, [-2.0, 1.0])
    # the nearest point of the contour stands in for the destination: (0, 1) above it
    wp = avoid_hulls((-2.0, 1.0), (0.0, 0.6), [h], margin=0.0, pockets=pockets)
    assert wp.tolist() == [0.0, 1.0]


def in_way(p: np.ndarray, u: np.ndarray, h: VehicleHull, horizon: float) -> bool:
    """Whether an agent at p moving at u enters, within ``horizon`` seconds, ground the
    vehicle's hull covers within ``horizon`` seconds ahead of where it is then (sampled;
    touching the boundary is not entering)."""
    t = np.linspace(0.0, horizon, 121)
    rel = p + t[:, None] * (u - h.velocity)                  # the agent in the vehicle's frame
    ahead = rel[:, None, :] - np.linspace(0.0, horizon, 121)[None, :, None] * h.velocity
    return bool((box_gap(ahead.reshape(-1, 2), h.hull[None]) < -1e-9).any())


@pytest.mark.parametrize("start, heading", [((0.0, 0.0), (0.0, 1.4)), ((1.0, 0.0), (-0.7, 1.2)),
                                            ((-2.0, 5.0), (0.3, -1.4))])
def test_braking_keeps_out_of_the_way_ahead_and_no_more(start: tuple, heading: tuple) -> None:
    h = Vehicle([(0.0, 0.0, 1.5, 0.8, 0.0)], position=(-4.0, 2.5),
                velocity=(1.0, 0.0)).hull(0.3)
    p, u = np.array(start), np.array(heading)
    assert in_way(p, u, h, 2.0)
    share = braking_factor(p, u, [h], horizon=2.0)
    assert 0.0 < share < 1.0
    assert not in_way(p, share * u, h, 2.0)
    assert in_way(p, (share + 1e-3) * u, h, 2.0)


def test_braking_leaves_clear_ways_and_lost_causes_alone() -> None:
    moving = Vehicle([(0.0, 0.0, 1.5, 0.8, 0.0)], position=(-4.0, 2.5), velocity=(1.0, 0.0))
    h = moving.hull(0.3)
    assert braking_factor((0.0, 0.0), (0.0, 1.4), [h], horizon=0.5) == 1.0   # far enough
    assert braking_factor((0.0, 0.0), (0.0, -1.4), [h]) == 1.0               # walking away
    assert braking_factor((0.0, 2.5), (0.0, 1.4), [h]) == 1.0                # in its way already
    assert braking_factor((0.0, 0.0), (0.0, 1.4), [h], horizon=0.0) == 1.0
    assert braking_factor((0.0, 0.0), (0.0, 1.4), []) == 1.0
    moving.move(moving.position, 0.0)
    assert braking_factor((0.0, 0.0), (0.0, 1.4), [moving.hull(0.3)]) == 1.0  # it stands


def test_braking_refuses_bad_input() -> None:
    with pytest.raises(InvalidQueryError, match="horizon"):
        braking_factor((0, 0), (1, 0), [], horizon=-1.0)
    with pytest.raises(InvalidQueryError, match="velocity"):
        braking_factor((0, 0), (math.nan, 0), [])
    with pytest.raises(InvalidQueryError, match="brake_horizon"):
        street_crossing(brake_horizon=-0.5)


def ahead(run: CrossingRun) -> float:
    """The nearest a pedestrian came to standing in a carriage's lane ahead of its front
    (its boxes' extent across the lane grown by the radius), inf if never."""
    b = run.boxes.reshape(len(run.boxes), -1, len(CARRIAGE), 4, 2)
    lo, hi = b.min(axis=(2, 3)), b.max(axis=(2, 3))             # (steps, carriages, 2)
    sign = np.repeat([1.0, -1.0], b.shape[1] // 2)              # lane +x, then lane -x
    pos = run.positions[:, :, None, :]                           # (steps, agents, 1, 2)
    lane = (pos[..., 1] > lo[:, None, :, 1] - run.radius) \
        & (pos[..., 1] < hi[:, None, :, 1] + run.radius)
    gap = np.where(sign > 0, pos[..., 0] - hi[:, None, :, 0], lo[:, None, :, 0] - pos[..., 0])
    return float(np.where(lane & (gap > 0), gap, np.inf).min())


def test_pedestrians_brake_to_pass_behind_moving_carriages() -> None:
    rushing = street_crossing(seed=8, duration=20.0, brake_horizon=0.0)
    assert rushing.reached.all() and ahead(rushing) < 1.0      # it cut in front of one
    run = street_crossing(seed=8, duration=20.0)
    assert run.reached.all()
    assert ahead(run) > 2.0 + run.radius        # never within 2 s of a carriage's front
    for pos, boxes in zip(run.positions, run.boxes):
        assert (box_gap(pos, boxes) >= run.radius).all()


def test_crossing_gaps_are_the_signed_distances_to_the_boxes_less_the_radius() -> None:
    run = street_crossing(pedestrians=3, seed=4, duration=6.0)
    expected = np.stack([box_gap(p, b) for p, b in zip(run.positions, run.boxes)]) - run.radius
    np.testing.assert_allclose(run.gaps(), expected, rtol=0, atol=1e-12)
    assert run.gaps().shape == (len(run.positions), 3)


def test_crossing_summary_counts_arrivals_and_the_least_gap() -> None:
    boxes = Vehicle(CARRIAGE).boxes()            # the body spans [-1.5, 1.5] x [-0.8, 0.8]
    positions = np.array([[[-3.0, 0.0]], [[0.0, 2.0]], [[0.0, 0.0]]])
    run = CrossingRun(positions, np.repeat(boxes[None], 3, axis=0), np.array([[0.0, 0.0]]),
                      np.array([True]), 0.25, 0.5)
    np.testing.assert_allclose(run.gaps()[:, 0], [1.5 - 0.25, 1.2 - 0.25, -0.8 - 0.25])
    assert run.arrival_steps().tolist() == [2]
    assert run.summary() == {"pedestrians": 1, "carriages": 1, "arrived": 1,
                             "completion": 1.0, "t_mean": 1.0, "t_last": 1.0,
                             "least_gap": pytest.approx(-1.05), "steps": 2}
    run = CrossingRun(positions[:2], np.repeat(boxes[None], 2, axis=0),
                      np.array([[9.0, 9.0]]), np.array([False]), 0.25, 0.5)
    info = run.summary()
    assert info["least_gap"] == pytest.approx(1.2 - 0.25) and info["arrived"] == 0
    assert math.isnan(info["t_mean"]) and math.isnan(info["t_last"])
    assert info["completion"] == 0.0 and run.arrival_steps().tolist() == [-1]
    run = CrossingRun(positions[:2], np.repeat(boxes[None, :2], 2, axis=0),
                      np.array([[9.0, 9.0]]), np.array([False]), 0.25, 0.5)
    with pytest.raises(InvalidQueryError, match="2 boxes are not carriages of 3 parts"):
        run.summary()


@pytest.mark.parametrize("p, q, expected", [
    ((-3.0, 0.0), (3.0, 0.0), (1 / 3, 2 / 3, 3)),      # in by the left edge, out by the right
    ((0.0, 0.0), (0.0, 5.0), (0.0, 0.2, -1)),          # from inside: no entry edge
    ((-3.0, -3.0), (3.0, 3.0), (1 / 3, 2 / 3, 2)),     # in at a corner: the first edge there
    ((-3.0, 2.0), (3.0, 2.0), (1.0, 0.0, -1)),         # along the top edge, outside: empty
    ((3.0, 0.0), (5.0, 0.0), (0.0, -1.0, -1)),         # away from the square: empty
])
def test_a_segment_is_clipped_to_a_hull(p: tuple, q: tuple, expected: tuple) -> None:
    square = box_polygon((0.0, 0.0), (1.0, 1.0), 0.0)  # edges: top, right, bottom, left
    t0, t1, entry = _clip(np.array(p), np.array(q), square)
    assert (t0, t1, entry) == (pytest.approx(expected[0]), pytest.approx(expected[1]),
                               expected[2])
