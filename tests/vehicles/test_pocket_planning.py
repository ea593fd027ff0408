"""Planning next to a vehicle: paths across its pockets and the band round its hull, checked
against a visibility-graph oracle, wall hugging, and agents starting or ending in pockets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidGeometryError, InvalidQueryError
from wayfinding.vehicles.hull_steering import CARRIAGE, Vehicle, VehicleHull, avoid_hulls
from wayfinding.vehicles.hulls import point_in_polygon
from wayfinding.vehicles.pockets import hug_contour, pocket_path

shapely = pytest.importorskip("shapely")
nx = pytest.importorskip("networkx")

#: A base with four teeth on top: three deep pockets between the teeth, one at each end.
COMB = [(0.0, 0.0, 4.0, 0.5, 0.0)] + [(x, 1.3, 0.4, 1.0, 0.0) for x in (-3.5, -1.5, 0.5, 2.5)]


def enters(p: np.ndarray, q: np.ndarray, contour: np.ndarray) -> bool:
    """Whether the segment p→q meets the contour's interior (shapely's exact predicates)."""
    if np.array_equal(p, q):
        return bool(shapely.Polygon(contour).contains(shapely.Point(p)))
    line = shapely.LineString([p, q])
    return bool(line.relate_pattern(shapely.Polygon(contour), "T********"))


def oracle(p: np.ndarray, g: np.ndarray, contour: np.ndarray) -> float:
    """The length of the shortest path p→g keeping out of the contour: Dijkstra over the
    visibility graph of the two ends and the contour's corners."""
    nodes = [p, g, *contour]
    graph = nx.Graph()
    for i, a in enumerate(nodes):
        for j in range(i + 1, len(nodes)):
            if not enters(a, nodes[j], contour):
                graph.add_edge(i, j, weight=float(np.hypot(*(nodes[j] - a))))
    return float(nx.shortest_path_length(graph, 0, 1, weight="weight"))


def length(path: np.ndarray) -> float:
    return float(np.hypot(*np.diff(path, axis=0).T).sum())


