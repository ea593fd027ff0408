"""Voxel pictures: the isometric PNG covers each drawn voxel's hexagon without holes, hides
what is behind, shows paths, and the HTML viewer holds every open face (counted here by a
plain loop over the voxels) and the paths."""

from __future__ import annotations

import html.parser
import io
import itertools
import json
import math
import re

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.results import PathResult
from wayfinding.viz.voxel import (
    BACKGROUND,
    animate_voxels,
    render_voxels_png,
    save_voxels,
    voxels_html,
)
from wayfinding.voxel.grid import VoxelGrid

Image = pytest.importorskip("PIL.Image")


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def drawn(a: np.ndarray) -> np.ndarray:
    return (a != np.array(BACKGROUND, np.uint8)).any(axis=2)


def one_voxel(n: int = 3, at: tuple[int, int, int] = (1, 1, 1)) -> VoxelGrid:
    b = np.zeros((n, n, n), bool)
    b[at[2], at[1], at[0]] = True
    return VoxelGrid(b)


@pytest.mark.parametrize("size", [64, 200, 800])
def test_picture_fits_its_size_and_is_not_blank(size):
    rng = np.random.default_rng(1)
    g = VoxelGrid(rng.random((6, 10, 14)) < 0.3)
    a = pixels(render_voxels_png(g, size=size))
    assert max(a.shape[:2]) <= size and max(a.shape[:2]) >= size - 2
    assert drawn(a).mean() > 0.05
    # three shades of faces at least
    assert len({tuple(c) for c in a[drawn(a)].tolist()}) >= 3


@pytest.mark.parametrize("up", ["x", "y", "z"])
def test_one_voxel_covers_its_hexagon_without_holes(up):
    g = one_voxel()
    size = 400
    a = pixels(render_voxels_png(g, size=size, up=up))
    # the picture's scale: a 3 x 3 x 3 grid spans 6 * cos 30 voxel edges across
    k = (size - 12) / max(6 * math.sqrt(3) / 2, 3 + 3)
    area = 3 * math.sqrt(3) / 2 * k * k                  # a regular hexagon of edge k
    assert drawn(a).sum() == pytest.approx(area, rel=0.06)
    # one connected blob, no background pixel enclosed
    ys, xs = np.nonzero(drawn(a))
    for y in range(ys.min() + 2, ys.max() - 1):
        row = np.nonzero(drawn(a)[y])[0]
        assert row.max() - row.min() + 1 == len(row)


def test_a_voxel_behind_another_on_the_line_of_sight_is_hidden():
    both = np.zeros((3, 3, 3), bool)
    both[0, 0, 0] = both[1, 1, 1] = True
    front = np.zeros((3, 3, 3), bool)
    front[1, 1, 1] = True
    a = pixels(render_voxels_png(VoxelGrid(both), size=300, up="z"))
    b = pixels(render_voxels_png(VoxelGrid(front), size=300, up="z"))
    assert np.array_equal(a, b)
    behind = np.zeros((3, 3, 3), bool)
    behind[0, 0, 0] = True
    c = pixels(render_voxels_png(VoxelGrid(behind), size=300, up="z"))
    assert not np.array_equal(a, c)


def test_a_path_changes_pixels_along_it():
    g = VoxelGrid(np.zeros((8, 8, 8), bool))
    base = pixels(render_voxels_png(g, size=200))
    path = np.array([[0, 0, 0], [7, 7, 7]])
    for value in (path, PathResult(path, 1.0, True), path.astype(float) + 0.5):
        a = pixels(render_voxels_png(g, paths=value, size=200))
        assert a.shape == base.shape and (a != base).any(axis=2).sum() > 50
    assert np.array_equal(pixels(render_voxels_png(g, paths=[], size=200)), base)
    ends = pixels(render_voxels_png(g, start=(0, 0, 0), goal=(7, 7, 7), size=200))
    assert (ends != base).any(axis=2).sum() > 20


def test_boxes_are_outlined():
    g = VoxelGrid(np.zeros((4, 4, 4), bool))
    base = pixels(render_voxels_png(g, size=200))
    a = pixels(render_voxels_png(g, boxes=[[[0, 0, 0], [2, 2, 2]]], size=200))
    assert (a != base).any(axis=2).sum() > 30


def test_large_grids_are_merged_into_blocks_and_stay_quick():
    g = VoxelGrid(np.random.default_rng(3).random((120, 200, 300)) < 0.02)
    a = pixels(render_voxels_png(g, size=300))
    assert max(a.shape[:2]) <= 300 and drawn(a).any()


def test_empty_grid_is_background():
    a = pixels(render_voxels_png(VoxelGrid(np.zeros((3, 4, 5), bool)), size=100))
    assert not drawn(a).any()


def open_faces(blocked: np.ndarray) -> set[tuple[int, int, int, int]]:
    """Open faces ``(x, y, z, d)`` in the grid's own axes, by a plain loop."""
    nz, ny, nx = blocked.shape
    out = set()
    for z, y, x in itertools.product(range(nz), range(ny), range(nx)):
        if not blocked[z, y, x]:
            continue
        for axis, positive in itertools.product(range(3), (0, 1)):
            c = [x, y, z]
            c[axis] += 1 if positive else -1
            inside = 0 <= c[0] < nx and 0 <= c[1] < ny and 0 <= c[2] < nz
            if not inside or not blocked[c[2], c[1], c[0]]:
                out.add((x, y, z, 2 * axis + positive))
    return out


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.ok = True

    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        self.ok &= bool(self.stack) and self.stack.pop() == tag


