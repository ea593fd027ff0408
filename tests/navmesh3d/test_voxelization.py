"""The voxel stages (rasterize, span filters, compact heightfield, erosion, volumes, median
filter): Recast's figures on its test level, and properties on levels made here whose answer
is known (slope limits, climbs, clearance under a bridge, walls thinner than a cell)."""

from __future__ import annotations

import numpy as np
import pytest
from recast_data import nav_test
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from wayfinding.errors import InvalidGeometryError, InvalidQueryError
from wayfinding.navmesh3d import (
    BuildSettings,
    CompactHeightfield,
    ConvexVolume,
    Level,
    build,
    build_regions,
    compact,
    distance_field,
    erode,
    filter_spans,
    generate,
    mark_volumes,
    median_filter,
    rasterize,
)

DEFAULTS = BuildSettings()


def voxelize(level: Level, settings: BuildSettings = DEFAULTS) -> CompactHeightfield:
    return erode(compact(filter_spans(rasterize(level, settings), settings), settings), settings)


def spans_at(chf: CompactHeightfield, x: float, z: float) -> list[tuple[float, int]]:
    """(floor height, area) of the spans in the column under world point (x, z)."""
    cx = int((x - chf.bmin[0]) / chf.cell_size)
    cz = int((z - chf.bmin[2]) / chf.cell_size)
    c = cx + cz * chf.width
    return [(float(chf.bmin[1] + chf.y[i] * chf.cell_height), int(chf.area[i]))
            for i in range(chf.first[c], chf.first[c + 1])]


def span_at(chf: CompactHeightfield, x: float, z: float, k: int) -> int:
    """The index of span k (0: lowest, -1: highest) of the column under (x, z)."""
    cx = int((x - chf.bmin[0]) / chf.cell_size)
    cz = int((z - chf.bmin[2]) / chf.cell_size)
    c = cx + cz * chf.width
    return int(range(chf.first[c], chf.first[c + 1])[k])


def walkable_components(chf: CompactHeightfield) -> tuple[int, np.ndarray]:
    """Connected parts of the walkable spans through their links."""
    links = chf.links()
    walk = chf.area != 0
    src = np.repeat(np.arange(chf.num_spans), 4)
    dst = links.ravel()
    ok = (dst >= 0) & walk[src] & walk[np.maximum(dst, 0)]
    g = coo_matrix((np.ones(ok.sum()), (src[ok], dst[ok])), shape=(chf.num_spans,) * 2)
    n, labels = connected_components(g, directed=False)
    parts = np.unique(labels[walk])
    return len(parts), labels


def test_recast_figures_on_its_test_level():
    """Recast's grid and span counts on nav_test.obj with RecastDemo's defaults (the data
    README): 305 x 258 columns, 56,795 compact spans."""
    level = nav_test()
    hf = rasterize(level, DEFAULTS)
    assert (hf.width, hf.depth) == (305, 258)
    filtered = filter_spans(hf, DEFAULTS)
    chf = compact(filtered, DEFAULTS)
    assert chf.num_spans == filtered.num_walkable == 56_795
    assert erode(chf, DEFAULTS).num_walkable < chf.num_walkable


def test_spans_are_sorted_disjoint_and_inside_the_bounds():
    hf = rasterize(generate.building(), DEFAULTS)
    for c in range(hf.width * hf.depth):
        lo, hi = hf.smin[hf.first[c]:hf.first[c + 1]], hf.smax[hf.first[c]:hf.first[c + 1]]
        assert (lo < hi).all()
        assert (hi[:-1] < lo[1:]).all()     # touching spans merge
    top = (hf.bmax[1] - hf.bmin[1]) / np.float32(hf.cell_height)
    assert hf.smax.max() <= np.ceil(top)


@pytest.mark.parametrize("slope, walkable", [(20, True), (40, True), (50, False), (70, False)])
def test_slopes_above_the_limit_are_never_walkable(slope, walkable):
    chf = voxelize(generate.ramp(slope))
    mid = 3.0 + 3.0     # halfway up the ramp, on its centre line
    on_ramp = [area for y, area in spans_at(chf, mid, 1.5)]
    assert bool(on_ramp and max(on_ramp)) == walkable
    assert len(on_ramp) <= 1


