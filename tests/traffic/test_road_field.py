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
    (lambda: RoadField(two_way(), car=[50, 0], heading=math.pi / 2, length=40.0, width=4.0,
                       cell=1.0, driver=DriverCosts()), "far end"),
    (lambda: RoadField(two_way(), car=[0, 0], heading=0.0, length=1e6, width=1e6, cell=1e-3,
                       driver=DriverCosts()), "cells"),
    (lambda: field_of(two_way(), DriverCosts()).value([[0, 1, 2]]), "points"),
])
def test_bad_inputs(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()
