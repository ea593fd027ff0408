"""The polygon mesh: Recast's figures on its test level through the whole build; what
every mesh keeps (convex polygons of at most nvp vertices winding as their contours do,
neighbours symmetric across shared sides, welded vertices, the contours' area covered) on
contours made by hand and on generated levels; and, slow, element for element Recast's
own mesh from Recast's own contours on the levels and settings of test_recast_oracle.py,
every partition, and tiles with borders."""

from __future__ import annotations

import numpy as np
import pytest
from recast_data import contours_of, nav_test, polymesh_of, recast
from test_recast_oracle import LEVELS, SETTINGS

from wayfinding.errors import InvalidGeometryError, InvalidQueryError
from wayfinding.navmesh3d import (
    BuildSettings,
    Level,
    build_regions,
    compact,
    erode,
    filter_spans,
    generate,
    rasterize,
)
from wayfinding.navmesh3d.contours import build_contours
from wayfinding.navmesh3d.meshes import (
    BORDER_VERTEX,
    MESH_NULL_IDX,
    Contour,
    ContourSet,
    PolyMesh,
)
from wayfinding.navmesh3d.polymesh import build_polymesh

WALKABLE = 63


def contour(points, reg=1, area=WALKABLE, flags=None) -> Contour:
    """A contour through (x, z) or (x, y, z) points; ``flags`` per vertex (or none)."""
    p = np.array(points, np.int32)
    if p.shape[1] == 2:
        p = np.stack([p[:, 0], np.zeros(len(p), np.int32), p[:, 1]], axis=1)
    f = np.zeros(len(p), np.int32) if flags is None else np.array(flags, np.int32)
    v = np.concatenate([p, f[:, None]], axis=1).astype(np.int32)
    return Contour(verts=v, raw=v.copy(), reg=reg, area=area)


def cset(*contours: Contour, width=16, depth=16, border=0) -> ContourSet:
    return ContourSet(contours=contours, bmin=np.zeros(3, np.float32),
                      bmax=np.array([width, 8, depth], np.float32), cell_size=0.3,
                      cell_height=0.2, width=width, depth=depth, border=border,
                      max_error=1.3)


def polygons(mesh: PolyMesh) -> list[list[int]]:
    nvp = mesh.nvp
    return [[int(v) for v in row[:nvp] if v != MESH_NULL_IDX] for row in mesh.polys]


def cross(a, b, c) -> int:
    """Twice the signed area of a, b, c on x and z (Recast's winding makes it <= 0)."""
    return int((b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]))


def area_xz(points) -> float:
    p = np.asarray(points, np.int64)
    x, z = p[:, 0], p[:, 2]
    return 0.5 * float(np.sum(x * np.roll(z, -1) - np.roll(x, -1) * z))


def check_mesh(mesh: PolyMesh, contours: ContourSet) -> None:
    """What every polygon mesh keeps, whatever its contours."""
    nvp = mesh.nvp
    assert mesh.polys.shape == (mesh.num_polys, 2 * nvp) and mesh.polys.dtype == np.uint16
    assert mesh.verts.shape == (mesh.num_verts, 3) and mesh.verts.dtype == np.uint16
    assert len(mesh.regs) == len(mesh.areas) == len(mesh.flags) == mesh.num_polys
    assert not mesh.flags.any()
    v = mesh.verts.astype(np.int64)
    polys = polygons(mesh)
    for i, p in enumerate(polys):
        row = mesh.polys[i]
        assert 3 <= len(p) <= nvp
        assert (row[len(p):nvp] == MESH_NULL_IDX).all()     # padded at the end only
        assert (row[nvp + len(p):] == MESH_NULL_IDX).all()
        assert len(set(p)) == len(p) and max(p) < mesh.num_verts
        n = len(p)
        for j in range(n):                                   # convex, contour winding
            assert cross(v[p[j - 1]], v[p[j]], v[p[(j + 1) % n]]) <= 0, (i, p)
        assert area_xz(v[p]) < 0
    sides = {}
    for i, p in enumerate(polys):
        for j in range(len(p)):
            sides.setdefault((p[j], p[(j + 1) % len(p)]), []).append((i, j))
    for i, p in enumerate(polys):
        for j in range(len(p)):
            nei = int(mesh.polys[i, nvp + j])
            a, b = p[j], p[(j + 1) % len(p)]
            if nei == MESH_NULL_IDX or nei & 0x8000:
                continue
            # the neighbour runs the same side the other way, and points back
            back = [k for (pi, k) in sides.get((b, a), []) if pi == nei]
            assert back, (i, j, nei)
            assert int(mesh.polys[nei, nvp + back[0]]) == i
    # welded: two vertices at the same x, z are more than 2 cell heights apart
    order = np.lexsort((v[:, 1], v[:, 2], v[:, 0]))
    s = v[order]
    same = (s[1:, 0] == s[:-1, 0]) & (s[1:, 2] == s[:-1, 2])
    assert (s[1:, 1][same] - s[:-1, 1][same] > 2).all()
    assert set(mesh.regs.tolist()) <= {c.reg for c in contours.contours} | {0}
    assert set(mesh.areas.tolist()) <= {c.area for c in contours.contours}
    assert mesh.border == contours.border and mesh.max_edge_error == contours.max_error
    assert (mesh.bmin == contours.bmin).all() and (mesh.bmax == contours.bmax).all()


