"""Region contours: Recast's figure on its test level; properties every contour keeps on
levels made here (raw outlines closed in unit steps and enclosing exactly their region's
cells, simplified vertices taken from the raw ones, holes joined into one outline per
region, long walls split, tile borders cut off); and, under ``make test-all``, every
contour vertex for vertex against Recast itself."""

from __future__ import annotations

import numpy as np
import pytest
import recast_data
from recast_data import nav_test, recast
from test_recast_oracle import LEVELS, SETTINGS

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh3d import (
    BORDER_REG,
    BuildSettings,
    Level,
    Regions,
    build_regions,
    compact,
    erode,
    filter_spans,
    generate,
    rasterize,
)
from wayfinding.navmesh3d.contours import build_contours
from wayfinding.navmesh3d.meshes import (
    AREA_BORDER,
    BORDER_VERTEX,
    CONTOUR_REG_MASK,
    ContourSet,
)

PARTITIONS = ("watershed", "monotone", "layers")
MAKERS = {
    "building": generate.building,
    "terrain": lambda: generate.terrain(size=40, seed=5),
    "thin walls": generate.thin_walls,
    "bridge": generate.bridge,
    "stairs": generate.stairs,
}


def _chf(level: Level, settings: BuildSettings, bounds):
    hf = rasterize(level, settings, bounds=bounds)
    return erode(compact(filter_spans(hf, settings), settings), settings)


def regions_of(level: Level, settings: BuildSettings, border: int = 0) -> Regions:
    bounds = None
    if border:
        lo, hi = level.bounds
        pad = np.float32(border) * np.float32(settings.cell_size)
        lo, hi = lo.copy(), hi.copy()
        lo[[0, 2]] -= pad
        hi[[0, 2]] += pad
        bounds = (lo, hi)
    hf = rasterize(level, settings, bounds=bounds)
    chf = erode(compact(filter_spans(hf, settings), settings), settings)
    return build_regions(chf, settings, border=border)


def test_recast_figure_on_its_test_level():
    """The data README: 47 contours by watershed, none of them a hole."""
    s = BuildSettings()
    cs = build_contours(regions_of(nav_test(), s), s)
    assert len(cs) == 47
    assert all(len(c.verts) >= 3 for c in cs.contours)
    assert (cs.width, cs.depth, cs.border, cs.max_error) == (305, 258, 0, 1.3)


def _shoelace(v: np.ndarray) -> int:
    x, z = v[:, 0].astype(np.int64), v[:, 2].astype(np.int64)
    return int((x * np.roll(z, 1) - np.roll(x, 1) * z).sum())


@pytest.mark.parametrize("partition", PARTITIONS)
@pytest.mark.parametrize("make", MAKERS)
def test_raw_outlines_are_closed_and_enclose_their_region(partition, make):
    """Each raw outline runs round span corners one cell at a time and closes; its edges
    name the region beyond; outlines (positive) less holes (negative) cover exactly the
    region's cells, where the region never lies over itself."""
    s = BuildSettings(partition=partition)
    r = regions_of(MAKERS[make](), s)
    cs = build_contours(r, s)
    chf = r.chf
    cols = np.repeat(np.arange(chf.width * chf.depth), np.diff(chf.first))
    ids = set(np.unique(r.reg[(r.reg != 0) & (r.reg & BORDER_REG == 0)]).tolist())
    assert {c.reg for c in cs.contours} == ids
    enclosed: dict[int, int] = {}
    for c in cs.contours:
        raw = c.raw
        assert raw.dtype == np.int32 and raw.shape[1] == 4 and len(raw) >= 4
        step = np.abs(np.diff(np.vstack([raw, raw[:1]])[:, [0, 2]], axis=0)).sum(axis=1)
        assert (step == 1).all()
        assert ((raw[:, 3] & CONTOUR_REG_MASK) != c.reg).all()
        assert (raw[:, 3] & ~(CONTOUR_REG_MASK | AREA_BORDER | BORDER_VERTEX) == 0).all()
        assert (raw[:, 0] >= 0).all() and (raw[:, 0] <= chf.width).all()
        assert (raw[:, 2] >= 0).all() and (raw[:, 2] <= chf.depth).all()
        enclosed[c.reg] = enclosed.get(c.reg, 0) + _shoelace(raw)
        assert c.area == chf.area[r.reg == c.reg][0]
    for g in ids:
        here = cols[r.reg == g]
        if len(np.unique(here)) == len(here):
            assert enclosed[g] == 2 * len(here), g


