"""Pictures of constraint-aware navigation: the heat map's pixels follow the multiplier the
constraint set gives at their centres (darker where it is higher, one scale across panels),
hard constraints are hatched and never crossed by the path drawn, annotations are outlined
by kind, the figures have the sizes asked for, and bad input is refused."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from wayfinding.constraints import Constraint, ConstraintSet, Disc, LineOfSight, Region
from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid, GridSearch
from wayfinding.navmesh import NavMesh
from wayfinding.planning import (
    DensityDomain,
    GridDomain,
    MultiDomainPlanner,
    NavMeshDomain,
    SpaceTimeDomain,
)
from wayfinding.viz.constraints import (
    COLOURS,
    animate_constraints,
    multiplier_colours,
    render_constraint_panels,
    render_constraints_png,
    render_multidomain_png,
)
from wayfinding.viz.raster import PALETTE, rgb

Image = pytest.importorskip("PIL.Image")

#: A 40 x 20 open yard, 1 m cells: at size 400 a pixel is 0.1 m.
YARD = Grid(np.ones((20, 40), dtype=bool))
GUARD = Constraint(Disc((10.0, 10.0), 1.0), -6, near=True)
POND = Constraint.hard(Region([(18, 6), (24, 6), (24, 14), (18, 14)]))
LAWN = Constraint(Region([(28, 2), (36, 2), (36, 8), (28, 8)]), 3)


def pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as im:
        assert im.format == "PNG"
        return np.asarray(im.convert("RGB")).astype(np.int64)


def centres(shape: tuple[int, int], scale: float, height: float) -> np.ndarray:
    """World points ``(H, W, 2)`` of the pixel centres of a picture of a world whose lower
    left corner is the origin, y up."""
    j, i = np.mgrid[0:shape[0], 0:shape[1]]
    return np.stack([(i + 0.5) / scale, height - (j + 0.5) / scale], axis=-1)


def luminance(rgb_pixels: np.ndarray) -> np.ndarray:
    return rgb_pixels @ np.array([0.2126, 0.7152, 0.0722])


def is_colour(img: np.ndarray, colour: str) -> np.ndarray:
    return (img == rgb(colour)).all(axis=-1)


def test_the_heat_map_is_darker_where_the_multiplier_is_higher():
    cs = ConstraintSet([GUARD])
    img = pixels(render_constraints_png(YARD, cs, size=400, colour_bar=False))
    assert img.shape == (200, 400, 3)
    pts = centres(img.shape[:2], 10.0, 20.0)
    m = cs.multiplier(pts.reshape(-1, 2)).reshape(img.shape[:2])
    border = GUARD.annotation.distance(pts.reshape(-1, 2)).reshape(img.shape[:2])
    keep = border > 0.3                               # clear of the disc's outline
    lum, mult = luminance(img[keep]), m[keep]
    order = np.argsort(mult, kind="stable")
    assert np.all(np.diff(lum[order]) <= 1e-9)        # never lighter where m is higher
    assert lum[mult == mult.max()].max() < lum[mult == 1.0].min()
    # and each pixel is the ramp's colour of the multiplier at its centre, 1 to the top
    assert np.array_equal(img[keep], multiplier_colours(mult, float(m.max())))
    assert np.array_equal(multiplier_colours(np.array([1.0]), 2.0)[0],
                          rgb(PALETTE["heat"][0]))
    assert np.array_equal(multiplier_colours(np.array([2.0]), 2.0)[0],
                          rgb(PALETTE["heat"][-1]))


def test_a_shared_top_sets_the_scale():
    cs = ConstraintSet([GUARD])
    top = float(cs.multiplier([GUARD.annotation.centre])[0])
    own = pixels(render_constraints_png(YARD, cs, size=200, colour_bar=False))
    wide = pixels(render_constraints_png(YARD, cs, size=200, colour_bar=False, top=4 * top))
    assert luminance(wide).min() > luminance(own).min()   # the same field, a longer ramp


def test_hard_constraints_are_hatched_and_the_path_keeps_out():
    cs = ConstraintSet([POND])
    r = GridSearch(YARD).find_path((2, 10), (37, 10), constraints=cs)
    assert r.found
    img = pixels(render_constraints_png(YARD, cs, paths=[r], size=400, colour_bar=False))
    pts = centres(img.shape[:2], 10.0, 20.0)
    deep = POND.annotation.contains(pts.reshape(-1, 2)).reshape(img.shape[:2])
    inner = deep.copy()                               # two pixels in from its border
    for axis in (0, 1):
        for shift in (-2, 2):
            inner &= np.roll(deep, shift, axis=axis)
    hard = is_colour(img, COLOURS["hard"]) | is_colour(img, COLOURS["hatch"])
    assert hard[inner].all() and is_colour(img, COLOURS["hatch"])[inner].any()
    assert not hard[~deep].any()
    assert is_colour(img, COLOURS["hard_edge"]).sum() > 100
    drawn = is_colour(img, COLOURS["paths"][0])
    assert drawn.sum() > 300 and not drawn[inner].any()


def test_annotations_are_outlined_by_kind_and_paths_by_order():
    cs = ConstraintSet([GUARD, LAWN, POND])
    cells = GridSearch(YARD).find_path((2, 2), (37, 17))
    line = np.array([(0.5, 19.5), (39.5, 0.5)])
    img = pixels(render_constraints_png(YARD, cs, paths=[cells, line], start=(2.5, 2.5),
                                        goal=(37.5, 17.5), size=400, colour_bar=False))
    for key in ("repel", "attract", "hard_edge"):
        assert is_colour(img, COLOURS[key]).sum() > 50, key
    first, second = (is_colour(img, c) for c in COLOURS["paths"][:2])
    assert first.sum() > 300 and second.sum() > 300
    # a grid's cells are drawn through their centres, as the same points in world units
    centred = pixels(render_constraints_png(YARD, cs, paths=[cells.path + 0.5, line],
                                            start=(2.5, 2.5), goal=(37.5, 17.5), size=400,
                                            colour_bar=False))
    assert np.array_equal(centred, img)
    assert is_colour(img, PALETTE["start"]).any() and is_colour(img, PALETTE["goal"]).any()


def test_a_navigation_mesh_is_drawn_where_it_is_walkable():
    mesh = NavMesh.build(outline=[(0, 0), (20, 0), (20, 10), (0, 10)],
                         holes=[[(8, 3), (12, 3), (12, 7), (8, 7)]])
    cs = ConstraintSet([Constraint(Disc((4, 5), 1.0), -3, near=True)])
    img = pixels(render_constraints_png(mesh, cs, size=200, colour_bar=False))
    assert img.shape == (100, 200, 3)
    assert is_colour(img[40:60, 90:110], COLOURS["blocked"]).all()          # the hole
    pts = centres(img.shape[:2], 10.0, 10.0)
    m = cs.multiplier(pts.reshape(-1, 2)).reshape(img.shape[:2])
    far = img[5:15, 150:190]                                                # open floor
    assert np.array_equal(far, multiplier_colours(m[5:15, 150:190], float(m.max())))


def test_sizes_bar_and_title():
    plain = pixels(render_constraints_png(YARD, None, size=300, colour_bar=False))
    assert plain.shape[:2] == (150, 300)
    assert is_colour(plain, PALETTE["heat"][0]).all()      # no constraint: 1 everywhere
    barred = pixels(render_constraints_png(YARD, None, size=300))
    titled = render_constraints_png(YARD, None, size=300, title="yard")
    assert barred.shape[0] > 150 and barred.shape[1] == 300
    with Image.open(io.BytesIO(titled)) as im:
        assert im.size == (300, barred.shape[0] + 28) and im.text["Title"] == "yard"


def test_panels_share_one_scale_side_by_side():
    search = GridSearch(YARD)
    sets = [None, ConstraintSet([GUARD]), ConstraintSet([POND])]
    panels = [(name, cs, search.find_path((2, 10), (37, 10), constraints=cs))
              for name, cs in zip(("none", "guard", "pond"), sets)]
    png = render_constraint_panels(YARD, panels, start=(2.5, 10.5), goal=(37.5, 10.5),
                                   size=200, columns=3, title="three")
    img = pixels(png)
    assert img.shape[1] == 3 * 200 + 2 * 8
    band = 28
    left = img[band:band + 100, 0:200]
    free = ~is_colour(left, COLOURS["paths"][0])
    drawn = is_colour(left, PALETTE["heat"][0]) | is_colour(left, PALETTE["start"]) \
        | is_colour(left, PALETTE["goal"]) | is_colour(left, PALETTE["ring"]) \
        | is_colour(left, PALETTE["outline"])
    assert drawn[free].mean() > 0.99                  # unconstrained: the ramp's start
    middle = img[band:band + 100, 208:408]
    assert is_colour(middle, PALETTE["heat"][-1]).any()   # the guard's peak tops the scale
    two = pixels(render_constraint_panels(YARD, panels, size=200))
    assert two.shape[1] == 2 * 200 + 8 and two.shape[0] > 2 * (100 + band)


def test_a_repair_is_animated(tmp_path):
    eye = LineOfSight((20, 19), -math.pi / 2, fov=math.pi / 3, range=15.0)
    search = GridSearch(YARD)
    frames = []
    for k in range(3):
        cs = ConstraintSet([Constraint(eye.moved(turn=0.3 * k), -5, near=True)])
        frames.append((f"turn {k}", cs, search.find_path((2, 10), (37, 10), constraints=cs)))
    path = animate_constraints(tmp_path / "repair.gif", YARD, frames, size=160)
    with Image.open(path) as im:
        assert im.format == "GIF" and im.n_frames == 3
        assert im.size == (160, 80 + 28)
    with pytest.raises(InvalidQueryError, match="GIF"):
        animate_constraints(tmp_path / "repair.png", YARD, frames)
    assert not (tmp_path / "repair.png").exists()


def test_a_multidomain_plan_is_drawn():
    grid = Grid.from_ascii("""
