"""Routes over a voxel navmesh's constraint domain: bad polygons and ends are refused."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh3d import NavMesh3DQuery, build, generate
from wayfinding.navmesh3d.query import with_flags


@pytest.fixture(scope="module")
def domain():
    return NavMesh3DQuery(with_flags(build(generate.stairs()))).constraint_domain()


A, B = (4.0, 0.85, 1.5), (5.0, 0.85, 1.5)


def test_a_route_on_one_polygon_and_from_none(domain):
    assert domain.find_route(0, A, 0, B).found
    assert not domain.find_route(-1, A, 0, B).found


@pytest.mark.parametrize("args, match", [
    ((10**6, A, 0, B), "start_polygon"),
    ((0, A, 0.7, B), "goal_polygon"),
    (("a", A, 0, B), "start_polygon"),
    ((0, (np.nan, 0.85, 1.5), 0, B), "start"),
    ((0, (4.0, 1.5), 0, B), "start"),
    ((0, A, 0, "abc"), "goal"),
], ids=range(6))
def test_bad_polygons_and_ends_are_refused_by_name(domain, args, match):
    with pytest.raises(InvalidQueryError, match=match):
        domain.find_route(*args)
