"""The SVG and PNG renderers: structure, colours, compactness and input checks."""

from __future__ import annotations

import io
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from wayfinding import find_path
from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid, distance_map
from wayfinding.viz import PALETTE, cell_colours, render_png, render_svg, save
from wayfinding.viz.raster import rgb

SVG = "{http://www.w3.org/2000/svg}"

MAZE = """
..........
.####.###.
.#......#.
.#.####.#.
.#......#.
.########.
..........
"""


@pytest.fixture
def grid() -> Grid:
    return Grid.from_ascii(MAZE)


@pytest.fixture
def result(grid):
    r = find_path(grid, (0, 0), (5, 4), record=True)
    assert r.found and len(r.path) > 3
    return r


def _rects(svg: str) -> list[ET.Element]:
    return ET.fromstring(svg).iter(f"{SVG}rect")


def _svg_picture(svg: str, shape: tuple[int, int]) -> np.ndarray:
    """Paint the SVG's cell rects (fill from the rect or its <g>; the colour bar's are left
    out) into an (H, W, 3) array."""
    root = ET.fromstring(svg)
    out = np.full(shape + (3,), -1, dtype=np.int64)
    parents = {child: parent for parent in root.iter() for child in parent}
    for r in root.iter(f"{SVG}rect"):
        if parents[r].get("class") == "colour-bar":
            continue
        fill = r.get("fill") or parents[r].get("fill")
        x, y = int(r.get("x", 0)), int(r.get("y", 0))
        w, h = int(r.get("width")), int(r.get("height"))
        out[y:y + h, x:x + w] = rgb(fill)
    return out


def _png(data: bytes):
    image = pytest.importorskip("PIL.Image")
    img = image.open(io.BytesIO(data))
    img.load()
    return img


def _centre_pixel(img, cell, scale):
    return img.getpixel((int((cell[0] + 0.5) * scale), int((cell[1] + 0.5) * scale)))[:3]


# ---------------------------------------------------------------------- SVG
def test_svg_parses_and_has_polyline_through_cell_centres(grid, result):
    svg = render_svg(grid, path=result, start=(0, 0), goal=(5, 4), cell_px=10)
    root = ET.fromstring(svg)
    assert root.get("width") == "100" and root.get("height") == "70"
    assert root.get("viewBox") == "0 0 10 7"
    lines = [e for e in root.iter(f"{SVG}polyline") if e.get("class") == "path"]
    assert len(lines) == 1
    points = lines[0].get("points").split()
    assert len(points) == len(result.path)
    got = np.array([[float(v) for v in p.split(",")] for p in points])
    np.testing.assert_allclose(got, result.path + 0.5)
    circles = {c.get("class"): c for c in root.iter(f"{SVG}circle")}
    assert (circles["start"].get("cx"), circles["start"].get("cy")) == ("0.5", "0.5")
    assert (circles["goal"].get("cx"), circles["goal"].get("cy")) == ("5.5", "4.5")


def test_svg_accepts_plain_array_path(grid, result):
    svg = render_svg(grid, path=np.asarray(result.path).tolist())
    assert svg == render_svg(grid, path=result)


def test_svg_rects_reproduce_cell_colours(grid, result):
    d = distance_map(grid, (0, 0))
    options = {"explored": result, "frontier": result, "distances": d}
    svg = render_svg(grid, **options)
    np.testing.assert_array_equal(_svg_picture(svg, grid.shape),
                                  cell_colours(grid, **options))


def test_svg_rects_cover_random_weighted_map():
    rng = np.random.default_rng(7)
    costs = rng.choice([1.0, 1.0, 2.0, 9.0, np.inf], size=(23, 31))
    g = Grid(costs)
    svg = render_svg(g)
    np.testing.assert_array_equal(_svg_picture(svg, g.shape), cell_colours(g))


def test_svg_merges_runs_into_few_rects():
    passable = np.ones((40, 60), dtype=bool)
    passable[10, 5:55] = False
    passable[20:30, 30] = False
    g = Grid(passable)
    rects = list(_rects(render_svg(g)))
    # background + one rect for the row wall + one for the column wall
    assert len(rects) == 3
    assert len(rects) < g.width * g.height


def test_svg_of_large_map_stays_compact():
    yy, xx = np.mgrid[0:512, 0:512]
    passable = ~(((xx % 16) < 3) & ((yy % 32) > 4)) & ~((yy % 64) == 0)
    g = Grid(passable)
    r = find_path(g, (4, 1), (500, 505), record=True)
    svg = render_svg(g, path=r, explored=r, frontier=r, distances=distance_map(g, (4, 1)))
    assert len(svg) < 3_000_000
    assert sum(1 for _ in _rects(svg)) < g.width * g.height // 10
    root = ET.fromstring(svg)
    assert float(root.get("width")) == pytest.approx(800)


