"""The road's static potential: fast-marching times over the search rectangle, walls off the
road, lanes weighed by the driver (oncoming as the car sees it), descent to the goal row."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.traffic.road_field import RoadField
from wayfinding.traffic.roads import LaneSpec, LaneType, RoadNetwork
from wayfinding.traffic.routes import DriverCosts


def two_way(shoulder=False):
    net = RoadNetwork()
    lanes = [LaneSpec(offset=-1.75), LaneSpec(offset=1.75, forward=False)]
    if shoulder:
        lanes.append(LaneSpec(offset=-5.25, type=LaneType.SHOULDER))
    net.add_road([[0, 0], [200, 0]], lanes)
    return net


def field_of(net, driver, heading=0.0, car=(20.0, -1.75)):
    return RoadField(net, car=car, heading=heading, length=60.0, width=16.0, cell=0.5,
                     driver=driver)


def test_the_car_sits_a_quarter_along_and_centred():
    field = field_of(two_way(), DriverCosts())
    np.testing.assert_allclose(field.origin, [5.0, -1.75])
    assert field.values.shape == (32, 120)


def test_every_free_cell_descends_to_the_goal_row():
    field = field_of(two_way(shoulder=True), DriverCosts(lane_type=((LaneType.SHOULDER, 3.0),),
                                                        oncoming=2.0))
    v = field.values
    free = np.isfinite(v)
    assert free[:, -1].any() and (v[:, -1][free[:, -1]] == 0).all()
    pad = np.pad(v, 1, constant_values=np.inf)
    rows, cols = v.shape
    best = np.min([pad[1 + dy:1 + dy + rows, 1 + dx:1 + dx + cols]
                   for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx], axis=0)
    inner = free.copy()
    inner[:, -1] = False
    assert (best[inner] < v[inner]).all()


def test_lanes_the_driver_avoids_cost_more_and_forbidden_ones_are_walls():
    net = two_way(shoulder=True)
    field = field_of(net, DriverCosts(lane_type=((LaneType.SHOULDER, 3.0),), oncoming=2.0))
    at = np.array([[30.0, -1.75], [30.0, 1.75], [30.0, -5.25]])   # with, against, shoulder
    own, oncoming, shoulder = field.value(at)
    assert own < oncoming < shoulder
    # Any cell may cross to a better lane on its way: a shoulder cell is dearer than a
    # driving one only by its way across.
    assert shoulder - own < 3.0 * 3.5 + 1.0
    plain = field_of(net, DriverCosts())
    assert plain.value(at[[2]])[0] == pytest.approx(plain.value(at[[0]])[0], abs=0.01)
    lawful = field_of(net, DriverCosts(oncoming=math.inf,
                                       lane_type=((LaneType.SHOULDER, math.inf),)))
    assert lawful.on_road(at).tolist() == [True, False, False]
    assert not plain.on_road([[30.0, 9.0]])[0]                       # off every lane


def test_oncoming_is_as_the_car_sees_it():
    net = two_way()
    lawful = DriverCosts(oncoming=math.inf)
    east = field_of(net, lawful)
    west = field_of(net, lawful, heading=math.pi, car=(60.0, 1.75))
    probe = [[40.0, -1.75], [40.0, 1.75]]
    assert east.on_road(probe).tolist() == [True, False]
    assert west.on_road(probe).tolist() == [False, True]


def test_gradient_points_uphill():
    field = field_of(two_way(), DriverCosts())
    g = field.gradient([[30.0, -1.75]])[0]
    assert g[0] == pytest.approx(-1.0, abs=0.05) and abs(g[1]) < 0.05
    a, b = field.value([[30.0, -1.75], [30.5, -1.75]])
    assert b - a == pytest.approx(-0.5, abs=1e-6)


@pytest.mark.parametrize("call, message", [
    (lambda: RoadField(None, car=[0, 0], heading=0.0, length=10.0, width=4.0, cell=1.0,
                       driver=DriverCosts()), "RoadNetwork"),
    (lambda: RoadField(two_way(), car=[0, 0], heading=0.0, length=10.0, width=4.0, cell=1.0,
                       driver=None), "DriverCosts"),
    (lambda: RoadField(two_way(), car=[0, math.nan], heading=0.0, length=10.0, width=4.0,
                       cell=1.0, driver=DriverCosts()), "car"),
    (lambda: RoadField(two_way(), car=[0, 0], heading=0.0, length=0.0, width=4.0, cell=1.0,
                       driver=DriverCosts()), "length 0"),
    (lambda: RoadField(two_way(), car=[0, 0], heading=0.0, length=10.0, width=4.0, cell=-1,
                       driver=DriverCosts()), "cell -1"),
    (lambda: RoadField(two_way(), car=[50, 5], heading=math.pi / 2, length=40.0, width=4.0,
                       cell=1.0, driver=DriverCosts()), "no drivable cell ahead"),
    (lambda: RoadField(two_way(), car=[0, 0], heading=0.0, length=1e6, width=1e6, cell=1e-3,
                       driver=DriverCosts()), "cells"),
    (lambda: field_of(two_way(), DriverCosts()).value([[0, 1, 2]]), "points"),
])
def test_bad_inputs(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()


def test_a_road_ending_inside_the_rectangle_is_driven_to_its_end():
    net = RoadNetwork()
    net.add_road([[0, 0], [100, 0]], [LaneSpec(offset=0.0)])
    # The rectangle reaches 35 past the road's end: its farthest drivable cells are the
    # goal, and the potential is the distance still to drive to them.
    field = RoadField(net, car=[80.0, 0.0], heading=0.0, length=60.0, width=8.0, cell=0.5,
                      driver=DriverCosts())
    free = np.flatnonzero(np.isfinite(field.values).any(axis=0))
    end = int(free.max())
    assert (field.values[:, end][np.isfinite(field.values[:, end])] == 0).all()
    assert field.origin[0] + (end + 1) * 0.5 > 100.0 and not field.on_road([[103.0, 0]])[0]
    a, b = field.value([[85.0, 0.0], [95.0, 0.0]])
    assert a - b == pytest.approx(10.0, abs=1e-6)


def highway_and_street():
    net = RoadNetwork()
    net.add_road([[0, 0], [200, 0]], [LaneSpec(offset=0.0)], kind="highway")
    net.add_road([[0, 20], [200, 20]], [LaneSpec(offset=0.0)])
    return net


def on(net, driver, y):
    return RoadField(net, car=[20.0, y], heading=0.0, length=60.0, width=8.0, cell=0.5,
                     driver=driver)


def test_the_field_reads_the_road_kind_and_the_avoided_roads():
    net = highway_and_street()
    probe = [[30.0, 0.0], [50.0, 0.0]]
    plain = np.diff(on(net, DriverCosts(), 0.0).value(probe))[0]
    slow = np.diff(on(net, DriverCosts(road_kind=(("highway", 3.0),)), 0.0).value(probe))[0]
    assert plain == pytest.approx(-20.0, abs=1e-6) and slow == pytest.approx(-60.0, abs=1e-6)
    # The street (road 1) keeps factor 1 for a driver who slows on highways.
    street = on(net, DriverCosts(road_kind=(("highway", 3.0),)), 20.0)
    assert np.diff(street.value([[30.0, 20.0], [50.0, 20.0]]))[0] == pytest.approx(-20.0,
                                                                                 abs=1e-6)
    # An avoided road is a wall: the street stays drivable, the highway is off the road.
    avoid = on(net, DriverCosts(avoid_roads=frozenset({0})), 20.0)
    assert avoid.on_road([[30.0, 20.0], [30.0, 0.0]]).tolist() == [True, False]
    with pytest.raises(InvalidQueryError, match="no drivable cell ahead"):
        on(net, DriverCosts(avoid_roads=frozenset({0})), 0.0)


def test_oncoming_multiplies_the_road_kind():
    net = RoadNetwork()
    net.add_road([[0, 0], [200, 0]], [LaneSpec(offset=0.0, forward=False)], kind="highway")
    driver = DriverCosts(oncoming=2.0, road_kind=(("highway", 1.5),))
    field = on(net, driver, 0.0)
    probe = [[30.0, 0.0], [50.0, 0.0]]
    assert np.diff(field.value(probe))[0] == pytest.approx(-20.0 * 3.0, abs=1e-6)
    assert driver.factor(LaneType.DRIVING, "highway", 0, oncoming=True) == 3.0
    assert driver.factor(LaneType.SHOULDER, "highway", 0, oncoming=True) == 1.5


@pytest.mark.parametrize("option, size", [("length", {"length": 1.4}),
                                          ("width", {"width": 0.5})])
def test_a_rectangle_needs_two_cells_each_way(option, size):
    shape = {"length": 10.0, "width": 4.0, **size}
    with pytest.raises(InvalidQueryError, match=f"{option} {size[option]:g} .*two cells"):
        RoadField(two_way(), car=[5, 0], heading=0.0, cell=1.0, driver=DriverCosts(), **shape)


@pytest.mark.parametrize("car, heading", [((230.0, -1.75), 0.0),    # past the road's end
                                          ((205.0, -1.75), 0.0),    # the road ends behind
                                          ((50.0, 20.0), 0.0)])     # off every road
def test_no_drivable_cell_ahead_is_refused(car, heading):
    with pytest.raises(InvalidQueryError, match=r"no drivable cell ahead of the car"):
        RoadField(two_way(), car=car, heading=heading, length=40.0, width=4.0, cell=1.0,
                  driver=DriverCosts())
