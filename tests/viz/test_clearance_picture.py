"""The clearance mesh's picture: a colour bar giving the clearance of each shade, and start
and goal discs sized as on the grid pictures."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from wayfinding.navmesh import ClearanceMesh
from wayfinding.viz.graphs import render_world_svg
from wayfinding.viz.raster import HEAT_LEVELS, MARKER_FRACTION, TARGET_PX, _ramp, rgb

pytest.importorskip("shapely")
SVG = "{http://www.w3.org/2000/svg}"
OUTLINE = [(0, 0), (20, 0), (20, 10), (0, 10)]
HOLES = [[(4, 2), (9, 2), (9, 8), (4, 8)], [(12, 4.5), (16, 4.5), (16, 5.5), (12, 5.5)]]


@pytest.fixture(scope="module")
def mesh() -> ClearanceMesh:
    return ClearanceMesh.build(outline=OUTLINE, holes=HOLES)


def _ramp_position(colours: np.ndarray) -> np.ndarray:
    """Position in [0, 1] on the heat ramp of each colour, undoing the picture's paling."""
    t = np.linspace(0, 1, 4001)
    ramp = 0.55 * _ramp(t) + 0.45 * 255
    d = ((colours[:, None, :] - ramp[None]) ** 2).sum(axis=-1)
    return t[np.argmin(d, axis=1)]


def test_the_bar_runs_from_no_clearance_to_the_widest(mesh):
    root = ET.fromstring(render_world_svg(mesh))
    bar = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "colour-bar")
    bands = [e for e in bar if e.get("class") == "bar-band"]
    assert len(bands) == HEAT_LEVELS
    pos = _ramp_position(np.array([rgb(b.get("fill")) for b in bands], dtype=float))
    assert pos[0] == 0 and pos[-1] == pytest.approx(1, abs=1e-3)
    assert (np.diff(pos) > 0).all()
    texts = {e.get("class"): e.text for e in bar if e.tag == f"{SVG}text"}
    assert float(texts["bar-min"]) == 0
    assert float(texts["bar-max"]) == pytest.approx(float(mesh.clearance.max()), rel=1e-3)
    assert "clearance" in texts["bar-label"]
    # the widest triangle has the bar's last colour
    tris = [e for e in root.iter(f"{SVG}polygon") if e.get("class") == "triangle"]
    widest = int(np.argmax(mesh.clearance.max(axis=1)))
    assert tris[widest].get("fill") == bands[-1].get("fill")


def test_the_bar_can_be_left_out(mesh):
    svg = render_world_svg(mesh, colour_bar=False)
    assert 'class="colour-bar"' not in svg
    with_bar = ET.fromstring(render_world_svg(mesh))
    without = ET.fromstring(svg)
    assert float(with_bar.get("height")) > float(without.get("height"))
    assert with_bar.get("width") == without.get("width")


def test_start_and_goal_are_edged_discs_sized_with_the_picture(mesh):
    root = ET.fromstring(render_world_svg(mesh, start=(1, 1), goal=(19, 9)))
    px = float(root.get("width")) / float(root.get("viewBox").split()[2])
    circles = {c.get("class"): c for c in root.iter(f"{SVG}circle")}
    for key in ("start", "goal"):
        assert float(circles[key].get("r")) * px == pytest.approx(MARKER_FRACTION * TARGET_PX,
                                                                  rel=0.01)
        ring = circles[f"{key}-ring"]
        assert ring.get("fill") == "none" and float(ring.get("r")) > float(
            circles[key].get("r"))
