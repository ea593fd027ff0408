"""The generated level of two storeys: closed boxes facing out, its storeys joined as
described (stairs, bridge, a gap only a link crosses, ground running on underneath)."""

import numpy as np
import pytest

from wayfinding.errors import InvalidGeometryError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh3d import NavMesh3DQuery, build, generate, with_flags


@pytest.fixture(scope="module")
def query():
    return NavMesh3DQuery(with_flags(build(generate.multi_storey())))


def test_boxes_are_closed_and_face_out():
    level = generate.multi_storey()
    v, t = level.vertices.astype(np.float64), level.triangles
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    points = [tuple(p) for p in v.tolist()]
    keys = {(points[i], points[j]) for tri in t.tolist()
            for i, j in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0]))}
    assert all((q, p) in keys for p, q in keys)
    assert np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6 > 0


@pytest.mark.parametrize("start, goal, top", [
    ((1.0, 0.0, 8.0), (8.0, 3.0, 12.0), 3.2),        # up the stairs to A
    ((8.0, 3.0, 12.0), (19.0, 3.0, 12.0), 3.2),      # over the bridge to B
    ((1.0, 0.0, 12.0), (30.0, 0.0, 12.0), 0.5),      # on under the platforms
])
def test_the_storeys_are_joined(query, start, goal, top):
    r = query.find_path(start, goal)
    assert r.found and r.path[:, 1].max() < top
    if goal[1] > 1:
        assert r.path[-1, 1] > 2.8


def test_the_bridge_is_the_way_across(query):
    r = query.find_path((8.0, 3.0, 2.0), (19.0, 3.0, 2.0))
    over = r.path[(r.path[:, 0] > 11.0) & (r.path[:, 0] < 17.0)]
    assert r.found and len(over) and ((over[:, 2] > 6.0) & (over[:, 2] < 10.0)).all()


def test_only_a_link_crosses_the_gap(query):
    assert not query.find_path((19.0, 3.0, 8.0), (27.0, 3.0, 8.0)).found
    a, b = generate.GAP_EDGES
    mesh = query.mesh.with_links([OffMeshLink((a - 0.9, 3.0, 12.0), (b + 0.9, 3.0, 12.0),
                                              kind="jump")])
    r = NavMesh3DQuery(mesh).find_path((19.0, 3.0, 8.0), (27.0, 3.0, 8.0))
    assert r.found and r.links.tolist() == [0]


@pytest.mark.parametrize("options, match", [
    (dict(height=2.0), "height"), (dict(width=6.0), "width"), (dict(height=-1), "height"),
    (dict(height=4.25), "at most 4")])
def test_bad_sizes(options, match):
    with pytest.raises((InvalidGeometryError, ValueError), match=match):
        generate.multi_storey(**options)


@pytest.mark.parametrize("height", [2.8, 4.0])
def test_the_stairs_climb_to_any_height_allowed(height):
    level = generate.multi_storey(height=height)
    q = NavMesh3DQuery(with_flags(build(level)))
    r = q.find_path((-2.0, 0.0, 3.0), (8.0, height, 12.0))
    assert r.found and r.path[-1][1] == pytest.approx(height, abs=0.2)
