"""The polygons round a point on voxel navmeshes: polygons_around_circle and
polygons_around_shape (Dijkstra through the portals that meet the circle or shape) and
local_neighbourhood (nearby polygons that do not overlap in xz): their properties on
generated levels, and, slow, the circle search polygon for polygon and cost for cost
against Detour's findPolysAroundCircle on nav_test."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh.records import QueryFilter
from wayfinding.navmesh3d import BuildSettings, build, generate
from wayfinding.navmesh3d.query import NavMesh3DQuery, with_flags

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from recast_data import detour, nav_test  # noqa: E402


def on_mesh(q: NavMesh3DQuery, n: int, seed: int) -> np.ndarray:
    verts, tris, _ = q.mesh.triangles()
    rng = np.random.default_rng(seed)
    return verts[tris[rng.integers(len(tris), size=n)]].astype(np.float64).mean(axis=1)


@pytest.fixture(scope="module", params=[("building", 0), ("building", 16), ("terrain", 16)],
                ids=str)
def query(request) -> NavMesh3DQuery:
    name, tile_size = request.param
    level = {"building": generate.building,
             "terrain": lambda: generate.terrain(size=32, seed=3)}[name]()
    return NavMesh3DQuery(with_flags(build(level, tile_size=tile_size)))


def outlines(q: NavMesh3DQuery) -> list[np.ndarray]:
    return q.mesh.polygons()


def test_circle_searches_are_dijkstra_orders(query):
    ptr, to, _, _ = query._data.links()
    for i, c in enumerate(on_mesh(query, 30, 1)):
        got = query.polygons_around_circle(tuple(c), 1.0 + i % 7)
        polys, parents, costs = got.polygons.tolist(), got.parents.tolist(), got.costs
        assert polys[0] == query.nearest(tuple(c))[0] and parents[0] == -1 and costs[0] == 0
        assert len(set(polys)) == len(polys)
        assert np.all(np.diff(costs) >= 0)
        for p, parent in zip(polys[1:], parents[1:]):
            assert parent in polys[:polys.index(p)]
            assert p in to[ptr[parent]:ptr[parent + 1]].tolist()


def test_a_shape_round_the_circle_finds_more_and_less_than_the_wider_circle(query):
    for i, c in enumerate(on_mesh(query, 20, 2)):
        r = 1.0 + i % 5
        square = np.array([(c[0] - r, c[1], c[2] - r), (c[0] + r, c[1], c[2] - r),
                           (c[0] + r, c[1], c[2] + r), (c[0] - r, c[1], c[2] + r)])
        circle = set(query.polygons_around_circle(tuple(c), r).polygons.tolist())
        shape = query.polygons_around_shape(tuple(c), square)
        wide = set(query.polygons_around_circle(tuple(c), r * math.sqrt(2) + 1e-3)
                   .polygons.tolist())
        assert circle <= set(shape.polygons.tolist()) <= wide
        assert np.all(np.diff(shape.costs) >= 0) and shape.parents[0] == -1


def _overlap(a: np.ndarray, b: np.ndarray, eps: float = 1e-4) -> bool:
    """Separating-axis test of two convex outlines in xz (an axis separating them by more
    than ``eps`` says no)."""
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        for nx, nz in zip(edges[:, 2], -edges[:, 0]):
            pa, pb = a[:, 0] * nx + a[:, 2] * nz, b[:, 0] * nx + b[:, 2] * nz
            if pa.min() + eps > pb.max() or pa.max() - eps < pb.min():
                return False
    return True


def test_a_local_neighbourhood_holds_no_overlapping_polygons(query):
    ptr, to, _, _ = query._data.links()
    shapes = outlines(query)
    for i, c in enumerate(on_mesh(query, 25, 3)):
        got = query.local_neighbourhood(tuple(c), 1.0 + i % 6)
        polys, parents = got.polygons.tolist(), got.parents.tolist()
        assert got.costs is None and polys[0] == query.nearest(tuple(c))[0]
        assert len(set(polys)) == len(polys) and len(polys) <= 64
        for j, (p, parent) in enumerate(zip(polys, parents)):
            if j == 0:
                continue
            assert parent in polys[:j]
            near = set(to[ptr[parent]:ptr[parent + 1]].tolist())
            for k in polys[:j]:
                assert k in near or not _overlap(shapes[p], shapes[k]), (c, p, k)


def test_the_storey_above_is_left_out_of_the_neighbourhood():
    q = NavMesh3DQuery(with_flags(build(generate.building(storeys=2))))
    _, centre = q.nearest((6.0, 0.0, 6.0))
    around = q.polygons_around_circle(centre, 30.0).polygons.tolist()
    local = q.local_neighbourhood(centre, 30.0).polygons.tolist()
    heights = [float(np.mean(p[:, 1])) for p in outlines(q)]
    upper = {p for p in around if heights[p] > 2.0}
    assert upper                                # the stairs lead the circle search up
    assert set(local) < set(around) and upper - set(local)


def test_links_in_circle_searches():
    q0 = NavMesh3DQuery(with_flags(build(generate.floor(size=6))))
    mesh = q0.mesh.with_links([OffMeshLink((1.0, 0.0, 1.0), (1.0, 0.0, 2.0),
                                           bidirectional=True)])
    q = NavMesh3DQuery(mesh)
    got = q.polygons_around_circle((1.0, 0.0, 1.5), 3.0)
    assert mesh.num_polygons in got.polygons.tolist()
    assert all(p < mesh.num_polygons for p in q.local_neighbourhood((1.0, 0.0, 1.5), 3.0)
               .polygons.tolist())


def test_filters_and_costs():
    q = NavMesh3DQuery(with_flags(build(generate.building(), tile_size=16)))
    c = tuple(on_mesh(q, 1, 4)[0])
    full = q.polygons_around_circle(c, 6.0)
    dear = q.polygons_around_circle(c, 6.0, filter=QueryFilter(costs={63: 2.0}))
    assert set(full.polygons.tolist()) == set(dear.polygons.tolist())
    assert np.allclose(np.sort(dear.costs), np.sort(full.costs) * 2, rtol=1e-5)
    with pytest.raises(InvalidQueryError, match="off the mesh"):
        q.polygons_around_circle(c, 6.0, filter=QueryFilter(include=2))


@pytest.mark.parametrize(("call", "match"), [
    (lambda q: q.polygons_around_circle((1, 0, 1), -1.0), "radius"),
    (lambda q: q.polygons_around_circle((1e4, 0, 1e4), 1.0), "off the mesh"),
    (lambda q: q.local_neighbourhood((1, 0, 1), float("nan")), "radius"),
    (lambda q: q.polygons_around_shape((1, 0, 1), [(0, 0, 0), (1, 0, 0)]), "convex polygon"),
    (lambda q: q.polygons_around_shape((1, 0, 1), [(0, 0, 0), (2, 0, 0), (1, 0, 0.2),
                                                   (1, 0, 2)]), "convex polygon"),
    (lambda q: q.polygons_around_shape((1, 0, 1), [(0, 0, 0), (1, 0, 0), (2, 0, 0)]),
     "convex polygon"),
    (lambda q: q.polygons_around_shape((1, 0, 1), [(0, 0), (1, 0), (1, 1)]), "shape"),
])
def test_bad_queries_raise(call, match):
    q = NavMesh3DQuery(with_flags(build(generate.floor(size=6))))
    with pytest.raises(InvalidQueryError, match=match):
        call(q)


@pytest.mark.slow
@pytest.mark.parametrize("tile_size", [0, 40])
def test_circle_searches_are_detour_s(tile_size):
    level, settings = nav_test(), BuildSettings()
    mesh = with_flags(build(level, tile_size=tile_size))
    q = NavMesh3DQuery(mesh)
    rng = np.random.default_rng(1)
    pts = on_mesh(q, 120, 5).astype(np.float32)
    circles = [[*map(float, p), float(r)] for p, r in zip(pts, rng.uniform(0.5, 15, 120))]
    got = detour(level, settings, tile_size=tile_size, circles=circles)["circles"]
    base, first = {}, 0
    for t in mesh.tiles:
        base[t.x, t.z] = first
        first += t.polymesh.num_polys

    def ours(ref: list[int] | int) -> int:
        return -1 if ref == -1 else base[ref[0], ref[1]] + ref[2]  # type: ignore[index]

    for c, want in zip(circles, got):
        r = q.polygons_around_circle(tuple(c[:3]), c[3])
        assert r.polygons.tolist() == [ours(x) for x in want["polys"]], c
        assert r.parents.tolist() == [ours(x) for x in want["parents"]], c
        assert np.array_equal(r.costs, np.float32(want["costs"])), c
