"""``wayfinding traffic route|lattice``: a route by lane A* between two junctions of a
generated road grid for one driver personality, and the mid-level lattice planner on one of
its roads around other cars, with the speeds passed back from the last node set.

Distances are world units (the road grid's ``--spacing`` apart), speeds world units a
second.  A junction is a cell ``X,Y`` of the grid: column ``X``, row ``Y``, at world point
``(X · spacing, Y · spacing)``."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import InvalidQueryError
from ..traffic import (
    DRIVERS,
    CarModel,
    LaneType,
    RoadNetwork,
    RoutePlanner,
    Trajectory,
    describe,
    driver,
    lattice_step,
    optimise_step,
    road_grid,
)
from .args import (
    add_json_option,
    add_method_option,
    cell,
    non_negative_int,
    positive_float,
    positive_int,
    to_json,
)

DRIVER_HELP = "driver personality: " + "; ".join(
    f"{name}: {describe(costs)}" for name, costs in DRIVERS.items()) + " (default normal)"


def add_traffic_parser(sub: Any) -> None:
    """Register the ``traffic`` subcommand."""
    t = sub.add_parser("traffic", help="vehicles and traversal: routes per driver personality "
                       "on road grids, the mid-level lattice planner around other cars",
                       description="Plan routes and lane lattices on a generated road grid.")
    tsub = t.add_subparsers(dest="traffic_command", required=True)
    r = tsub.add_parser("route", help="route A* between two junctions for a driver, print "
                        "its cost, lanes, length and time",
                        description="The cheapest route from a lane leaving junction --from "
                        "to a lane arriving at junction --to (its cost counts the first lane).")
    _network_options(r)
    r.add_argument("--from", dest="start", type=cell, default=(0, 0), metavar="X,Y",
                   help="start junction (default 0,0)")
    r.add_argument("--to", dest="goal", type=cell, default=None, metavar="X,Y",
                   help="goal junction (default the last: COLUMNS-1,ROWS-1)")
    r.add_argument("--driver", choices=sorted(DRIVERS), default="normal", help=DRIVER_HELP)
    r.add_argument("--avoid-roads", type=_road_ids, default=frozenset(), metavar="ID,ID",
                   help="road ids never entered (as --json's roads lists them)")
    add_method_option(r, ("astar", "dijkstra"))
    r.add_argument("--render", metavar="OUT.png", help="draw the lanes and the route")
    add_json_option(r)
    r.set_defaults(run=cmd_route)

    lat = tsub.add_parser("lattice", help="the lattice planner on one road around other "
                          "cars: top paths, their costs and speed limits",
                          description="Node sets along one road, one node per lane, every "
                          "path scored around the other cars' predicted positions; the K "
                          "cheapest with the speeds passed back from the last set.")
    _network_options(lat)
    lat.add_argument("--road", type=non_negative_int, default=0,
                     help="road id (default 0: the first road from junction 0,0)")
    lat.add_argument("--backward", action="store_true",
                     help="drive the road from its end to its start")
    lat.add_argument("--sets", type=positive_int, default=8, help="node sets (default 8)")
    lat.add_argument("--set-spacing", type=positive_float, default=10.0,
                     help="distance between node sets (default 10)")
    lat.add_argument("--driver", choices=sorted(DRIVERS), default="normal", help=DRIVER_HELP)
    lat.add_argument("--speed", type=positive_float, default=None,
                     help="desired speed, world units a second (default the driver's)")
    lat.add_argument("--lateral-acceleration", type=positive_float, default=8.0,
                     help="most sideways acceleration in a turn (default 8)")
    lat.add_argument("--deceleration", type=positive_float, default=6.0,
                     help="most braking (default 6)")
    lat.add_argument("--cars", type=non_negative_int, default=3,
                     help="other cars on the road's lanes (default 3)")
    lat.add_argument("--seed", type=non_negative_int, default=0,
                     help="seed placing the other cars")
    lat.add_argument("--top", type=positive_int, default=5, help="paths kept (default 5)")
    lat.add_argument("--optimise", action="store_true",
                     help="also run the trajectory optimiser from the kept paths over the "
                     "road's potential field and the cars' (the car's model: the sideways "
                     "acceleration and braking above), print its cost against its seed's "
                     "and draw its drive in green")
    lat.add_argument("--render", metavar="OUT.png",
                     help="draw the lattice, the cars, the paths and the speeds")
    add_json_option(lat)
    lat.set_defaults(run=cmd_lattice)


def _network_options(p: Any) -> None:
    p.add_argument("--columns", type=positive_int, default=6, help="junctions across (default 6)")
    p.add_argument("--rows", type=positive_int, default=4, help="junctions down (default 4)")
    p.add_argument("--spacing", type=positive_float, default=100.0,
                   help="distance between neighbouring junctions (default 100)")
    p.add_argument("--highway-every", type=non_negative_int, default=0, metavar="K",
                   help="every K-th row and column is a highway (default 0: none)")


def _road_ids(text: str) -> frozenset[int]:
    return frozenset(non_negative_int(v) for v in text.split(","))


def cmd_route(args: Any) -> int:
    net = road_grid(args.columns, args.rows, spacing=args.spacing,
                    highway_every=args.highway_every)
    goal = args.goal if args.goal is not None else (args.columns - 1, args.rows - 1)
    for name, (x, y) in (("--from", args.start), ("--to", goal)):
        if not (0 <= x < args.columns and 0 <= y < args.rows):
            raise InvalidQueryError(f"{name} {x},{y} is not a junction of the {args.columns} x "
                                    f"{args.rows} grid")
    if args.start == goal:
        raise InvalidQueryError(f"--from and --to are the same junction {goal[0]},{goal[1]}")
    if not net.junctions:
        raise InvalidQueryError(f"the {args.columns} x {args.rows} grid has no roads")
    if args.avoid_roads and max(args.avoid_roads) >= len(net.roads):
        raise InvalidQueryError(f"--avoid-roads {max(args.avoid_roads)} is not a road id "
                                f"(the grid has roads 0..{len(net.roads) - 1})")
    costs = replace(driver(args.driver), avoid_roads=args.avoid_roads)
    t0 = time.perf_counter()
    planner = RoutePlanner(net, driver=costs)
    found = planner.find_route_between(net.junctions[args.start][0], net.junctions[goal][1],
                                       method=args.method)
    elapsed = time.perf_counter() - t0
    route, cost, expanded = (found if found.found else None), found.cost, found.stats.expanded
    lanes = [] if route is None else route.path.tolist()
    length = (float(np.hypot(*np.diff(net.route_points(lanes), axis=0).T).sum())
              if lanes else None)
    if args.render:
        from ..viz.traffic import save_road_routes

        save_road_routes(args.render, net, routes=[lanes] if lanes else [],
                         labels=[args.driver] if lanes else [],
                         title=f"{args.driver}: {args.start} to {goal}")
    info = {"from": list(args.start), "to": list(goal), "driver": args.driver,
            "method": args.method, "found": route is not None,
            "cost": None if route is None else round(cost, 4), "lanes": lanes,
            "roads": [net.lanes[i].road for i in lanes],
            "kinds": [net.lanes[i].kind for i in lanes],
            "length": None if length is None else round(length, 4),
            "drive_seconds": None if length is None else round(length / costs.desired_speed, 2),
            "expanded": expanded, "query_ms": round(elapsed * 1e3, 3), "render": args.render}
    if args.json:
        print(to_json(info))
    elif route is None:
        print(f"{args.driver}: no route from {args.start} to {goal}; {expanded} lanes "
              f"expanded in {info['query_ms']} ms"
              + (f"; wrote {args.render}" if args.render else ""))
    else:
        print(f"{args.driver}: {args.start} to {goal} costs {info['cost']} over {len(lanes)} "
              f"lanes, {info['length']} long ({info['drive_seconds']} s at "
              f"{costs.desired_speed:g} a second); {expanded} lanes expanded in "
              f"{info['query_ms']} ms"
              + (f"; wrote {args.render}" if args.render else ""))
    return 0


def _place_cars(network: RoadNetwork, road: int, *, count: int, seed: int,
                speed: float) -> list[Trajectory]:
    """``count`` cars on the driving lanes of ``road``, each at a random place along a
    random lane and, independently, parked with probability 1/3, else driving on to the
    lane's end at a speed drawn uniformly from 30 to 80% of ``speed`` (so about a third
    are parked, not exactly)."""
    lanes = [lane for lane in network.road_lanes(road) if lane.type is LaneType.DRIVING]
    if count and not lanes:
        raise InvalidQueryError(f"road {road} has no driving lane to place cars on")
    rng = np.random.default_rng(seed)
    cars = []
    for _ in range(count):
        lane = lanes[int(rng.integers(len(lanes)))]
        s = float(rng.uniform(0.0, lane.length))
        at = lane.point_at(s)
        if rng.random() < 1 / 3:
            cars.append(Trajectory([at], [0.0]))
            continue
        ahead = lane.points[lane.stations > s]
        pts = np.vstack([at, ahead]) if len(ahead) else np.vstack([at, at])
        cars.append(Trajectory(pts, np.full(len(pts), float(rng.uniform(0.3, 0.8)) * speed)))
    return cars


def cmd_lattice(args: Any) -> int:
    net = road_grid(args.columns, args.rows, spacing=args.spacing,
                    highway_every=args.highway_every)
    if not net.roads:
        raise InvalidQueryError(f"the {args.columns} x {args.rows} grid has no roads")
    if args.road >= len(net.roads):
        raise InvalidQueryError(f"--road {args.road} is not a road id (the grid has roads "
                                f"0..{len(net.roads) - 1})")
    length = net.road_lanes(args.road)[0].length
    if args.sets * args.set_spacing > length * (1 + 1e-9):
        raise InvalidQueryError(f"--sets {args.sets} every {args.set_spacing:g} run past the "
                                f"end of road {args.road} ({length:g} long)")
    costs = driver(args.driver)
    if args.speed is not None:
        costs = replace(costs, desired_speed=args.speed)
    speed = costs.desired_speed
    model = CarModel(lateral_acceleration=args.lateral_acceleration,
                     max_braking=args.deceleration)
    t0 = time.perf_counter()
    cars = _place_cars(net, args.road, count=args.cars, seed=args.seed, speed=speed)
    run = lattice_step(net, args.road, forward=not args.backward, driver=costs, cars=cars,
                       n_sets=args.sets, spacing=args.set_spacing, k=args.top, model=model)
    elapsed = time.perf_counter() - t0
    optimised, plan = None, None
    if args.optimise and run.paths:
        t1 = time.perf_counter()
        plan = optimise_step(net, run)
        optimised = {"seed": plan.seed, "cost": round(plan.cost, 4),
                     "seed_cost": round(float(plan.seed_costs[plan.seed]), 4),
                     "iterations": plan.iterations, "collisions": plan.collisions,
                     "ms": round((time.perf_counter() - t1) * 1e3, 3)}
    if args.render:
        from ..viz.traffic import save_lattice

        paths = [run.points(i) for i in range(len(run.paths))]
        save_lattice(args.render, run.positions, paths=paths,
                     nodes=run.nodes, start_lane=run.start_lane, labels=run.labels,
                     cars=run.cars, times=run.times,
                     speeds=run.speeds[0] if run.paths else None,
                     limits=run.limits[0] if run.paths else None, optimised=plan,
                     title=f"{args.driver} on road {args.road}")
    rows = [{"cost": p.cost, "lanes": p.lanes.tolist(),
             "limits": np.round(lim, 3).tolist(), "speeds": np.round(spd, 3).tolist()}
            for p, lim, spd in zip(run.paths, run.limits, run.speeds)]
    info = {"road": args.road, "forward": not args.backward, "driver": args.driver,
            "speed": speed, "lane_types": run.labels, "start_lane": run.start_lane,
            "sets": args.sets, "cars": args.cars, "seed": args.seed,
            "node_costs": run.nodes.tolist(), "paths": rows, "optimised": optimised,
            "query_ms": round(elapsed * 1e3, 3), "render": args.render}
    if args.json:
        print(to_json(info))
        return 0
    print(f"{args.driver} on road {args.road} ({' / '.join(run.labels)}), {args.sets} sets "
          f"{args.set_spacing:g} apart, {args.cars} other cars (seed {args.seed}), desired "
          f"speed {speed:g} a second: {len(rows)} paths in {info['query_ms']} ms"
          + (f"; wrote {args.render}" if args.render else ""))
    for k, row in enumerate(rows, 1):
        print(f"  {k}. cost {row['cost']:g}  lanes {' '.join(map(str, row['lanes']))}  speeds "
              + " ".join(f"{v:.1f}" for v in row["speeds"]))
    if not rows:
        print("  no path avoids the unusable nodes")
    if optimised is not None:
        print(f"  optimised from path {optimised['seed'] + 1}: cost {optimised['cost']:g} "
              f"against the seed's {optimised['seed_cost']:g} after "
              f"{optimised['iterations']} iterations, {optimised['collisions']} colliding "
              f"frames, in {optimised['ms']} ms")
    return 0
