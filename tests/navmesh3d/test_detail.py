"""The detail mesh: Recast's figures on its test level, properties every detail mesh keeps
(each polygon's triangles wind as it does and cover it exactly, the sides on its outline
are flagged, every height is a span's floor near it), hand-made polygons over a floor and
a ramp, and element for element against Recast's own (slow: ``make test-all``)."""

from __future__ import annotations

import numpy as np
import pytest
from recast_data import nav_test, polymesh_of, recast
from test_recast_oracle import LEVELS, SETTINGS

from wayfinding.errors import InvalidGeometryError
from wayfinding.navmesh3d import (
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
from wayfinding.navmesh3d.detail import build_detail
from wayfinding.navmesh3d.meshes import MESH_NULL_IDX, DetailMesh, PolyMesh
from wayfinding.navmesh3d.polymesh import build_polymesh

F = np.float32


def regions_of(level: Level, settings: BuildSettings) -> Regions:
    chf = erode(compact(filter_spans(rasterize(level, settings), settings), settings),
                settings)
    return build_regions(chf, settings)


def pipeline(level: Level, settings: BuildSettings
             ) -> tuple[Regions, PolyMesh, DetailMesh]:
    regions = regions_of(level, settings)
    polymesh = build_polymesh(build_contours(regions, settings), settings)
    return regions, polymesh, build_detail(polymesh, regions, settings)


def quad(regions: Regions, x0: int, z0: int, x1: int, z1: int, *, reg: int = 1,
         max_edge_error: float = 1.3) -> PolyMesh:
    """One quad polygon with corners at voxel corners (x0, z0)..(x1, z1), each at the
    height of the top walkable span in the cell inside it, wound as Recast winds them."""
    chf = regions.chf
    corners = [(x0, z0), (x0, z1), (x1, z1), (x1, z0)]
    verts = []
    for x, z in corners:
        cx, cz = min(x, x1 - 1), min(z, z1 - 1)
        c = cx + cz * chf.width
        spans = [i for i in range(chf.first[c], chf.first[c + 1]) if chf.area[i]]
        assert spans, (x, z)
        verts.append((x, int(chf.y[spans[-1]]), z))
    polys = np.full((1, 12), MESH_NULL_IDX, np.uint16)
    polys[0, :4] = range(4)
    return PolyMesh(verts=np.array(verts, np.uint16), polys=polys,
                    regs=np.array([reg], np.uint16), areas=np.array([63], np.uint8),
                    flags=np.zeros(1, np.uint16), nvp=6, bmin=chf.bmin, bmax=chf.bmax,
                    cell_size=chf.cell_size, cell_height=chf.cell_height, border=0,
                    max_edge_error=max_edge_error)


def cross(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a[..., 0] - p[..., 0]) * (b[..., 2] - p[..., 2]) \
        - (a[..., 2] - p[..., 2]) * (b[..., 0] - p[..., 0])


def check_detail(polymesh: PolyMesh, regions: Regions, detail: DetailMesh,
                 settings: BuildSettings) -> None:
    """What every detail mesh keeps, polygon by polygon."""
    chf, m, nvp = regions.chf, detail.meshes, polymesh.nvp
    assert m.shape == (polymesh.num_polys, 4)
    assert detail.verts.dtype == np.float32 and detail.tris.dtype == np.uint8
    # sub-meshes follow one another
    assert m[:, 0].tolist() == np.concatenate([[0], np.cumsum(m[:, 1])[:-1]]).tolist()
    assert m[:, 2].tolist() == np.concatenate([[0], np.cumsum(m[:, 3])[:-1]]).tolist()
    assert m[:, 1].sum() == detail.num_verts and m[:, 3].sum() == detail.num_tris
    assert (m[:, 1] <= 127).all() and (m[:, 3] <= 255).all()
    cs, ch, bmin = F(chf.cell_size), F(chf.cell_height), polymesh.bmin
    sample_error = settings.voxels().detail_sample_max_error
    reach = max(1, int(np.ceil(polymesh.max_edge_error))) + 1
    for p in range(polymesh.num_polys):
        idx = polymesh.polys[p, :nvp]
        idx = idx[idx != MESH_NULL_IDX]
        n = len(idx)
        vb, vn, tb, tn = (int(x) for x in m[p])
        verts = detail.verts[vb:vb + vn]
        tris = detail.tris[tb:tb + tn]
        # the polygon's own vertices come first, in world units a cell height up
        pv = polymesh.verts[idx]
        assert (verts[:n, 0] == pv[:, 0] * cs + bmin[0]).all()
        assert (verts[:n, 2] == pv[:, 2] * cs + bmin[2]).all()
        assert (verts[:n, 1] == pv[:, 1] * ch + (bmin[1] + ch)).all()
        assert tn >= n - 2 and (tris[:, :3] < vn).all()
        # every triangle winds as the polygon and together they cover it exactly
        a, b, c = (verts[tris[:, k]].astype(np.float64) for k in range(3))
        area = cross(a, b, c)
        poly = verts[:n].astype(np.float64)
        parea = cross(poly[0], poly[1:-1], poly[2:]).sum()
        # Tolerances of float32 rounding: a vertex put on a side (v0 + (v1 - v0) u in
        # float32) lies off it by up to about one spacing of the coordinates in x and in z,
        # which moves the sum of the areas by at most the side's length times that.
        sides = np.hypot(*(np.roll(poly, -1, axis=0) - poly)[:, [0, 2]].T)
        ulp = 2 * float(np.spacing(np.abs(verts[:, [0, 2]]).max()))
        assert (np.sign(area) == np.sign(parea)).all(), p
        assert area.sum() == pytest.approx(parea, rel=1e-4, abs=sides.sum() * ulp)
        # and lie inside it
        for k in range(n):
            e0, e1 = poly[k], poly[(k + 1) % n]
            assert (cross(e0, e1, verts.astype(np.float64)) * np.sign(parea)
                    >= -max(1e-4, ulp) * sides[k]).all(), p
        # a side is flagged where it lies on the polygon's outline: both ends within 1e-3
        # of the line of one of its sides (Recast's threshold)
        on = np.zeros(len(verts), bool)
        length = 0.0
        for t in tris:
            for k in range(3):
                s, e = verts[t[k]].astype(np.float64), verts[t[(k + 1) % 3]].astype(np.float64)
                flagged = (int(t[3]) >> (2 * k)) & 3
                assert flagged in (0, 1)
                outline = any(abs(cross(poly[j], poly[(j + 1) % n], s)) < 1e-3 * sides[j]
                              and abs(cross(poly[j], poly[(j + 1) % n], e)) < 1e-3 * sides[j]
                              for j in range(n))
                if flagged:
                    assert outline, (p, t)
                    length += float(np.hypot(*(e - s)[[0, 2]]))
                    on[[t[k], t[(k + 1) % 3]]] = True
        perimeter = sum(float(np.hypot(*(poly[(j + 1) % n] - poly[j])[[0, 2]]))
                        for j in range(n))
        assert length == pytest.approx(perimeter, rel=1e-4), p
        # every height is the floor of a span near the vertex (a cell height up)
        h = (verts[:, 1] - bmin[1] - ch) / ch
        assert np.abs(h - np.round(h)).max() < 1e-3
        cx = np.floor((verts[:, 0] - chf.bmin[0]) / cs).astype(int)    # with the border
        cz = np.floor((verts[:, 2] - chf.bmin[2]) / cs).astype(int)
        for x, z, y in zip(cx, cz, np.round(h).astype(int)):
            near = [chf.y[chf.first[c]:chf.first[c + 1]]
                    for zz in range(max(0, z - reach), min(chf.depth, z + reach + 1))
                    for xx in range(max(0, x - reach), min(chf.width, x + reach + 1))
                    for c in [xx + zz * chf.width]]
            assert y in np.concatenate(near), (p, x, z, y)
    assert sample_error > 0


def test_recast_figures_on_its_test_level():
    """The data README: 155 polygons, detail mesh of 812 vertices and 561 triangles."""
    s = BuildSettings()
    _, polymesh, detail = pipeline(nav_test(), s)
    assert polymesh.num_polys == 155
    assert (detail.num_verts, detail.num_tris) == (812, 561)
    assert len(detail.meshes) == 155


def test_a_floor_quad_is_flat_and_covered():
    s = BuildSettings()
    regions = regions_of(generate.floor(), s)
    chf = regions.chf
    pm = quad(regions, 3, 3, chf.width - 3, chf.depth - 3)
    detail = build_detail(pm, regions, s)
    check_detail(pm, regions, detail, s)
    top = chf.bmin[1] + F(int(chf.y[chf.area != 0][0]) + 1) * F(chf.cell_height)
    assert (detail.verts[:, 1] == top).all()
    # edges are sampled every detail_sample_dist cells but a flat edge keeps no sample
    assert detail.num_verts == 4 and detail.num_tris == 2
    assert detail.tris[:, 3].tolist().count(0) == 0


def test_a_ramp_quad_follows_the_slope():
    s = BuildSettings(detail_sample_max_error=0.5)
    slope = 30.0
    regions = regions_of(generate.ramp(slope), s)
    chf = regions.chf
    cs, ch = chf.cell_size, chf.cell_height
    x0, x1 = int(np.ceil(3.3 / cs)), int(8.7 / cs)   # on the ramp (3..9 along x)
    pm = quad(regions, x0, 3, x1, chf.depth - 3, reg=0)
    detail = build_detail(pm, regions, s)
    check_detail(pm, regions, detail, s)
    assert detail.num_verts > 4    # the voxel steps show: more than the corners
    # a span's floor is the top of the ramp over its cell, rounded up to a cell height:
    # up to a cell height and a cell's rise over the ramp under the cell's near side
    rise = np.tan(np.radians(slope))
    err = s.voxels().detail_sample_max_error
    lo, hi = -err - 1e-5, err + ch + cs * rise + 1e-5
    m = detail.meshes[0]
    v = detail.verts[m[0]:m[0] + m[1]].astype(np.float64)
    above = v[:, 1] - ch - (v[:, 0] - chf.bmin[0] - 3.0) * rise
    assert lo <= above.min() and above.max() <= hi
    # and points on the triangles too
    for a, b, c, _ in detail.tris:
        for u, w in ((1 / 3, 1 / 3), (0.1, 0.8), (0.8, 0.1)):
            p = v[a] + u * (v[b] - v[a]) + w * (v[c] - v[a])
            assert lo <= p[1] - ch - (p[0] - chf.bmin[0] - 3.0) * rise <= hi


def test_without_samples_each_polygon_is_a_fan_of_its_vertices():
    """A sample distance below 0.9 cells means none (Recast's rule); Recast then fails on
    every polygon, here each keeps just its outline."""
    s = BuildSettings(detail_sample_dist=0.5)
    regions, polymesh, detail = pipeline(generate.stairs(steps=6, rise=0.3), s)
    counts = (polymesh.polys[:, :polymesh.nvp] != MESH_NULL_IDX).sum(axis=1)
    assert detail.meshes[:, 1].tolist() == counts.tolist()
    assert detail.meshes[:, 3].tolist() == (counts - 2).tolist()
    check_detail(polymesh, regions, detail, s)


@pytest.mark.parametrize("partition", ["watershed", "monotone", "layers"])
@pytest.mark.parametrize("make", [generate.building, lambda: generate.terrain(size=40),
                                  lambda: generate.ramp(35), generate.bridge],
                         ids=["building", "terrain", "ramp", "bridge"])
def test_every_detail_mesh_covers_its_polygons(make, partition):
    s = BuildSettings(partition=partition)
    regions, polymesh, detail = pipeline(make(), s)
    assert polymesh.num_polys > 0
    check_detail(polymesh, regions, detail, s)


def test_a_tile_border_is_read_past():
    """With a tile border the polygon mesh is in the tile's voxels, the heightfield has
    the border round them."""
    s = BuildSettings()
    for level in (generate.building(), generate.terrain(size=40)):
        regions = build_regions(regions_of(level, s).chf, s, border=4)
        polymesh = build_polymesh(build_contours(regions, s), s)
        assert polymesh.border == 4 and polymesh.num_polys > 0
        check_detail(polymesh, regions, build_detail(polymesh, regions, s), s)


def test_an_empty_mesh_has_no_detail():
    s = BuildSettings()
    regions = regions_of(generate.floor(), s)
    pm = quad(regions, 3, 3, 6, 6)
    empty = PolyMesh(verts=pm.verts[:0], polys=pm.polys[:0], regs=pm.regs[:0],
                     areas=pm.areas[:0], flags=pm.flags[:0], nvp=6, bmin=pm.bmin,
                     bmax=pm.bmax, cell_size=pm.cell_size, cell_height=pm.cell_height,
                     border=0, max_edge_error=1.3)
    d = build_detail(empty, regions, s)
    assert d.meshes.shape == (0, 4) and d.num_verts == 0 and d.num_tris == 0


def test_a_mesh_that_does_not_fit_the_regions_is_refused():
    s = BuildSettings()
    regions = regions_of(generate.floor(), s)
    pm = quad(regions, 3, 3, 6, 6)
    far = pm.verts.copy()
    far[2, 0] = regions.chf.width + 5
    polys = pm.polys.copy()
    polys[0, 1] = 9
    gap = pm.polys.copy()
    gap[0, 2] = MESH_NULL_IDX
    for bad, match in ((PolyMesh(**{**vars(pm), "verts": far}), "beyond"),
                       (PolyMesh(**{**vars(pm), "polys": polys}), "vertex beyond"),
                       (PolyMesh(**{**vars(pm), "polys": gap}), "fewer than 3|gap"),
                       (PolyMesh(**{**vars(pm), "nvp": 8}), "neighbours"),
                       (PolyMesh(**{**vars(pm), "regs": pm.regs[:0]}), "regions")):
        with pytest.raises(InvalidGeometryError, match=match):
            build_detail(bad, regions, s)
    with pytest.raises(InvalidGeometryError, match="Regions"):
        build_detail(pm, regions.chf, s)  # type: ignore[arg-type]


# --- against Recast ---

def _compare(level: Level, settings: BuildSettings) -> None:
    theirs = recast(level, settings)
    regions = regions_of(level, settings)
    assert regions.reg.tolist() == theirs["compact"]["spans"]["reg"]
    polymesh = polymesh_of(theirs)
    ours = build_detail(polymesh, regions, settings)
    d = theirs["detail"]
    assert ours.meshes.ravel().tolist() == d["meshes"]
    assert ours.tris.ravel().tolist() == d["tris"]
    assert (ours.verts.ravel() == np.array(d["verts"], np.float32)).all()
    assert (ours.num_verts, ours.num_tris) == (d["nverts"], d["ntris"])
    if polymesh.num_polys:
        check_detail(polymesh, regions, ours, settings)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["building", "terrain", "stairs"])
