"""Off-mesh links on 2D navmeshes as given: numpy numbers normalised (so a mesh saves
and loads them), and bad fields refused when the mesh is built."""

import numpy as np
import pytest
from shapely.geometry import MultiPolygon, box

from wayfinding.errors import InvalidGeometryError
from wayfinding.navmesh import NavMesh, OffMeshLink

AREA = MultiPolygon([box(0, 0, 10, 10), box(20, 0, 30, 10)])


@pytest.mark.parametrize("field", [dict(cost=np.int64(2)), dict(cost=np.float32(2.5)),
                                   dict(radius=np.float32(1.0)), dict(user_id=np.int64(7))])
def test_numpy_fields_are_normalised_and_saved(field, tmp_path):
    mesh = NavMesh.build(AREA, links=[OffMeshLink((9.5, 8), (20.5, 8), **field)])
    link = mesh.links[0]
    (name, value), = field.items()
    assert getattr(link, name) == value and type(getattr(link, name)) in (int, float)
    mesh.save(tmp_path / "m.npz")
    assert NavMesh.load(tmp_path / "m.npz").links == mesh.links


@pytest.mark.parametrize("field, reason", [
    (dict(user_id="x"), "user_id 'x' must be an integer"),
    (dict(kind=3), "kind 3 must be a str"),
    (dict(cost=-1.0), "cost"),
    (dict(bidirectional="yes"), "True or False"),
])
def test_bad_fields_are_refused_at_build(field, reason):
    with pytest.raises(InvalidGeometryError, match=reason):
        NavMesh.build(AREA, links=[OffMeshLink((9.5, 8), (20.5, 8), **field)])


def test_bad_ends_are_refused_at_build():
    with pytest.raises(InvalidGeometryError, match=r"links\[0\].end .* \(x, y\) point"):
        NavMesh.build(AREA, links=[OffMeshLink((9.5, 8), (20.5, 8, 0))])
