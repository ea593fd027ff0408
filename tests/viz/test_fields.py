"""Field pictures: arrows along the flow in SVG and PNG, animated GIFs of scenes, bad
input."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from wayfinding import Grid, InvalidQueryError
from wayfinding.fields import FlowField
from wayfinding.viz.fields import (
    animate,
    arrow_segments,
    render_flow_png,
    render_flow_svg,
    save_flow,
)

Image = pytest.importorskip("PIL.Image")


def small_flow():
    grid = Grid.from_ascii("""
        ..........
        ....##....
        ..........""")
    return grid, FlowField.build(grid, [(9, 1)])


def test_arrows_point_along_the_flow():
    grid, flow = small_flow()
    segs = arrow_segments(flow.vectors, grid, every=1)
    assert len(segs) == int((flow.codes < 8).sum())       # one per moving cell
    shaft = segs[:, 0]
    direction = shaft[:, 1] - shaft[:, 0]
    cells = np.floor(shaft.mean(axis=1)).astype(int)
    v = flow.vectors[cells[:, 1], cells[:, 0]]
    cos = (direction * v).sum(axis=1) / np.hypot(*direction.T)
    np.testing.assert_allclose(cos, 1.0)
    # The heads end at the tip.
    np.testing.assert_allclose(segs[:, 1, 1], segs[:, 0, 1])
    assert len(arrow_segments(flow.vectors, grid, every=3)) < len(segs)


def test_svg_and_png():
    grid, flow = small_flow()
    svg = render_flow_svg(grid, flow.field, vectors=flow.vectors, goal=(9, 1), cell_px=10)
    root = ET.fromstring(svg)
    arrows = [e for e in root.iter() if e.get("class") == "arrows"]
    assert len(arrows) == 1 and arrows[0].get("d").count("M") == 3 * int((flow.codes < 8).sum())
    png = render_flow_png(grid, flow.field, vectors=flow.vectors, scale=8, colour_bar=False)
    img = Image.open(io.BytesIO(png))
    assert img.size == (80, 24)
    plain = Image.open(io.BytesIO(render_flow_png(grid, flow.field, scale=8)))
    assert np.asarray(img).tolist() != np.asarray(plain).tolist()   # arrows drawn


def test_save_and_animate(tmp_path):
    grid, flow = small_flow()
    assert save_flow(tmp_path / "f.svg", grid, flow.field, vectors=flow.vectors).exists()
    assert save_flow(tmp_path / "f.png", grid, flow.field).exists()
    frames = np.array([[[0.0, 0.0], [1.0, 2.0]], [[1.0, 0.0], [np.nan, np.nan]],
                       [[2.0, 0.0], [np.nan, np.nan]]])
    out = animate(tmp_path / "a.gif", grid, frames, groups=[0, 1], scale=4)
    gif = Image.open(out)
    assert gif.n_frames == 3 and gif.size == (40, 12)
    with pytest.raises(InvalidQueryError, match="GIF"):
        animate(tmp_path / "a.png", grid, frames)
    with pytest.raises(InvalidQueryError, match="shape"):
        animate(tmp_path / "b.gif", grid, np.zeros((3, 2)))
    with pytest.raises(InvalidQueryError, match="format"):
        save_flow(tmp_path / "f.bmp", grid, flow.field)
    with pytest.raises(InvalidQueryError, match="vectors"):
        render_flow_svg(grid, flow.field, vectors=np.zeros((2, 2, 2)))
    with pytest.raises(InvalidQueryError, match="every"):
        arrow_segments(flow.vectors, grid, every=0)