def test_svg_default_size_is_about_800px(grid):
    root = ET.fromstring(render_svg(grid))
    assert float(root.get("width")) == pytest.approx(800)
    assert float(root.get("height")) == pytest.approx(800 * 7 / 10)


def test_svg_title_is_escaped(grid):
    root = ET.fromstring(render_svg(grid, title="A* <fast> & exact"))
    assert root.find(f"{SVG}title").text == "A* <fast> & exact"


def test_single_cell_path_renders_in_svg(grid):
    r = find_path(grid, (2, 2), (2, 2))
    assert len(r.path) == 1
    root = ET.fromstring(render_svg(grid, path=r, start=(2, 2), goal=(2, 2)))
    line = next(e for e in root.iter(f"{SVG}polyline"))
    assert line.get("points") == "2.5,2.5"
    classes = [c.get("class") for c in root.iter(f"{SVG}circle")]
    assert classes == ["path-dot", "start", "start-ring", "goal", "goal-ring"]


def test_path_not_found_draws_no_line():
    g = Grid.from_ascii("""
    .#.
    .#.
    """)
    r = find_path(g, (0, 0), (2, 0))
    assert not r.found
    root = ET.fromstring(render_svg(g, path=r))
    assert list(root.iter(f"{SVG}polyline")) == []


# ---------------------------------------------------------------------- colours
def test_blocked_free_and_terrain_colours():
    g = Grid.from_ascii("""
    .~^#
    """, terrain={"~": 2.0, "^": 8.0})
    c = cell_colours(g)
    assert tuple(c[0, 0]) == rgb(PALETTE["free"])
    assert tuple(c[0, 3]) == rgb(PALETTE["blocked"])
    assert tuple(c[0, 2]) == rgb(PALETTE["terrain"])
    brightness = c[0].astype(int).sum(axis=1)
    assert brightness[0] > brightness[1] > brightness[2]


def test_explored_and_frontier_tints_differ(grid, result):
    c = cell_colours(grid, explored=[(0, 0)], frontier=[(1, 0)])
    free = rgb(PALETTE["free"])
    assert tuple(c[0, 0]) != free and tuple(c[0, 1]) != free
    assert tuple(c[0, 0]) != tuple(c[0, 1])
    assert tuple(c[0, 2]) == free
    recorded = cell_colours(grid, explored=result)
    x, y = result.expanded_nodes[0]
    assert tuple(recorded[y, x]) == tuple(c[0, 0])


