"""The ``wayfinding traffic route|lattice`` commands: routes between junctions against a
networkx oracle per driver personality, the lattice's top paths against exhaustive
enumeration with their speeds, JSON and text output, pictures, and bad inputs."""

from __future__ import annotations

import importlib
import json
import math

import numpy as np
import pytest

from wayfinding.cli.args import Parser
from wayfinding.cli.traffic import _place_cars, add_traffic_parser
from wayfinding.traffic import DRIVERS, CarModel, describe, driver, lattice_step, road_grid

nx = pytest.importorskip("networkx")


@pytest.fixture
def run(monkeypatch, capsys):
    """``main`` with the traffic commands, as cli/main.py wires them: returns the exit
    status and the output."""
    cli_main = importlib.import_module("wayfinding.cli.main")

    def build_parser():
        parser = Parser(prog="wayfinding")
        add_traffic_parser(parser.add_subparsers(dest="command", metavar="COMMAND"))
        return parser

    monkeypatch.setattr(cli_main, "build_parser", build_parser)

    def call(*argv):
        code = cli_main.main(["traffic", *argv])
        out = capsys.readouterr()
        return code, out.out, out.err
    return call


def oracle_cost(net, spacing, driver, start, goal):
    """The cheapest route from a lane leaving junction ``start`` to one arriving at
    ``goal`` by networkx: a lane's cost is its length times the driver's factors, a step
    adds the junction piece and the turn."""
    g = nx.DiGraph()
    for a, lane in enumerate(net.lanes):
        for b in net.successors_of(a):
            nxt = net.lanes[b]
            factor = driver.factor(nxt.type, nxt.kind, nxt.road)
            if factor == math.inf:
                continue
            turn = math.acos(max(-1.0, min(1.0, float(
                lane.heading(at_end=True) @ nxt.heading(at_end=False)))))
            g.add_edge(a, b, weight=net.gap(a, b) + nxt.length * factor + driver.turn * turn)

    def at(point):
        return tuple(int(v) for v in np.rint(point / spacing))

    def near(lane, end):      # a road grid's lanes lie 1.75 to the right of the centre line
        p, h = lane.points[end], lane.heading(at_end=end == -1)
        return at(p + 1.75 * np.array([-h[1], h[0]]))

    best = math.inf
    for s, lane in enumerate(net.lanes):
        first = driver.factor(lane.type, lane.kind, lane.road) * lane.length
        if near(lane, 0) != start or first == math.inf or s not in g:
            continue
        dist = nx.single_source_dijkstra_path_length(g, s)
        for t, other in enumerate(net.lanes):
            if near(other, -1) == goal and t in dist:
                best = min(best, first + dist[t])
    return best


@pytest.mark.parametrize("name", sorted(DRIVERS))
@pytest.mark.parametrize("start, goal", [((0, 0), (4, 2)), ((3, 1), (0, 2)), ((1, 0), (2, 0))])
def test_route_cost_equals_the_networkx_oracle(run, name, start, goal):
    code, out, _ = run("route", "--columns", "5", "--rows", "3", "--highway-every", "2",
                       "--from", f"{start[0]},{start[1]}", "--to", f"{goal[0]},{goal[1]}",
                       "--driver", name, "--json")
    assert code == 0
    info = json.loads(out)
    net = road_grid(5, 3, spacing=100.0, highway_every=2)
    want = oracle_cost(net, 100.0, driver(name), start, goal)
    assert info["found"] and info["cost"] == pytest.approx(want, abs=1e-3)
    lanes = info["lanes"]
    assert all(b in net.successors_of(a) for a, b in zip(lanes, lanes[1:]))
    pts = net.route_points(lanes)
    assert info["length"] == pytest.approx(np.hypot(*np.diff(pts, axis=0).T).sum(), abs=1e-3)
    assert info["roads"] == [net.lanes[i].road for i in lanes]
    assert info["drive_seconds"] == pytest.approx(info["length"] / driver(name).desired_speed,
                                                  abs=0.01)


