"""Animations share one canvas: every frame of a GIF has its size, every animator makes GIFs
the same width by default, and agents are discs of their own radius on the picture."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding.crowd.metrics import Run
from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.navmesh3d import build, generate
from wayfinding.viz.crowd import EDGE, animate_run
from wayfinding.viz.fields import animate
from wayfinding.viz.navmesh3d import animate_navmesh3d
from wayfinding.viz.raster import GIF_PX, MIN_GIF_ASPECT, write_gif
from wayfinding.viz.voxel import animate_voxels
from wayfinding.voxel.grid import VoxelGrid

Image = pytest.importorskip("PIL.Image")


def _frames(path) -> list[np.ndarray]:
    gif = Image.open(path)
    out = []
    for i in range(gif.n_frames):
        gif.seek(i)
        out.append(np.asarray(gif.convert("RGB")).astype(np.int64))
    return out


def _count(pixels: np.ndarray, colours) -> int:
    hit = np.zeros(pixels.shape[:2], dtype=bool)
    for c in colours:
        hit |= (pixels == np.asarray(c)).all(axis=-1)
    return int(hit.sum())


def _still_run(points, radii, *, drift: float = 0.0) -> Run:
    pos = np.asarray(points, dtype=float)[None].repeat(3, axis=0)
    pos[..., 0] += drift * np.arange(3)[:, None]
    return Run(arrived=np.full(len(points), np.inf), positions=pos, dt=0.1,
               radius=np.asarray(radii, dtype=float), goal=np.asarray(points, dtype=float))


# ---------------------------------------------------------------------- agents at radius
@pytest.mark.parametrize("size", [240, 480])
def test_crowd_agents_are_discs_of_their_radius(tmp_path, size):
    points, radii = [(0.0, 0.0), (10.0, 4.0)], [0.5, 1.5]
    run = _still_run(points, radii)
    out = animate_run(tmp_path / "r.gif", run, groups=[0, 1], size=size)
    frame = _frames(out)[0]
    # the scene: the points padded by the largest radius and one world unit
    span = np.ptp(np.asarray(points), axis=0) + 2 * (max(radii) + 1)
    scale = size / span.max()
    blue, red = (31, 119, 180), (214, 39, 40)
    for colour, r in ((blue, radii[0]), (red, radii[1])):
        # the disc is its fill and the edge inside it; the edge colour is shared, so count
        # the edge pixels next to this agent's fill only
        fill = (frame == np.asarray(colour)).all(axis=-1)
        ys, xs = np.nonzero(fill)
        box = frame[ys.min() - 2:ys.max() + 3, xs.min() - 2:xs.max() + 3]
        area = _count(box, [colour, EDGE])
        expected = math.pi * (r * scale) ** 2
        assert area == pytest.approx(expected, rel=0.12)


def test_field_agents_are_discs_of_their_radius(tmp_path):
    grid = Grid(np.ones((10, 16), dtype=bool))
    frames = np.array([[[8.0, 5.0]]] * 2)
    out = animate(tmp_path / "f.gif", grid, frames, radius=0.4, scale=30)
    frame = _frames(out)[0]
    area = _count(frame, [(31, 119, 180), (40, 40, 40)])
    assert area == pytest.approx(math.pi * (0.4 * 30) ** 2, rel=0.12)


def test_navmesh3d_agents_default_to_the_mesh_radius(tmp_path):
    mesh = build(generate.floor())
    pos = np.array([[[5.0, 0.0, 5.0]]] * 2)
    red = np.array([[255, 0, 0]], np.uint8)
    small = _frames(animate_navmesh3d(tmp_path / "a.gif", mesh, pos, colours=red))[0]
    large = _frames(animate_navmesh3d(tmp_path / "b.gif", mesh, pos, colours=red,
                                      radius=2 * mesh.settings.agent_radius))[0]
    a = _count(small, [(255, 0, 0), (20, 20, 20)])
    b = _count(large, [(255, 0, 0), (20, 20, 20)])
    assert b == pytest.approx(4 * a, rel=0.2)


def test_voxel_agents_grow_with_their_radius(tmp_path):
    g = VoxelGrid(np.zeros((8, 8, 8), bool))
    pos = np.array([[[4.0, 4.0, 4.0]]] * 2)
    one = _frames(animate_voxels(tmp_path / "a.gif", g, pos, colours=[(255, 0, 0)],
                                 radius=0.5))[0]
    two = _frames(animate_voxels(tmp_path / "b.gif", g, pos, colours=[(255, 0, 0)],
                                 radius=1.0))[0]
    a, b = _count(one, [(255, 0, 0), (20, 20, 20)]), _count(two, [(255, 0, 0), (20, 20, 20)])
    assert b == pytest.approx(4 * a, rel=0.2)


# ---------------------------------------------------------------------- one canvas
def _gifs(tmp_path) -> dict[str, object]:
    corridor = _still_run([(0.0, 0.0), (30.0, 1.0)], [0.3, 0.3], drift=1.0)  # long, thin
    tall = _still_run([(0.0, 0.0), (1.0, 20.0)], [0.3, 0.3], drift=0.5)     # tall, thin
    grid = Grid(np.ones((6, 40), dtype=bool))
    moving = np.stack([np.linspace(1, 30, 5), np.full(5, 3.0)], axis=1)[:, None, :]
    mesh = build(generate.floor())
    walk = np.stack([np.linspace(2, 8, 4), np.zeros(4), np.full(4, 5.0)], axis=1)[:, None]
    fly = np.stack([np.linspace(1, 7, 4), np.full(4, 4.0), np.full(4, 2.0)], axis=1)[:, None]
    return {
        "corridor": animate_run(tmp_path / "c.gif", corridor),
        "tall": animate_run(tmp_path / "t.gif", tall),
        "field": animate(tmp_path / "f.gif", grid, moving),
        "navmesh3d": animate_navmesh3d(tmp_path / "n.gif", mesh, walk),
        "voxels": animate_voxels(tmp_path / "v.gif", VoxelGrid(np.zeros((8, 8, 8), bool)),
                                 fly),
    }


def test_every_animation_has_one_canvas_and_the_default_width(tmp_path):
    for name, path in _gifs(tmp_path).items():
        frames = _frames(path)
        assert len(frames) > 1, name
        shapes = {f.shape for f in frames}
        assert len(shapes) == 1, name
        height, width, _ = shapes.pop()
        assert width == GIF_PX, name
        assert math.ceil(GIF_PX * MIN_GIF_ASPECT) <= height <= GIF_PX, name


def test_gif_frames_must_share_a_size(tmp_path):
    images = [Image.new("P", (10, 10)), Image.new("P", (10, 12))]
    with pytest.raises(InvalidQueryError, match="one size"):
        write_gif(tmp_path / "x.gif", images, 10.0)