def covered_area(mesh: PolyMesh) -> float:
    v = mesh.verts.astype(np.int64)
    return -sum(area_xz(v[p]) for p in polygons(mesh))


def _regions(level: Level, settings: BuildSettings):
    chf = erode(compact(filter_spans(rasterize(level, settings), settings), settings),
                settings)
    return build_regions(chf, settings)


def test_recast_figures_on_its_test_level():
    """The data README: 349 vertices and 155 polygons from Recast's test level with
    RecastDemo's defaults."""
    s = BuildSettings()
    cs = build_contours(_regions(nav_test(), s), s)
    mesh = build_polymesh(cs, s)
    assert (mesh.num_verts, mesh.num_polys) == (349, 155)
    check_mesh(mesh, cs)


@pytest.mark.parametrize("nvp", [3, 6])
@pytest.mark.parametrize("partition", ["watershed", "monotone", "layers"])
@pytest.mark.parametrize("make", [generate.building, lambda: generate.terrain(size=40),
                                  generate.thin_walls, generate.bridge, generate.stairs],
                         ids=["building", "terrain", "thin walls", "bridge", "stairs"])
def test_every_mesh_of_a_generated_level_keeps_its_shape(make, partition, nvp):
    s = BuildSettings(partition=partition, verts_per_poly=nvp)
    cs = build_contours(_regions(make(), s), s)
    mesh = build_polymesh(cs, s)
    assert mesh.num_polys > 0
    check_mesh(mesh, cs)
    # without tile borders nothing is removed: the polygons cover the contours exactly
    assert covered_area(mesh) == pytest.approx(-sum(area_xz(c.verts) for c in cs.contours
                                                    if len(c.verts) >= 3))


SQUARE = [(0, 0), (0, 4), (4, 4), (4, 0)]
L_SHAPE = [(0, 0), (0, 8), (4, 8), (4, 4), (8, 4), (8, 0)]
# A 10 x 10 square with a 2 x 2 hole, spliced in as Recast splices holes: a bridge from the
# outline's first corner to the hole, round the hole the other way, and back.
HOLED = [(0, 0), (4, 4), (6, 4), (6, 6), (4, 6), (4, 4), (0, 0), (0, 10), (10, 10), (10, 0)]


def test_a_square_is_one_quad():
    cs = cset(contour(SQUARE))
    mesh = build_polymesh(cs, BuildSettings())
    check_mesh(mesh, cs)
    assert mesh.num_verts == 4 and polygons(mesh) == [[0, 1, 2, 3]]
    assert (mesh.polys[0, 6:] == MESH_NULL_IDX).all()
    assert mesh.regs.tolist() == [1] and mesh.areas.tolist() == [WALKABLE]