def test_route_json_schema_text_and_picture(run, tmp_path):
    code, out, _ = run("route", "--json")
    assert code == 0
    info = json.loads(out)
    assert set(info) == {"from", "to", "driver", "method", "found", "cost", "lanes", "roads",
                         "kinds", "length", "drive_seconds", "expanded", "query_ms", "render"}
    assert info["from"] == [0, 0] and info["to"] == [5, 3] and info["driver"] == "normal"
    # The normal driver takes a shortest route: 8 roads of 100 and the corners' pieces.
    assert len(info["lanes"]) == 8 and 800.0 <= info["length"] < 810.0
    png = tmp_path / "route.png"
    code, out, _ = run("route", "--render", str(png))
    assert code == 0 and "costs" in out and f"wrote {png}" in out
    Image = pytest.importorskip("PIL.Image")
    assert Image.open(png).size[0] == 800


def test_personalities_take_different_routes(run):
    routes = {}
    for name in ("cautious", "reckless"):
        code, out, _ = run("route", "--columns", "8", "--rows", "5", "--highway-every", "3",
                           "--from", "0,1", "--to", "7,4", "--driver", name, "--json")
        assert code == 0
        routes[name] = json.loads(out)
    share = {d: r["kinds"].count("highway") / len(r["kinds"]) for d, r in routes.items()}
    assert share["reckless"] > 0.5 and share["cautious"] == 0.0


def test_dijkstra_finds_the_same_cost(run):
    costs, expanded = {}, {}
    for method in ("astar", "dijkstra"):
        code, out, _ = run("route", "--columns", "7", "--rows", "7", "--method", method,
                           "--json")
        info = json.loads(out)
        costs[method], expanded[method] = info["cost"], info["expanded"]
    assert costs["astar"] == costs["dijkstra"]
    assert expanded["astar"] < expanded["dijkstra"]


def test_avoided_roads_leave_no_route(run, tmp_path):
    code, out, _ = run("route", "--columns", "2", "--rows", "1", "--avoid-roads", "0",
                       "--json")
    info = json.loads(out)
    assert code == 0 and not info["found"] and info["cost"] is None and info["lanes"] == []
    png = tmp_path / "none.png"
    code, out, _ = run("route", "--columns", "2", "--rows", "1", "--avoid-roads", "0",
                       "--render", str(png))
    assert code == 0 and "no route" in out and png.exists()
    # Avoiding the direct road sends the route round the block.
    code, out, _ = run("route", "--columns", "2", "--rows", "2", "--to", "1,0",
                       "--avoid-roads", "0", "--json")
    info = json.loads(out)
    assert info["found"] and 0 not in info["roads"] and len(info["lanes"]) == 3


@pytest.mark.parametrize("command, argv, message", [
    ("route", ["--from", "9,0"], "--from 9,0 is not a junction"),
    ("route", ["--to", "0,4"], "--to 0,4 is not a junction"),
    ("route", ["--from", "1,1", "--to", "1,1"], "same junction"),
    ("route", ["--columns", "1", "--rows", "1"], "same junction"),
    ("route", ["--avoid-roads", "500"], "--avoid-roads 500 is not a road id"),
    ("route", ["--render", "route.gif"], "PNG"),
    ("lattice", ["--road", "999"], "--road 999 is not a road id"),
    ("lattice", ["--sets", "11"], "--sets 11 every 10 run past the end of road 0 (100 long)"),
    ("lattice", ["--sets", "5", "--set-spacing", "25"], "run past the end"),
    ("lattice", ["--columns", "1", "--rows", "1"], "has no roads"),
    ("lattice", ["--render", "lattice.svg"], "PNG"),
])
def test_commands_refuse_bad_values(run, command, argv, message):
    code, out, err = run(command, *argv)
    assert code == 2 and out == ""
    assert err.startswith("wayfinding: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize("command, argv, message", [
    ("route", ["--columns", "0"], "must be an integer >= 1"),
    ("route", ["--from", "a,b"], "is not a cell"),
    ("route", ["--driver", "sleepy"], "invalid choice"),
    ("route", ["--method", "jps"], "invalid choice"),
    ("route", ["--avoid-roads", "1,-2"], "must be an integer >= 0"),
    ("lattice", ["--sets", "0"], "must be an integer >= 1"),
    ("lattice", ["--top", "0"], "must be an integer >= 1"),
    ("lattice", ["--speed", "-3"], "must be a number > 0"),
    ("lattice", ["--set-spacing", "nan"], "finite"),
])
def test_parsing_refuses_bad_values(run, capsys, command, argv, message):
    with pytest.raises(SystemExit) as refused:
        run(command, *argv)
    err = capsys.readouterr().err
    assert refused.value.code == 2 and message in err and err.count("\n") == 1


