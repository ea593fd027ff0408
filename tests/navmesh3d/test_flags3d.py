"""Flags and areas set in place on a voxel navmesh: empty selections and bad ids."""

import numpy as np
import pytest

from wayfinding.errors import InvalidGeometryError
from wayfinding.navmesh3d import build, generate, with_flags


@pytest.mark.parametrize("polygons", [[], np.array([], np.int32), ()])
def test_no_polygons_change_nothing(polygons):
    m = with_flags(build(generate.floor(size=30), tile_size=16))
    before, revision = m.flags.copy() if hasattr(m, "flags") else None, m.revision[0]
    m.set_flags(polygons, 0)
    m.set_areas(polygons, 3)
    assert m.revision[0] == revision
    if before is not None:
        assert np.array_equal(m.flags, before)


@pytest.mark.parametrize("polygons", [[0.5], [[0]], [-1], [10**6], True])
def test_bad_polygon_ids_are_refused(polygons):
    m = with_flags(build(generate.floor(size=30), tile_size=16))
    with pytest.raises(InvalidGeometryError, match="must be polygon ids"):
        m.set_flags(polygons, 0)