@pytest.mark.parametrize("nvp", [3, 4, 5, 6])
def test_an_l_shape_is_two_quads_or_four_triangles(nvp):
    cs = cset(contour(L_SHAPE))
    mesh = build_polymesh(cs, BuildSettings(verts_per_poly=nvp))
    check_mesh(mesh, cs)
    assert mesh.num_verts == 6 and covered_area(mesh) == 48
    sizes = sorted(len(p) for p in polygons(mesh))
    assert sizes == ([3, 3, 3, 3] if nvp == 3 else [4, 4])
    # every polygon but the ones at the ends has a neighbour, and the pieces are linked
    links = (mesh.polys[:, nvp:] != MESH_NULL_IDX).sum()
    assert links == 2 * (mesh.num_polys - 1)


def test_a_region_with_a_hole_leaves_the_hole_open():
    cs = cset(contour(HOLED))
    mesh = build_polymesh(cs, BuildSettings())
    check_mesh(mesh, cs)
    assert mesh.num_verts == 8                               # the bridge's ends welded
    assert covered_area(mesh) == 96
    v = mesh.verts.astype(np.int64)
    for p in polygons(mesh):                                 # nothing covers the hole's middle
        n = len(p)
        centre = np.array([5, 0, 5])
        assert not all(cross(v[p[j]], v[p[(j + 1) % n]], centre) < 0 for j in range(n))


def test_two_regions_share_their_edge_and_link_across_it():
    a = contour(SQUARE, reg=1)
    b = contour([(4, 0), (4, 4), (8, 4), (8, 0)], reg=2, area=5)
    cs = cset(a, b)
    mesh = build_polymesh(cs, BuildSettings())
    check_mesh(mesh, cs)
    assert mesh.num_verts == 6 and mesh.num_polys == 2
    assert mesh.regs.tolist() == [1, 2] and mesh.areas.tolist() == [WALKABLE, 5]
    assert sorted(mesh.polys[0, 6:].tolist()).count(1) == 1
    assert sorted(mesh.polys[1, 6:].tolist()).count(0) == 1


@pytest.mark.parametrize(("rise", "welded"), [(0, True), (2, True), (3, False)])
def test_vertices_weld_within_two_cell_heights(rise, welded):
    a = contour([(x, 10, z) for x, z in SQUARE], reg=1)
    b = contour([(4, 10 + rise, 0), (4, 10 + rise, 4), (8, 10 + rise, 4), (8, 10 + rise, 0)],
                reg=2)
    cs = cset(a, b)
    mesh = build_polymesh(cs, BuildSettings())
    check_mesh(mesh, cs)
    assert mesh.num_verts == (6 if welded else 8)
    linked = (mesh.polys[:, 6:] != MESH_NULL_IDX).sum()
    assert linked == (2 if welded else 0)


def test_a_border_vertex_goes_where_the_polygons_round_it_allow():
    """A vertex a tile border added mid-side is removed and its hole refilled; the tip of
    a lone triangle stays (too few sides would be left)."""
    flags = [0, BORDER_VERTEX, 0, 0, 0]
    cs = cset(contour([(0, 0), (0, 2), (0, 4), (4, 4), (4, 0)], flags=flags))
    mesh = build_polymesh(cs, BuildSettings())
    check_mesh(mesh, cs)
    assert mesh.num_verts == 4 and mesh.num_polys == 1 and covered_area(mesh) == 16
    assert [0, 2] not in mesh.verts[:, [0, 2]].tolist()
    tip = cset(contour([(0, 0), (0, 4), (4, 0)], flags=[0, BORDER_VERTEX, 0]))
    mesh = build_polymesh(tip, BuildSettings())
    check_mesh(mesh, tip)
    assert mesh.num_verts == 3 and mesh.num_polys == 1


def test_a_vertex_shared_by_two_regions_is_removed_across_them():
    """Removing a border vertex both regions use refills the hole across the regions; a
    filling polygon whose sides come from both regions has region 0."""
    b = contour([(4, 0), (4, 4), (8, 4), (8, 0)], reg=2)
    # the two regions meet at (4, 0) on the z = 0 border; a's corner there is flagged
    a = contour([(0, 0), (0, 4), (4, 4), (4, 0)], reg=1, flags=[0, 0, 0, BORDER_VERTEX])
    cs = cset(a, b)
    mesh = build_polymesh(cs, BuildSettings())
    check_mesh(mesh, cs)
    assert covered_area(mesh) == 32
    assert [4, 0] not in mesh.verts[:, [0, 2]].tolist()
    assert mesh.regs.tolist() == [0, 0]