def box_gap(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Distance of each point to the nearest box, negative inside one."""
    polys = shapely.polygons(boxes)[:, None]
    pts = shapely.points(points)[None]
    inside = shapely.contains(polys, pts)
    gap = np.where(inside, -shapely.distance(shapely.get_exterior_ring(polys), pts),
                   shapely.distance(polys, pts))
    return np.asarray(gap.min(axis=0))


def walk(p: np.ndarray, goal: np.ndarray, h: VehicleHull, pockets: str, boxes: np.ndarray,
         radius: float, *, step: float = 0.1, steps: int = 600) -> tuple[np.ndarray, bool]:
    """The agent's trail walking ``step`` at a time towards its waypoints, and whether it
    arrived; every leg to a waypoint is checked (sampled every 1/64) to keep ``radius`` from
    the boxes."""
    trail = [p]
    for _ in range(steps):
        wp = avoid_hulls(p, goal, [h], margin=0.0, pockets=pockets)
        leg = p + np.linspace(0.0, 1.0, 65)[:, None] * (wp - p)
        assert (box_gap(leg, boxes) >= radius - 1e-9).all()
        gap = wp - p
        d = float(np.hypot(*gap))
        p = p + gap * min(1.0, step / d) if d > 0 else p
        trail.append(p)
        if np.allclose(p, goal):
            return np.array(trail), True
    return np.array(trail), False


POSE = np.array([1.0, -2.0])


def carriage(radius: float, heading: float = 0.0) -> VehicleHull:
    return Vehicle(CARRIAGE, position=POSE, heading=heading).hull(radius)


def place(xy: tuple[float, float], heading: float = 0.0) -> np.ndarray:
    """The carriage's frame point ``xy`` in the world."""
    c, s = math.cos(heading), math.sin(heading)
    return np.array(xy) @ np.array([[c, s], [-s, c]]) + POSE


#: (start, goal) in the carriage's frame: between the horses (the deep pocket), beside the
#: body, ahead, behind, and in the small pockets where the horses meet the body (for agent
#: radii up to 0.05 m: wider agents close the gaps between the boxes).
SCENARIOS = {
    "pocket to outside": ((2.5, 0.0), (2.5, 4.0)),
    "outside to pocket": ((-4.0, 2.0), (2.4, 0.05)),
    "pocket to pocket": ((2.2, 0.0), (1.6, -0.83)),
    "within one pocket": ((2.0, 0.1), (2.8, -0.1)),
    "behind to pocket": ((-5.0, 0.0), (2.5, 0.0)),
    "across the vehicle": ((0.0, -3.0), (0.5, 3.0)),
}


@pytest.mark.parametrize("radius, heading", [(0.0, 0.0), (0.05, 0.7)])
@pytest.mark.parametrize("name", SCENARIOS)
def test_pocket_path_is_the_shortest_path_round_the_contour(name: str, radius: float,
                                                            heading: float) -> None:
    h = carriage(radius, heading)
    p, g = (place(xy, heading) for xy in SCENARIOS[name])
    assert not point_in_polygon(np.stack([p, g]), h.contour).any()
    path = pocket_path(p, g, h.contour, h.hull, h.pockets)
    assert path is not None
    assert path[0].tolist() == p.tolist() and path[-1].tolist() == g.tolist()
    for a, b in zip(path[:-1], path[1:]):
        assert not enters(a, b, h.contour)
    assert length(path) == pytest.approx(oracle(p, g, h.contour), rel=1e-9)


def test_pocket_path_goes_over_the_pockets_of_a_comb() -> None:
    h = Vehicle(COMB).hull(0.0)
    p, g = np.array([-6.0, 1.2]), np.array([3.5, 1.0])
    assert point_in_polygon(g, h.hull) and not point_in_polygon(g, h.contour)
    path = pocket_path(p, g, h.contour, h.hull, h.pockets)
    assert path is not None
    np.testing.assert_allclose(path, [p, (-3.9, 2.3), (2.9, 2.3), g])
    assert length(path) == pytest.approx(oracle(p, g, h.contour), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-2, 2), st.floats(-2, 2), st.floats(0.3, 2),
                          st.floats(0.2, 1), st.floats(0.0, math.pi)), min_size=2, max_size=3),
       st.tuples(st.floats(-4, 4), st.floats(-4, 4)),
       st.integers(0, 99), st.tuples(*[st.floats(0.05, 1.0)] * 3))
