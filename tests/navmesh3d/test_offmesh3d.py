"""Off-mesh links on voxel navmeshes: a gap only a link crosses, one-way and both ways,
links between tiles far apart, filters and costs on links, saved and loaded with the mesh,
links whose ends find no polygon, and bad links; and, slow, paths through links on nav_test
against Detour's off-mesh connections."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wayfinding.errors import InvalidGeometryError, NavMeshFormatError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh.records import QueryFilter
from wayfinding.navmesh3d import BuildSettings, Level, NavMesh3D, build, generate
from wayfinding.navmesh3d.query import END, OFFMESH, START, NavMesh3DQuery, with_flags
from wayfinding.results import Status

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from recast_data import detour, nav_test  # noqa: E402


def slabs(*boxes: tuple[tuple[float, float, float], tuple[float, float, float]]) -> Level:
    """Flat slabs: the top of each box ((x0, y0, z0), (x1, y1, z1)) as two triangles."""
    verts, tris = [], []
    for (x0, _, z0), (x1, y1, z1) in boxes:
        b = len(verts)
        verts += [(x0, y1, z0), (x1, y1, z0), (x1, y1, z1), (x0, y1, z1)]
        tris += [(b, b + 2, b + 1), (b, b + 3, b + 2)]
    return Level(np.array(verts, float), np.array(tris))


#: Two slabs 3 apart in x, the second 1 lower: no walk joins them; a third further on.
GAP = slabs(((0, -0.5, 0), (6, 0, 6)), ((9, -1.5, 0), (15, -1, 6)),
            ((20, -1.5, 0), (24, -1, 6)))
A, B = (1.0, 0.0, 3.0), (14.0, -1.0, 3.0)
DROP = OffMeshLink((5.5, 0.0, 3.0), (9.5, -1.0, 3.0))


@pytest.fixture(scope="module", params=[0, 8], ids=["whole", "tiled"])
def gap(request) -> NavMesh3D:
    return with_flags(build(GAP, tile_size=request.param))


def test_without_a_link_the_gap_is_not_crossed(gap):
    assert NavMesh3DQuery(gap).find_path(A, B).status is Status.FAILED


def test_a_link_crosses_the_gap(gap):
    mesh = gap.with_links([DROP])
    assert mesh.tiles is gap.tiles and len(mesh.links) == 1
    q = NavMesh3DQuery(mesh)
    r = q.find_path(A, B)
    assert r.status is Status.FOUND
    p = mesh.num_polygons
    assert r.links.tolist() == [0]
    assert (r.corridor >= p).sum() == 1 and p in r.corridor.tolist()
    # the corner where the link starts is flagged and leads into the link's node; the next
    # is the link's end, on the lower slab
    k = int(np.flatnonzero(r.flags & OFFMESH)[0])
    assert r.flags[0] == START and r.flags[-1] == END
    assert r.corner_polygons[k] == p
    assert abs(r.path[k, 0] - 5.5) < 0.61 and abs(r.path[k, 2] - 3) < 0.61
    assert r.path[k, 1] > -0.5
    assert abs(r.path[k + 1, 0] - 9.5) < 0.61 and r.path[k + 1, 1] < -0.5
    assert r.corner_polygons[k + 1] < p
    assert r.cost == pytest.approx(np.linalg.norm(np.diff(r.path, axis=0), axis=1).sum())
    assert q.unconnected_links.tolist() == []


def test_one_way_and_both_ways(gap):
    one = NavMesh3DQuery(gap.with_links([DROP]))
    assert one.find_path(B, A).status is Status.FAILED
    both = NavMesh3DQuery(gap.with_links([OffMeshLink(DROP.start, DROP.end,
                                                      bidirectional=True)]))
    back = both.find_path(B, A)
    assert back.status is Status.FOUND and back.links.tolist() == [0]
    k = int(np.flatnonzero(back.flags & OFFMESH)[0])
    assert back.path[k, 1] < -0.5 and back.path[k + 1, 1] > -0.5   # from the link's end


def test_a_partial_path_may_end_on_a_link(gap):
    # from the second slab the first is out of reach; a link on to the third starts at
    # the second's west edge, the node nearest the goal: the corridor ends on the link
    # (as Detour's), the path on its segment
    on = OffMeshLink((9.5, -1.0, 3.0), (21.0, -1.0, 3.0))
    q = NavMesh3DQuery(gap.with_links([on]))
    r = q.find_path(B, A, partial=True)
    assert r.status is Status.PARTIAL
    assert r.corridor.tolist()[-1] == gap.num_polygons and r.links.tolist() == [0]
    assert r.flags[-1] == END and r.path[-1, 0] < 10.5


def test_links_between_tiles_far_apart():
    level = slabs(((0, -0.5, 0), (4, 0, 4)), ((20, -0.5, 20), (24, 0, 24)))
    mesh = with_flags(build(level, tile_size=4))
    assert mesh.num_tiles > 4
    link = OffMeshLink((3.0, 0.0, 3.0), (21.0, 0.0, 21.0), bidirectional=True)
    q = NavMesh3DQuery(mesh.with_links([link]))
    for s, g in (((1, 0, 1), (23, 0, 23)), ((23, 0, 23), (1, 0, 1))):
        r = q.find_path(s, g)
        assert r.status is Status.FOUND and r.links.tolist() == [0]


def test_filters_close_links_by_their_flags_and_areas(gap):
    q = NavMesh3DQuery(gap.with_links([OffMeshLink(DROP.start, DROP.end, flags=2, area=5)]))
    assert q.find_path(A, B, filter=QueryFilter(include=3)).status is Status.FOUND
    assert q.find_path(A, B, filter=QueryFilter(include=1)).status is Status.FAILED
    assert q.find_path(A, B, filter=QueryFilter(include=3, exclude=2)).status is Status.FAILED
    closed = QueryFilter(include=3, costs={5: float("inf")})
    assert q.find_path(A, B, filter=closed).status is Status.FAILED


def test_the_link_cost_decides_between_a_link_and_a_walk():
    # a U: the walk round it (about 19) or a link across its gap (4)
    mesh = with_flags(build(slabs(((0, -0.5, 0), (6, 0, 6)), ((9, -0.5, 0), (15, 0, 6)),
                                  ((0, -0.5, 6), (15, 0, 10)))))
    s, g = (1.0, 0.0, 1.0), (14.0, 0.0, 1.0)
    walk = NavMesh3DQuery(mesh).find_path(s, g)
    assert walk.status is Status.FOUND and walk.links.tolist() == [] and walk.cost > 15

    def via(cost: float | None, area_cost: float = 1.0) -> list[int]:
        link = OffMeshLink((5.5, 0.0, 3.0), (9.5, 0.0, 3.0), cost=cost, area=3)
        q = NavMesh3DQuery(mesh.with_links([link]))
        r = q.find_path(s, g, filter=QueryFilter(costs={3: area_cost}))
        assert r.status is Status.FOUND
        return r.links.tolist()

    assert via(0.5) == [0]              # cheaper than walking
    assert via(100.0) == []             # dearer
    assert via(None, 0.5) == [0]        # its length at half cost
    assert via(None, 8.0) == []         # its length at eight times


def test_links_whose_ends_find_no_polygon_join_nothing(gap):
    far = OffMeshLink((5.5, 0.0, 3.0), (30.0, 0.0, 3.0))                 # end off the mesh
    high = OffMeshLink((5.5, 5.0, 3.0), (9.5, -1.0, 3.0))                # start above climb
    wide = OffMeshLink((7.2, 0.0, 3.0), (9.5, -1.0, 3.0), radius=0.5)    # start too far
    q = NavMesh3DQuery(gap.with_links([far, DROP, high, wide]))
    assert q.unconnected_links.tolist() == [0, 2, 3]
    polys, points = q.link_ends
    assert polys[0, 0] >= 0 and polys[0, 1] == -1 and polys[2, 0] == -1 <= polys[2, 1]
    assert (polys[1] >= 0).all() and points[0, 1].tolist() == [30.0, 0.0, 3.0]
    assert np.hypot(*(points[1, 0] - DROP.start)[[0, 2]]) <= 0.6
    r = q.find_path(A, B)
    assert r.status is Status.FOUND and r.links.tolist() == [1]
    q2 = NavMesh3DQuery(gap.with_links([OffMeshLink((7.2, 0.0, 3.0), (9.5, -1.0, 3.0),
                                                    radius=2.5)]))
    assert q2.unconnected_links.tolist() == [] and q2.find_path(A, B).found


def test_find_paths_crosses_links(gap):
    q = NavMesh3DQuery(gap.with_links([DROP]))
    batch = q.find_paths(np.array([A, B]), np.array([B, A]))
    one = q.find_path(A, B)
    assert batch.status(0) is Status.FOUND and batch.status(1) is Status.FAILED
    assert np.allclose(batch.path(0), one.path) and batch.corridor(0).tolist() == \
        one.corridor.tolist()
    assert batch.flags[batch.corner_ptr[0]:batch.corner_ptr[1]].tolist() == one.flags.tolist()


def test_links_are_saved_and_loaded(gap, tmp_path):
    links = [DROP, OffMeshLink((1.0, 0.0, 1.0), (2.0, 0.0, 2.0), bidirectional=True,
                               cost=2.5, area=7, flags=3, kind="ladder", user_id=42,
                               radius=0.8)]
    mesh = gap.with_links(links)
    mesh.save(tmp_path / "m.npz")
    back = NavMesh3D.load(tmp_path / "m.npz")
    assert back.links == tuple(links)
    a, b = NavMesh3DQuery(mesh).find_path(A, B), NavMesh3DQuery(back).find_path(A, B)
    assert np.array_equal(a.path, b.path) and np.array_equal(a.corridor, b.corridor)


def test_version_1_files_still_load(gap, tmp_path):
    import zipfile

    gap.save(tmp_path / "m.npz")
    with zipfile.ZipFile(tmp_path / "m.npz") as z:
        members = {n: z.read(n) for n in z.namelist()}
    header = np.load(tmp_path / "m.npz")["__header__"]
    h = json.loads(str(header))
    h["version"] = 1
    del h["links"]
    import io
    buf = io.BytesIO()
    np.save(buf, np.array(json.dumps(h)))
    members["__header__.npy"] = buf.getvalue()
    del members["link_ends.npy"]
    with zipfile.ZipFile(tmp_path / "v1.npz", "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    old = NavMesh3D.load(tmp_path / "v1.npz")
    assert old.links == () and old.num_polygons == gap.num_polygons
    h["version"] = 3
    buf = io.BytesIO()
    np.save(buf, np.array(json.dumps(h)))
    members["__header__.npy"] = buf.getvalue()
    with zipfile.ZipFile(tmp_path / "v3.npz", "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    with pytest.raises(NavMeshFormatError, match="version 3"):
        NavMesh3D.load(tmp_path / "v3.npz")


@pytest.mark.parametrize(("links", "match"), [
    ([OffMeshLink((0, 0), (1, 0, 1))], r"links\[0\]\.start .* finite \(x, y, z\)"),
    ([OffMeshLink((0, 0, 0), (1, float("nan"), 1))], r"links\[0\]\.end"),
    ([OffMeshLink((0, 0, 0), (1, 0, 1), radius=0)], r"links\[0\]\.radius"),
    ([OffMeshLink((0, 0, 0), (1, 0, 1), radius=-1.0)], r"links\[0\]\.radius"),
    ([OffMeshLink((0, 0, 0), (1, 0, 1), cost=-1.0)], r"links\[0\]\.cost"),
    ([OffMeshLink((0, 0, 0), (1, 0, 1), area=256)], r"links\[0\]\.area"),
    ([OffMeshLink((0, 0, 0), (1, 0, 1), flags=-1)], r"links\[0\]\.flags"),
    ([OffMeshLink((0, 0, 0), (1, 0, 1), bidirectional=1)], r"links\[0\]\.bidirectional"),
    ([DROP, "jump"], r"links\[1\] must be an OffMeshLink"),
    (5, "must be an iterable"),
])
def test_bad_links_are_refused(gap, links, match):
    with pytest.raises(InvalidGeometryError, match=match):
        gap.with_links(links)


def test_the_2d_mesh_honours_a_links_radius():
    from wayfinding.navmesh import NavMesh

    square = [(0, 0), (10, 0), (10, 10), (0, 10)]
    near = OffMeshLink((1.0, 1.0), (12.0, 5.0), radius=2.5)     # end 2 off the mesh
    mesh = NavMesh.build(outline=square, links=[near], snap=1.0)
    assert mesh.link_points[0].tolist() == [1.0, 1.0, 10.0, 5.0]
    with pytest.raises(InvalidGeometryError, match=r"links\[0\]\.radius=1\.5"):
        NavMesh.build(outline=square, links=[OffMeshLink((1.0, 1.0), (12.0, 5.0),
                                                         radius=1.5)], snap=5.0)
    with pytest.raises(InvalidGeometryError, match=r"links\[0\]\.radius"):
        NavMesh.build(outline=square, links=[OffMeshLink((1.0, 1.0), (2.0, 2.0), radius=0)])


# ---------------------------------------------------------------- against Detour
@pytest.mark.slow
@pytest.mark.parametrize("tile_size", [0, 40])
def test_paths_with_links_are_detour_s(tile_size):
    """Links between random points of nav_test, each shorter than a tile (Detour joins a
    link's end only in the tiles next to its start's): corridors, corners, flags and
    corner polygons as Detour's."""
    level, settings = nav_test(), BuildSettings()
    mesh = with_flags(build(level, tile_size=tile_size))
    rng = np.random.default_rng(11)
    verts, tris, _ = mesh.triangles()
    centres = verts[tris].astype(np.float64).mean(axis=1)
    links: list[OffMeshLink] = []
    while len(links) < 12:
        a, b = centres[rng.integers(len(centres), size=2)]
        if 3.0 < np.linalg.norm((a - b)[[0, 2]]) < 10.0:
            links.append(OffMeshLink(tuple(a), tuple(b), bidirectional=len(links) % 2 == 1,
                                     radius=0.6 if len(links) % 3 else None))
    linked = mesh.with_links(links)
    q = NavMesh3DQuery(linked)
    assert q.unconnected_links.tolist() == []
    pts = centres[rng.integers(len(centres), size=400)].astype(np.float32)
    paths = [[*map(float, a), *map(float, b), 1, 0] for a, b in zip(pts[:200], pts[200:])]
    got = detour(level, settings, tile_size=tile_size, paths=paths, links=[
        {"start": [float(v) for v in x.start], "end": [float(v) for v in x.end],
         "radius": float(x.radius or settings.agent_radius), "bidirectional": x.bidirectional,
         "area": x.area, "flags": x.flags} for x in links])
    base, first = {}, 0
    for t in mesh.tiles:
        base[t.x, t.z] = (first, t.polymesh.num_polys, t.polymesh.bmin, t.polymesh.bmax)
        first += t.polymesh.num_polys

    def ours(ref: Any) -> int:
        if ref == -1:
            return -1
        start, count, lo, hi = base[ref[0], ref[1]]
        if ref[2] < count:
            return start + ref[2]
        # the tile's k-th off-mesh connection: the k-th link whose start lies in the tile
        inside = [i for i, x in enumerate(links) if lo[0] <= x.start[0] <= hi[0]
                  and lo[2] <= x.start[2] <= hi[2]]
        return mesh.num_polygons + inside[ref[2] - count]

    taken = 0
    for a, want in zip(paths, got["paths"]):
        r = q.find_path(tuple(a[:3]), tuple(a[3:6]), partial=True)
        taken += len(r.links)
        assert r.corridor.tolist() == [ours(x) for x in want["polys"]], a
        assert np.allclose(r.path, np.reshape(want["straight"], (-1, 3)), atol=1e-3), a
        assert r.flags.tolist() == want["flags"], a
        assert r.corner_polygons.tolist() == [ours(x) for x in want["refs"]], a
    assert taken >= 10


