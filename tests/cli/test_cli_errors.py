"""The command line under bad input: every bad command line ends with one line on stderr and
exit status 2 (130 when interrupted), never a traceback; JSON output is strict JSON."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import wayfinding
from wayfinding.cli import main
from wayfinding.grid import Grid, GridSearch, write_map
from wayfinding.grid.movingai import Problem, write_scen

HUGE = str(10**30)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder holding ``open.map`` (16 x 12, all open), a scenario for it and a
    subfolder ``sub``; the tests run in it."""
    grid = Grid(np.ones((12, 16), dtype=bool))
    write_map(grid, tmp_path / "open.map")
    search = GridSearch(grid)
    write_scen([Problem(0, "open.map", 16, 12, s, g, search.find_path(s, g).cost)
                for s, g in (((0, 0), (5, 5)), ((1, 2), (15, 11)))],
               tmp_path / "open.map.scen")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, line: str) -> tuple[int, str, str]:
    """``wayfinding LINE`` in this process: (exit status, stdout, stderr)."""
    try:
        code = main(shlex.split(line))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _strict(text: str):
    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def assert_one_error_line(code, err: str, *words: str) -> None:
    assert "Traceback" not in err
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("wayfinding") and ": error: " in lines[0], err
    for word in words:
        assert word in lines[0]


BAD_LINES = {
    # output paths: a missing folder, a folder, a place that cannot be written
    "path render into a missing folder": "path open.map --from 0,0 --to 5,5 --render nodir/x.png",
    "index into a missing folder": "index build open.map jps_plus -o nodir/x.npz",
    "index onto a folder": "index build open.map jps_plus -o sub",
    "index somewhere unwritable": "index build open.map jps_plus -o /proc/x.npz",
    "checkpoint into a missing folder":
        "index build open.map goal_bounds -o x.npz --workers 1 --quiet --checkpoint nodir/c.npz",
    "render into a missing folder": "render open.map -o nodir/x.png",
    "render twice, once into a missing folder": "render open.map -o x.svg -o nodir/x.png",
    "navmesh onto a folder": "navmesh build open.map -o sub",
    "navmesh drawing into a missing folder": "navmesh render open.map -o nodir/x.svg",
    "world drawing into a missing folder": "world waypoints open.map -o nodir/x.svg",
    "flow picture into a missing folder": "field flow open.map --to 1,1 -o nodir/x.png",
    "crowd animation into a missing folder": "crowd run swap --agents 1 --render nodir/x.gif",
    # numbers
    "no agents": "crowd run circle --agents 0",
    "negative agents": "crowd run circle --agents -1",
    "huge agents": f"crowd run circle --agents {HUGE}",
    "agents not a number": "crowd run circle --agents many",
    "negative crowd seed": "crowd run circle --seed -1",
    "NaN width": "crowd run bottleneck --width nan",
    "sample of none": "scen open.map.scen --sample 0",
    "negative sample": "scen open.map.scen --sample -1",
    "negative roadmap seed": "world roadmap open.map --seed -1",
    "huge roadmap": f"world roadmap open.map --samples {HUGE}",
    "NaN spacing": "world waypoints open.map --spacing nan",
    "zero longest link": "world waypoints open.map --max-link 0",
    "negative radius": "navmesh build open.map -o x.npz --radius -1",
    "infinite radius": "navmesh build open.map -o x.npz --radius inf",
    "huge polygons": f"navmesh build open.map -o x.npz --max-verts {HUGE}",
    "no units": "field scene lanes --units 0",
    "NaN seconds": "field scene lanes --seconds nan",
    "huge pivots": f"index build open.map differential -o x.npz --pivots {HUGE}",
    "no workers": "index build open.map goal_bounds -o x.npz --workers 0",
    "huge agent size": f"path open.map --from 0,0 --to 5,5 --agent-size {HUGE}",
    "NaN weight": "path open.map --from 0,0 --to 5,5 --method weighted_astar --weight nan",
    "port beyond 65535": "serve --port 99999 open.map",
    "negative port": "serve --port -5 open.map",
    "radius eating the area": "navmesh path open.map --from 1,1 --to 9,9 --radius 1e308",
    # cells
    "negative start cell": "path open.map --from -1,2 --to 5,5",
    "negative distance source": "render open.map -o x.svg --distances-from -1,0",
    "negative flow goal": "field flow open.map --to -1,1 -o x.png",
    "malformed negative cell": "path open.map --from -1,x --to 5,5",
}


