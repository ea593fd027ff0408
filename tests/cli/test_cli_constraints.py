"""The command line of constraint-aware and multi-domain planning: ``path`` and ``navmesh
path`` with ``--constraints``, ``constraints field``, ``constraints compare`` and
``multidomain`` print what the library finds with the same constraints, and refuse bad input
with one error line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wayfinding.cli import main
from wayfinding.constraints.files import load_constraints
from wayfinding.grid import GridSearch, generate, read_map
from wayfinding.navmesh import NavMesh
from wayfinding.planning.constrained import inside_shares

START, GOAL = (13, 15), (24, 29)
#: The same ends as world points (cell centres, cells of 1 world unit at the origin).
START_XY, GOAL_XY = (13.5, 15.5), (24.5, 29.5)
#: A pond nobody may enter, across the unconstrained route: its centre and radius.
POND = ((23.0, 25.0), 1.5)
#: The pond, a band to keep away from and a disc whose pull turns into a push at t = 10.
FILE = {
    "format": "wayfinding.constraints", "version": 1,
    "annotations": {
        "pond": {"kind": "disc", "centre": list(POND[0]), "radius": POND[1]},
        "band": {"kind": "region", "vertices": [[10, 14], [30, 14], [30, 18], [10, 18]]},
        "spot": {"kind": "disc", "centre": [22, 25], "radius": 2},
    },
    "constraints": [
        {"hard": "pond"},
        {"near": "band", "weight": -5},
        {"near": "spot", "weight": {"schedule": [[0, 3], [10, -3]]}},
    ],
}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("constraints")
    assert main(["generate", "rooms", str(d / "r.map"), "--width", "32", "--height", "32",
                 "--seed", "1", "--per-bucket", "1"]) == 0
    (d / "c.json").write_text(json.dumps(FILE))
    (d / "none.json").write_text(json.dumps({"format": "wayfinding.constraints",
                                             "version": 1, "constraints": []}))
    return d


def run(capsys, *argv):
    """Exit status, stdout and stderr of one command line (argparse's refusals included)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as done:
        code = done.code
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("t", [0.0, 12.0])
@pytest.mark.parametrize("method", ["astar", "dijkstra"])
def test_a_constrained_grid_path_costs_what_the_library_finds(capsys, work, t, method):
    data = run_json(capsys, "path", work / "r.map", "--from", "13,15", "--to", "24,29",
                    "--constraints", work / "c.json", "--time", t, "--method", method)
    field = load_constraints(work / "c.json")
    grid = read_map(work / "r.map")
    r = GridSearch(grid).find_path(START, GOAL, constraints=field, t=t, method=method)
    assert data["found"] and data["cost"] == r.cost
    assert data["path"] == r.path.tolist()
    assert (data["constraints"], data["t"]) == (str(work / "c.json"), t)
    centres = np.asarray(data["path"]) + 0.5
    assert data["satisfaction"] == pytest.approx(inside_shares(field, centres).tolist(),
                                                 abs=1e-6)
    assert data["satisfaction"][0] == 0.0                       # never in the pond
    plain = GridSearch(grid).find_path(START, GOAL).cost
    assert data["cost"] > plain                                 # the band raises it


def test_the_schedule_changes_the_cost_with_the_time(capsys, work):
    costs = [run_json(capsys, "path", work / "r.map", "--from", "13,15", "--to", "24,29",
                      "--constraints", work / "c.json", "--time", t)["cost"] for t in (0, 12)]
    assert costs[0] != costs[1]


def test_the_text_names_each_constraint_and_draws_the_field(capsys, work, tmp_path):
    png = tmp_path / "f.png"
    code, out, err = run(capsys, "path", work / "r.map", "--from", "13,15", "--to", "24,29",
                         "--constraints", work / "c.json", "--render", png)
    field = load_constraints(work / "c.json")
    r = GridSearch(read_map(work / "r.map")).find_path(START, GOAL, constraints=field)
    assert code == 0 and out.startswith(f"cost {r.cost:.8f}, {len(r.path) - 1} steps")
    assert "constraints[0] hard Disc: 0.0% of the length inside" in out
    assert "constraints[1] near Region, weight -5:" in out
    assert "constraints[2] near Disc, weight 3:" in out
    assert png.read_bytes()[:4] == b"\x89PNG" and str(png) in err


@pytest.mark.parametrize(("domain", "spacing"), [("tri", None), ("dense", None),
                                                  ("hybrid", 1.0), ("adaptive", 0.5)])
def test_a_constrained_navmesh_path_costs_what_the_library_finds(capsys, work, domain,
                                                                 spacing):
    extra = ["--domain", domain] + ([] if spacing is None else ["--spacing", spacing])
    data = run_json(capsys, "navmesh", "path", work / "r.map", "--from", "13.5,15.5", "--to",
                    "24.5,29.5", "--constraints", work / "c.json", *extra)
    field = load_constraints(work / "c.json")
    mesh = NavMesh.build(read_map(work / "r.map"))
    used = None if domain == "tri" else spacing or 1.0
    r = mesh.find_path(START_XY, GOAL_XY, constraints=field, domain=domain, spacing=used)
    assert data["found"] and data["cost"] == r.cost
    assert (data["domain"], data["spacing"], data["states"]) == (domain, used, len(r.nodes))
    assert data["satisfaction"][0] == 0.0
    assert data["satisfaction"] == pytest.approx(inside_shares(field, r.path).tolist(),
                                                 abs=1e-6)


@pytest.mark.parametrize("domain", ["tri", "dense", "hybrid", "adaptive"])
def test_a_printed_path_never_enters_the_hard_pond(capsys, work, domain):
    shapely = pytest.importorskip("shapely")
    data = run_json(capsys, "navmesh", "path", work / "r.map", "--from", "13.5,15.5", "--to",
                    "24.5,29.5", "--constraints", work / "c.json", "--domain", domain)
    pond = shapely.Point(*POND[0]).buffer(POND[1], quad_segs=256)
    route = shapely.LineString(data["path"])
    assert data["found"] and route.intersection(pond).length < 1e-9
    # the pond lies across the unconstrained route: the constraint moved the path
    plain = run_json(capsys, "navmesh", "path", work / "r.map", "--from", "13.5,15.5", "--to",
                     "24.5,29.5")
    assert shapely.LineString(plain["path"]).intersection(pond).length > 0.5


def test_a_constrained_navmesh_path_draws_the_field(capsys, work, tmp_path):
    png = tmp_path / "n.png"
    code, out, _ = run(capsys, "navmesh", "path", work / "r.map", "--from", "13.5,15.5",
                       "--to", "24.5,29.5", "--constraints", work / "c.json", "-o", png)
    assert code == 0 and "states of the tri domain" in out and str(png) in out
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_the_field_statistics_are_those_of_the_free_cells(capsys, work, tmp_path):
    png = tmp_path / "heat.png"
    data = run_json(capsys, "constraints", "field", work / "r.map", work / "c.json",
                    "--time", 12, "--render", png)
    grid = read_map(work / "r.map")
    ys, xs = np.nonzero(grid.passable)
    centres = np.stack([xs, ys], 1) + 0.5
    (px, py), radius = POND
    in_pond = np.hypot(centres[:, 0] - px, centres[:, 1] - py) <= radius
    assert data["cells"] == len(centres) and data["hard"] == int(in_pond.sum()) > 0
    in_band = (centres[:, 0] >= 10) & (centres[:, 0] <= 30) & (centres[:, 1] >= 14) \
        & (centres[:, 1] <= 18)
    assert data["inside"][:2] == [int(in_pond.sum()), int(in_band.sum())]
    assert data["base_weight"] == 0.0          # at t = 12 no weight is positive
    # the band's cells carry 1.1 ** 5 at least; the far rooms 1
    assert data["min"] == 1.0 and data["max"] >= 1.1 ** 5 - 1e-12
    assert png.read_bytes()[:4] == b"\x89PNG" and data["render"] == str(png)
    code, out, _ = run(capsys, "constraints", "field", work / "r.map", work / "c.json")
    assert code == 0 and f"{data['cells']} free cells" in out
    assert f"constraints[0] hard Disc: {data['hard']} cells inside" in out


def test_compare_runs_each_file_and_an_empty_one_is_the_plain_path(capsys, work, tmp_path):
    png = tmp_path / "side.png"
    data = run_json(capsys, "constraints", "compare", work / "r.map", "--from", "13,15",
                    "--to", "24,29", work / "none.json", work / "c.json", "--render", png)
    grid = read_map(work / "r.map")
    plain, constrained = data["runs"]
    assert plain["cost"] == pytest.approx(GridSearch(grid).find_path(START, GOAL).cost,
                                          rel=1e-12)
    assert plain["satisfaction"] == [] and plain["length"] == pytest.approx(plain["cost"])
    r = GridSearch(grid).find_path(START, GOAL, constraints=load_constraints(work / "c.json"))
    assert constrained["cost"] == r.cost and len(constrained["satisfaction"]) == 3
    assert png.read_bytes()[:4] == b"\x89PNG"
    code, out, _ = run(capsys, "constraints", "compare", work / "r.map", "--from", "13,15",
                       "--to", "24,29", work / "none.json", work / "c.json")
    assert code == 0 and f"{r.cost:.6f}" in out and "0% " in out


def test_a_multidomain_plan_is_never_cheaper_than_the_grid_optimum(capsys, work, tmp_path):
    png = tmp_path / "md.png"
    data = run_json(capsys, "multidomain", work / "r.map", "--from", "13.5,15.5", "--to",
                    "24.5,29.5", "--render", png)
    optimum = GridSearch(read_map(work / "r.map")).find_path(START, GOAL).cost
    assert data["status"] == "found" and data["optimum"] == pytest.approx(optimum)
    assert optimum * (1 - 1e-9) <= data["cost"] <= 1.5 * optimum
    assert data["ratio"] == pytest.approx(data["cost"] / optimum)
    assert data["waypoints"][0] == list(START) and data["waypoints"][-1] == list(GOAL)
    assert len(data["legs"]) == len(data["waypoints"]) - 1 and data["static"]
    assert data["spacetime_states"] > 0 and data["spacetime_seconds"] > 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    bare = run_json(capsys, "multidomain", work / "r.map", "--from", "13.5,15.5", "--to",
                    "24.5,29.5", "--no-spacetime", "--rings", "all")
    assert bare["spacetime_states"] == 0 and bare["spacetime_seconds"] is None
    assert bare["cost"] >= optimum * (1 - 1e-9)


def test_multidomain_plans_on_a_generated_map(capsys):
    grid = generate.rooms(24, 24, seed=0, corridor=3)      # as --generate rooms makes it
    comp = grid.components
    ys, xs = np.nonzero(comp == np.bincount(comp[comp >= 0]).argmax())
    a, b = (int(xs[0]), int(ys[0])), (int(xs[-1]), int(ys[-1]))
    data = run_json(capsys, "multidomain", "--generate", "rooms", "--seed", "0", "--from",
                    f"{a[0] + 0.5},{a[1] + 0.5}", "--to", f"{b[0] + 0.5},{b[1] + 0.5}")
    optimum = GridSearch(grid).find_path(a, b).cost
    assert data["map"] == "rooms 24x24 seed 0" and data["status"] == "found"
    assert optimum * (1 - 1e-9) <= data["cost"] <= 1.5 * optimum


def _bad_file(work, name, edit):
    data = json.loads(json.dumps(FILE))
    edit(data)
    path = work / name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("argv", "words"), [
    (["path", "{m}", "--from", "13,15", "--to", "24,29", "--constraints", "{d}/nope.json"],
     ["nope.json: file not found"]),
    (["path", "{m}", "--from", "13,15", "--to", "24,29", "--time", "3"],
     ["--time goes with --constraints"]),
    (["path", "{m}", "--from", "13,15", "--to", "24,29", "--constraints", "{c}", "--method",
      "jps"], ["jps", "constraints"]),
    (["path", "{m}", "--from", "13,15", "--to", "24,29", "--constraints", "{c}", "--render",
      "{d}/x.svg"], ["PNG only"]),
    (["path", "{m}", "--from", "13,15", "--to", "24,29", "--constraints", "{c}", "--time",
      "nan"], ["must be a finite number"]),
    (["navmesh", "path", "{m}", "--from", "13.5,15.5", "--to", "24.5,29.5", "--domain",
      "dense"], ["--domain and --spacing go with --constraints"]),
    (["navmesh", "path", "{m}", "--from", "13.5,15.5", "--to", "24.5,29.5", "--constraints",
      "{c}", "--clearance"], ["--clearance and --exact cannot be combined"]),
    (["navmesh", "path", "{m}", "--from", "13.5,15.5", "--to", "24.5,29.5", "--constraints",
      "{c}", "--spacing", "1"], ["--spacing goes with --domain dense"]),
    (["navmesh", "path", "{m}", "--from", "13.5,15.5", "--to", "24.5,29.5", "--constraints",
      "{c}", "-o", "{d}/x.svg"], ["PNG only"]),
    (["navmesh", "path", "{m}", "--from", "-5,-5", "--to", "24.5,29.5", "--constraints",
      "{c}"], ["start", "off the mesh"]),
    (["constraints", "field", "{m}", "{c}", "--render", "{d}/x.svg"], ["not a PNG file"]),
    (["constraints", "field", "{m}", "{d}/nope.json"], ["nope.json: file not found"]),
    (["constraints", "compare", "{m}", "--from", "13,15", "--to", "0,0", "{c}"], ["goal"]),
    (["multidomain", "{m}", "--from", "13.5,15.5", "--to", "24.5,29.5", "--rings", "-1"],
     ["--rings"]),
    (["multidomain", "{m}", "--generate", "rooms", "--from", "13.5,15.5", "--to",
      "24.5,29.5"], ["not both or neither"]),
    (["multidomain", "{m}", "--from", "-3,-3", "--to", "24.5,29.5"], ["off the mesh"]),
])
def test_bad_input_is_one_error_line(capsys, work, argv, words):
    fill = {"m": work / "r.map", "c": work / "c.json", "d": work}
    code, out, err = run(capsys, *(a.format(**fill) for a in argv))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "error:" in err
    for w in words:
        assert w in err, (w, err)
    assert not (work / "x.svg").exists()


