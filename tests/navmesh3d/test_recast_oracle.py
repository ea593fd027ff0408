"""Stage by stage against Recast itself (the npm WASM build under node, see
tests/recast_data.py): on levels made here and on Recast's test level, every span of the
solid and compact heightfields, the distance field and the region of every span must be
Recast's.  Exhaustive: ``make test-all``."""

from __future__ import annotations

import numpy as np
import pytest
from recast_data import nav_test, recast

from wayfinding.navmesh3d import (
    BuildSettings,
    ConvexVolume,
    Level,
    build_regions,
    compact,
    erode,
    filter_spans,
    generate,
    mark_volumes,
    rasterize,
)

pytestmark = pytest.mark.slow

LEVELS = {
    "stairs": lambda: generate.stairs(steps=6, rise=0.3),
    "ramp 35": lambda: generate.ramp(35),
    "ramp 50": lambda: generate.ramp(50),
    "bridge": lambda: generate.bridge(clearance=2.1),
    "thin walls": lambda: generate.thin_walls(gap=2.0),
    "building": generate.building,
    "terrain": lambda: generate.terrain(size=48, seed=3),
    "nav_test": nav_test,
    "stray vertices": lambda: with_stray_vertices(generate.stairs()),
}
SETTINGS = {
    "defaults": BuildSettings(),
    "fine": BuildSettings(cell_size=0.15, cell_height=0.1, agent_radius=0.3),
    "coarse, no filters": BuildSettings(cell_size=0.5, cell_height=0.3, agent_max_slope=30,
                                        filter_ledge_spans=False,
                                        filter_low_hanging_obstacles=False),
}


def with_stray_vertices(level: Level) -> Level:
    """``level`` with two vertices no triangle names, beyond its box in x and z."""
    stray = [[-2.3, 0.7, -1.9], [13.1, -0.4, 9.7]]
    return Level(np.concatenate([level.vertices, stray]), level.triangles)