def page_data(page: str) -> dict:
    tags = _Tags()
    tags.feed(page)
    assert tags.ok and not tags.stack
    assert page.startswith("<!doctype html>") and "https://" not in page
    return json.loads(re.search(r"const DATA = (\{.*?\});\n", page).group(1))


@pytest.mark.parametrize("up", ["y", "z"])
def test_html_holds_every_open_face_and_the_paths(up):
    rng = np.random.default_rng(5)
    blocked = rng.random((4, 5, 6)) < 0.4
    g = VoxelGrid(blocked)
    path = np.array([[0, 0, 0], [5, 4, 3]])
    data = page_data(voxels_html(g, paths=[path], start=(0, 0, 0), goal=(5, 4, 3), up=up,
                                 title="a <b> & c"))
    assert data["block"] == 1
    # the page's frame (X, Y, Z up) is a cyclic permutation of the grid's axes
    order = (2, 0, 1) if up == "y" else (0, 1, 2)
    faces = np.array(data["faces"]).reshape(-1, 4)
    back = set()
    for X, Y, Z, d in faces.tolist():
        cell = [0, 0, 0]
        for frame_axis, grid_axis in enumerate(order):
            cell[grid_axis] = (X, Y, Z)[frame_axis]
        back.add((*cell, 2 * order[d >> 1] + (d & 1)))
    assert back == open_faces(blocked) and len(back) == len(faces)
    assert data["paths"] == [(path[:, list(order)] + 0.5).ravel().tolist()]
    assert data["ends"] == [[0.5] * 3, (np.array([5, 4, 3])[list(order)] + 0.5).tolist()]


def test_html_merges_blocks_under_a_face_budget():
    g = VoxelGrid(np.random.default_rng(2).random((16, 16, 16)) < 0.5)
    data = page_data(voxels_html(g, max_faces=200))
    assert data["block"] > 1 and len(data["faces"]) // 4 <= 200


def test_save_picks_the_format_from_the_suffix(tmp_path):
    g = one_voxel()
    assert save_voxels(tmp_path / "a.png", g).read_bytes()[:4] == b"\x89PNG"
    assert "<canvas" in save_voxels(tmp_path / "a.html", g).read_text()
    with pytest.raises(InvalidQueryError, match="suffix"):
        save_voxels(tmp_path / "a.gif", g)
    assert not (tmp_path / "a.gif").exists()


@pytest.mark.parametrize("bad", [
    {"paths": [np.zeros((3, 2), int)]}, {"paths": "abc"}, {"up": "w"},
    {"boxes": [[[0, 0, 0], [0, 1, 1]]]}, {"size": 4}, {"start": (0, 0)},
    {"paths": [np.array([[0.0, 0.0, np.nan]])]}])
def test_bad_options_are_refused(bad):
    with pytest.raises(InvalidQueryError):
        render_voxels_png(one_voxel(), **bad)


def test_not_a_grid_is_refused():
    with pytest.raises(InvalidQueryError, match="VoxelGrid"):
        voxels_html(np.zeros((2, 2, 2)))


def flight(frames: int = 4) -> np.ndarray:
    """Two agents crossing an empty 8-voxel cube, one absent in the last frame."""
    t = np.linspace(0.5, 7.5, frames)[:, None]
    a = np.concatenate([t, t, t], axis=1)
    b = np.concatenate([8 - t, t, np.full_like(t, 4.0)], axis=1)
    pos = np.stack([a, b], axis=1)
    pos[-1, 1] = np.nan
    return pos


def test_animation_has_a_frame_per_step_and_shows_the_agents(tmp_path):
    g = VoxelGrid(np.zeros((8, 8, 8), bool))
    path = save_voxels(tmp_path / "still.png", g, size=200)
    still = pixels(path.read_bytes())
    out = animate_voxels(tmp_path / "a.gif", g, flight(), size=200, colours=[(255, 0, 0),
                                                                               (0, 0, 255)])
    gif = Image.open(out)
    assert gif.n_frames == 4
    shots = []
    for i in range(gif.n_frames):
        gif.seek(i)
        shots.append(np.asarray(gif.convert("RGB")))
    # every frame is the canvas, 200 wide, with the still picture centred on it
    assert {s.shape for s in shots} == {shots[0].shape} and shots[0].shape[1] == 200
    dy = (shots[0].shape[0] - still.shape[0]) // 2
    dx = (shots[0].shape[1] - still.shape[1]) // 2
    shots = [s[dy:dy + still.shape[0], dx:dx + still.shape[1]] for s in shots]
    assert all((s != still).any(axis=2).sum() > 10 for s in shots)
    assert (shots[0] != shots[1]).any()
    with pytest.raises(InvalidQueryError, match="GIF"):
        animate_voxels(tmp_path / "a.png", g, flight())
    with pytest.raises(InvalidQueryError, match=r"\(T, n, 3\)"):
        animate_voxels(tmp_path / "b.gif", g, np.zeros((3, 2)))


def test_html_plays_the_agents_in_the_frame_of_the_page():
    g = VoxelGrid(np.zeros((8, 8, 8), bool), origin=(10.0, 0.0, 0.0), voxel_size=2.0)
    pos = flight(3) * 2 + np.array([10.0, 0.0, 0.0])
    data = page_data(voxels_html(g, agents=pos, fps=5, up="z"))
    assert len(data["agents"]) == 3 and data["ms"] == 200.0
    first = np.array(data["agents"][0]).reshape(-1, 6)
    assert np.allclose(first[:, :3], flight(3)[0], atol=1e-3)
    assert np.allclose(first[:, 3:], 1.0)
    assert len(data["agents"][-1]) == 6                   # the absent agent is left out
    with pytest.raises(InvalidQueryError, match="colours"):
        voxels_html(g, agents=pos, colours=[(300, 0, 0), (0, 0, 0)])