@pytest.mark.parametrize("name", sorted(DRIVERS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lattice_prints_the_library_step(run, name, seed):
    code, out, _ = run("lattice", "--cars", "6", "--seed", str(seed), "--sets", "6",
                       "--top", "7", "--driver", name, "--json")
    assert code == 0
    info = json.loads(out)
    costs = driver(name)
    net = road_grid(6, 4, spacing=100.0)
    cars = _place_cars(net, 0, count=6, seed=seed, speed=costs.desired_speed)
    step = lattice_step(net, 0, forward=True, driver=costs, cars=cars, n_sets=6,
                        spacing=10.0, k=7, model=CarModel(lateral_acceleration=8.0,
                                                          max_braking=6.0))
    nodes = np.array([[math.inf if v is None else v for v in row] for row in info["node_costs"]])
    assert np.array_equal(nodes, step.nodes) and info["start_lane"] == step.start_lane
    assert [(p["cost"], p["lanes"]) for p in info["paths"]] == \
        [(p.cost, p.lanes.tolist()) for p in step.paths]
    assert len(step.paths) == 7
    for p, limits, speeds in zip(info["paths"], step.limits, step.speeds):
        assert p["limits"] == np.round(limits, 3).tolist()
        assert p["speeds"] == np.round(speeds, 3).tolist()
        speeds = np.array(p["speeds"])
        assert speeds.shape == (7,) and speeds[-1] == pytest.approx(costs.desired_speed)
        assert np.all(speeds <= np.array(p["limits"]) + 1e-3)
        # The backward pass: no speed exceeds what braking allows from the next one.
        steps = np.full(6, 10.0)
        steps[np.diff([info["start_lane"], *p["lanes"]]) != 0] = math.hypot(10.0, 3.5)
        assert np.all(speeds[:-1] ** 2 <= speeds[1:] ** 2 + 2 * 6.0 * steps + 0.1)


def test_lattice_json_schema_and_cars(run):
    code, out, _ = run("lattice", "--cars", "0", "--json")
    info = json.loads(out)
    assert set(info) == {"road", "forward", "driver", "speed", "lane_types", "start_lane",
                         "sets", "cars", "seed", "node_costs", "paths", "optimised",
                         "query_ms", "render"}
    assert info["optimised"] is None
    assert info["lane_types"] == ["driving", "oncoming"] and info["start_lane"] == 0
    # Without other cars a node costs its lane's type only (the normal driver: oncoming +2).
    assert info["node_costs"] == [[0.0, 2.0]] * 8
    assert info["paths"][0] == {"cost": 8.0, "lanes": [0] * 8, "limits": [15.0] * 9,
                                "speeds": [15.0] * 9}
    code, out, _ = run("lattice", "--cars", "0", "--backward", "--json")
    back = json.loads(out)
    assert back["lane_types"] == ["oncoming", "driving"] and back["start_lane"] == 1
    seeded = [json.loads(run("lattice", "--cars", "8", "--seed", s, "--json")[1])["node_costs"]
              for s in ("4", "4", "5")]
    assert seeded[0] == seeded[1] != seeded[2]
    # Ten sets fill the road; a desired speed of 10 is the last set's speed.
    code, out, _ = run("lattice", "--sets", "10", "--speed", "10", "--json")
    slow = json.loads(out)
    assert code == 0 and slow["speed"] == 10.0
    assert all(p["speeds"][-1] == 10.0 and len(p["speeds"]) == 11 for p in slow["paths"])


@pytest.mark.parametrize("argv", [["--driver", "cautious", "--seed", "0"],
                                  ["--driver", "reckless", "--seed", "2"],
                                  ["--backward", "--road", "5", "--cars", "6", "--seed", "3"]])
def test_lattice_optimises_from_its_paths(run, argv):
    code, out, _ = run("lattice", "--optimise", "--json", *argv)
    info = json.loads(out)
    plan = info["optimised"]
    assert code == 0 and set(plan) == {"seed", "cost", "seed_cost", "iterations",
                                       "collisions", "ms"}
    assert 0 <= plan["seed"] < len(info["paths"]) and plan["iterations"] >= 0
    # The optimiser keeps an iteration only when it lowers the score.
    assert plan["cost"] <= plan["seed_cost"]
    assert (plan["iterations"] == 0) == (plan["cost"] == plan["seed_cost"])
    code, text, _ = run("lattice", "--optimise", *argv)
    assert f"optimised from path {plan['seed'] + 1}: cost {plan['cost']:g} against the " \
        f"seed's {plan['seed_cost']:g} after {plan['iterations']} iterations" in text


def test_lattice_optimiser_improves_a_seed(run):
    code, out, _ = run("lattice", "--optimise", "--backward", "--road", "5", "--cars", "6",
                       "--seed", "3", "--json")
    plan = json.loads(out)["optimised"]
    assert plan["iterations"] > 0 and plan["cost"] < plan["seed_cost"]


@pytest.mark.parametrize("sets", [9, 10])
def test_lattice_optimises_up_to_the_road_end(run, sets):
    # Ten sets 10 apart reach the end of the one road of a 2 x 1 grid: the road's potential
    # leads to where the road ends inside its rectangle.
    code, out, err = run("lattice", "--columns", "2", "--rows", "1", "--sets", str(sets),
                         "--optimise", "--json")
    info = json.loads(out)
    assert code == 0 and err == "" and info["optimised"]["cost"] <= \
        info["optimised"]["seed_cost"]


def test_lattice_text_and_picture(run, tmp_path):
    png = tmp_path / "lattice.png"
    code, out, _ = run("lattice", "--top", "3", "--render", str(png))
    lines = out.splitlines()
    assert code == 0 and "3 paths" in lines[0] and f"wrote {png}" in lines[0]
    assert [ln.split()[0] for ln in lines[1:]] == ["1.", "2.", "3."]
    Image = pytest.importorskip("PIL.Image")
    assert Image.open(png).size[0] == 800
    drive = tmp_path / "drive.png"
    code, out, _ = run("lattice", "--top", "3", "--optimise", "--render", str(drive))
    lines = out.splitlines()
    assert code == 0 and lines[-1].startswith("  optimised from path ")
    assert not np.array_equal(np.asarray(Image.open(png)), np.asarray(Image.open(drive)))


def test_help_names_the_family_and_the_personalities(run, capsys):
    for command in ("route", "lattice"):
        with pytest.raises(SystemExit) as done:
            run(command, "--help")
        text = " ".join(capsys.readouterr().out.split())
        assert done.value.code == 0
        for name, costs in DRIVERS.items():
            assert f"{name}: {describe(costs)}" in text
    # The help reads each personality's values.
    assert "highway x1.5, 20 a radian turned" in describe(driver("cautious"))
    assert "lattice: sidewalk never, oncoming +10, within 5 of a car +20; speed 12" in \
        describe(driver("cautious"))
    assert "sidewalk never" in describe(driver("normal"))
    assert describe(driver("reckless")).startswith("route: sidewalk x2, highway x0.5; "
                                                   "lattice: sidewalk +1, within 2")
    top = importlib.import_module("wayfinding.cli.main").build_parser().format_help()
    assert "traffic vehicles and traversal: routes" in " ".join(top.split())