def _compare(level: Level, settings: BuildSettings) -> None:
    ours_hf = rasterize(level, settings)
    theirs = recast(level, settings)
    hf = theirs["heightfield"]
    assert (ours_hf.width, ours_hf.depth) == (hf["width"], hf["height"])
    assert ours_hf.num_spans == hf["span_count"]
    assert ours_hf.area.tolist() == hf["areas_after_rasterize"]
    filtered = filter_spans(ours_hf, settings)
    columns = {c[0] + c[1] * filtered.width: c[2] for c in hf["columns"]}
    for c in range(filtered.width * filtered.depth):
        assert filtered.column(c % filtered.width, c // filtered.width).tolist() \
            == columns.get(c, []), c
    chf = compact(filtered, settings)
    spans = theirs["compact"]["spans"]
    assert chf.y.tolist() == spans["y"] and chf.h.tolist() == spans["h"]
    assert chf.con.tolist() == spans["con"]
    eroded = mark_volumes(erode(chf, settings), level.volumes)
    assert eroded.area.tolist() == spans["area"]
    regions = build_regions(eroded, settings)
    if settings.partition == "watershed":
        assert regions.max_distance == theirs["compact"]["max_distance"]
        assert regions.dist is not None and regions.dist.tolist() == spans["dist"]
    assert regions.max_regions == theirs["compact"]["max_regions"]
    assert regions.reg.tolist() == spans["reg"]


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@pytest.mark.parametrize("name", LEVELS, ids=str)
def test_every_stage_is_recast_s(name, settings):
    _compare(LEVELS[name](), SETTINGS[settings])


@pytest.mark.parametrize("partition", ["monotone", "layers"])
@pytest.mark.parametrize("name", ["building", "terrain", "nav_test"])
def test_the_sweeps_are_recast_s(name, partition):
    _compare(LEVELS[name](), BuildSettings(partition=partition))


def test_given_areas_and_random_soup():
    """Area ids given per triangle (the steep ones still cleared), and a random soup of
    overlapping triangles."""
    rng = np.random.default_rng(7)
    stairs = generate.stairs()
    areas = rng.integers(1, 64, stairs.num_triangles)
    _compare(Level(stairs.vertices, stairs.triangles, areas=areas), BuildSettings())
    v = rng.uniform(0, 12, (300, 3)) * np.array([1, 0.3, 1])
    t = rng.integers(0, 300, (200, 3))
    t = t[(t[:, 0] != t[:, 1]) & (t[:, 1] != t[:, 2]) & (t[:, 0] != t[:, 2])]
    _compare(Level(v, t, degenerate="drop"), BuildSettings(filter_ledge_spans=False))


def with_volumes(level: Level, seed: int, n: int = 6) -> Level:
    """``level`` with ``n`` random convex volumes over it (hulls of random points, some
    overlapping, some reaching past its sides, some thinner than a cell's height)."""
    from scipy.spatial import ConvexHull

    rng = np.random.default_rng(seed)
    lo, hi = level.bounds
    volumes = []
    for _ in range(n):
        centre = rng.uniform(lo[[0, 2]] - 1, hi[[0, 2]] + 1)
        pts = centre + rng.normal(0, rng.uniform(0.3, 4), (8, 2))
        ring = pts[ConvexHull(pts).vertices]
        y = rng.uniform(lo[1] - 0.5, hi[1])
        volumes.append(ConvexVolume(ring, y, y + rng.choice([0.05, 1.0, 10.0]),
                                    area=int(rng.integers(0, 64))))
    return Level(level.vertices, level.triangles, areas=level.areas, volumes=tuple(volumes))


def random_case(seed: int) -> tuple[Level, BuildSettings]:
    """A generated level with random shapes and random build settings (every partition and
    filter; sample distances of at least 0.9 cells, as Recast fails without samples)."""
    rng = np.random.default_rng(seed)

    def u(lo: float, hi: float) -> float:
        return float(rng.uniform(lo, hi))

    level = [
        lambda: generate.terrain(size=int(rng.integers(8, 40)), cell=u(0.3, 2),
                                 height=u(0, 12), seed=int(rng.integers(1000))),
        lambda: generate.stairs(steps=int(rng.integers(1, 14)), rise=u(0.05, 0.6),
                                run=u(0.2, 1.0), width=u(0.5, 5)),
        lambda: generate.ramp(u(0, 70), length=u(2, 12), width=u(0.5, 5)),
        lambda: generate.bridge(clearance=u(0.5, 4), span=u(3, 12), width=u(0.5, 4)),
        lambda: generate.thin_walls(thickness=u(0.02, 0.6), size=u(4, 16), gap=u(0.3, 3)),
        lambda: generate.building(storeys=int(rng.integers(1, 4)), storey_height=u(2, 4),
                                  size=u(6, 16)),
        lambda: generate.multi_storey(height=u(2.8, 4), width=u(11, 20)),
    ][int(rng.integers(7))]()
    settings = BuildSettings(
        cell_size=float(rng.choice([0.2, 0.25, 0.3, 0.45, 0.6])),
        cell_height=float(rng.choice([0.05, 0.1, 0.2, 0.3, 0.4])),
        agent_height=u(0.5, 3), agent_radius=u(0, 1.2), agent_max_climb=u(0, 1.5),
        agent_max_slope=u(10, 80), region_min_size=float(rng.integers(0, 20)),
        region_merge_size=float(rng.integers(0, 40)),
        edge_max_len=float(rng.choice([0, 3, 12, 40])), edge_max_error=u(0.5, 3),
        verts_per_poly=int(rng.integers(3, 7)),
        detail_sample_dist=float(rng.choice([1, 3, 6])), detail_sample_max_error=u(0.2, 2),
        partition=str(rng.choice(["watershed", "monotone", "layers"])),
        filter_low_hanging_obstacles=bool(rng.integers(2)),
        filter_ledge_spans=bool(rng.integers(2)),
        filter_walkable_low_height_spans=bool(rng.integers(2)))
    return level, settings


@pytest.mark.parametrize("seed", range(24))
def test_random_levels_and_settings_are_recast_s(seed):
    _compare(*random_case(seed))


@pytest.mark.parametrize("partition", ["watershed", "monotone", "layers"])
@pytest.mark.parametrize("name", ["stairs", "building", "terrain", "nav_test"])
def test_convex_volumes_are_marked_as_recast_marks_them(name, partition):
    for seed in range(3):
        _compare(with_volumes(LEVELS[name](), seed), BuildSettings(partition=partition))


@pytest.mark.parametrize("partition", ["watershed", "monotone", "layers"])
def test_a_level_without_walkable_spans_is_recast_s(partition):
    """Nothing walkable (no slope is flat enough): no region, and Recast's count still 1."""
    _compare(generate.stairs(), BuildSettings(agent_max_slope=0.0, partition=partition))