def test_sides_on_the_tile_border_are_portals():
    whole = contour([(0, 0), (0, 4), (4, 4), (4, 0)])
    cs = cset(whole, width=4, depth=4, border=2)
    mesh = build_polymesh(cs, BuildSettings())
    check_mesh(mesh, cs)
    p = polygons(mesh)[0]
    v = mesh.verts
    for j, nei in enumerate(mesh.polys[0, 6:6 + len(p)].tolist()):
        a, b = v[p[j]], v[p[(j + 1) % len(p)]]
        side = {(0, 0): 0, (2, 4): 1, (0, 4): 2, (2, 0): 3}
        expected = [0x8000 | s for (axis, at), s in side.items()
                    if a[axis] == at and b[axis] == at][0]
        assert nei == expected
    untiled = build_polymesh(cset(whole, width=4, depth=4), BuildSettings())
    assert (untiled.polys[0, 6:] == MESH_NULL_IDX).all()


def test_empty_and_degenerate_contours_give_no_polygons():
    mesh = build_polymesh(cset(), BuildSettings())
    assert mesh.num_verts == 0 and mesh.num_polys == 0
    assert mesh.polys.shape == (0, 12)
    short = cset(contour([(0, 0), (0, 4)]), contour(SQUARE, reg=2))
    mesh = build_polymesh(short, BuildSettings())
    check_mesh(mesh, short)
    assert mesh.num_polys == 1 and mesh.regs.tolist() == [2]


def test_bad_contours_are_refused():
    with pytest.raises(InvalidQueryError, match="ContourSet"):
        build_polymesh([contour(SQUARE)], BuildSettings())     # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="BuildSettings"):
        build_polymesh(cset(contour(SQUARE)), None)             # type: ignore[arg-type]
    bad = Contour(verts=np.zeros((4, 3), np.int32), raw=np.zeros((4, 3), np.int32), reg=1,
                  area=WALKABLE)
    with pytest.raises(InvalidGeometryError, match=r"contour 0: verts must be an \(n, 4\)"):
        build_polymesh(cset(bad), BuildSettings())
    with pytest.raises(InvalidGeometryError, match=r"contour 1: vertex 2 at \[70000, 0, 0\]"):
        build_polymesh(cset(contour(SQUARE), contour([(0, 0), (0, 4), (70000, 0)])),
                       BuildSettings())
    with pytest.raises(InvalidGeometryError, match="outside 0..65535"):
        build_polymesh(cset(contour([(-1, 0), (0, 4), (4, 0)])), BuildSettings())
    with pytest.raises(InvalidGeometryError, match="region 70000"):
        build_polymesh(cset(contour(SQUARE, reg=70000)), BuildSettings())


