"""Agents drawn over voxel navmeshes: the top-down GIF and the 3D page's animation."""

import json

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh3d import build, generate
from wayfinding.viz.navmesh3d import animate_navmesh3d, navmesh3d_html

pytest.importorskip("PIL")


@pytest.fixture(scope="module")
def mesh():
    return build(generate.multi_storey())


def frames(t=6, n=3):
    x = np.linspace(2, 10, t)[:, None] + np.arange(n)[None, :]
    pos = np.stack([x, np.full((t, n), 3.0), np.full((t, n), 8.0)], axis=-1)
    pos[0, 1] = np.nan                                    # absent at first
    return pos


def test_the_gif_has_a_frame_per_row_and_draws_the_agents(mesh, tmp_path):
    from PIL import Image
    colours = np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255]], np.uint8)
    out = animate_navmesh3d(tmp_path / "crowd.gif", mesh, frames(), colours=colours)
    with Image.open(out) as im:
        assert im.n_frames == 6
        im.seek(3)
        rgb = np.asarray(im.convert("RGB")).reshape(-1, 3)
    for c in colours.tolist():
        assert (np.abs(rgb.astype(int) - c).sum(1) < 30).any()


def test_the_page_plays_the_frames(mesh):
    page = navmesh3d_html(mesh, agents=frames(), fps=5)
    data = json.loads(page.split("const DATA = ", 1)[1].split(";\n", 1)[0])
    assert len(data["agents"]) == 6 and data["ms"] == 200.0
    assert len(data["agents"][0]) == 2 * 6 and len(data["agents"][1]) == 3 * 6
    assert data["agents"][1][:3] == [3.6, 3.0, 8.0] and data["agents"][1][3:6] == [1, 1, 1]
    assert "gl.POINTS" in page
    assert json.loads(navmesh3d_html(mesh).split("const DATA = ", 1)[1]
                      .split(";\n", 1)[0])["agents"] == []


def test_the_title_is_escaped(mesh):
    page = navmesh3d_html(mesh, title="<b>A & B</b>")
    assert "<title>&lt;b&gt;A &amp; B&lt;/b&gt;</title>" in page and "<b>" not in page


@pytest.mark.parametrize("call, match", [
    (lambda m, p: animate_navmesh3d(p / "a.png", m, frames()), "GIF"),
    (lambda m, p: animate_navmesh3d(p / "a.gif", m, np.zeros((3, 2))), r"\(T, n, 3\)"),
    (lambda m, p: animate_navmesh3d(p / "a.gif", m, np.zeros((0, 2, 3))), "no frames"),
    (lambda m, p: animate_navmesh3d(p / "a.gif", m, frames(), radius=0), "radius"),
    (lambda m, p: navmesh3d_html(m, agents=frames(), colours=np.zeros((2, 3))), "colours"),
    (lambda m, p: navmesh3d_html(m, agents=frames(), fps=0), "fps"),
    (lambda m, p: animate_navmesh3d(p / "a.gif", m, frames(),
                                    colours=np.full((3, 3), np.nan)), "0..255, got nan"),
    (lambda m, p: animate_navmesh3d(p / "a.gif", m, frames(),
                                    colours=np.full((3, 3), 300)), "0..255, got 300"),
    (lambda m, p: navmesh3d_html(m, agents=frames(), colours=np.full((3, 3), -1)), "got -1"),
    (lambda m, p: navmesh3d_html(m, agents=frames(), colours="red"), "RGB numbers"),
])
def test_bad_input(mesh, tmp_path, call, match):
    with pytest.raises(InvalidQueryError, match=match):
        call(mesh, tmp_path)