def test_damaged_links_in_a_file_are_refused(gap, tmp_path):
    import io
    import zipfile

    gap.with_links([DROP]).save(tmp_path / "m.npz")
    with zipfile.ZipFile(tmp_path / "m.npz") as z:
        members = {n: z.read(n) for n in z.namelist()}

    def damaged(name: str, value: np.ndarray) -> Path:
        buf = io.BytesIO()
        np.save(buf, value)
        path = tmp_path / f"bad_{name}.npz"
        with zipfile.ZipFile(path, "w") as z:
            for n, data in members.items():
                z.writestr(n, buf.getvalue() if n == f"{name}.npy" else data)
        return path

    nan = np.array([[5.5, 0.0, float("nan"), 9.5, -1.0, 3.0]])
    with pytest.raises(NavMeshFormatError, match=r"links\[0\]\.start"):
        NavMesh3D.load(damaged("link_ends", nan))
    with pytest.raises(NavMeshFormatError, match="link_ends"):
        NavMesh3D.load(damaged("link_ends", np.zeros((1, 5))))
    with pytest.raises(NavMeshFormatError, match="header links"):
        NavMesh3D.load(damaged("link_ends", np.zeros((2, 6))))


def test_surface_queries_on_a_mesh_with_links(gap):
    q = NavMesh3DQuery(gap.with_links([OffMeshLink(DROP.start, DROP.end, bidirectional=True)]))
    p = gap.num_polygons
    for seed in range(20):
        poly, _ = q.random_point(rng=seed)
        assert 0 <= poly < p
        poly, _ = q.random_point(rng=seed, centre=A, radius=3.0)
        assert 0 <= poly < p
    assert q.distance_to_wall(A, 10.0).distance < 10
    assert all(x < p for x in q.raycast(A, (5.9, 0, 3)).polygons.tolist())
    assert all(x < p for x in q.move_along_surface(A, (5.9, 0, 3)).polygons.tolist())
    assert len(q.wall_segments(q.nearest(A)[0])) > 0
    assert all(x < p for x in q.polygons_in_box(A, (20, 20, 20)).tolist())


@pytest.mark.parametrize("field", [dict(cost=np.int64(2)), dict(cost=np.float32(2.5)),
                                   dict(radius=np.float32(0.5)), dict(user_id=np.int64(7))])
def test_numpy_link_fields_are_normalised_and_saved(field, tmp_path):
    mesh = build(generate.floor()).with_links([OffMeshLink((1, 0, 1), (2, 0, 2), **field)])
    (name, value), = field.items()
    assert getattr(mesh.links[0], name) == value
    assert type(getattr(mesh.links[0], name)) in (int, float)
    mesh.save(tmp_path / "m.npz")
    assert NavMesh3D.load(tmp_path / "m.npz").links == mesh.links


@pytest.mark.parametrize("field, reason", [
    (dict(user_id="x"), "user_id 'x' must be an integer"),
    (dict(user_id=2 ** 70), "64 bits"),
    (dict(kind=3), "kind 3 must be a str"),
    (dict(flags=True), "flags True"),
])
def test_bad_link_fields_are_refused_by_with_links(field, reason):
    mesh = build(generate.floor())
    with pytest.raises(InvalidGeometryError, match=reason):
        mesh.with_links([OffMeshLink((1, 0, 1), (2, 0, 2), **field)])