def test_pocket_paths_match_the_oracle_on_random_vehicles(parts: list, start: tuple, pick: int,
                                                          weights: tuple) -> None:
    try:
        h = Vehicle(parts).hull(0.2)
    except InvalidGeometryError as exc:
        assume("degenerately" not in str(exc))
        raise
    assume(len(h.pockets) > 0)
    p = np.array(start)
    w = np.array(weights) / sum(weights)
    g = w @ h.pockets[pick % len(h.pockets)]          # a point in one of the pockets
    assume(not point_in_polygon(np.stack([p, g]), h.contour).any())
    assume(box_gap(np.stack([p, g]), h.contour[None]).min() > 1e-6)
    path = pocket_path(p, g, h.contour, h.hull, h.pockets)
    if path is None:
        event("pockets not usable")
        return
    event("start in a pocket" if point_in_polygon(p, h.hull) else "start outside the hull")
    for a, b in zip(path[:-1], path[1:]):
        assert not enters(a, b, h.contour)
    assert length(path) == pytest.approx(oracle(p, g, h.contour), rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("pockets", ["plan", "hug"])
@pytest.mark.parametrize("name", ["pocket to outside", "outside to pocket", "pocket to pocket",
                                  "behind to pocket"])
def test_agents_in_pockets_arrive_without_entering_a_box(name: str, pockets: str) -> None:
    v = Vehicle(CARRIAGE, position=POSE, heading=0.7)
    h = v.hull(0.05)
    p, g = (place(xy, 0.7) for xy in SCENARIOS[name])
    trail, arrived = walk(p, g, h, pockets, v.boxes(), 0.05)
    assert arrived
    assert (box_gap(trail, v.boxes()) >= 0.05 - 1e-9).all()


def test_planning_walks_the_shortest_way_and_hugging_follows_the_contour() -> None:
    comb = Vehicle(COMB)
    h = comb.hull(0.0)
    p, g = np.array([-6.0, 1.2]), np.array([3.5, 1.0])
    assert avoid_hulls(p, g, [h], margin=0.0).tolist() == [-3.9, 2.3]
    assert avoid_hulls(p, g, [h], margin=0.0, pockets="hug").tolist() == [-4.0, -0.5]
    assert hug_contour(p, g, h.contour).tolist() == [-4.0, -0.5]
    planned, arrived = walk(p, g, h, "plan", comb.boxes(), 0.0)
    assert arrived
    assert length(planned) == pytest.approx(oracle(p, g, h.contour), rel=1e-9)
    hugged, arrived = walk(p, g, h, "hug", comb.boxes(), 0.0)
    assert arrived
    assert length(hugged) > length(planned) + 1.0


def test_unusable_pockets_fall_back_to_hugging() -> None:
    h = carriage(0.0)
    p, g = place((2.5, 0.0)), place((-5.0, 0.5))
    assert pocket_path(p, g, h.contour, h.hull, h.pockets) is not None
    torn = VehicleHull(h.contour, h.hull, h.pockets[1:], h.lo, h.hi, h.velocity)
    assert pocket_path(p, g, torn.contour, torn.hull, torn.pockets) is None
    np.testing.assert_array_equal(avoid_hulls(p, g, [torn], margin=0.0),
                                  hug_contour(p, g, h.contour))


def test_a_clear_way_comes_back_as_the_goal() -> None:
    h = carriage(0.0)
    p, g = place((2.5, 0.0)), place((4.0, 0.0))
    np.testing.assert_array_equal(pocket_path(p, g, h.contour, h.hull, h.pockets), [p, g])
    assert hug_contour(p, g, h.contour).tolist() == g.tolist()
    np.testing.assert_array_equal(pocket_path(p, p, h.contour, h.hull, h.pockets), [p])


def test_pocket_planning_refuses_bad_input() -> None:
    h = carriage(0.0)
    inside, out = place((0.0, 0.0)), place((0.0, 3.0))
    with pytest.raises(InvalidQueryError, match="start .* inside the contour"):
        pocket_path(inside, out, h.contour, h.hull, h.pockets)
    with pytest.raises(InvalidQueryError, match="goal .* inside the contour"):
        hug_contour(out, inside, h.contour)
    with pytest.raises(InvalidGeometryError, match="pockets"):
        pocket_path(out, out, h.contour, h.hull, h.pockets[:, :2])
    with pytest.raises(InvalidGeometryError, match="pockets"):
        pocket_path(out, out, h.contour, h.hull, np.full((1, 3, 2), np.nan))
    with pytest.raises(InvalidGeometryError, match="clockwise"):
        pocket_path(out, out, h.contour, h.hull[::-1], h.pockets)
    with pytest.raises(InvalidQueryError, match="start"):
        hug_contour((math.nan, 0.0), out, h.contour)
    with pytest.raises(InvalidQueryError, match="pockets"):
        avoid_hulls(out, inside, [h], pockets="wander")


@pytest.mark.parametrize("scale", [2.0**-20, 2.0**500, 2.0**1000])
@pytest.mark.parametrize("name", ["pocket to outside", "across the vehicle"])
def test_pocket_paths_scale_with_the_world(name: str, scale: float) -> None:
    # Scaled by a power of two the path is the unit one scaled (exactly): past 1e154 the
    # signed area, the distances to the contour and the ring's products overflowed (a
    # refused contour, a raw ValueError).
    h = carriage(0.0)
    p, g = (place(xy) for xy in SCENARIOS[name])
    unit = pocket_path(p, g, h.contour, h.hull, h.pockets)
    scaled = pocket_path(p * scale, g * scale, h.contour * scale, h.hull * scale,
                         h.pockets * scale)
    assert unit is not None and scaled is not None
    assert scaled.tolist() == (unit * scale).tolist()