@pytest.mark.parametrize("partition", PARTITIONS)
@pytest.mark.parametrize("make", MAKERS)
def test_simplified_contours_keep_raw_vertices_and_split_long_walls(partition, make):
    s = BuildSettings(partition=partition, edge_max_len=3.0)
    cs = build_contours(regions_of(MAKERS[make](), s), s)
    max_len = s.voxels().max_edge_len
    outlines: dict[int, int] = {}
    for c in cs.contours:
        if len(c.verts) == 0:       # a hole joined into its region's outline
            assert _shoelace(c.raw) < 0
            continue
        outlines[c.reg] = outlines.get(c.reg, 0) + 1
        # (a joined outline takes vertices from its holes' raw outlines too)
        raw = {tuple(p) for o in cs.contours if o.reg == c.reg for p in o.raw[:, :3].tolist()}
        assert {tuple(p) for p in c.verts[:, :3].tolist()} <= raw
        if _shoelace(c.raw) < 0:
            continue
        # a joined outline repeats vertices; a plain one follows its raw outline's order
        if len({tuple(p) for p in c.verts[:, :3].tolist()}) == len(c.verts):
            where = [c.raw[:, :3].tolist().index(p) for p in c.verts[:, :3].tolist()]
            k = int(np.argmin(where))
            assert np.all(np.diff(where[k:] + where[:k]) > 0)
            # every vertex where the region beyond changes is kept
            nxt = np.roll(c.raw[:, 3], -1)
            change = np.flatnonzero((c.raw[:, 3] & (CONTOUR_REG_MASK | AREA_BORDER))
                                    != (nxt & (CONTOUR_REG_MASK | AREA_BORDER)))
            assert set(change.tolist()) <= set(where)
            # wall edges are no longer than edge_max_len unless no raw vertex lies between
            for i in range(len(c.verts)):
                a, b = c.verts[i], c.verts[(i + 1) % len(c.verts)]
                if a[3] & CONTOUR_REG_MASK == 0:
                    d2 = int(a[0] - b[0]) ** 2 + int(a[2] - b[2]) ** 2
                    assert d2 <= max_len**2 or d2 <= 2, (c.reg, i)
    assert all(n == 1 for n in outlines.values())


def test_holes_are_joined_into_their_outline():
    """Layers of the terrain wrap round its bumps: each hole's contour ends empty, its
    vertices (and two of the diagonal's ends again) now in the outline."""
    s = BuildSettings(partition="layers")
    cs = build_contours(regions_of(generate.terrain(size=48, seed=3), s), s)
    holes = [c for c in cs.contours if len(c.verts) == 0]
    assert holes
    for h in holes:
        (outline,) = [c for c in cs.contours if c.reg == h.reg and _shoelace(c.raw) > 0]
        assert len(outline.verts) >= 8


def test_a_tile_border_is_cut_off():
    """A tile cut from the middle of a terrain: its regions run into the border, where
    their vertices are flagged; coordinates and box are the tile's without the border."""
    s = BuildSettings()
    level = generate.terrain(size=48, seed=3)
    lo, hi = level.bounds
    lo, hi = lo.copy(), hi.copy()
    lo[[0, 2]] += np.float32(12)
    hi[[0, 2]] = lo[[0, 2]] + np.float32(12)
    plain = build_contours(build_regions(_chf(level, s, (lo, hi)), s), s)
    pad = np.float32(4) * np.float32(s.cell_size)
    wide = (lo - np.array([pad, 0, pad], np.float32), hi + np.array([pad, 0, pad], np.float32))
    cs = build_contours(build_regions(_chf(level, s, wide), s, border=4), s)
    assert cs.border == 4 and (cs.width, cs.depth) == (plain.width, plain.depth) == (40, 40)
    assert np.array_equal(cs.bmin, plain.bmin) and np.array_equal(cs.bmax, plain.bmax)
    assert len(cs) >= 1
    for c in cs.contours:
        assert (c.verts[:, [0, 2]] >= 0).all()
        assert (c.verts[:, 0] <= cs.width).all() and (c.verts[:, 2] <= cs.depth).all()
    on_border = np.vstack([c.raw for c in cs.contours])
    assert (on_border[:, 3] & BORDER_VERTEX).any()