# ---------------------------------------------------------------------- PNG
def test_png_size_and_path_colour(grid, result):
    img = _png(render_png(grid, path=result, start=(0, 0), goal=(5, 4), scale=9))
    assert img.format == "PNG" and img.size == (10 * 9, 7 * 9)
    middle = result.path[len(result.path) // 2]
    assert _centre_pixel(img, middle, 9) == rgb(PALETTE["path"])
    assert _centre_pixel(img, (0, 0), 9) == rgb(PALETTE["start"])
    assert _centre_pixel(img, (5, 4), 9) == rgb(PALETTE["goal"])
    assert _centre_pixel(img, (1, 1), 9) == rgb(PALETTE["blocked"])
    assert _centre_pixel(img, (0, 6), 9) == rgb(PALETTE["free"])  # far from the path


@pytest.mark.parametrize("scale", [1, 2, 5])
def test_png_path_visible_at_small_scales(grid, result, scale):
    img = _png(render_png(grid, path=result, scale=scale))
    assert img.size == (10 * scale, 7 * scale)
    middle = result.path[len(result.path) // 2]
    assert _centre_pixel(img, middle, scale) == rgb(PALETTE["path"])


def test_png_default_scale_and_title(grid):
    img = _png(render_png(grid, title="maze"))
    assert img.size == (800, 560)
    assert img.text["Title"] == "maze"


def test_png_cells_match_cell_colours(grid, result):
    options = {"explored": result, "frontier": result, "distances": distance_map(grid, (0, 0))}
    img = _png(render_png(grid, scale=3, marks=False, **options))
    pixels = np.asarray(img.convert("RGB"))[:grid.height * 3]
    np.testing.assert_array_equal(pixels[1::3, 1::3], cell_colours(grid, **options))


def test_distance_heat_map_follows_distance():
    g = Grid.from_ascii("""
    ........#.
    ........#.
    """)
    d = distance_map(g, (0, 0))
    img = _png(render_png(g, distances=d, scale=4))
    near = _centre_pixel(img, (0, 0), 4)
    mid = _centre_pixel(img, (3, 0), 4)
    far = _centre_pixel(img, (7, 1), 4)
    assert near == rgb(PALETTE["heat"][0])
    assert far == rgb(PALETTE["heat"][-1])
    assert len({near, mid, far}) == 3
    assert _centre_pixel(img, (9, 0), 4) == rgb(PALETTE["free"])  # unreachable: inf, plain
    assert _centre_pixel(img, (8, 0), 4) == rgb(PALETTE["blocked"])
    assert _png(render_png(g, scale=4)).getpixel((14, 2))[:3] == rgb(PALETTE["free"])


def test_single_cell_path_renders_in_png(grid):
    r = find_path(grid, (2, 2), (2, 2))
    img = _png(render_png(grid, path=r, scale=10))
    assert _centre_pixel(img, (2, 2), 10) == rgb(PALETTE["path"])


def test_png_without_pillow_names_the_extra(grid, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    for name in [m for m in sys.modules if m.startswith("wayfinding.viz")]:
        monkeypatch.delitem(sys.modules, name)
    import wayfinding.viz as fresh

    assert fresh.render_svg(grid).startswith("<svg")
    with pytest.raises(ImportError, match=r"pip install 'wayfinding\[viz\]'"):
        fresh.render_png(grid)


# ---------------------------------------------------------------------- save
@pytest.mark.parametrize("suffix", [".svg", ".SVG", ".png"])
def test_save_picks_format_by_suffix(tmp_path, grid, result, suffix):
    if suffix == ".png":
        pytest.importorskip("PIL")
    target = tmp_path / f"maze{suffix}"
    out = save(str(target), grid, path=result)
    assert out == target and target.exists()
    data = target.read_bytes()
    if suffix.lower() == ".svg":
        ET.fromstring(data)
    else:
        assert _png(data).size == (800, 560)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


@pytest.mark.parametrize("name", ["maze.jpg", "maze", "maze.svg.gz"])
def test_save_rejects_other_suffixes(tmp_path, grid, name):
    with pytest.raises(InvalidQueryError, match="suffix") as err:
        save(tmp_path / name, grid)
    suffix = name[name.rfind("."):] if "." in name else "(none)"
    assert suffix in str(err.value)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------- bad input
BAD = [
    ({"distances": np.zeros((3, 4))}, r"\(3, 4\)"),
    ({"distances": np.zeros(70)}, r"\(70,\)"),
    ({"distances": np.full((7, 10), np.nan)}, "NaN"),
    ({"path": np.zeros((4, 3), dtype=int)}, r"\(4, 3\)"),
    ({"path": np.zeros(4, dtype=int)}, r"\(4,\)"),
    ({"path": [[True, False]]}, "integer"),
    ({"path": [[0.5, 1.0], [-0.5, 2.0]]}, "on the grid"),     # polylines: inside only
    ({"path": [(0, 0), (10, 0)]}, r"outside.*10x7"),
    ({"explored": np.zeros((2, 2, 2), dtype=int)}, r"\(2, 2, 2\)"),
    ({"frontier": [(-1, 0)]}, "outside"),
    ({"start": (10, 0)}, "outside"),
    ({"goal": (1, 2, 3)}, "goal"),
]


@pytest.mark.parametrize(("options", "message"), BAD)
@pytest.mark.parametrize("render", [render_svg, render_png])
def test_bad_input_raises(grid, render, options, message):
    if render is render_png:
        pytest.importorskip("PIL")
    with pytest.raises(InvalidQueryError, match=message):
        render(grid, **options)


def test_unrecorded_result_cannot_give_explored(grid):
    r = find_path(grid, (0, 0), (5, 4))
    with pytest.raises(InvalidQueryError, match="record=True"):
        render_svg(grid, explored=r)


@pytest.mark.parametrize("cell_px", [0, -2.0, float("nan"), float("inf"), True, "10"])
def test_bad_cell_px(grid, cell_px):
    with pytest.raises(InvalidQueryError, match="cell_px"):
        render_svg(grid, cell_px=cell_px)


@pytest.mark.parametrize("scale", [0, 2.5, True, "3"])
def test_bad_scale(grid, scale):
    with pytest.raises(InvalidQueryError, match="scale"):
        render_png(grid, scale=scale)


def test_not_a_grid():
    with pytest.raises(InvalidQueryError, match="Grid"):
        render_svg(np.ones((3, 3), dtype=bool))


def test_float_polylines_are_drawn_through_their_points(grid):
    svg = render_svg(grid, path=np.array([[0.5, 1.0], [2.0, 1.5], [3.25, 4.0]]))
    assert 'points="0.5,1 2,1.5 3.25,4"' in svg
    png = render_png(grid, path=np.array([[0.5, 1.0], [2.0, 1.5]]))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
