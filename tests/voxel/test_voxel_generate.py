"""Generated voxel worlds: deterministic, well connected (one component, checked against
scipy's labelling), with the promised shapes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from scipy import ndimage

from wayfinding.errors import InvalidGridError
from wayfinding.voxel import generate
from wayfinding.voxel.grid import VoxelGrid

GENERATORS: list[Callable[..., VoxelGrid]] = [
    generate.random_voxels, generate.asteroids, generate.towers, generate.tunnels]


@pytest.mark.parametrize("make", GENERATORS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("size", [(20, 12, 16), (33, 30, 9)])
def test_worlds_are_seeded_and_well_connected(make: Callable[..., VoxelGrid],
                                              size: tuple[int, int, int]) -> None:
    g = make(size, seed=5)
    assert g.size == size and g.connectivity == 26
    assert g == make(size, seed=5) and g != make(size, seed=6)
    labels, count = ndimage.label(~g.blocked)
    assert count == 1
    assert 0.05 < g.num_free / g.num_voxels < 1.0


def test_random_density() -> None:
    g = generate.random_voxels((40, 40, 40), density=0.2, seed=1)
    assert 0.77 < g.num_free / g.num_voxels < 0.81
    assert generate.random_voxels((4, 4, 4), density=0.0).num_free == 64


def test_city_has_ground_open_sky_and_bridges() -> None:
    g = generate.towers((60, 24, 60), bridges=1.0, seed=2)
    b = g.blocked
    assert b[:, 0, :].all() and not b[:, -3:, :].any()
    # A bridge: a blocked voxel with free voxels right below and above it, off the ground.
    floating = b[:, 2:-1, :] & ~b[:, 1:-2, :] & ~b[:, 3:, :]
    assert floating.any()
    none = generate.towers((60, 24, 60), bridges=0.0, seed=2).blocked
    assert not (none[:, 2:-1, :] & ~none[:, 1:-2, :] & ~none[:, 3:, :]).any()


def test_caves_are_mostly_rock_and_asteroids_mostly_space() -> None:
    assert generate.tunnels((40, 20, 40), seed=3).num_free / 32000 < 0.5
    assert generate.asteroids((40, 20, 40), seed=3).num_free / 32000 > 0.5
    assert generate.asteroids((10, 10, 10), count=0).num_free == 1000


@pytest.mark.parametrize(("make", "args", "match"), [
    (generate.random_voxels, {"size": (4, 4)}, "three integers"),
    (generate.random_voxels, {"size": 4}, "three integers"),
    (generate.random_voxels, {"size": (4, 0, 4)}, r"size\[1\]"),
    (generate.random_voxels, {"size": (4, 4, 4), "density": 1.0}, "density"),
    (generate.random_voxels, {"size": (4, 4, 4), "seed": -1}, "seed"),
    (generate.asteroids, {"size": (4, 4, 4), "radius": 3}, "pair"),
    (generate.asteroids, {"size": (4, 4, 4), "radius": (3, 2)}, "radius maximum"),
    (generate.asteroids, {"size": (4, 4, 4), "count": -1}, "count"),
    (generate.towers, {"size": (4, 4, 4), "street": 0}, "street"),
    (generate.towers, {"size": (4, 4, 4), "bridges": 2}, "bridges"),
    (generate.tunnels, {"size": (2, 4, 4)}, r"size\[0\]"),
    (generate.tunnels, {"size": (8, 8, 8), "chambers": 0}, "chambers"),
])
def test_bad_arguments(make: Callable[..., VoxelGrid], args: dict[str, Any],
                       match: str) -> None:
    with pytest.raises(InvalidGridError, match=match):
        make(**args)