..........
..........
...###....
...###....
..........
..........""")
    mesh = NavMesh.build(grid)
    gd = GridDomain(grid)
    planner = MultiDomainPlanner(NavMeshDomain(mesh), DensityDomain(mesh,
                                 np.zeros(mesh.num_polygons)), gd, (0.5, 0.5), (9.5, 5.5),
                                 spacetime=SpaceTimeDomain(gd), max_tasks=100)
    for _ in range(100):
        if planner.settled:
            break
        planner.think()
    img = pixels(render_multidomain_png(planner, size=200))
    assert img.shape[:2] == (120, 200)
    for key in ("legs", "spacetime", "static"):
        assert is_colour(img, COLOURS[key]).any(), key
    assert is_colour(img, COLOURS["blocked"]).sum() > 500         # the block of walls
    with pytest.raises(InvalidQueryError, match="MultiDomainPlan"):
        render_multidomain_png(planner, plan="plan")


@pytest.mark.parametrize(("call", "match"), [
    (lambda: render_constraints_png("yard", None), "Grid or a NavMesh"),
    (lambda: render_constraints_png(YARD, [GUARD]), "ConstraintSet"),
    (lambda: render_constraints_png(YARD, None, size=10), "size"),
    (lambda: render_constraints_png(YARD, None, t=math.nan), "t"),
    (lambda: render_constraints_png(YARD, None, top=0.5), "top"),
    (lambda: render_constraints_png(YARD, None, paths=[[(1, 2, 3)]]), r"paths\[0\]"),
    (lambda: render_constraints_png(YARD, None, paths=[[(1.0, math.nan)]]), "NaN"),
    (lambda: render_constraints_png(YARD, None, paths=5), "paths"),
    (lambda: render_constraints_png(YARD, None, start=(1, "a")), "start"),
    (lambda: render_constraints_png(YARD, None, title=3), "title"),
    (lambda: render_constraint_panels(YARD, []), "no"),
    (lambda: render_constraint_panels(YARD, "abc"), "panels"),
    (lambda: render_constraint_panels(YARD, [("a", None)]), r"panels\[0\]"),
    (lambda: render_constraint_panels(YARD, [(1, None, None)]), "label"),
    (lambda: render_constraint_panels(YARD, [("a", None, None)], columns=0), "columns"),
    (lambda: render_multidomain_png(YARD), "MultiDomainPlanner"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises(InvalidQueryError, match=match):
        call()
