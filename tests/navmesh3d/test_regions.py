"""Region partitioning: Recast's figures on its test level, and properties every partition
keeps on levels made here (regions are connected, layers never overlap themselves, small
islands go, tile borders stay apart)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from recast_data import nav_test
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from wayfinding.errors import InvalidGeometryError, InvalidQueryError
from wayfinding.navmesh3d import (
    BORDER_REG,
    BuildSettings,
    CompactHeightfield,
    Level,
    Regions,
    build_regions,
    compact,
    erode,
    filter_spans,
    generate,
    rasterize,
)

PARTITIONS = ("watershed", "monotone", "layers")


def regions_of(level: Level, partition: str = "watershed", **changes) -> Regions:
    s = BuildSettings(partition=partition, **changes)
    chf = erode(compact(filter_spans(rasterize(level, s), s), s), s)
    return build_regions(chf, s)


def test_recast_figures_on_its_test_level():
    """The data README: 48 regions (Recast's maxRegions) by watershed."""
    r = regions_of(nav_test())
    assert r.max_regions == 48
    assert r.num_regions <= r.max_regions - 1
    assert r.max_distance > 0 and r.dist is not None and r.dist.max() <= r.max_distance


def _columns(chf: CompactHeightfield) -> np.ndarray:
    return np.repeat(np.arange(chf.width * chf.depth), np.diff(chf.first))


@pytest.mark.parametrize("partition", PARTITIONS)
@pytest.mark.parametrize("make", [generate.building, lambda: generate.terrain(size=40),
                                  generate.thin_walls, generate.bridge])
def test_every_region_is_one_connected_piece_of_walkable_spans(partition, make):
    r = regions_of(make(), partition)
    chf, reg = r.chf, r.reg
    assert ((reg != 0) <= (chf.area != 0)).all()
    links = chf.links()
    src = np.repeat(np.arange(chf.num_spans), 4)
    dst = links.ravel()
    ok = (dst >= 0) & (reg[src] == reg[np.maximum(dst, 0)]) & (reg[src] != 0)
    g = coo_matrix((np.ones(ok.sum()), (src[ok], dst[ok])), shape=(chf.num_spans,) * 2)
    _, labels = connected_components(g, directed=False)
    for region in np.unique(reg[reg != 0]):
        assert len(np.unique(labels[reg == region])) == 1, (partition, region)
    # ids run 1..n with none missing, all below max_regions
    ids = np.unique(reg[reg != 0])
    assert ids.tolist() == list(range(1, len(ids) + 1))
    assert len(ids) < r.max_regions


def test_layers_never_lie_over_themselves():
    for level in (generate.bridge(), generate.building()):
        r = regions_of(level, "layers")
        cols = _columns(r.chf)
        pairs = {(c, g) for c, g in zip(cols.tolist(), r.reg.tolist()) if g}
        assert len(pairs) == int((r.reg != 0).sum())


def test_a_floor_is_one_region_and_walled_rooms_are_apart():
    for partition in PARTITIONS:
        assert regions_of(generate.floor(), partition).num_regions == 1
        assert regions_of(generate.thin_walls(gap=1.0), partition).num_regions >= 3


def test_islands_smaller_than_the_minimum_are_dropped():
    """A 1.5 x 1.5 table top (at most 25 cells, fewer after erosion) is no region with
    region_min_size 8 (64 cells); with a minimum of 1 it is one."""
    level = generate.floor()
    v, t = level.vertices.tolist(), level.triangles.tolist()
    table = generate.stairs(steps=1, rise=1.5, run=1.5, width=1.5)    # a raised block
    base = len(v)
    v += (table.vertices + np.float32([2, 0, 4])).tolist()
    t += (table.triangles + base).tolist()
    both = Level(v, t)
    few = regions_of(both, region_min_size=8)
    many = regions_of(both, region_min_size=1, region_merge_size=0)
    assert many.num_regions > few.num_regions


def test_a_tile_border_stays_out_of_every_region():
    s = BuildSettings()
    chf = erode(compact(filter_spans(rasterize(generate.floor(), s), s), s), s)
    r = build_regions(chf, s, border=4)
    cols = _columns(chf)
    x, z = cols % chf.width, cols // chf.width
    edge = (x < 4) | (x >= chf.width - 4) | (z < 4) | (z >= chf.depth - 4)
    walk = chf.area != 0
    assert (r.reg[edge & walk] & BORDER_REG).all()
    assert not (r.reg[~edge & walk] & BORDER_REG).any()
    with pytest.raises(InvalidQueryError, match="border"):
        build_regions(chf, s, border=-1)


@pytest.mark.parametrize("border", [0, 3])
@pytest.mark.parametrize("partition", PARTITIONS)
def test_no_spans_count_regions_as_spans_eroded_away_do(partition, border):
    """Recast's count is the next free id, border ids included: without a walkable span it
    is what it is when every walkable span is eroded away."""
    stairs = generate.stairs()

    def regions(**changes) -> Regions:
        s = BuildSettings(partition=partition, **changes)
        chf = erode(compact(filter_spans(rasterize(stairs, s), s), s), s)
        return build_regions(chf, s, border=border)

    none, eroded = regions(agent_max_slope=0.0), regions(agent_radius=20.0)
    assert none.chf.num_spans == 0 and eroded.chf.num_spans > 0
    assert eroded.num_regions == 0
    assert none.max_regions == eroded.max_regions


@pytest.mark.parametrize("partition", ["monotone", "layers"])
def test_more_regions_than_16_bit_ids_are_refused(partition):
    """A checkerboard of two areas: every span its own region, 90,000 of them."""
    s = BuildSettings(partition=partition, region_min_size=0, region_merge_size=0)
    chf = compact(filter_spans(rasterize(generate.floor(size=90.0), s), s), s)
    cols = _columns(chf)
    board = np.where((cols % chf.width + cols // chf.width) % 2, 1, 2).astype(np.uint8)
    with pytest.raises(InvalidGeometryError, match="65,535 regions"):
        build_regions(dataclasses.replace(chf, area=board), s)