def test_the_detail_of_a_bordered_tile_is_recast_s(name):
    level, s = LEVELS[name](), BuildSettings()
    theirs = recast(level, s, border_size=4)   # one tile: its box widened by the border
    box = theirs["settings"]
    hf = rasterize(level, s, bounds=(np.float32(box["bmin"]), np.float32(box["bmax"])),
                   size=(box["width"], box["height"]))
    chf = erode(compact(filter_spans(hf, s), s), s)
    regions = build_regions(chf, s, border=4)
    assert regions.reg.tolist() == theirs["compact"]["spans"]["reg"]
    polymesh = polymesh_of(theirs)
    assert polymesh.border == 4
    ours = build_detail(polymesh, regions, s)
    d = theirs["detail"]
    assert ours.meshes.ravel().tolist() == d["meshes"]
    assert ours.tris.ravel().tolist() == d["tris"]
    assert (ours.verts.ravel() == np.array(d["verts"], np.float32)).all()
    check_detail(polymesh, regions, ours, s)


@pytest.mark.slow
@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@pytest.mark.parametrize("name", LEVELS, ids=str)
def test_every_detail_mesh_is_recast_s(name, settings):
    _compare(LEVELS[name](), SETTINGS[settings])


@pytest.mark.slow
@pytest.mark.parametrize("partition", ["monotone", "layers"])
@pytest.mark.parametrize("name", ["building", "terrain", "nav_test"])
def test_the_detail_over_the_sweeps_is_recast_s(name, partition):
    _compare(LEVELS[name](), BuildSettings(partition=partition))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ramp 35", "terrain", "nav_test"])
def test_finer_samples_are_recast_s(name):
    """Dense samples and a small error: many interior points, Delaunay faces."""
    _compare(LEVELS[name](), BuildSettings(detail_sample_dist=2.0,
                                           detail_sample_max_error=0.5))