def test_bad_input_is_refused():
    s = BuildSettings()
    r = regions_of(generate.floor(), s)
    with pytest.raises(InvalidQueryError, match="Regions"):
        build_contours(r.chf, s)  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="BuildSettings"):
        build_contours(r, {"edge_max_error": 1.3})  # type: ignore[arg-type]
    short = Regions(chf=r.chf, reg=r.reg[:-1], max_regions=r.max_regions,
                    partition=r.partition, border=0)
    with pytest.raises(InvalidQueryError, match="region ids"):
        build_contours(short, s)


def test_no_regions_no_contours():
    s = BuildSettings(agent_radius=40.0)
    cs = build_contours(regions_of(generate.floor(), s), s)
    assert isinstance(cs, ContourSet) and len(cs) == 0


# --- against Recast itself ---

def _same(ours: ContourSet, data: dict) -> None:
    theirs = data["contours"]
    assert len(ours) == theirs["nconts"]
    assert ours.border == theirs["border_size"]
    assert np.float32(ours.max_error) == np.float32(theirs["max_error"])
    for k, (c, t) in enumerate(zip(ours.contours, theirs["conts"], strict=True)):
        assert (c.reg, c.area) == (t["reg"], t["area"]), k
        assert c.raw.ravel().tolist() == t["rverts"], k
        assert c.verts.ravel().tolist() == t["verts"], k
    # the polygon mesh takes its box from the contour set
    assert ours.bmin.tolist() == data["polymesh"]["bmin"]
    assert ours.bmax.tolist() == data["polymesh"]["bmax"]


@pytest.mark.slow
@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@pytest.mark.parametrize("name", LEVELS, ids=str)
def test_every_contour_is_recast_s(name, settings):
    level, s = LEVELS[name](), SETTINGS[settings]
    _same(build_contours(regions_of(level, s), s), recast(level, s))


@pytest.mark.slow
@pytest.mark.parametrize("partition", ["monotone", "layers"])
@pytest.mark.parametrize("name", ["building", "terrain", "nav_test"])
def test_the_sweeps_contours_are_recast_s(name, partition):
    level, s = LEVELS[name](), BuildSettings(partition=partition)
    _same(build_contours(regions_of(level, s), s), recast(level, s))


@pytest.mark.slow
@pytest.mark.parametrize("partition", PARTITIONS)
@pytest.mark.parametrize("name", ["terrain", "nav_test"])
def test_contours_with_a_tile_border_are_recast_s(name, partition, monkeypatch):
    level, s, border = LEVELS[name](), BuildSettings(partition=partition), 3
    lo, hi = level.bounds
    plain = recast_data.oracle_settings
    monkeypatch.setattr(recast_data, "oracle_settings", lambda st: {
        **plain(st), "border_size": border, "bmin": lo.tolist(), "bmax": hi.tolist()})
    _same(build_contours(regions_of(level, s, border), s), recast(level, s))


@pytest.mark.slow
def test_given_areas_contours_are_recast_s():
    """Area ids per triangle: contours split where the area changes."""
    rng = np.random.default_rng(7)
    stairs = generate.stairs()
    level = Level(stairs.vertices, stairs.triangles,
                  areas=rng.integers(1, 64, stairs.num_triangles))
    s = BuildSettings()
    _same(build_contours(regions_of(level, s), s), recast(level, s))