@pytest.mark.parametrize("line", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_bad_command_line_one_error_line(capsys, workdir, line):
    before = sorted(p.name for p in workdir.rglob("*"))
    code, _, err = run(capsys, line)
    assert_one_error_line(code, err)
    assert sorted(p.name for p in workdir.rglob("*")) == before


@pytest.mark.parametrize("line, words", [
    ("path open.map --from 0,0 --to 5,5 --render nodir/x.png", ["nodir/x.png"]),
    ("index build open.map jps_plus -o sub", ["sub", "directory"]),
    ("crowd run circle --agents 0", ["--agents", "0"]),
    (f"crowd run circle --agents {HUGE}", ["--agents", HUGE]),
    ("crowd run circle --seed -1", ["--seed", "-1"]),
    ("field scene lanes --seconds nan", ["--seconds", "nan"]),
    ("path open.map --from -1,2 --to 5,5", ["(-1, 2)", "outside"]),
])
def test_error_line_names_the_value(capsys, workdir, line, words):
    code, _, err = run(capsys, line)
    assert_one_error_line(code, err, *words)


@pytest.mark.parametrize("method", ["astar", "jps", "theta"])
def test_index_for_a_method_without_one(capsys, workdir, method):
    assert run(capsys, "index build open.map jps_plus -o jp.npz")[0] == 0
    code, _, err = run(capsys,
                       f"path open.map --from 0,0 --to 5,5 --method {method} --index jp.npz")
    assert_one_error_line(code, err, repr(method), "--index")
    code, _, err = run(capsys, f"scen open.map.scen --method {method} --index jp.npz --quiet")
    assert_one_error_line(code, err, repr(method), "--index")


def test_index_of_a_kind_the_method_does_not_use(capsys, workdir):
    assert run(capsys, "index build open.map jps_plus -o jp.npz")[0] == 0
    code, _, err = run(capsys, "path open.map --from 0,0 --to 5,5 --method subgoal --index jp.npz")
    assert_one_error_line(code, err, "'subgoal'", "jp.npz")


def test_index_for_a_preprocessed_method_is_used(capsys, workdir):
    assert run(capsys, "index build open.map jps_plus -o jp.npz")[0] == 0
    code, out, err = run(capsys, "path open.map --from 0,0 --to 5,5 --method jps_plus "
                         "--index jp.npz --json")
    assert code == 0 and json.loads(out)["found"], err


def test_out_of_memory(capsys, workdir, monkeypatch):
    import wayfinding.crowd.scenarios as scenarios

    def starved(*args, **kwargs):
        raise MemoryError("Unable to allocate 16.0 GiB for an array")

    monkeypatch.setattr(scenarios, "simulate_crowd", starved)
    code, _, err = run(capsys, "crowd run circle --agents 3")
    assert_one_error_line(code, err, "memory")


@pytest.mark.parametrize("line", [
    "path open.map --from 0,1 --to -1,2",
    "path open.map --from=-1,2 --to 5,5",
    "render open.map -o x.svg --from -1,0 --to 2,2",
])
def test_negative_cells_reach_the_library(capsys, workdir, line):
    code, _, err = run(capsys, line)
    assert_one_error_line(code, err, "outside the 16x12 grid")


@pytest.mark.parametrize("line, first", [
    ("world waypoints open.map --from -0.5,1 --to 3,3 --json", [-0.5, 1.0]),
    ("navmesh path open.map --from -0.5,1 --to 3,3 --json", [0.0, 1.0]),  # snapped
])
def test_negative_world_points_parse(capsys, workdir, line, first):
    code, out, err = run(capsys, line)
    assert code == 0, err
    data = _strict(out)
    assert data["found"] and data["path"][0] == first


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and wayfinding.__version__ in out


def test_no_command_prints_help(capsys):
    code, out, err = run(capsys, "")
    assert code == 0 and err == ""
    assert out.startswith("usage: wayfinding") and "path" in out and "crowd" in out


def test_json_has_no_infinity(capsys, workdir):
    # a second is too short for anyone to arrive: the arrival times are infinite
    code, out, _ = run(capsys, "field scene lanes --seconds 1 --json")
    data = _strict(out)
    assert code == 0 and data["completion"] == 0 and data["t50"] is None


def test_index_info_refuses_a_crafted_header_in_one_line(capsys, workdir):
    assert run(capsys, "index build open.map jps_plus -o jp.npz")[0] == 0
    with np.load(workdir / "jp.npz") as data:
        arrays = {k: data[k] for k in data.files}
    header = json.loads(str(arrays["__header__"]))
    header["build_time"] = float("nan")
    arrays["__header__"] = np.array(json.dumps(header))
    np.savez(workdir / "jp.npz", **arrays)
    code, out, err = run(capsys, "index info jp.npz --json")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "build_time" in err


@pytest.mark.parametrize("line", [
    "path open.map --from 0,0 --to 5,5",
    "scen open.map.scen",
    "crowd run circle",
    "field flow open.map --to 1,1 -o x.png",
    "field scene lanes",
    "world waypoints open.map",
    "navmesh build open.map -o x.npz",
])
def test_json_help_says_non_finite_is_null(capsys, line):
    code, out, _ = run(capsys, line + " --help")
    assert code == 0 and "null" in " ".join(out.split())


# --- signals and pipes: in a subprocess ----------------------------------------------------

CLI = [sys.executable, "-m", "wayfinding"]


def test_interrupt_says_where_the_checkpoint_is(tmp_path):
    # Big enough that the build runs for minutes: the interrupt comes once the first periodic
    # save (5 s in) shows the build under way, however slowly the machine started it.
    write_map(Grid(np.ones((300, 300), dtype=bool)), tmp_path / "big.map")
    checkpoint = tmp_path / "gb.ckpt"
    # A test run started in the background inherits SIGINT ignored, and Python keeps it so:
    # the child gets the default back, as in a terminal.
    proc = subprocess.Popen([*CLI, "index", "build", "big.map", "goal_bounds", "-o", "gb.npz",
                             "--workers", "1", "--quiet", "--checkpoint", checkpoint.name],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    started = time.monotonic()
    while not checkpoint.exists() and time.monotonic() - started < 120:
        time.sleep(0.05)
    assert checkpoint.exists(), "the build never saved its first checkpoint"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert "Traceback" not in err
    assert proc.returncode == 130, (out, err)
    assert len(err.splitlines()) == 1 and "interrupted" in err and "gb.ckpt" in err, err
    assert checkpoint.exists() and not (tmp_path / "gb.npz").exists()


def test_closed_pipe_is_silent(tmp_path):
    write_map(Grid(np.ones((12, 16), dtype=bool)), tmp_path / "open.map")
    proc = subprocess.Popen([*CLI, "path", "open.map", "--from", "0,0", "--to", "15,11"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert err == ""
    assert proc.returncode == 141



def test_algo_says_it_is_the_old_spelling_of_method(capsys, workdir):
    code, out, err = run(capsys, "path open.map --from 0,0 --to 5,5 --algo dijkstra --json")
    assert code == 0 and _strict(out)["algorithm"] == "dijkstra"
    assert err == "wayfinding path: --algo is deprecated; use --method\n"


@pytest.mark.parametrize("options", ["--method astar --algo dijkstra",
                                     "--algo dijkstra --method astar",
                                     "--method dijkstra --algo dijkstra"])
def test_algo_and_method_together_is_an_error(capsys, workdir, options):
    code, out, err = run(capsys, f"path open.map --from 0,0 --to 5,5 {options}")
    assert code == 2 and not out and "Traceback" not in err
    last = err.splitlines()[-1]
    assert last.startswith("wayfinding path: error: ") and "give --method only" in last
