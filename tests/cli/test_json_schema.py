"""Every ``--json`` output keeps the exact keys docs/cli-json.md lists: one table here, one
run of each command on a small generated map, so a renamed or dropped key fails; and each
section of the page lists exactly the keys its command prints."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import re
from pathlib import Path

import pytest

from wayfinding.cli import main
from wayfinding.navmesh3d import generate
from wayfinding.voxel import Problem3D, Scenario3D, VoxelGrid, write_3dmap, write_3dscen

PATH = {"found", "cost", "algorithm", "path", "expanded", "generated", "elapsed_us"}
SCEN = {"scenario", "map", "algorithm", "problems", "solved", "mismatches", "median_us",
        "mean_us", "p95_us", "mean_expanded", "preprocess_s", "index_bytes", "worst", "exact",
        "mean_ratio", "max_ratio"}
WORST = {"line", "start", "goal", "optimal", "found"}
INDEX_INFO = {"format", "kind", "version", "shape", "diagonal", "fingerprint", "options",
              "nbytes", "build_time"}
WORLD = {"kind", "nodes", "edges", "components", "build_s"}
WORLD_PATH = {"found", "cost", "path"}
NAVMESH_BUILD = {"polygons", "vertices", "links", "area", "build_s", "output"}
CLEARANCE_BUILD = {"triangles", "vertices", "steiner", "build_s", "output"}
NAVMESH_PATH = {"found", "cost", "path", "query_ms", "corridor", "snapped_start",
                "snapped_goal"}
CLEARANCE_PATH = {"found", "cost", "path", "query_ms", "radius", "channel", "turns", "reason"}
FIELD_FLOW = {"map", "goal", "method", "reachable_cells", "seconds", "outputs"}
FIELD_SCENE = {"scene", "units", "completion", "t50", "t90", "closest", "seconds", "render"}
NAVMESH3D_INFO = {"tiles", "tile_size", "links", "counts", "ms", "total_ms",
                  "bytes_per_column"}
NAVMESH3D_PATH = {"status", "length", "points", "polygons", "offmesh", "links", "query_ms"}
NAVMESH3D_RAYCAST = {"hit", "t", "point", "normal", "polygons"}
VOXEL_BUILD = {"voxels", "free", "grid_bytes", "dense_bytes", "read_s"}
OCTREE_BUILD = {"octree", "octree_bytes", "octree_nodes", "octree_build_s"}
CROWD_RUN = {"scenario", "model", "agents", "completion", "t50", "t90", "collisions",
             "max_penetration", "path_ratio", "energy", "jitter", "seconds", "render"}
VEHICLE_PATH = {"map", "world", "status", "length", "cost", "cusps", "reeds_shepp",
                "holonomic", "expanded", "seconds", "render"}
VEHICLE_CROSSING = {"pedestrians", "carriages", "arrived", "completion", "t_mean", "t_last",
                    "least_gap", "steps", "seconds", "render"}
CLIMB_PATH = {"seed", "bays", "floors", "elements", "nodes", "edges", "links", "found", "length",
              "cost", "steps", "route", "points", "spline_length", "build_seconds",
              "search_seconds", "render"}
TRAFFIC_ROUTE = {"from", "to", "driver", "method", "found", "cost", "lanes", "roads", "kinds",
                 "length", "drive_seconds", "expanded", "query_ms", "render"}
TRAFFIC_LATTICE = {"road", "forward", "driver", "speed", "lane_types", "start_lane", "sets",
                   "cars", "seed", "node_costs", "paths", "optimised", "query_ms", "render"}
CLIPS = {"source", "clips", "states", "max_speed", "max_curvature", "output"}
CLIP_ENTRY = {"name", "start_state", "end_state", "duration", "dx", "dy", "rotation",
              "start_speed", "end_speed", "length", "speed", "curvature"}
MOVEMENT = {"map", "world", "status", "clips", "states", "times", "poses", "time", "cost",
            "length", "dubins", "position_error", "heading_error", "expanded", "seconds", "render"}
FOOTSTEPS = {"mode", "plans", "clashes", "least_gap", "seconds", "render"}
LOCOMOTION = {"map", "path_status", "status", "points", "stops", "corridor", "actions", "plans",
              "end", "miss", "hits_mark", "simulated_seconds", "seconds", "render"}
MOTION_FIT = {"controller", "fitted", "failures", "min_speed", "max_speed", "stop_speeds",
              "stop_distances", "deceleration", "residuals", "rms", "max_error",
              "overshoot_angles", "overshoot_speeds", "overshoot", "radius_speeds", "radii",
              "runs", "changes", "output", "seconds", "render"}
CONSTRAINED = {"constraints", "t", "satisfaction"}
NAVMESH_CONSTRAINED = {"found", "cost", "path", "query_ms", "domain", "spacing", "states",
                       "expanded"} | CONSTRAINED
CONSTRAINTS_FIELD = {"map", "constraints", "t", "cells", "base_weight", "min", "max", "mean",
                     "raised", "hard", "inside", "render"}
CONSTRAINTS_COMPARE = {"map", "from", "to", "method", "t", "runs", "render"}
COMPARE_RUN = {"constraints", "found", "cost", "length", "satisfaction", "expanded"}
MULTIDOMAIN = {"map", "from", "to", "status", "cost", "optimum", "ratio", "epsilon", "static",
               "dynamic", "waypoints", "legs", "spacetime_states", "spacetime_seconds",
               "seconds", "render"}
FOOTSTEP_PLAN = {"from", "to", "status", "steps", "waits", "duration", "cost", "epsilon",
                 "expanded", "times", "feet", "sides", "orientations", "com", "com_samples"}

#: The keys of the entries of a list a command prints: the command, the list's key and the
#: keys of each entry.
ENTRIES = {("scen",): ("worst", WORST), ("clips",): ("clips", CLIP_ENTRY),
           ("footsteps",): ("plans", FOOTSTEP_PLAN),
           ("constraints", "compare"): ("runs", COMPARE_RUN)}


def _entries(line: str) -> tuple[str | None, set[str]]:
    """The list key and entry keys of the command ``line`` runs (its longest prefix in
    :data:`ENTRIES`)."""
    words = tuple(line.split())
    return next((ENTRIES[words[:n]] for n in (2, 1) if words[:n] in ENTRIES), (None, set()))

#: Each command line (``{d}``: the work folder) and the exact keys of its JSON object.
SCHEMAS = {
    "path": ("path {d}/r.map --from 13,15 --to 24,29 --json", PATH),
    "path constraints": ("path {d}/r.map --from 13,15 --to 24,29 --constraints {d}/c.json "
                         "--time 2 --json", PATH | CONSTRAINED),
    "path any-angle": ("path {d}/r.map --from 13,15 --to 24,29 --method theta --json", PATH),
    "scen": ("scen {d}/r.map.scen --quiet --json", SCEN),
    "scen preprocessed": ("scen {d}/r.map.scen --method jps_plus --quiet --json", SCEN),
    "index info": ("index info {d}/j.npz --json", INDEX_INFO),
    "world": ("world waypoints {d}/r.map --json", WORLD),
    "world path": ("world waypoints {d}/r.map --from 13.5,15.5 --to 25.5,17.5 --json",
                   WORLD | WORLD_PATH),
    "world hex": ("world hex {d}/h.txt --json", WORLD - {"components"}),
    "world hex path": ("world hex {d}/h.txt --from 0.5,0.5 --to 2,1 --json",
                       WORLD - {"components"} | WORLD_PATH),
    "navmesh build": ("navmesh build {d}/r.map -o {d}/m.npz --json", NAVMESH_BUILD),
    "navmesh build clearance": ("navmesh build {d}/r.map --clearance -o {d}/c.npz --json",
                                CLEARANCE_BUILD),
    "navmesh path": ("navmesh path {d}/r.map --from 13.5,15.5 --to 25.5,17.5 --json",
                     NAVMESH_PATH),
    "navmesh path exact": ("navmesh path {d}/r.map --from 13.5,15.5 --to 25.5,17.5 --exact "
                           "--json", NAVMESH_PATH | {"exact"}),
    "navmesh path clearance": ("navmesh path {d}/r.map --clearance --radius 0.2 --from "
                               "13.5,15.5 --to 25.5,17.5 --json", CLEARANCE_PATH),
    "navmesh path constraints": ("navmesh path {d}/r.map --from 13.5,15.5 --to 25.5,17.5 "
                                 "--constraints {d}/c.json --domain dense --json",
                                 NAVMESH_CONSTRAINED),
    "constraints field": ("constraints field {d}/r.map {d}/c.json --json", CONSTRAINTS_FIELD),
    "constraints compare": ("constraints compare {d}/r.map --from 13,15 --to 24,29 "
                            "{d}/c.json {d}/c.json --json", CONSTRAINTS_COMPARE),
    "multidomain": ("multidomain {d}/r.map --from 13.5,15.5 --to 24.5,29.5 --json",
                    MULTIDOMAIN),
    "navmesh3d build": ("navmesh3d build {d}/s.obj -o {d}/s.npz --json",
                        NAVMESH3D_INFO | {"output"}),
    "navmesh3d info": ("navmesh3d info {d}/s.npz --json", NAVMESH3D_INFO | {"settings"}),
    "navmesh3d path": ("navmesh3d path {d}/s.npz --from 1,0,1.5 --to 7,1,1.5 --json",
                       NAVMESH3D_PATH),
    "navmesh3d raycast": ("navmesh3d raycast {d}/s.npz --from 1,0,1.5 --to 1,0,10 --json",
                          NAVMESH3D_RAYCAST),
    "navmesh3d nearest": ("navmesh3d nearest {d}/s.npz --at 1,0,1.5 --json",
                          {"polygon", "point"}),
    "field flow": ("field flow {d}/r.map --to 13,15 -o {d}/f.svg --json", FIELD_FLOW),
    "field scene": ("field scene lanes --units 5 --seconds 1 --json", FIELD_SCENE),
    "crowd run": ("crowd run circle --agents 4 --json", CROWD_RUN),
    "vehicle path": ("vehicle path --generate rooms --seed 1 --from 10,6,0 --to 30,6,0 --json",
                     VEHICLE_PATH),
    "vehicle crossing": ("vehicle crossing --pedestrians 1 --carriages 1 --duration 2 --json",
                         VEHICLE_CROSSING),
    "traffic route": ("traffic route --columns 3 --rows 2 --json", TRAFFIC_ROUTE),
    "traffic lattice": ("traffic lattice --columns 2 --rows 1 --cars 2 --optimise --json",
                        TRAFFIC_LATTICE),
    "climb path": ("climb path --seed 1 --json", CLIMB_PATH),
    "clips": ("clips --json", CLIPS),
    "clips output": ("clips -o {d}/clips.json --json", CLIPS),
    "movement": ("movement --from 0,0,0 --to 3,0,0 --tolerance 0.5 --json", MOVEMENT),
    "movement grid": ("movement {d}/r.map --from 8.5,13.5,0 --to 12.5,13.5,0 --json",
                      MOVEMENT),
    "locomotion": ("locomotion {d}/r.map --from 8.5,13.5 --to 12.5,16.5 --json", LOCOMOTION),
    "footsteps": ("footsteps --from 0,0 --to 1,0 --from 1,1 --to 0,1 --max-expansions 200 "
                  "--json", FOOTSTEPS),
    "motion fit": ("motion fit --samples 1 --steps 3 --angle-steps 2 -o {d}/model.npz --json",
                   MOTION_FIT),
    "motion fit against": ("motion fit --samples 1 --steps 3 --angle-steps 2 --max-speed 5 "
                           "--against {d}/model.npz --json", MOTION_FIT),
    "voxel build": ("voxel build {d}/v.3dmap --grid {d}/vg.npz --json", VOXEL_BUILD | {"grid"}),
    "voxel build octree": ("voxel build {d}/v.3dmap --octree {d}/vo.npz --quiet --json",
                           VOXEL_BUILD | OCTREE_BUILD),
    "voxel path": ("voxel path {d}/v.3dmap --from 0,0,0 --to 5,5,5 --json", PATH),
    "voxel scen": ("voxel scen {d}/v.3dmap.3dscen --quiet --json", SCEN),
}


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("json")
    assert main(["generate", "rooms", str(d / "r.map"), "--width", "32", "--height", "32",
                 "--seed", "1", "--per-bucket", "2"]) == 0
    assert main(["index", "build", str(d / "r.map"), "jps_plus", "-o", str(d / "j.npz"),
                 "--quiet"]) == 0
    (d / "h.txt").write_text(" . . .\n  . . .\n . . .\n")
    (d / "c.json").write_text(json.dumps({
        "format": "wayfinding.constraints", "version": 1,
        "annotations": {"pond": {"kind": "disc", "centre": [18, 22], "radius": 3}},
        "constraints": [{"near": "pond", "weight": {"schedule": [[0, 2], [1, -4]]}}]}))
    generate.stairs(steps=3).to_obj(d / "s.obj")
    write_3dmap(VoxelGrid.from_cells((6, 6, 6), [(5, 0, 0)]), d / "v.3dmap")
    write_3dscen(Scenario3D("v.3dmap", [Problem3D((0, 0, 0), (5, 5, 5), 5 * math.sqrt(3))]),
                 d / "v.3dmap.3dscen")
    return d


def _json(line: str, work: Path) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(line.format(d=work).split())
    return code, json.loads(out.getvalue().strip().splitlines()[-1])


@pytest.fixture(scope="module")
def printed(work) -> dict[str, tuple[int, dict]]:
    """Each command line of :data:`SCHEMAS` run once: its exit status and JSON object."""
    return {name: _json(line, work) for name, (line, _) in SCHEMAS.items()}


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_json_keys_are_the_documented_ones(printed, name):
    code, data = printed[name]
    keys = SCHEMAS[name][1]
    assert code == 0
    assert set(data) == keys, (sorted(set(data) - keys), sorted(keys - set(data)))
    key, entry_keys = _entries(SCHEMAS[name][0])
    for entry in data.get(key, []) if key else []:
        assert set(entry) == entry_keys, (sorted(set(entry) ^ entry_keys))


def _mismatched_scen(work: Path) -> tuple[int, dict]:
    lines = (work / "r.map.scen").read_text().splitlines()
    *head, last = lines[1].split("\t")
    lines[1] = "\t".join([*head, "1.5"])       # an optimum no path can have
    (work / "wrong.map.scen").write_text("\n".join(lines) + "\n")
    return _json("scen {d}/wrong.map.scen --maps {d} --quiet --json", work)


def test_scen_mismatches_list_their_problems(work):
    code, data = _mismatched_scen(work)
    assert code == 1 and set(data) == SCEN and data["mismatches"] == 1
    assert [set(w) for w in data["worst"]] == [WORST]


def documented() -> dict[tuple[str, ...], set[str]]:
    """The page's sections: each command's words (``("navmesh", "path")``) and the keys of
    every table under its heading."""
    doc = (Path(__file__).parents[2] / "docs" / "cli-json.md").read_text()
    out = {}
    for section in re.split(r"^## ", doc, flags=re.M)[1:]:
        heading, _, body = section.partition("\n")
        words = heading.strip("` ").split()
        assert words[0] == "wayfinding", heading
        command = tuple(itertools.takewhile(lambda w: w.islower(), words[1:]))
        out[command] = set(re.findall(r"^\| `(\w+)` \|", body, flags=re.M))
    return out


def test_the_page_has_a_section_per_command():
    assert set(documented()) == {("path",), ("scen",), ("index", "info"), ("world",),
                                 ("navmesh", "build"), ("navmesh", "path"),
                                 ("navmesh3d", "build"), ("navmesh3d", "info"),
                                 ("navmesh3d", "path"), ("navmesh3d", "raycast"),
                                 ("navmesh3d", "nearest"), ("field", "flow"),
                                 ("field", "scene"), ("crowd", "run"), ("vehicle", "path"),
                                 ("vehicle", "crossing"), ("traffic", "route"),
                                 ("traffic", "lattice"), ("climb", "path"),
                                 ("clips",), ("movement",), ("locomotion",),
                                 ("footsteps",),
                                 ("motion", "fit"), ("constraints", "field"),
                                 ("constraints", "compare"), ("multidomain",),
                                 ("voxel", "build"),
                                 ("voxel", "path"), ("voxel", "scen")}


def test_each_section_lists_exactly_the_keys_its_command_prints(printed, work):
    runs = {**printed, "scen mismatches": _mismatched_scen(work)}
    lines = {**{name: line for name, (line, _) in SCHEMAS.items()},
             "scen mismatches": "scen"}
    for command, keys in documented().items():
        shown = set()
        for name, (_, data) in runs.items():
            if tuple(lines[name].split()[:len(command)]) == command:
                shown |= set(data)
                key = _entries(" ".join(command))[0]
                for entry in data.get(key, []) if key else []:
                    shown |= set(entry)
        assert shown, f"no command line runs {' '.join(command)}"
        assert keys == shown, (command, "not printed:", sorted(keys - shown),
                               "not documented:", sorted(shown - keys))
