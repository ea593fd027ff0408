"""``wayfinding navmesh build|path|render`` on WKT, GeoJSON, Moving AI maps and saved meshes;
bad input exits with status 2 and a message."""

import json

import pytest
from shapely.geometry import box, mapping

from wayfinding.cli import main
from wayfinding.grid import generate, write_map
from wayfinding.navmesh import ClearanceMesh, NavMesh

AREA = box(0, 0, 20, 12).difference(box(9, 2, 11, 10))


def test_build_path_render(tmp_path, capsys):
    wkt = tmp_path / "hall.wkt"
    wkt.write_text(AREA.wkt)
    out = tmp_path / "hall.npz"
    assert main(["navmesh", "build", str(wkt), "-o", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["polygons"] == NavMesh.load(out).num_polygons and info["area"] == AREA.area
    svg = tmp_path / "p.svg"
    assert main(["navmesh", "path", str(wkt), "--from", "1,6", "--to", "19,6", "--exact",
                 "--json", "-o", str(svg)]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["found"] and r["cost"] == pytest.approx(r["exact"], abs=1e-9)
    assert svg.read_text().count('class="path"') == 1
    assert main(["navmesh", "path", str(out), "--from=-5,6", "--to", "19,6"]) == 0
    text = capsys.readouterr().out
    assert "snapped to the mesh: start" in text and "path: length" in text
    geo = tmp_path / "hall.geojson"
    geo.write_text(json.dumps(mapping(AREA)))
    assert main(["navmesh", "render", str(geo), "-o", str(tmp_path / "r.svg")]) == 0
    cave = write_map(generate.caves(48, 48, fill=0.35, seed=2), tmp_path / "cave.map")
    assert main(["navmesh", "render", str(cave), "--radius", "0.3",
                 "-o", str(tmp_path / "a.svg")]) == 0
    assert (tmp_path / "a.svg").read_text().count('class="polygon"') > 20


def test_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.wkt"
    bad.write_text("POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))")
    assert main(["navmesh", "build", str(bad), "-o", str(tmp_path / "x.npz")]) == 2
    assert "Self-intersection" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()
    assert main(["navmesh", "build", str(tmp_path / "a.txt"), "-o", "x.npz"]) == 2
    assert "unknown input type" in capsys.readouterr().err
    mesh = tmp_path / "m.npz"
    NavMesh.build(AREA).save(mesh)
    assert main(["navmesh", "path", str(mesh), "--from", "1,6", "--to", "19,6",
                 "--exact"]) == 2
    assert "--exact needs" in capsys.readouterr().err


def test_clearance_mesh(tmp_path, capsys):
    wkt = tmp_path / "hall.wkt"
    wkt.write_text(AREA.wkt)
    out = tmp_path / "hall.npz"
    assert main(["navmesh", "build", str(wkt), "--clearance", "-o", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["triangles"] == ClearanceMesh.load(out).num_triangles
    svg = tmp_path / "p.svg"
    # One saved mesh answers for every radius: the 2-wide gaps pass 1.0 but not 1.05.
    assert main(["navmesh", "path", str(out), "--from", "1,6", "--to", "19,6", "--radius",
                 "1", "--json", "-o", str(svg)]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["found"] and r["radius"] == 1 and r["turns"] == 2
    assert svg.read_text().count('class="swept"') == 1
    assert main(["navmesh", "path", str(out), "--from", "1.1,6", "--to", "18.9,6",
                 "--radius", "1.05"]) == 0
    assert "not found (no channel is wide enough" in capsys.readouterr().out
    assert main(["navmesh", "path", str(wkt), "--clearance", "--from", "1,6", "--to", "19,6",
                 "--radius", "0.5", "--exact", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["cost"] == pytest.approx(r["exact"], rel=1e-3) and r["cost"] >= r["exact"]
    assert main(["navmesh", "render", str(out), "-o", str(tmp_path / "r.svg")]) == 0
    assert (tmp_path / "r.svg").read_text().count('class="triangle"') == info["triangles"]
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"nope")
    assert main(["navmesh", "path", str(junk), "--from", "1,6", "--to", "19,6"]) == 2
    assert "not a saved navigation mesh" in capsys.readouterr().err
