"""The demo page's section on traffic (*Driver San Francisco*): two of the library's driver
personalities' routes across a generated road grid side by side, the lattice planner's
cheapest paths past a parked car and an oncoming one with the best path's speeds, the
worked examples of the notes (lattice path costs 5 and 11; speeds 70, 30 and 50 passed back)
reproduced by the library, and the other cars' time-dependent potential as an animation."""

from __future__ import annotations

import html
import math
import time
from pathlib import Path

import numpy as np

from ..traffic import (
    CarField,
    CarModel,
    DriverCosts,
    RoutePlanner,
    Trajectory,
    describe,
    driver,
    lattice_node_costs,
    lattice_step,
    optimise_step,
    plan_lattice,
    propagate_speeds,
    road_grid,
)
from ..viz.traffic import animate_car_field, save_lattice, save_road_routes

#: The road grid drawn: junctions across and down, their spacing, the highways' period.
COLUMNS, ROWS, SPACING, HIGHWAY_EVERY = 8, 5, 100.0, 3
#: The personalities whose routes are compared, and the one driving the lattice (a car
#: within 3 of a node, a lane being 3.5 wide, adds 10; the oncoming lane adds 2).
ROUTE_DRIVERS, LATTICE_DRIVER = ("cautious", "reckless"), "normal"
#: The lattice vehicle: its most sideways acceleration and braking (world units, seconds).
CAR = CarModel(lateral_acceleration=8.0, max_braking=3.0)


def traffic_section(out: Path) -> str:
    """Plan and draw the traffic examples into ``out``; return the HTML section."""
    esc = html.escape
    net = road_grid(COLUMNS, ROWS, spacing=SPACING, highway_every=HIGHWAY_EVERY)
    # Lanes lie 1.75 right of their road's centre line: leave junction (0, 1) eastwards,
    # arrive at junction (7, 4) northwards.
    start = next(lane.id for lane in net.lanes
                 if np.allclose(lane.points[[0, -1]], [[0.0, 98.25], [100.0, 98.25]]))
    goal = next(lane.id for lane in net.lanes
                if np.allclose(lane.points[[0, -1]], [[701.75, 300.0], [701.75, 400.0]]))
    route_rows, figures = [], []
    for name in ROUTE_DRIVERS:
        t0 = time.perf_counter()
        route = RoutePlanner(net, driver=driver(name)).find_route(start, goal)
        ms = (time.perf_counter() - t0) * 1e3
        lanes = route.path.tolist()
        length = float(np.hypot(*np.diff(net.route_points(lanes), axis=0).T).sum())
        highway = sum(net.lanes[i].length for i in lanes if net.lanes[i].kind == "highway")
        picture = save_road_routes(out / f"traffic-route-{name}.png", net, routes=[lanes],
                                   labels=[name], size=480)
        route_rows.append(f"<tr><td>{esc(name)}</td><td>{route.cost:.1f}</td>"
                          f"<td>{len(lanes)}</td><td>{length:.1f}</td>"
                          f"<td>{highway / length:.0%}</td><td>{route.stats.expanded}</td>"
                          f"<td>{ms:.1f}</td></tr>")
        figures.append((f"{name}: {len(lanes)} lanes, {length:.0f} long, cost "
                        f"{route.cost:.1f}", picture.name))
    people = "".join(f"<li>{esc(name)}: {esc(describe(driver(name)))}</li>"
                     for name in ROUTE_DRIVERS)
    lattice_driver = driver(LATTICE_DRIVER)
    costs = lattice_driver.lattice_costs()
    lattice_rows, lattice_figures = _lattice(out)
    example_rows = _worked_examples()
    route_figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>"
                         f"{esc(cap)}</figcaption></figure>" for cap, src in figures)
    lattice_figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>"
                           f"{esc(cap)}</figcaption></figure>" for cap, src in lattice_figures)
    return f"""<h2>Traffic</h2>
<p>A city of {COLUMNS} × {ROWS} junctions {SPACING:g} apart, one lane each way, the rows
and columns whose index is a multiple of {HIGHWAY_EVERY} highways (drawn wider). Route A*
runs over the lanes with each driver personality's costs (its numbers below), from the lane
leaving junction (0, 1) eastwards to the lane reaching junction (7, 4) northwards (a route's
cost counts the lanes after the first):</p>
<ul>{people}</ul>
<table><tr><th>driver</th><th>cost</th><th>lanes</th><th>length</th><th>on highways</th>
<th>lanes expanded</th><th>ms</th></tr>{''.join(route_rows)}</table>{route_figs}
<p>The mid-level lattice planner on a road 100 long for the {LATTICE_DRIVER} driver: node
sets every 10 along it, one node per lane, every path scored exhaustively (straight step
{costs.straight:g}, lane change {costs.lane_change:g}, the oncoming lane \
+{costs.type_cost("oncoming"):g}, a node within {costs.near_distance:g} of another car's \
predicted position at the time the vehicle gets there +{costs.near_car:g}), the five
cheapest kept, and the best path's speed limits from its turns (desired speed \
{lattice_driver.desired_speed:g}, sideways acceleration {CAR.lateral_acceleration:g})
passed backwards with the braking the car has ({CAR.max_braking:g}), so that it brakes
before it swerves. A car is parked in the driving lane halfway along, and an oncoming car
meets the vehicle 60 along. The table gives the five paths (lane 0 drives with traffic,
lane 1 is oncoming) and their speeds, the vehicle's first.</p>
<table><tr><th>path</th><th>cost</th><th>lanes by set</th><th>speeds</th></tr>
{lattice_rows}</table>{lattice_figs}
<p>The notes' worked examples computed by the library: the lattice of Fig 20.4 (four sets,
straight step 1, lane change 2, near a car +1, oncoming +1; a parked car beside set 0 in the
oncoming lane, an oncoming car reaching set 2 with the vehicle) and the speeds of Fig 20.5
(70 at the last set, a 30 corner at set 2, braking worth +20 over one step). The library
passes speeds back as <i>v</i> = min(limit, √(<i>v</i><sub>next</sub>² + 2·<i>a</i>·<i>d</i>)),
so the vehicle's own speed is √(50² + 40²) ≈ 64.0 where adding 20 to 50 would give 70.</p>
<table><tr><th>example</th><th>notes</th><th>library</th></tr>{example_rows}</table>
"""


