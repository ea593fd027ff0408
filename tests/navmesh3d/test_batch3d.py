"""Batch queries on voxel navmeshes (nearest_many, raycast_many): each row the single
call's answer, on nav_test and generated levels; rows off the mesh give -1 and NaN."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh.records import QueryFilter
from wayfinding.navmesh3d import build, generate
from wayfinding.navmesh3d.query import NavMesh3DQuery, with_flags

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from recast_data import nav_test  # noqa: E402


def queries() -> list[tuple[str, NavMesh3DQuery]]:
    return [("building", NavMesh3DQuery(with_flags(build(generate.building(), tile_size=16)))),
            ("terrain", NavMesh3DQuery(with_flags(build(generate.terrain(size=32, seed=3)))))]


@pytest.fixture(scope="module", params=["nav_test", "building", "terrain"])
def query(request) -> NavMesh3DQuery:
    if request.param == "nav_test":
        return NavMesh3DQuery(with_flags(build(nav_test())))
    return dict(queries())[request.param]


def points(q: NavMesh3DQuery, n: int, seed: int) -> np.ndarray:
    """Points near the ground, some well off the mesh."""
    rng = np.random.default_rng(seed)
    verts, tris, _ = q.mesh.triangles()
    pick = rng.integers(len(tris), size=n)
    pts = verts[tris[pick]].astype(np.float64).mean(axis=1)
    pts += rng.normal(0, 1.0, pts.shape)
    pts[::7, 1] += 50           # far above anything
    return pts


@pytest.mark.parametrize("filtered", [False, True])
def test_nearest_many_is_nearest_row_by_row(query, filtered):
    f = QueryFilter(include=1, costs={0: math.inf} if filtered else {})
    pts = points(query, 200, 1)
    polys, got = query.nearest_many(pts, filter=f, half_extents=(1.5, 3, 1.5))
    assert polys.dtype == np.int32 and got.shape == (200, 3) and got.dtype == np.float64
    for i, p in enumerate(pts):
        poly, pt = query.nearest(tuple(p), filter=f, half_extents=(1.5, 3, 1.5))
        assert polys[i] == poly
        if poly < 0:
            assert np.isnan(got[i]).all()
        else:
            assert tuple(got[i]) == pt
    assert (polys < 0).any() and (filtered or (polys >= 0).any())


def test_raycast_many_is_raycast_row_by_row(query):
    rng = np.random.default_rng(2)
    starts = points(query, 200, 3)
    ends = starts + rng.uniform(-6, 6, starts.shape) * [1, 0, 1]
    hits = query.raycast_many(starts, ends)
    assert len(hits) == 200 and hits.t.dtype == np.float64
    for i, (s, e) in enumerate(zip(starts, ends)):
        try:
            one = query.raycast(tuple(s), tuple(e))
        except InvalidQueryError:
            assert hits.start_polygons[i] == -1 and math.isnan(hits.t[i])
            assert np.isnan(hits.points[i]).all() and hits[i] is None
            assert hits.polygon_ptr[i] == hits.polygon_ptr[i + 1]
            continue
        got = hits[i]
        assert got is not None
        assert got.t == one.t and got.point == pytest.approx(one.point, abs=0, rel=0)
        assert got.normal == one.normal
        assert np.array_equal(got.polygons, one.polygons)
        assert hits.start_polygons[i] == query.nearest(tuple(s))[0]
        assert hits.hit[i] == one.hit
    assert (hits.start_polygons < 0).any() and hits.hit.any() and (~hits.hit).any()


def test_empty_batches(query):
    polys, pts = query.nearest_many(np.zeros((0, 3)))
    assert polys.shape == (0,) and pts.shape == (0, 3)
    hits = query.raycast_many(np.zeros((0, 3)), np.zeros((0, 3)))
    assert len(hits) == 0 and hits.polygon_ptr.tolist() == [0]


def test_bad_batches_raise(query):
    with pytest.raises(InvalidQueryError):
        query.nearest_many(np.zeros((3, 2)))
    with pytest.raises(InvalidQueryError):
        query.nearest_many([[0, float("nan"), 0]])
    with pytest.raises(InvalidQueryError):
        query.nearest_many(np.zeros((3, 3)), half_extents=(-1, 1, 1))
    with pytest.raises(InvalidQueryError):
        query.raycast_many(np.zeros((3, 3)), np.zeros((2, 3)))
    with pytest.raises(InvalidQueryError):
        query.raycast_many(np.zeros((3, 3)), np.zeros((3, 3)), filter="walk")
