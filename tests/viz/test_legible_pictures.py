"""Pictures that read at any size: start and goal discs sized with the picture and edged
light and dark, sparse expanded cells drawn as marks, and a colour bar under heat maps."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.grid import Grid, GridSearch, generate
from wayfinding.grid.methods import make_solver
from wayfinding.viz import PALETTE, render_png, render_svg
from wayfinding.viz.raster import HEAT_LEVELS, MARKER_FRACTION, _ramp, is_sparse, rgb

Image = pytest.importorskip("PIL.Image")
SVG = "{http://www.w3.org/2000/svg}"


def _pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(np.int64)


def _count(pixels: np.ndarray, colour: str) -> int:
    return int((pixels == np.asarray(rgb(colour))).all(axis=-1).sum())


@pytest.fixture(scope="module")
def cave() -> Grid:
    return generate.caves(160, 120, seed=3)


@pytest.fixture(scope="module")
def ends(cave):
    free = np.argwhere(cave.passable)[:, ::-1]
    return tuple(free[0].tolist()), tuple(free[-1].tolist())


# ---------------------------------------------------------------------- start and goal
def test_marker_footprint_grows_with_the_picture():
    grid = Grid(np.ones((150, 200), dtype=bool))
    areas = []
    for scale in (2, 4, 8):
        pixels = _pixels(render_png(grid, start=(100, 75), scale=scale))
        r = MARKER_FRACTION * 200 * scale
        area = _count(pixels, PALETTE["start"])
        # the fill inside the light edge: a disc of radius r less the edge's width
        inner = r - max(1, round(r / 5))
        assert 0.8 * math.pi * inner ** 2 <= area <= 1.1 * math.pi * r ** 2
        areas.append(area)
    assert areas[0] < areas[1] < areas[2]
    assert areas[2] > 10 * areas[0]


def test_markers_keep_their_size_on_the_picture_whatever_the_map():
    small = _pixels(render_png(Grid(np.ones((40, 50), dtype=bool)), goal=(25, 20)))
    large = _pixels(render_png(Grid(np.ones((400, 500), dtype=bool)), goal=(250, 200)))
    a = _count(small, PALETTE["goal"]) / small.shape[1] ** 2
    b = _count(large, PALETTE["goal"]) / large.shape[1] ** 2
    assert b == pytest.approx(a, rel=0.25)
    # a cell of the large map is 2 px: a disc a cell wide would cover about 3 pixels
    assert _count(large, PALETTE["goal"]) > 200


@pytest.mark.parametrize("background", ["blocked", "free"])
def test_markers_have_a_light_and_a_dark_edge(background):
    grid = Grid(np.full((60, 80), background == "free"))
    # a start on a blocked cell is refused by no renderer: the picture shows what it is given
    pixels = _pixels(render_png(grid, start=(40, 30), scale=4))
    box = pixels[90:150, 130:190]
    assert _count(box, PALETTE["outline"]) > 20
    assert _count(box, PALETTE["ring"]) > 20


def test_svg_markers_are_sized_with_the_picture():
    def radius(shape):
        grid = Grid(np.ones(shape, dtype=bool))
        root = ET.fromstring(render_svg(grid, start=(1, 1)))
        px = float(root.get("width")) / shape[1]
        circle = next(c for c in root.iter(f"{SVG}circle") if c.get("class") == "start")
        return float(circle.get("r")) * px

    assert radius((40, 50)) == pytest.approx(MARKER_FRACTION * 800, rel=0.01)
    assert radius((400, 500)) == pytest.approx(MARKER_FRACTION * 800, rel=0.01)


# ---------------------------------------------------------------------- expanded cells
def _reference_sparse(cells: list[tuple[int, int]]) -> bool:
    """Fewer than half the distinct cells have a side neighbour among them."""
    s = set(cells)
    if not s:
        return False
    touching = sum(any((x + dx, y + dy) in s for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
                   for x, y in s)
    return touching < 0.5 * len(s)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 9)), max_size=40))
def test_sparse_agrees_with_a_reference(cells):
    arr = np.array(cells, dtype=np.int64).reshape(-1, 2)
    assert is_sparse(arr) == _reference_sparse(cells)


def test_jps_expansions_show_as_marks(cave, ends):
    r = make_solver(cave, "jps", record=True)(*ends)
    assert r.found and 20 < r.stats.expanded < 2000
    marked = _pixels(render_png(cave, explored=r, path=r, start=ends[0], goal=ends[1]))
    tinted = _pixels(render_png(cave, explored=r, path=r, start=ends[0], goal=ends[1],
                                marks=False))
    n = len(r.expanded_nodes)
    # each mark is a disc of at least 2.5 px radius; neighbouring marks may overlap
    assert _count(marked, PALETTE["explored_mark"]) > 6 * n
    assert _count(tinted, PALETTE["explored_mark"]) == 0


def test_astar_expansions_stay_a_tint(cave, ends):
    r = GridSearch(cave).find_path(*ends, record=True)
    pixels = _pixels(render_png(cave, explored=r))
    assert not is_sparse(np.asarray(r.expanded_nodes))
    assert _count(pixels, PALETTE["explored_mark"]) == 0


def test_svg_draws_marks_for_sparse_expansions(cave, ends):
    r = make_solver(cave, "jps", record=True)(*ends)
    root = ET.fromstring(render_svg(cave, explored=r))
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "marks"]
    assert len(groups) == 1
    assert len(list(groups[0])) == len(np.unique(np.asarray(r.expanded_nodes), axis=0))
    assert not [g for g in ET.fromstring(render_svg(cave, explored=r, marks=False)).iter(
        f"{SVG}g") if g.get("class") == "marks"]


def test_bad_marks_option(cave):
    from wayfinding.errors import InvalidQueryError

    with pytest.raises(InvalidQueryError, match="marks"):
        render_svg(cave, explored=[(1, 1)], marks="yes")


# ---------------------------------------------------------------------- colour bar
def _ramp_position(colours: np.ndarray) -> np.ndarray:
    """For each RGB colour, the position in [0, 1] of the nearest colour of the heat ramp."""
    t = np.linspace(0, 1, 2001)
    ramp = _ramp(t)
    d = ((colours[:, None, :] - ramp[None]) ** 2).sum(axis=-1)
    return t[np.argmin(d, axis=1)]


def test_png_heat_map_has_a_monotonic_colour_bar(cave, ends):
    d = GridSearch(cave).distance_map(ends[0])
    data = render_png(cave, distances=d, scale=4, heat_label="cost from the start")
    pixels = _pixels(data)
    h = cave.height * 4
    assert pixels.shape[0] > h + 20 and pixels.shape[1] == cave.width * 4
    strip = pixels[h:]
    # the bar: the rows of the strip least covered by its background
    covered = (strip != np.asarray(rgb(PALETTE["bar"]))).any(axis=-1)
    row = strip[int(np.argmax(covered.sum(axis=1)))]
    bar = row[(row != np.asarray(rgb(PALETTE["bar"]))).any(axis=1)].astype(np.float64)
    pos = _ramp_position(bar)
    assert len(bar) > 0.9 * cave.width * 4
    assert (np.diff(pos) >= -1e-9).all()
    assert pos[0] == 0 and pos[-1] == 1
    assert len(np.unique(pos)) == HEAT_LEVELS
    # lettering under the bar (the values and the label)
    bar_rows = np.flatnonzero(covered.sum(axis=1) > 0.9 * cave.width * 4)
    below = strip[bar_rows[-1] + 1:]
    assert ((below < 100).all(axis=-1)).sum() > 30
    plain = _pixels(render_png(cave, distances=d, scale=4, colour_bar=False))
    assert plain.shape[0] == h


def test_svg_colour_bar_gives_the_range_of_the_values(cave, ends):
    d = GridSearch(cave).distance_map(ends[0])
    finite = d[cave.passable & np.isfinite(d)]
    root = ET.fromstring(render_svg(cave, distances=d, heat_label="cost"))
    bar = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "colour-bar")
    bands = [e for e in bar if e.get("class") == "bar-band"]
    assert len(bands) == HEAT_LEVELS
    fills = np.array([rgb(b.get("fill")) for b in bands], dtype=np.float64)
    xs = [float(b.get("x")) for b in bands]
    assert xs == sorted(xs)
    assert (np.diff(_ramp_position(fills)) > 0).all()
    texts = {e.get("class"): e.text for e in bar if e.tag == f"{SVG}text"}
    assert float(texts["bar-min"]) == pytest.approx(finite.min(), rel=1e-3)
    assert float(texts["bar-max"]) == pytest.approx(finite.max(), rel=1e-3)
    assert texts["bar-label"] == "cost"
    assert float(root.get("height")) > 800 * cave.height / cave.width
    assert not [g for g in ET.fromstring(render_svg(cave)).iter(f"{SVG}g")
                if g.get("class") == "colour-bar"]
