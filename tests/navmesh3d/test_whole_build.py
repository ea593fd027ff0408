"""The whole build: Recast's figures on its test level, tiles, the report, files (save,
load, bad files), exports and pictures."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from recast_data import nav_test

from wayfinding.cli import main
from wayfinding.errors import InvalidQueryError, NavMeshFormatError
from wayfinding.navmesh3d import BuildSettings, NavMesh3D, build, generate
from wayfinding.navmesh3d.navmesh import STAGES
from wayfinding.viz.navmesh3d import navmesh3d_html, render_navmesh3d_svg, save_navmesh3d


@pytest.fixture(scope="module")
def building():
    return build(generate.building(storeys=2))


def test_recast_figures_on_its_test_level():
    """The data README's figures, every stage, with RecastDemo's defaults."""
    mesh = build(nav_test())
    c = mesh.report.counts
    assert (c["grid_width"], c["grid_depth"]) == (305, 258)
    assert c["compact_spans"] == 56_795
    assert c["regions"] == 48
    assert c["contours"] == 47
    assert (c["poly_verts"], c["polygons"]) == (349, 155)
    assert (c["detail_verts"], c["detail_tris"]) == (812, 561)
    assert set(mesh.report.ms) == set(STAGES) and mesh.report.total_ms > 0


def _covered(mesh: NavMesh3D, x: float, y: float, z: float, climb: float) -> bool:
    """Whether some polygon holds (x, z) within ``climb`` of height y."""
    for p in mesh.polygons():
        if abs(p[:, 1].mean() - y) > climb + 0.5:
            continue
        xz = p[:, [0, 2]]
        edges = np.roll(xz, -1, axis=0) - xz
        cross = edges[:, 0] * (z - xz[:, 1]) - edges[:, 1] * (x - xz[:, 0])
        if (cross >= -1e-9).all() or (cross <= 1e-9).all():
            return True
    return False


@pytest.mark.parametrize("tile_size", [0, 16])
def test_every_walkable_point_far_from_walls_is_on_a_polygon(tile_size):
    """Points of both storeys of a building farther than the agent's radius and a cell
    from a wall, the stairwell or a drop (and a cell more from the outer edge, see
    test_voxelization) lie on a polygon at their height."""
    s = BuildSettings()
    mesh = build(generate.building(storeys=2), tile_size=tile_size)
    near = s.agent_radius + s.cell_size
    edge = near + s.cell_size
    rng = np.random.default_rng(4)
    for storey in (0, 1):
        for x, z in rng.uniform(edge, 10 - edge, (60, 2)):
            if 1.0 - near < x < 1.0 + 15 * 0.3 + near and z < 3.0 + near:
                continue    # the stairwell and the stairs
            assert _covered(mesh, x, 3.0 * storey, z, s.agent_max_climb), (storey, x, z)


def test_tiles_cover_what_the_whole_build_covers():
    """Tiles of 16 cells over a building 32 cells wide: the same walkable area as the whole
    build (within 1%: contours are simplified at tile edges), each tile's polygons inside
    its own square.  (The level's far sides stop inside a cell: one on a cell boundary
    leaves a sliver of a span in the cell beyond, which a tile's border has and the whole
    grid, ending at the bounds, has not; Recast builds the same.)"""
    level = generate.building(storeys=2, size=9.55)
    whole = build(level)
    tiled = build(level, tile_size=16, workers=2)
    assert {(t.x, t.z) for t in tiled.tiles} == {(0, 0), (1, 0), (0, 1), (1, 1)}

    def area(mesh: NavMesh3D) -> float:
        total = 0.0
        for p in mesh.polygons():
            xz = p[:, [0, 2]]
            total += 0.5 * abs(np.dot(xz[:, 0], np.roll(xz[:, 1], -1))
                               - np.dot(xz[:, 1], np.roll(xz[:, 0], -1)))
        return total

    assert area(tiled) == pytest.approx(area(whole), rel=0.01)
    for t in tiled.tiles:
        pm = t.polymesh
        assert pm.border == tiled.settings.voxels().walkable_radius + 3
        assert (pm.verts[:, [0, 2]] <= 16).all()
        assert np.allclose(pm.bmin[[0, 2]], [t.x * 16 * 0.3, t.z * 16 * 0.3], atol=1e-5)
    assert tiled.report.counts["columns"] > whole.report.counts["columns"]


def test_without_compat_the_grid_covers_the_whole_level():
    """Recast's grid is rounded to nearest: 9.55 / 0.3 = 31.8 cells become 32, but 9.4 /
    0.3 = 31.3 become 31, leaving the far 0.1 out; without compat it covers the level."""
    level = generate.floor(size=9.4)
    recast = build(level)
    whole = build(level, settings=BuildSettings(compat=None))
    assert recast.report.counts["grid_width"] == 31
    assert whole.report.counts["grid_width"] == 32
    reach = [max(p[:, 0].max() for p in m.polygons()) for m in (recast, whole)]
    assert reach[1] == pytest.approx(reach[0] + 0.3, abs=1e-4)
    with pytest.raises(InvalidQueryError, match="compat"):
        BuildSettings(compat="detour")   # type: ignore[arg-type]


@pytest.mark.parametrize("settings, match", [
    ({"cell_size": 1e-300}, "cell_size 1e-300 is beyond float32's range"),
    ({"cell_size": 1e300}, "cell_size 1e.300 is beyond float32's range"),
    ({"agent_height": 1e300}, "agent_height 1e.300 is beyond float32's range"),
    ({"cell_size": 1e-40}, "the agent measures more cells"),
    ({"cell_size": 1e-3}, "at most 255 each"),
])
def test_settings_beyond_float32_voxels_are_refused(settings, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # no numpy warning on the way
        with pytest.raises(InvalidQueryError, match=match):
            BuildSettings(**settings)


@pytest.mark.parametrize("unlimited", [{"edge_max_len": 1e5}, {"edge_max_len": 1e30},
                                       {"region_merge_size": 1e5}, {"region_min_size": 1e20}])
def test_limits_past_every_grid_act_as_limits_just_past_the_level(unlimited):
    """An edge length or region area larger than any grid holds (squares past int32
    included) gives the mesh of one just larger than the level."""
    terrain = generate.terrain(size=30, seed=2)
    name, value = next(iter(unlimited.items()))
    ample = {"edge_max_len": 100.0, "region_merge_size": 1e3, "region_min_size": 1e3}[name]
    got = build(terrain, settings=BuildSettings(**unlimited)).tiles[0].polymesh
    want = build(terrain, settings=BuildSettings(**{name: ample})).tiles[0].polymesh
    assert got.verts.tolist() == want.verts.tolist()
    assert got.polys.tolist() == want.polys.tolist()


def test_save_load_round_trip(tmp_path, building):
    path = tmp_path / "mesh.npz"
    building.save(path)
    back = NavMesh3D.load(path)
    assert back.num_tiles == building.num_tiles and back.settings == building.settings
    for a, b in zip(back.tiles, building.tiles, strict=True):
        assert np.array_equal(a.polymesh.polys, b.polymesh.polys)
        assert np.array_equal(a.polymesh.verts, b.polymesh.verts)
        assert np.array_equal(a.detail.verts, b.detail.verts)
        assert np.array_equal(a.detail.tris, b.detail.tris)
    assert back.report.counts == building.report.counts
    assert np.array_equal(back.origin, building.origin)


def test_bad_files_are_refused_naming_them(tmp_path, building):
    path = tmp_path / "mesh.npz"
    building.save(path)
    data = dict(np.load(path))
    header = json.loads(str(data.pop("__header__")))
    data["polys"] = data["polys"].copy()
    data["polys"][0, 0] = 60000           # a corner past the tile's vertices
    bad = tmp_path / "bad.npz"
    np.savez(bad, __header__=np.array(json.dumps(header)), **data)
    with pytest.raises(NavMeshFormatError, match="bad.npz.*polys"):
        NavMesh3D.load(bad)
    header["version"] = 99
    good = {k: v for k, v in np.load(path).items() if k != "__header__"}
    np.savez(bad, __header__=np.array(json.dumps(header)), **good)
    with pytest.raises(NavMeshFormatError, match="version"):
        NavMesh3D.load(bad)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(NavMeshFormatError):
        NavMesh3D.load(tmp_path / "junk.npz")


def test_exports_and_pictures(tmp_path, building):
    building.to_obj(tmp_path / "mesh.obj")
    text = (tmp_path / "mesh.obj").read_text()
    verts, tris, _ = building.triangles()
    assert text.count("\nv ") == len(verts) and text.count("\nf ") == len(tris)
    svg = render_navmesh3d_svg(building)
    assert svg.count('class="poly"') == building.num_polygons
    html = navmesh3d_html(building, level=generate.building(storeys=2))
    assert "<canvas" in html and '"nav":[' in html
    for suffix in (".svg", ".png", ".html"):
        assert save_navmesh3d(tmp_path / f"pic{suffix}", building).stat().st_size > 100
    with pytest.raises(InvalidQueryError, match="unknown picture format"):
        save_navmesh3d(tmp_path / "pic.bmp", building)
    trimesh = pytest.importorskip("trimesh")
    building.to_gltf(tmp_path / "mesh.glb")
    loaded = trimesh.load(tmp_path / "mesh.glb", force="mesh")
    assert len(loaded.faces) == len(tris)


def test_bad_build_options():
    level = generate.floor()
    with pytest.raises(InvalidQueryError, match="settings must be BuildSettings"):
        build(level, settings={"cell_size": 0.3})   # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="tile_size"):
        build(level, tile_size=-1)
    with pytest.raises(InvalidQueryError, match="workers"):
        build(level, workers=0)


def test_command_line_build_info_render(tmp_path, capsys):
    level = tmp_path / "stairs.obj"
    generate.stairs().to_obj(level)
    out = tmp_path / "mesh.npz"
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["counts"]["polygons"] > 0 and built["output"] == str(out)
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--cell-size", "0.2",
                 "--agent-radius", "0.4", "--partition", "monotone",
                 "--filter-ledge-spans", "off", "--compat", "none"]) == 0
    assert "polygon mesh" in capsys.readouterr().out
    assert main(["navmesh3d", "info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["settings"]["cell_size"] == 0.2 and info["settings"]["partition"] == "monotone"
    assert info["settings"]["filter_ledge_spans"] is False and info["settings"]["compat"] is None
    assert main(["navmesh3d", "render", str(out), "-o", str(tmp_path / "m.html"),
                 "--level", str(level)]) == 0
    assert (tmp_path / "m.html").exists()
    with pytest.raises(SystemExit) as stop:
        main(["navmesh3d", "build", str(level), "-o", str(out), "--cell-size", "0"])
    assert stop.value.code == 2 and "--cell-size" in capsys.readouterr().err
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--agent-max-slope",
                 "95"]) == 2
    assert "below 90" in capsys.readouterr().err
    assert BuildSettings().cell_size == 0.3
