"""The demonstration page, built through ``wayfinding demo``: every section and the files
it links."""

import re

from wayfinding.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_writes_a_page(capsys, tmp_path):
    code, out, _ = run(capsys, "demo", "--out", tmp_path / "demo", "--quiet")
    page = tmp_path / "demo" / "index.html"
    assert code == 0 and str(page) in out
    text = page.read_text()
    assert "mismatches" in text and "<img" in text
    assert (tmp_path / "demo" / "cave-astar.svg").exists()
    assert (tmp_path / "demo" / "cave-astar.png").exists()
    assert "<td>jps2</td>" in text and "<td>subgoal_table</td>" in text
    assert (tmp_path / "demo" / "cave-fast-jps2.svg").exists()
    assert "exact search (polyanya)" in text
    assert (tmp_path / "demo" / "cave.map.scen").exists()
    assert "Navigation meshes in the dungeon" in text and "no path" not in text
    assert "Any-angle paths in the cave" in text
    assert (tmp_path / "demo" / "cave-anyangle-theta.svg").exists()
    assert 'class="swept"' in (tmp_path / "demo" / "clearance-1.0.svg").read_text()
    assert ">Crowds</h2>" in text and (tmp_path / "demo" / "crowd-blocks.gif").exists()
    assert (tmp_path / "demo" / "crowd-formation_door.gif").stat().st_size > 1000
    assert "Voxel navmeshes of 3D levels" in text
    assert (tmp_path / "demo" / "navmesh3d-building.svg").read_text().count('class="poly"') > 10
    assert "<canvas" in (tmp_path / "demo" / "navmesh3d-terrain.html").read_text()
    assert "A crowd on two storeys" in text
    assert (tmp_path / "demo" / "navmesh3d-crowd.gif").stat().st_size > 1000
    assert '"agents":[[' in (tmp_path / "demo" / "navmesh3d-crowd.html").read_text()
    assert "Flight through voxel worlds" in text
    assert (tmp_path / "demo" / "voxel-city.png").stat().st_size > 1000
    assert (tmp_path / "demo" / "voxel-swarm.gif").stat().st_size > 1000
    assert "<canvas" in (tmp_path / "demo" / "voxel-swarm.html").read_text()
    # the table of contents: one link per section, each to a heading of the page
    nav = text[text.index('<nav class="contents"'):text.index("</nav>")]
    links = re.findall(r'href="#([^"]+)"', nav)
    headings = re.findall(r'<h2[^>]*\bid="([^"]+)"', text)
    assert len(links) == text.count("<h2") >= 10 and links == headings
