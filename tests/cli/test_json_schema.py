"""Every ``--json`` output keeps the exact keys docs/cli-json.md lists: one table here, one
run of each command on a small generated map, so a renamed or dropped key fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wayfinding.cli import main

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
CROWD_RUN = {"scenario", "model", "agents", "completion", "t50", "t90", "collisions",
             "max_penetration", "path_ratio", "energy", "jitter", "seconds", "render"}

#: Each command line (``{d}``: the work folder) and the exact keys of its JSON object.
SCHEMAS = {
    "path": ("path {d}/r.map --from 13,15 --to 24,29 --json", PATH),
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
    "field flow": ("field flow {d}/r.map --to 13,15 -o {d}/f.svg --json", FIELD_FLOW),
    "field scene": ("field scene lanes --units 5 --seconds 1 --json", FIELD_SCENE),
    "crowd run": ("crowd run circle --agents 4 --json", CROWD_RUN),
}


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("json")
    assert main(["generate", "rooms", str(d / "r.map"), "--width", "32", "--height", "32",
                 "--seed", "1", "--per-bucket", "2"]) == 0
    assert main(["index", "build", str(d / "r.map"), "jps_plus", "-o", str(d / "j.npz"),
                 "--quiet"]) == 0
    (d / "h.txt").write_text(" . . .\n  . . .\n . . .\n")
    return d


def _json(capsys, line: str, work: Path) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(line.format(d=work).split())
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1])


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_json_keys_are_the_documented_ones(capsys, work, name):
    line, keys = SCHEMAS[name]
    code, data = _json(capsys, line, work)
    assert code == 0
    assert set(data) == keys, (sorted(set(data) - keys), sorted(keys - set(data)))


def test_scen_mismatches_list_their_problems(capsys, work):
    lines = (work / "r.map.scen").read_text().splitlines()
    *head, last = lines[1].split("\t")
    lines[1] = "\t".join([*head, "1.5"])       # an optimum no path can have
    (work / "wrong.map.scen").write_text("\n".join(lines) + "\n")
    code, data = _json(capsys, "scen {d}/wrong.map.scen --maps {d} --quiet --json", work)
    assert code == 1 and set(data) == SCEN and data["mismatches"] == 1
    assert [set(w) for w in data["worst"]] == [WORST]


def test_every_schema_is_documented():
    doc = (Path(__file__).parents[2] / "docs" / "cli-json.md").read_text()
    for name, (_, keys) in SCHEMAS.items():
        missing = [k for k in sorted(keys | WORST) if f"| `{k}` |" not in doc]
        assert not missing, (name, missing)
