"""SVG pictures of graph worlds and hex grids."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.geometry import Obstacles
from wayfinding.graph import DirichletDomains, Roadmap, VisibilityGraph, WaypointGraph
from wayfinding.grid import HexGrid
from wayfinding.viz import render_world_svg, save_world

NS = "{http://www.w3.org/2000/svg}"
OBS = Obstacles([[(2, 2), (4, 2), (4, 4), (2, 4)]])


def classes(svg):
    root = ET.fromstring(svg)
    return [el.get("class") for el in root.iter() if el.get("class")]


@pytest.mark.parametrize("make", [
    lambda: WaypointGraph.connect([(0, 0), (6, 0), (6, 6), (0, 6)], OBS, radius=0.2),
    lambda: VisibilityGraph.build(OBS, radius=0.2),
    lambda: Roadmap.build(OBS, (0, 0, 6, 6), n=30, k=4, radius=0.2),
    lambda: DirichletDomains([(0, 0), (6, 0), (6, 6), (0, 6)], weights=[1, 2, 1, 2],
                             obstacles=OBS, bounds=(0, 0, 6, 6), cell_size=0.1),
])
def test_graph_pictures(make):
    world = make()
    r = world.find_path((0.5, 0.5), (5.5, 5.5))
    svg = render_world_svg(world, path=r, start=(0.5, 0.5), goal=(5.5, 5.5), title="t<1>")
    found = classes(svg)
    assert found.count("node") == world.num_nodes
    assert "obstacles" in found and "start" in found and "goal" in found
    assert ("path" in found) == r.found
    assert "<title>t&lt;1&gt;</title>" in svg
    if isinstance(world, DirichletDomains):
        assert "domains" in found


def test_hex_picture(tmp_path):
    h = HexGrid.from_ascii(". . #\n . 3 .")
    r = h.find_path((0, 0), (2, 1))
    out = save_world(tmp_path / "h.svg", h, path=r, start=(0, 0), goal=(2, 1))
    root = ET.parse(out).getroot()
    assert root.tag == NS + "svg"
    hexes = [el for el in root.iter() if el.get("class") == "hexes"]
    assert sum(el.get("d").count("Z") for el in hexes) == 6
    assert len({el.get("fill") for el in hexes}) == 3  # free, blocked, cost 3


def test_bad_requests(tmp_path):
    with pytest.raises(InvalidQueryError, match="SVG only"):
        save_world(tmp_path / "x.png", WaypointGraph.connect([(0, 0)]))
    with pytest.raises(InvalidQueryError, match="cannot draw"):
        render_world_svg(np.zeros((2, 2)))
    with pytest.raises(InvalidQueryError, match="outside"):
        render_world_svg(HexGrid(np.ones((2, 2))), start=(5, 5))
    assert not (tmp_path / "x.png").exists()


def test_navmesh_picture(tmp_path):
    from shapely.geometry import MultiPolygon, box

    from wayfinding.navmesh import NavMesh, OffMeshLink
    from wayfinding.viz.graphs import WORLD_PALETTE

    area = MultiPolygon([box(0, 0, 10, 10).difference(box(3, 3, 6, 7)), box(14, 0, 24, 10)])
    mesh = NavMesh.build(area, links=[OffMeshLink((9.5, 8), (14.5, 8))])
    r = mesh.find_path((1, 5), (22, 2))
    svg = render_world_svg(mesh, path=r, start=r.start, goal=r.goal)
    assert svg.count('class="polygon"') == mesh.num_polygons
    assert svg.count('class="link"') == 1 and svg.count('class="path"') == 1
    assert svg.count(WORLD_PALETTE["corridor"]) == len(r.corridor)
    assert 'class="portals"' in svg and 'class="walls"' in svg
    save_world(tmp_path / "m.svg", mesh)
    assert (tmp_path / "m.svg").read_text().startswith("<svg")
