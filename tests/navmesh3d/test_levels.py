"""Levels: reading OBJ files, the checks on triangle soup, convex volumes, and the generated
levels."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding.errors import InvalidGeometryError
from wayfinding.navmesh3d import (
    WALKABLE,
    BuildSettings,
    ConvexVolume,
    Level,
    LevelFormatError,
    generate,
    rasterize,
)

SQUARE = [[0, 0, 0], [4, 0, 0], [4, 0, 4], [0, 0, 4]]


def test_obj_faces_split_as_fans_with_every_index_form(tmp_path):
    path = tmp_path / "level.obj"
    path.write_text("# a quad, a pentagon's worth of forms\n"
                    "v 0 0 0\nv 4 0 0\nv 4 0 4\nv 0 0 4\nv 2 1 6\nvt 0 0\nvn 0 1 0\n"
                    "o thing\nf 1/1/1 2//1 3/1 4\n"
                    "f -5 -2 -1\n")
    level = Level.read(path)
    assert level.triangles.tolist() == [[0, 1, 2], [0, 2, 3], [0, 3, 4]]
    assert level.vertices.dtype == np.float32
    assert (level.areas == WALKABLE).all()


@pytest.mark.parametrize("text, message", [
    ("v 0 0\nf 1 1 1\n", "line 1: a vertex needs x, y and z"),
    ("v 0 0 x\n", "line 1: bad vertex"),
    ("v 0 0 0\nv 1 0 0\nf 1 2\n", "line 3: a face needs three"),
    ("v 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 2 4\n", "line 4: face entry '4' names no vertex"),
    ("f 1 2 4\nv 0 0 0\nv 1 0 0\nv 1 0 1\n", "line 1: face entry '4' names no vertex"),
    ("v 0 0 0\nv 1 0 0\nv 1 0 1\nf 0 1 2\n", "line 4: face entry '0': vertices count"),
    ("v 0 0 0\nv 1 0 0\nf -3 -2 -1\nv 1 0 1\n", "line 3: face entry '-3' names no vertex"),
    ("v 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 2 a\n", "line 4: bad face entry 'a'"),
    ("v 0 0 0\n", "no faces"),
    ("v 0 0 0\nv 0 0 0\nv 1 0 1\nf 1 2 3\n", "degenerate"),
])
def test_bad_obj_files_name_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "bad.obj"
    path.write_text(text)
    with pytest.raises(LevelFormatError, match=message) as info:
        Level.read(path)
    assert str(path) in str(info.value)


def test_obj_vertices_may_follow_their_faces_and_a_byte_order_mark_is_skipped(tmp_path):
    square = "v 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\n"
    faces = "f 1 3 2\nf 1 4 3\n"
    first = tmp_path / "first.obj"
    first.write_text(square + faces)
    want = Level.read(first)
    for name, text in (("after.obj", "o floor\n" + faces + square),
                       ("bom.obj", "\ufeff" + square + faces)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        got = Level.read(tmp_path / name)
        assert got.vertices.tolist() == want.vertices.tolist()
        assert got.triangles.tolist() == want.triangles.tolist()


def test_obj_round_trip(tmp_path):
    level = generate.building()
    level.to_obj(tmp_path / "b.obj")
    back = Level.read(tmp_path / "b.obj")
    assert np.array_equal(back.vertices, level.vertices)
    assert np.array_equal(back.triangles, level.triangles)


def test_unknown_and_missing_files(tmp_path):
    with pytest.raises(LevelFormatError, match="unknown level format '.ply'"):
        Level.read(tmp_path / "x.ply")
    with pytest.raises(LevelFormatError):
        Level.read(tmp_path / "absent.obj")


def test_gltf_round_trip_through_trimesh(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    level = generate.stairs(steps=3)
    mesh = trimesh.Trimesh(level.vertices, level.triangles, process=False)
    mesh.export(tmp_path / "stairs.glb")
    back = Level.read(tmp_path / "stairs.glb")
    (tmp_path / "bad.glb").write_bytes(b"glTF not really")
    with pytest.raises(LevelFormatError, match="unreadable glTF"):
        Level.read(tmp_path / "bad.glb")
    assert back.num_triangles == level.num_triangles
    assert np.allclose(np.sort(back.vertices, axis=0), np.sort(level.vertices, axis=0))


@pytest.mark.parametrize("vertices, triangles, message", [
    ([[0, 0, float("nan")], [1, 0, 0], [1, 0, 1]], [[0, 1, 2]], "vertex 0 has a non-finite"),
    ([[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0, 1, 3]], "triangle 0 names vertices"),
    ([[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0, -1, 2]], "outside 0..2"),
    ([[0, 0, 0], [1, 0, 0], [1, 0, 1]], np.zeros((0, 3), int), "no triangles"),
    ([[0, 0], [1, 0], [1, 1]], [[0, 1, 2]], r"vertices must be an \(n, 3\) array"),
    ([[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0.0, 1.0, 2.0]], "triangles must be integers"),
    ([[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0, 1]], r"triangles must be an \(n, 3\)"),
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], [[0, 1, 2]], "1 degenerate triangles"),
    ([[0, 0, 0], [1, 0, 0], [1e8, 0, 1]], [[0, 1, 2]], "more than 1e7 from the origin"),
    ("level", [[0, 1, 2]], "vertices must be"),
])
def test_bad_soup_is_refused_clearly(vertices, triangles, message):
    with pytest.raises(InvalidGeometryError, match=message):
        Level(vertices, triangles)


def test_degenerate_triangles_dropped_or_kept_on_request():
    v = [[0, 0, 0], [4, 0, 0], [4, 0, 4], [8, 0, 0]]
    t = [[0, 2, 1], [0, 1, 3], [1, 1, 2]]
    assert Level(v, t, degenerate="drop").triangles.tolist() == [[0, 2, 1]]
    assert Level(v, t, degenerate="keep").num_triangles == 3
    with pytest.raises(InvalidGeometryError, match="every triangle"):
        Level(v, [[0, 1, 3]], degenerate="drop")
    with pytest.raises(InvalidGeometryError, match="degenerate"):
        Level(v, t, degenerate="fix")


def test_bounds_hold_every_vertex_as_recast_s_do():
    """Vertices no triangle names (stray points of an OBJ file, corners of dropped
    triangles) still widen the box the grid is laid over, as in Recast."""
    v = SQUARE + [[9, 2, -1], [-3, 0, 0], [-3, 0, 0]]
    level = Level(v, [[0, 2, 1], [0, 3, 2], [5, 0, 6]], degenerate="drop")
    assert level.num_triangles == 2
    lo, hi = level.bounds
    assert lo.tolist() == [-3, 0, -1] and hi.tolist() == [9, 2, 4]
    hf = rasterize(level, BuildSettings(cell_size=0.5))
    assert (hf.width, hf.depth) == (24, 10)
    assert hf.bmin.tolist() == [-3, 0, -1]


def test_areas_are_checked():
    assert Level(SQUARE, [[0, 2, 1], [0, 3, 2]], areas=[1, 0]).areas.tolist() == [1, 0]
    for bad, message in (([1], "2 integers"), ([1.5, 2], "2 integers"), ([64, 1], "0 to 63"),
                         ([-1, 1], "0 to 63")):
        with pytest.raises(InvalidGeometryError, match=message):
            Level(SQUARE, [[0, 2, 1], [0, 3, 2]], areas=bad)


def test_levels_are_read_only():
    level = generate.floor()
    with pytest.raises(ValueError):
        level.vertices[0, 0] = 1.0


def test_convex_volumes_are_checked():
    vol = ConvexVolume([(0, 0), (2, 0), (2, 2), (0, 2)], -1, 1, area=5)
    assert vol.polygon[2] == (2.0, 2.0) and vol.area == 5
    for args, kw, message in (
            (([(0, 0), (1, 0)], 0, 1), {"area": 1}, "3 or more"),
            (([(0, 0), (2, 0), (1, 0.5), (2, 2), (0, 2)], 0, 1), {"area": 1}, "convex"),
            (([(0, 0), (1, 0), (2, 0)], 0, 1), {"area": 1}, "convex and not flat"),
            (([(0, 0), (1, 0), (1, 1)], 1, 1), {"area": 1}, "ymin < ymax"),
            (([(0, 0), (1, 0), (1, float("inf"))], 0, 1), {"area": 1}, "non-finite"),
            (([(0, 0), (1, 0), (1, 1)], 0, 1), {"area": 64}, "area"),
            (("abc", 0, 1), {"area": 1}, "3 or more .x, z. points"),
            (([(0, 0), (1, "a"), (1, 1)], 0, 1), {"area": 1}, "3 or more .x, z. points"),
    ):
        with pytest.raises(InvalidGeometryError, match=message):
            ConvexVolume(*args, **kw)
    with pytest.raises(InvalidGeometryError, match="volumes must be ConvexVolume"):
        Level(SQUARE, [[0, 2, 1]], volumes=("box",))
    with pytest.raises(InvalidGeometryError, match="volumes must be a sequence"):
        Level(SQUARE, [[0, 2, 1]], volumes=vol)     # type: ignore[arg-type]
    assert Level(SQUARE, [[0, 2, 1]], volumes=[vol]).volumes == (vol,)


@pytest.mark.parametrize("make", [generate.floor, generate.stairs, generate.bridge,
                                  generate.thin_walls, generate.building])
def test_generated_box_levels_are_closed_and_face_out(make):
    level = make()
    v, t = level.vertices.astype(np.float64), level.triangles
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    assert (np.linalg.norm(np.cross(b - a, c - a), axis=1) > 0).all()
    # every edge is used once each way (closed boxes), and the volume is positive (out)
    points = [tuple(p) for p in v.tolist()]
    keys = {(points[i], points[j]) for tri in t.tolist()
            for i, j in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0]))}
    assert all((q, p) in keys for p, q in keys) or make is generate.building
    assert np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6 > 0


def test_generated_terrain_and_ramp_face_up():
    for level, sloped in ((generate.terrain(size=16), 2 * 16 * 16), (generate.ramp(30), 2)):
        v, t = level.vertices.astype(np.float64), level.triangles
        normal = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
        normal /= np.linalg.norm(normal, axis=1)[:, None]
        assert ((normal[:, 1] > 0) & (normal[:, 1] < 1 - 1e-6)).sum() == sloped