@pytest.mark.parametrize("rise, joined", [(0.2, True), (0.8, True), (1.0, False), (1.6, False)])
def test_steps_above_the_climb_are_never_joined(rise, joined):
    """The climb is 0.9 (4 cell heights of 0.2, so 0.8): steps up to it join the floor
    to the landing, higher ones leave them apart."""
    chf = voxelize(generate.stairs(steps=3, rise=rise, run=1.5))
    _, labels = walkable_components(chf)
    floor_span, landing_span = span_at(chf, 1.5, 1.5, 0), span_at(chf, 9.0, 1.5, -1)
    assert chf.area[floor_span] and chf.area[landing_span]
    assert (labels[floor_span] == labels[landing_span]) == joined


@pytest.mark.parametrize("clearance, under_walkable", [(3.0, True), (2.2, True), (1.5, False)])
def test_an_agent_fits_above_every_walkable_span(clearance, under_walkable):
    """Under a bridge with less room than the agent's 2.0, the floor is not walkable; the
    deck on top is walkable either way."""
    chf = voxelize(generate.bridge(clearance=clearance))
    column = spans_at(chf, 4.0, 4.0)
    assert len(column) == (2 if under_walkable else 1)
    deck_y, deck_area = column[-1]
    assert deck_area and deck_y == pytest.approx(clearance + 0.3, abs=0.25)
    assert bool(column[0][1]) == under_walkable or not under_walkable
    walk = chf.area != 0
    assert (chf.h[walk] >= DEFAULTS.voxels().walkable_height).all()


@pytest.mark.parametrize("gap, rooms", [(2.4, 1), (1.0, 3)])
def test_walls_thinner_than_a_cell_still_divide(gap, rooms):
    """Walls 0.1 thick (a third of a cell) split the floor; doors wider than the agent
    and a cell each side (a wall's end on a cell boundary fills the cells on both sides)
    join the rooms, doors narrower than the agent do not."""
    chf = voxelize(generate.thin_walls(thickness=0.1, gap=gap))
    _, labels = walkable_components(chf)
    rooms_seen = {labels[span_at(chf, x, 5.0, 0)] for x in (1.5, 5.0, 8.5)}
    assert len(rooms_seen) == rooms


def test_no_walkable_point_far_from_a_wall_is_left_out():
    """Every floor point farther than radius + a cell from a wall (the stairwell) is
    walkable in the voxels; from the level's outer edge, a drop, one more cell (the ledge
    filter takes the outer ring, and the grid ends within a cell of the bounds)."""
    chf = voxelize(generate.building(storeys=2))
    near = DEFAULTS.agent_radius + DEFAULTS.cell_size
    edge = near + DEFAULTS.cell_size
    rng = np.random.default_rng(1)
    checked = 0
    for x, z in rng.uniform(edge, 10 - edge, (300, 2)):
        if 1.0 - near < x < 1.0 + 15 * 0.3 + near and z < 3.0 + near:
            continue    # the stairwell and the stairs
        column = spans_at(chf, x, z)
        assert column and column[0][1], (x, z, column)
        checked += 1
    assert checked > 150


def test_volumes_mark_areas_inside_their_prism_only():
    level = generate.floor()
    chf = voxelize(level)
    marked = mark_volumes(chf, [ConvexVolume([(2, 2), (6, 2), (6, 6), (2, 6)], -1, 1, area=7),
                                ConvexVolume([(0, 0), (9, 0), (9, 9)], 5, 6, area=9)])
    assert spans_at(marked, 4, 4)[0][1] == 7
    assert spans_at(marked, 8, 8)[0][1] == spans_at(chf, 8, 8)[0][1]   # prism above the floor
    assert spans_at(marked, 1, 1)[0][1] == spans_at(chf, 1, 1)[0][1]
    assert ((marked.area == 7) <= (chf.area != 0)).all()     # never makes walkable
    assert (chf.area != 7).all()                              # the input is untouched


