"""A saved navigation mesh is untrusted input: crafted files raise NavMeshFormatError naming
the file and the fault."""

from __future__ import annotations

import numpy as np
import pytest
from index_files import read_members, write_index, zip_bomb

from wayfinding import Grid
from wayfinding.errors import NavMeshFormatError
from wayfinding.navmesh import NavMesh


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    mesh = NavMesh.build(Grid.from_ascii("""
        ..........
        ..####....
        ..........
        ....##...."""))
    path = tmp_path_factory.mktemp("mesh") / "mesh.npz"
    mesh.save(path)
    return mesh, path


def _hole_in_polygon(header, arrays):
    arrays["polygons"][0, 1] = -1
    return "polygons"


def _link_to_nowhere(header, arrays):
    arrays["link_points"] = np.zeros((1, 4))
    arrays["link_polygons"] = np.array([[0, 10**6]], dtype=np.int32)
    header["links"] = [{"bidirectional": True, "cost": 1.0, "area": 0, "flags": 1,
                        "kind": "jump", "user_id": 0}]
    return "link_polygons"


def _float_polygons(header, arrays):
    arrays["polygons"] = arrays["polygons"].astype(np.float64)
    return "polygons"


def _wide_area(header, arrays):
    arrays["areas"] = arrays["areas"].astype(np.int64) + 300
    return "areas"


def _nan_vertex(header, arrays):
    arrays["vertices"][0, 0] = np.nan
    return "vertices"


def _version(header, arrays):
    header["version"] = True
    return "version"


def _unknown(header, arrays):
    arrays["extra"] = np.zeros(2)
    return "extra"


CASES = {"vertex -1 inside a polygon": _hole_in_polygon, "link to nowhere": _link_to_nowhere,
         "float polygons": _float_polygons, "area above 255": _wide_area,
         "NaN vertex": _nan_vertex, "version True": _version, "unknown member": _unknown}


@pytest.mark.parametrize("case", CASES)
def test_crafted_mesh_file_is_refused(saved, tmp_path, case):
    header, arrays = read_members(saved[1])
    arrays = {k: v.copy() for k, v in arrays.items()}
    name = CASES[case](header, arrays)
    path = write_index(tmp_path / "bad.npz", header, arrays)
    with pytest.raises(NavMeshFormatError) as err:
        NavMesh.load(path)
    assert str(path) in str(err.value) and name in str(err.value)


def test_zip_bomb_mesh_is_refused(saved, tmp_path):
    header, arrays = read_members(saved[1])
    del arrays["vertices"]
    path = write_index(tmp_path / "bomb.npz", header, arrays, [zip_bomb("vertices")])
    with pytest.raises(NavMeshFormatError, match="vertices"):
        NavMesh.load(path)


def test_saved_mesh_loads_and_answers(saved):
    mesh, path = saved
    back = NavMesh.load(path)
    a, b = mesh.find_path((0.5, 0.5), (9.5, 3.5)), back.find_path((0.5, 0.5), (9.5, 3.5))
    assert a.cost == b.cost and np.array_equal(a.path, b.path)