def test_too_many_vertices_are_refused():
    many = tuple(contour(SQUARE) for _ in range(0xFFFE // 4 + 1))
    with pytest.raises(InvalidGeometryError, match="65533"):
        build_polymesh(cset(*many), BuildSettings())


# --- against Recast (slow) ---

def _same(ours: PolyMesh, theirs: PolyMesh) -> None:
    assert ours.num_verts == theirs.num_verts and ours.num_polys == theirs.num_polys
    assert ours.verts.tolist() == theirs.verts.tolist()
    assert ours.polys.tolist() == theirs.polys.tolist()
    assert ours.regs.tolist() == theirs.regs.tolist()
    assert ours.areas.tolist() == theirs.areas.tolist()
    assert ours.flags.tolist() == theirs.flags.tolist()
    assert ours.nvp == theirs.nvp and ours.border == theirs.border
    assert ours.max_edge_error == pytest.approx(theirs.max_edge_error)


def _compare(level: Level, settings: BuildSettings) -> PolyMesh:
    """Our mesh from Recast's contours, then from our own, against Recast's."""
    theirs = recast(level, settings)
    regions = _regions(level, settings)
    cs = contours_of(theirs, regions)
    ours = build_polymesh(cs, settings)
    _same(ours, polymesh_of(theirs))
    check_mesh(ours, cs)
    _same(build_polymesh(build_contours(regions, settings), settings), polymesh_of(theirs))
    return ours


@pytest.mark.slow
@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@pytest.mark.parametrize("name", LEVELS, ids=str)
def test_recast_s_mesh_from_recast_s_contours(name, settings):
    _compare(LEVELS[name](), SETTINGS[settings])


@pytest.mark.slow
@pytest.mark.parametrize("nvp", [3, 4, 5])
@pytest.mark.parametrize("partition", ["watershed", "monotone", "layers"])
@pytest.mark.parametrize("name", ["building", "terrain", "nav_test"])
def test_every_partition_and_polygon_size(name, partition, nvp):
    _compare(LEVELS[name](), BuildSettings(partition=partition, verts_per_poly=nvp))


@pytest.mark.slow
def test_recast_s_figures_on_its_test_level():
    mesh = _compare(nav_test(), BuildSettings())
    assert (mesh.num_verts, mesh.num_polys) == (349, 155)
    mono = _compare(nav_test(), BuildSettings(partition="monotone"))
    assert (mono.num_verts, mono.num_polys) == (341, 186)
    layers = _compare(nav_test(), BuildSettings(partition="layers"))
    assert (layers.num_verts, layers.num_polys) == (310, 150)


def _recast_tile(level: Level, settings: BuildSettings, tile: int, border: int,
                 corner: tuple[int, int]) -> dict:
    """Recast's build of one tile (``tile`` cells square plus ``border``) of ``level``, as
    Recast's tiled sample builds it."""
    lo, hi = level.bounds
    cs = np.float32(settings.cell_size)
    bmin = lo + np.float32([corner[0] * tile * cs, 0, corner[1] * tile * cs])
    bmax = bmin + np.float32([tile * cs, 0, tile * cs])
    bmin[1], bmax[1] = lo[1], hi[1]
    return recast(level, settings, border_size=border, tile_size=tile, bmin=bmin.tolist(),
                  bmax=bmax.tolist())


# Tiles of Recast's test level (size in cells, partition, which tile); some have border
# vertices to remove, all have portals.
TILES = [(64, "watershed", (1, 1)), (64, "watershed", (3, 0)), (64, "watershed", (3, 2)),
         (64, "watershed", (1, 2)), (32, "monotone", (2, 2)), (32, "monotone", (4, 4)),
         (32, "monotone", (6, 6)), (32, "layers", (2, 2))]


@pytest.mark.slow
@pytest.mark.parametrize(("tile", "partition", "corner"), TILES, ids=str)
def test_tiles_with_borders_remove_border_vertices_and_mark_portals(tile, partition, corner):
    """A tile of Recast's test level with an 8-cell border: the border vertices go where
    they can and the sides along the tile's edge become portals, as in Recast."""
    settings = BuildSettings(partition=partition)
    theirs = _recast_tile(nav_test(), settings, tile, 8, corner)
    c = theirs["contours"]
    conts = tuple(Contour(verts=np.array(k["verts"], np.int32).reshape(-1, 4),
                          raw=np.array(k["rverts"], np.int32).reshape(-1, 4),
                          reg=k["reg"], area=k["area"]) for k in c["conts"])
    cs = ContourSet(contours=conts, bmin=np.array(theirs["polymesh"]["bmin"], np.float32),
                    bmax=np.array(theirs["polymesh"]["bmax"], np.float32),
                    cell_size=settings.cell_size, cell_height=settings.cell_height,
                    width=tile, depth=tile, border=c["border_size"], max_error=c["max_error"])
    ours = build_polymesh(cs, settings)
    _same(ours, polymesh_of(theirs))
    check_mesh(ours, cs)
    nei = ours.polys[:, 6:]
    assert ((nei & 0x8000 != 0) & (nei != MESH_NULL_IDX)).any()
    flagged = {(int(v[0]), int(v[2])) for k in conts for v in k.verts
               if v[3] & BORDER_VERTEX}
    if corner == (1, 1):
        assert flagged and flagged.isdisjoint(map(tuple, ours.verts[:, [0, 2]].tolist()))