def _lattice(out: Path) -> tuple[str, list[tuple[str, str]]]:
    """The lattice planner on the one road of a grid of two junctions, past a parked car
    and an oncoming one: the table rows of its kept paths and the figures (its picture,
    the cars' potential)."""
    net = road_grid(2, 1, spacing=100.0)
    forward, oncoming = net.road_lanes(0)
    # The road runs from (0, 0) to (100, 0): a car parked in the driving lane at x = 50,
    # and an oncoming car that meets the vehicle at x = 60 (at 4 s, both driving 15).
    parked = Trajectory([forward.point_at(50.0)], [0.0])
    coming = Trajectory([[120.0, oncoming.points[0][1]], oncoming.points[-1]], [15.0, 15.0])
    t0 = time.perf_counter()
    # Row 0 abreast of the vehicle (at the road's start), then nine sets.
    step = lattice_step(net, 0, forward=True, driver=driver(LATTICE_DRIVER),
                        cars=[parked, coming], n_sets=9, spacing=10.0, k=5, model=CAR)
    ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    plan = optimise_step(net, step)
    plan_ms = (time.perf_counter() - t0) * 1e3
    paths = [step.points(i) for i in range(len(step.paths))]
    picture = save_lattice(out / "traffic-lattice.png", step.positions, paths=paths,
                           nodes=step.nodes, start_lane=step.start_lane, labels=step.labels,
                           cars=step.cars, times=step.times, speeds=step.speeds[0],
                           limits=step.limits[0], optimised=plan, size=720)
    vehicle = Trajectory(paths[0], step.speeds[0])
    gif = animate_car_field(out / "traffic-field.gif", step.cars,
                            lanes=[forward.points, oncoming.points], vehicle=vehicle,
                            times=np.linspace(0.0, 6.0, 25), resolution=1.0)
    rows = "".join(
        f"<tr><td>{k}</td><td>{p.cost:g}</td><td>{' '.join(map(str, p.lanes.tolist()))}</td>"
        f"<td>{' '.join(f'{v:.1f}' for v in v_path.tolist())}</td></tr>"
        for k, (p, v_path) in enumerate(zip(step.paths, step.speeds), 1))
    sequences = step.nodes.shape[1] ** step.nodes.shape[0]     # lanes ** sets
    figures = [
        (f"the five cheapest of the {sequences} lane sequences ({ms:.1f} ms to "
         "score them all and pass the speeds back; the best in red) past a parked car; "
         "the other cars now (filled) and where one is predicted beside a set when the "
         "vehicle gets there (hollow); below, the best path's speed limits (orange) and "
         "the speeds passed back (blue); in green, the trajectory optimiser's drive from "
         f"path {plan.seed + 1} and its speeds (score {plan.cost:.1f} against the seed's "
         f"{plan.seed_costs[plan.seed]:.1f} after {plan.iterations} iterations, "
         f"{plan.collisions} colliding frames, {plan_ms:.0f} ms)", picture.name),
        ("the other cars' potential over six seconds (dark where a car is predicted), the "
         "time-dependent field of their predicted trajectories, with the vehicle (green) "
         "driving the best path at its passed-back speeds", gif.name)]
    return rows, figures


