"""The demo's climbing section: its pictures and table, two climbers on different routes
that both reach the roof, and a platform's path that moves with it."""

import numpy as np
import pytest

from wayfinding.climbing import climbing_wall
from wayfinding.demo.climbing import WALL, climbing_section, platform, two_climbers

pytest.importorskip("PIL.Image")


def test_the_section_draws_the_wall_the_climbers_and_the_platform(tmp_path):
    text = climbing_section(tmp_path)
    assert text.startswith("<h2>Climbing</h2>")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["climbing-platform-after.png", "climbing-platform-before.png",
                     "climbing-reservations.png", "climbing-wall.png"]
    assert all(f"src='{n}'" in text for n in names)


def test_two_climbers_take_different_routes_and_both_reach_the_roof():
    wall = climbing_wall(**WALL)
    paths, tracks = two_climbers(wall)
    first, second = ({int(e) for e in p.edges if e >= 0} for p in paths)
    assert first and second and not first & second
    assert paths[1].length > paths[0].length
    for path, track in zip(paths, tracks):
        assert np.linalg.norm(track[-1] - path.points[-1]) <= 0.25
        assert track[-1][2] == pytest.approx(wall.height)


def test_the_platforms_path_moves_with_it():
    _, graph, before, moved, carried, replanned = platform()
    assert np.allclose(carried.points[1:], replanned.points)
    assert np.array_equal(carried.edges[1:], replanned.edges)
    assert carried.length == pytest.approx(before.length)
    assert np.allclose(np.linalg.norm(np.diff(carried.points, axis=0), axis=1),
                       np.linalg.norm(np.diff(before.points, axis=0), axis=1))
    assert not np.allclose(moved.nodes, graph.nodes)
