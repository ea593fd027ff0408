"""The demo page's section on vehicles: a car parking between two parked cars, turning
round in a narrow street (hybrid A*, with reversing) and driving through generated rooms,
its lengths against the Reeds–Shepp lower bound and the holonomic optimum, and pedestrians
crossing a street of moving carriages under hull steering."""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..grid import Grid
from ..grid.generate import rooms
from ..vehicles import car_path_bounds, plan_car_path, street_crossing
from ..viz.vehicles import animate_crossing, save_car_path

#: The demo's car: metres, the turning radius of its centre.
CAR: dict[str, Any] = {"turning_radius": 2.5, "length": 3.0, "width": 1.4}
#: Cells of the demo's streets, metres.
CELL = 0.5


def parking_street() -> Grid:
    """A street 22 m long and 7 m wide between two walls, with two parked cars along its
    lower kerb 4.5 m apart (the demo car is 3 m long)."""
    free = np.ones((14, 44), dtype=bool)
    free[[0, -1]] = False
    free[1:5, :14] = False
    free[1:5, 23:] = False
    return Grid(free, cell_size=CELL)


def narrow_street() -> Grid:
    """A dead-end street 24 m long and 5 m wide: narrower than the car's turning circle."""
    free = np.ones((12, 48), dtype=bool)
    free[[0, -1]] = False
    return Grid(free, cell_size=CELL)


def generated_rooms() -> Grid:
    """The library's rooms joined by corridors 5 m wide (1 m cells, 64 x 64, seed 1)."""
    return rooms(64, 64, corridor=5, seed=1)


#: The manoeuvres drawn: name, street, start and goal poses (m, m, radians), options.
MANOEUVRES: tuple[tuple[str, Callable[[], Grid], tuple[float, float, float],
                        tuple[float, float, float], dict[str, Any]], ...] = (
    ("parallel parking", parking_street, (2.0, 5.0, 0.0), (9.25, 1.7, 0.0), {}),
    ("parallel parking, forward only", parking_street, (2.0, 5.0, 0.0), (9.25, 1.7, 0.0),
     {"reverse": False, "max_expansions": 300}),
    ("U-turn in a narrow street", narrow_street, (6.0, 2.1, 0.0), (6.0, 3.9, math.pi), {}),
    ("across generated rooms", generated_rooms, (10.0, 6.0, 0.0), (50.0, 30.0, math.pi / 2),
     {}),
)


def _number(value: float, digits: int = 2) -> str:
    return f"{value:.{digits}f}" if math.isfinite(value) else "-"


def vehicles_section(out: Path) -> str:
    """Plan the manoeuvres and run the street crossing, write their pictures; return the
    HTML section."""
    esc = html.escape
    rows, figures = [], []
    for k, (name, street, start, goal, options) in enumerate(MANOEUVRES):
        grid = street()
        path = plan_car_path(grid, start, goal, **CAR, **options)
        rs, holonomic = car_path_bounds(grid, start, goal, turning_radius=CAR["turning_radius"],
                                        width=CAR["width"])
        rows.append(f"<tr><td>{esc(name)}</td><td>{esc(str(path.status))}</td>"
                    f"<td>{_number(path.length)}</td><td>{path.cusps if path.found else '-'}"
                    f"</td><td>{_number(rs)}</td><td>{_number(path.length / rs, 3)}</td>"
                    f"<td>{_number(holonomic)}</td>"
                    f"<td>{_number(path.length / holonomic, 3)}</td>"
                    f"<td>{path.stats.expanded}</td><td>{path.stats.elapsed * 1e3:.0f}</td></tr>")
        if path.found:
            png = save_car_path(out / f"vehicle-{k}.png", grid, path, length=CAR["length"],
                                width=CAR["width"], title=name)
            figures.append((f"{name}: {path.length:.1f} m with {path.cusps} "
                            f"cusp{'' if path.cusps == 1 else 's'}", png.name))
    run = street_crossing(pedestrians=4, seed=1, duration=30.0)
    m = run.summary()
    gif = animate_crossing(out / "vehicle-crossing.gif", run, frames=80)
    figures.append((f"street crossing: {m['arrived']} of {m['pedestrians']} pedestrians "
                    f"arrived, least gap to a carriage {m['least_gap']:.2f} m", gif.name))
    figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>{esc(cap)}"
                   "</figcaption></figure>" for cap, src in figures)
    return f"""<h2>Vehicles</h2>
<p>A car {CAR['length']:g} m long and {CAR['width']:g} m wide, turning no tighter than
{CAR['turning_radius']:g} m, planned by hybrid A* on streets of {CELL:g} m cells and through
the rooms of a generated map of 1 m cells: its path is
drawn blue where it drives forward and red in reverse, its outline every car length and at
each cusp. The Reeds&ndash;Shepp length ignores the obstacles, and the holonomic optimum (the
shortest cell path over the cells at least half the car's width from the walls) ignores the
turning radius; both are lower bounds but for the holonomic path's cell corners. The
second row parks the same car forward only, on a budget of 300 expansions.
<table><tr><th>manoeuvre</th><th>status</th><th>length m</th><th>cusps</th>
<th>Reeds&ndash;Shepp m</th><th>length / Reeds&ndash;Shepp</th><th>holonomic m</th>
<th>length / holonomic</th><th>expansions</th><th>ms</th></tr>{''.join(rows)}</table>
<p>{m['pedestrians']} pedestrians cross a two-lane street of horse-drawn carriages, each
steering round the convex hulls of the carriages (body and horses merged, grown by the
pedestrian's radius and a margin) and slowing down to pass behind a carriage whose way it
would cut; the hulls are drawn grown by the radius alone. {m['arrived']} of them arrived,
on average after
{m['t_mean']:.1f} s (the last after {m['t_last']:.1f} s), and no pedestrian's disc came
closer than {m['least_gap']:.2f} m to a carriage in {m['steps']} steps of {run.dt:g} s.
{figs}
"""