def fig_20_4() -> dict[tuple[int, ...], float]:
    """The lattice of *Driver San Francisco* Fig 20.4 scored by the library for the default
    driver (:class:`~wayfinding.traffic.routes.DriverCosts`): the cost of
    every path by its lanes (lane 0 with traffic at y = 0, lane 1 oncoming at y = 4; sets
    10 apart reached at t = 1..4 s)."""
    xs = np.array([10.0, 20.0, 30.0, 40.0])
    positions = np.stack([np.stack([xs, np.zeros(4)], 1), np.stack([xs, np.full(4, 4.0)], 1)],
                         axis=1)
    parked = Trajectory([[10.0, 4.0]], [0.0])
    coming = Trajectory([[60.0, 2.0], [-40.0, 2.0]], [10.0, 10.0])
    costs = DriverCosts().lattice_costs()
    nodes = lattice_node_costs(positions, [1.0, 2.0, 3.0, 4.0], ["driving", "oncoming"],
                               costs=costs, cars=CarField([parked, coming], radius=2.0))
    return {tuple(p.lanes.tolist()): p.cost for p in plan_lattice(nodes, 0, costs=costs, k=16)}


def fig_20_5() -> np.ndarray:
    """The speeds of *Driver San Francisco* Fig 20.5 passed back by the library: the
    vehicle's, then sets 1..4 (70 at set 4, a 30 corner at set 2, braking worth +20 from
    30 over one step)."""
    return propagate_speeds([70.0, 30.0, 70.0, 70.0], [1.0, 1.0, 1.0, 1.0], start_limit=70.0,
                            deceleration=(50.0 ** 2 - 30.0 ** 2) / 2)


def _worked_examples() -> str:
    """The table rows comparing the notes' numbers with the library's."""
    costs = fig_20_4()
    best = min(costs, key=lambda lanes: (costs[lanes], lanes))
    speeds = fig_20_5()
    rows = [("path 1 (stays with traffic): cost", "5", f"{costs[(0, 0, 0, 0)]:g}"),
            ("path 2 (the oncoming lane): cost", "11", f"{costs[(1, 1, 1, 1)]:g}"),
            ("path chosen", "path 1",
             "path 1" if best == (0, 0, 0, 0) else " ".join(map(str, best))),
            ("speeds at sets 1..4", "50 30 70 70",
             " ".join(f"{v:g}" for v in speeds[1:].tolist())),
            ("speed at the vehicle", "70 (= min(70, 50 + 20))",
             f"{speeds[0]:.1f} (= √(50² + 40²))" if math.isclose(speeds[0], math.hypot(50, 40))
             else f"{speeds[0]:.1f}")]
    return "".join(f"<tr><td>{html.escape(a)}</td><td>{html.escape(b)}</td>"
                   f"<td>{html.escape(c)}</td></tr>" for a, b, c in rows)