def test_median_filter_smooths_marked_areas():
    chf = voxelize(generate.floor())
    area = chf.area.copy()
    walk = np.flatnonzero(area)
    lone = walk[len(walk) // 2]
    area[lone] = 5        # one odd span in the middle of plain ground
    from dataclasses import replace
    out = median_filter(replace(chf, area=area))
    assert out.area[lone] == chf.area[lone]
    assert np.array_equal(out.area, chf.area)


def test_links_are_symmetric():
    chf = compact(filter_spans(rasterize(generate.building(), DEFAULTS), DEFAULTS), DEFAULTS)
    links = chf.links()
    opposite = [2, 3, 0, 1]
    for d in range(4):
        has = np.flatnonzero(links[:, d] >= 0)
        assert (links[links[has, d], opposite[d]] == has).all()


@pytest.mark.parametrize("changes, message", [
    ({"cell_size": 0}, "cell_size 0 must be a finite number > 0"),
    ({"cell_height": -1}, "cell_height"),
    ({"agent_max_slope": 90}, "below 90"),
    ({"verts_per_poly": 7}, "verts_per_poly"),
    ({"partition": "voronoi"}, "partition"),
    ({"agent_height": 100}, "255"),
    ({"filter_ledge_spans": 1}, "True or False"),
])
def test_absurd_settings_are_refused(changes, message):
    with pytest.raises(InvalidQueryError, match=message):
        BuildSettings(**changes)


def test_a_grid_too_large_is_refused_before_allocating():
    with pytest.raises(InvalidQueryError, match="would need"):
        rasterize(generate.floor(size=1e6), DEFAULTS)
    with pytest.raises(InvalidGeometryError, match="takes a Level"):
        rasterize("level.obj", DEFAULTS)   # type: ignore[arg-type]


def test_a_flat_level_smaller_than_a_cell_is_refused():
    tiny = Level([[0, 0, 0], [0.1, 0, 0], [0.1, 0, 0.1]], [[0, 2, 1]])
    with pytest.raises(InvalidGeometryError, match="less than a cell"):
        rasterize(tiny, DEFAULTS)


@pytest.mark.parametrize("tile_size", [0, 16])
def test_cells_finer_than_single_precision_resolves_are_refused(tile_size):
    """9.9e6 from the origin floats are 1 apart: the rasterizer's cuts at every 0.3 round
    onto each other and bend the clipped polygons; refused, not written past their room."""
    floor = generate.floor(size=14.0)
    far = Level(floor.vertices + np.float32([9.9e6, 0, 9.9e6]), floor.triangles)
    with pytest.raises(InvalidGeometryError, match="single precision cannot cut"):
        build(far, tile_size=tile_size)
    coarse = BuildSettings(cell_size=1.0, region_min_size=1)
    assert build(far, settings=coarse).num_polygons == build(floor, settings=coarse).num_polygons


_STAIRS = generate.stairs()
_HF = rasterize(_STAIRS, DEFAULTS)
_CHF = voxelize(_STAIRS)


@pytest.mark.parametrize("call, match", [
    (lambda: build("level.obj"), "level must be a Level, not str"),
    (lambda: rasterize(_STAIRS, None), "settings must be a BuildSettings, not NoneType"),
    (lambda: rasterize(_STAIRS, DEFAULTS, size=(2.5, 5)), "size.0. 2.5 must be an integer"),
    (lambda: rasterize(_STAIRS, DEFAULTS, size=(8, 0)), "size.1. 0 must be an integer"),
    (lambda: rasterize(_STAIRS, DEFAULTS, size=8), "size must be .width, depth."),
    (lambda: rasterize(_STAIRS, DEFAULTS, bounds=([0, 0], [5, 5])), "bounds.0."),
    (lambda: rasterize(_STAIRS, DEFAULTS, bounds=([0, 0, 0], [5, np.nan, 5])), "bounds.1."),
    (lambda: rasterize(_STAIRS, DEFAULTS, bounds=([5, 5, 5], [0, 0, 0])), "lowest corner"),
    (lambda: rasterize(_STAIRS, DEFAULTS, bounds=[0, 0, 0]), "two .x, y, z. corners"),
    (lambda: filter_spans("hf", DEFAULTS), "hf must be a Heightfield, not str"),
    (lambda: filter_spans(_HF, {}), "settings must be a BuildSettings, not dict"),
    (lambda: compact(_CHF, DEFAULTS), "hf must be a Heightfield, not CompactHeightfield"),
    (lambda: erode(_HF, DEFAULTS), "chf must be a CompactHeightfield, not Heightfield"),
    (lambda: erode(_CHF, None), "settings must be a BuildSettings"),
    (lambda: mark_volumes(None, ()), "chf must be a CompactHeightfield"),
    (lambda: mark_volumes(_CHF, ["box"]), "each volume must be a ConvexVolume, not str"),
    (lambda: median_filter(_HF), "chf must be a CompactHeightfield"),
    (lambda: distance_field(_HF), "chf must be a CompactHeightfield"),
    (lambda: build_regions(_HF, DEFAULTS), "chf must be a CompactHeightfield"),
    (lambda: build_regions(_CHF, "watershed"), "settings must be a BuildSettings, not str"),
], ids=range(20))
def test_bad_stage_arguments_are_refused_by_name(call, match):
    with pytest.raises(InvalidQueryError, match=match):
        call()