@pytest.mark.parametrize(("name", "edit", "entry"), [
    ("weight.json", lambda d: d["constraints"][1].update(weight="-5"),
     "constraints[1].weight must be a number or a schedule"),
    ("kind.json", lambda d: d["annotations"]["pond"].update(kind="lake"),
     "annotations.pond.kind 'lake' must be one of"),
    ("name.json", lambda d: d["constraints"][0].update(hard="lake"),
     "constraints[0].hard 'lake' must name an annotation"),
    ("schedule.json", lambda d: d["constraints"][2]["weight"].update(schedule=[[5, 1], [0, 2]]),
     "constraints[2].weight.schedule: times"),
])
@pytest.mark.parametrize("command", ["path", "navmesh", "field", "compare"])
def test_a_bad_file_names_the_file_and_the_entry_on_every_command(capsys, work, name, edit,
                                                                  entry, command):
    bad = _bad_file(work, name, edit)
    argv = {"path": ["path", work / "r.map", "--from", "13,15", "--to", "24,29",
                     "--constraints", bad],
            "navmesh": ["navmesh", "path", work / "r.map", "--from", "13.5,15.5", "--to",
                        "24.5,29.5", "--constraints", bad],
            "field": ["constraints", "field", work / "r.map", bad],
            "compare": ["constraints", "compare", work / "r.map", "--from", "13,15", "--to",
                        "24,29", work / "c.json", bad]}[command]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"wayfinding: error: {bad}: {entry}")
    assert len(err.strip().splitlines()) == 1


def test_the_domain_choices_are_the_librarys():
    from wayfinding.cli.navmesh import DOMAINS as OFFERED
    from wayfinding.navmesh.constraint_domains import DOMAINS

    assert OFFERED == DOMAINS
