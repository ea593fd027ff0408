"""Draw the strip of four pictures shown near the top of the README and on the site's front
page: a grid search, a navigation mesh, a flow field and a crowd, each 240 pixels high.

Run from anywhere: ``python examples/make_strip.py [FOLDER]`` (default: ``docs/img/gallery``
beside this script's folder).  Every picture comes from the library's own renderers, on maps
and levels it generates; a picture that comes out at another height (the navigation mesh is
drawn 800 pixels across, a heat map gets a colour bar below it) is scaled to the strip's
height with Pillow.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image

from wayfinding import GridSearch
from wayfinding.crowd import scenario, simulate_crowd
from wayfinding.fields import FlowField
from wayfinding.grid import generate
from wayfinding.navmesh3d import build
from wayfinding.navmesh3d import generate as levels
from wayfinding.viz import render_png
from wayfinding.viz.crowd import animate_run
from wayfinding.viz.fields import render_flow_png
from wayfinding.viz.navmesh3d import render_navmesh3d_png

#: The strip's height in pixels; the grids are 40 cells high at 6 pixels a cell.
HEIGHT, ROWS, SCALE = 240, 40, 6


def _save_fitted(png: bytes, target: Path) -> Path:
    """Write the PNG ``png`` to ``target``, scaled to :data:`HEIGHT` pixels high."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    if image.height != HEIGHT:
        width = round(image.width * HEIGHT / image.height)
        image = image.resize((width, HEIGHT), Image.Resampling.LANCZOS)
    image.save(target, optimize=True)
    return target


def grid_search(out: Path) -> Path:
    """A* on a generated cave: the cells it expanded, its open list and the path."""
    cave = generate.caves(64, ROWS, seed=7)
    far = max(generate.benchmark_scenario(cave, per_bucket=2, seed=7), key=lambda p: p.optimal)
    r = GridSearch(cave).find_path(far.start, far.goal, method="astar", record=True)
    return _save_fitted(render_png(cave, path=r, explored=r, frontier=r, start=far.start,
                                   goal=far.goal, scale=SCALE), out / "grid-search.png")


def navmesh(out: Path) -> Path:
    """The navigation mesh of a generated hilly terrain seen from above, by region."""
    mesh = build(levels.terrain(size=48, seed=2))
    return _save_fitted(render_navmesh3d_png(mesh), out / "navmesh.png")


def flow_field(out: Path) -> Path:
    """The fast-marching flow field of the same cave towards one goal, an arrow every third
    cell."""
    cave = generate.caves(64, ROWS, seed=7)
    goal = max(generate.benchmark_scenario(cave, per_bucket=2, seed=7),
               key=lambda p: p.optimal).goal
    flow = FlowField.build(cave, [goal], method="eikonal", order=2, los=True)
    return _save_fitted(render_flow_png(cave, flow.field, vectors=flow.vectors, every=3,
                                         goal=goal, scale=SCALE, colour_bar=False),
                        out / "flow-field.png")


def crowd(out: Path) -> Path:
    """Sixty agents crossing a circle under ORCA."""
    sc = scenario("circle", n=60, size=40)
    return animate_run(out / "crowd.gif", simulate_crowd(sc), sc.obstacles, size=HEIGHT,
                       frames=60)


def main(argv: list[str]) -> None:
    out = Path(argv[0]) if argv else Path(__file__).resolve().parents[1] / "docs/img/gallery"
    out.mkdir(parents=True, exist_ok=True)
    for draw in (grid_search, navmesh, flow_field, crowd):
        path = draw(out)
        with Image.open(path) as image:
            print(f"{path}: {image.width} x {image.height} px, "
                  f"{path.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main(sys.argv[1:])
