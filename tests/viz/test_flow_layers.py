"""Flow pictures: the start and goal discs and the colour bar lie over the arrows, and the
PNG keeps its title."""

from __future__ import annotations

import io

import numpy as np
import pytest

from wayfinding.fields import FlowField
from wayfinding.grid import Grid
from wayfinding.viz import PALETTE
from wayfinding.viz.fields import render_flow_png, render_flow_svg
from wayfinding.viz.raster import rgb

Image = pytest.importorskip("PIL.Image")


def _flow():
    grid = Grid(np.ones((12, 16), dtype=bool))
    return grid, FlowField.build(grid, [(15, 6)])


def test_png_discs_are_drawn_over_the_arrows():
    grid, flow = _flow()
    # an arrow on every cell: without the discs on top, white strokes cross them
    img = Image.open(io.BytesIO(render_flow_png(grid, flow.field, vectors=flow.vectors,
                                                every=1, start=(2, 6), goal=(15, 6),
                                                scale=20, title="flow")))
    assert img.text["Title"] == "flow"
    pixels = np.asarray(img.convert("RGB"))
    for cell, key in (((2, 6), "start"), ((15, 6), "goal")):
        cx, cy = (cell[0] + 0.5) * 20, (cell[1] + 0.5) * 20
        disc = pixels[int(cy) - 4:int(cy) + 5, int(cx) - 4:int(cx) + 5]
        assert (disc == np.asarray(rgb(PALETTE[key]))).all()


def test_svg_arrows_lie_under_the_discs_and_the_bar():
    grid, flow = _flow()
    svg = render_flow_svg(grid, flow.field, vectors=flow.vectors, start=(2, 6), goal=(15, 6))
    arrows = svg.index('class="arrows"')
    assert arrows < svg.index('class="start"') and arrows < svg.index('class="goal"')
    assert arrows < svg.index('class="colour-bar"')
    assert svg.count('class="arrows"') == 1
