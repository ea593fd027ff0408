"""``wayfinding voxel build|path|scen|render`` on generated worlds and small files: lengths
against scipy's Dijkstra over a graph built here with the cube rule, the JSON of the 2D
``scen``, pictures, saved grids and octrees, and clear errors; one run on Moving AI's Simple."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from movingai_data import require_movingai

from wayfinding.cli import main
from wayfinding.voxel import generate
from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.movingai3d import Problem3D, Scenario3D, write_3dmap, write_3dscen
from wayfinding.voxel.octree import SparseVoxelOctree

csgraph = pytest.importorskip("scipy.sparse.csgraph")
sparse = pytest.importorskip("scipy.sparse")

#: The keys of ``wayfinding scen --json`` (docs/cli-json.md).
SCEN = {"scenario", "map", "algorithm", "problems", "solved", "mismatches", "median_us",
        "mean_us", "p95_us", "mean_expanded", "preprocess_s", "index_bytes", "worst", "exact",
        "mean_ratio", "max_ratio"}
PATH = {"found", "cost", "algorithm", "path", "expanded", "generated", "elapsed_us"}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def oracle(blocked: np.ndarray, source: tuple[int, int, int]) -> np.ndarray:
    """26-connected distances from ``source`` (``[z, y, x]``; a move needs its cube free)."""
    nz, ny, nx = blocked.shape
    free = np.zeros((nz + 2, ny + 2, nx + 2), bool)
    free[1:-1, 1:-1, 1:-1] = ~blocked
    ids = np.arange(blocked.size).reshape(blocked.shape)
    rows, cols, costs = [], [], []
    for d in np.ndindex(3, 3, 3):
        dx, dy, dz = (v - 1 for v in d)
        if dx == dy == dz == 0:
            continue
        ok = ~blocked
        for cz in {0, dz}:
            for cy in {0, dy}:
                for cx in {0, dx}:
                    ok = ok & free[1 + cz:1 + cz + nz, 1 + cy:1 + cy + ny, 1 + cx:1 + cx + nx]
        z, y, x = np.nonzero(ok)
        rows.append(ids[z, y, x])
        cols.append(ids[z + dz, y + dy, x + dx])
        costs.append(np.full(len(z), math.sqrt(abs(dx) + abs(dy) + abs(dz))))
    g = sparse.csr_matrix((np.concatenate(costs), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(blocked.size, blocked.size))
    x, y, z = source
    return csgraph.dijkstra(g, indices=int(ids[z, y, x])).reshape(blocked.shape)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> tuple[Path, VoxelGrid, list[Problem3D]]:
    d = tmp_path_factory.mktemp("voxelcli")
    grid = generate.towers((16, 10, 14), seed=2)
    write_3dmap(grid, d / "w.3dmap")
    rng = np.random.default_rng(4)
    z, y, x = np.nonzero(~grid.blocked)
    problems = []
    for i in range(8):
        a, b = rng.choice(len(x), 2, replace=False)
        s, g = (int(x[a]), int(y[a]), int(z[a])), (int(x[b]), int(y[b]), int(z[b]))
        problems.append(Problem3D(s, g, float(oracle(grid.blocked, s)[g[2], g[1], g[0]]),
                                  1.0, line=i + 3))
    write_3dscen(Scenario3D("w.3dmap", problems), d / "w.3dmap.3dscen")
    return d, grid, problems


def test_build_saves_the_grid_and_the_octree(work):
    d, grid, _ = work
    code, out, _ = run("voxel", "build", d / "w.3dmap", "--grid", d / "g.npz", "--octree",
                       d / "o.npz", "--json")
    assert code == 0
    info = json.loads(out)
    assert VoxelGrid.load(d / "g.npz") == grid
    tree = SparseVoxelOctree.load(d / "o.npz", grid)
    assert info["octree_bytes"] == tree.nbytes and info["voxels"] == list(grid.size)
    assert info["free"] == grid.num_free and info["grid_bytes"] == grid.words.nbytes
    code, out, _ = run("voxel", "build", d / "g.npz", "--octree", d / "o2.npz", "--quiet")
    assert code == 0 and "octree:" in out and "MB" in out and "bit-packed" in out


def test_build_voxelizes_a_mesh(tmp_path):
    # a closed unit cube, 0.25 voxels
    v = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]
    faces = [(1, 2, 4, 3), (5, 7, 8, 6), (1, 5, 6, 2), (3, 4, 8, 7), (1, 3, 7, 5), (2, 6, 8, 4)]
    text = "".join(f"v {a} {b} {c}\n" for a, b, c in v) + "".join(
        f"f {a} {b} {c}\nf {a} {c} {e}\n" for a, b, c, e in faces)
    (tmp_path / "box.obj").write_text(text)
    code, out, err = run("voxel", "build", tmp_path / "box.obj", "--voxel-size", "0.25",
                         "--solid", "--grid", tmp_path / "g.npz", "--json")
    assert code == 0, err
    grid = VoxelGrid.load(tmp_path / "g.npz")
    assert grid.voxel_size == 0.25 and grid.num_free < grid.num_voxels
    assert json.loads(out)["grid"] == str(tmp_path / "g.npz")


@pytest.mark.parametrize("method", ["astar", "theta", "lazy_theta", "svo"])
def test_path_matches_the_oracle(work, method):
    d, grid, problems = work
    p = problems[0]
    code, out, _ = run("voxel", "path", d / "w.3dmap", "--from", ",".join(map(str, p.start)),
                       "--to", ",".join(map(str, p.goal)), "--method", method, "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == PATH and data["found"] and data["algorithm"] == method
    assert data["path"][0] == list(p.start) and data["path"][-1] == list(p.goal)
    if method == "astar":
        assert data["cost"] == pytest.approx(p.optimal, abs=1e-6)
    elif method == "svo":
        assert data["cost"] >= p.optimal - 1e-6
    else:
        assert data["cost"] <= p.optimal + 1e-6
    code, text, _ = run("voxel", "path", d / "w.3dmap", "--from", ",".join(map(str, p.start)),
                        "--to", ",".join(map(str, p.goal)), "--algo", method)
    assert code == 0 and text.startswith(f"cost {data['cost']:.8f}")


def test_path_reads_a_saved_octree_and_draws(work):
    d, grid, problems = work
    SparseVoxelOctree.build(grid).save(d / "tree.npz")
    p = problems[1]
    ends = ["--from", ",".join(map(str, p.start)), "--to", ",".join(map(str, p.goal))]
    code, out, err = run("voxel", "path", d / "w.3dmap", *ends, "--method", "svo", "--octree",
                         d / "tree.npz", "--render", d / "p.png")
    assert code == 0 and (d / "p.png").read_bytes()[:4] == b"\x89PNG" and "picture" in err


@pytest.mark.parametrize("method", ["astar", "theta", "lazy_theta", "svo"])
def test_scen_prints_the_json_of_the_2d_runs(work, method):
    d, _, problems = work
    code, out, _ = run("voxel", "scen", d / "w.3dmap.3dscen", "--method", method, "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == SCEN and data["problems"] == data["solved"] == len(problems)
    assert data["mismatches"] == 0 and data["algorithm"] == method
    assert data["exact"] == (method == "astar")


def test_scen_sample_and_table(work):
    d, _, _ = work
    code, out, _ = run("voxel", "scen", d / "w.3dmap.3dscen", "--sample", "3", "--quiet")
    assert code == 0 and "problems" in out and "median µs/query" in out
    assert out.split("problems")[1].split()[0] == "3"


def test_scen_mismatch_exits_1_and_names_the_line(work, tmp_path):
    d, _, _ = work
    lines = (d / "w.3dmap.3dscen").read_text().splitlines()
    w = lines[2].split()
    w[6] = "1000.0"
    lines[2] = " ".join(w)
    (tmp_path / "bad.3dmap.3dscen").write_text("\n".join(lines) + "\n")
    code, out, _ = run("voxel", "scen", tmp_path / "bad.3dmap.3dscen", "--maps", d, "--json")
    data = json.loads(out)
    assert code == 1 and data["mismatches"] == 1 and data["worst"][0]["line"] == 3
    code, out, _ = run("voxel", "scen", tmp_path / "bad.3dmap.3dscen", "--maps", d, "--quiet")
    assert code == 1 and "mismatch at line 3" in out


def test_scen_with_a_saved_octree(work):
    d, grid, _ = work
    SparseVoxelOctree.build(grid).save(d / "tree2.npz")
    code, out, _ = run("voxel", "scen", d / "w.3dmap.3dscen", "--method", "svo", "--octree",
                       d / "tree2.npz", "--json")
    data = json.loads(out)
    assert code == 0 and data["preprocess_s"] == 0.0 and data["index_bytes"] > 0


@pytest.mark.parametrize("suffix", [".png", ".html"])
def test_render_writes_pictures(work, suffix):
    d, _, problems = work
    p = problems[2]
    out_file = d / f"r{suffix}"
    code, out, err = run("voxel", "render", d / "w.3dmap", "-o", out_file, "--from",
                         ",".join(map(str, p.start)), "--to", ",".join(map(str, p.goal)),
                         "--method", "svo", "--nodes", "--size", "300")
    assert code == 0, err
    assert out.strip() == str(out_file) and out_file.stat().st_size > 1000
    if suffix == ".png":
        from PIL import Image

        assert max(Image.open(out_file).size) <= 300


@pytest.mark.parametrize("argv, message", [
    (["path", "{d}/w.txt", "--from", "0,0,0", "--to", "1,1,1"], "a world is a .3dmap"),
    (["path", "{d}/nothere.3dmap", "--from", "0,0,0", "--to", "1,1,1"], "nothere"),
    (["path", "{d}/w.3dmap", "--from", "99,1,1", "--to", "0,0,0"], "outside"),
    (["path", "{d}/w.3dmap", "--from", "0,0,0", "--to", "1,1,1", "--octree", "{d}/x.npz"],
     "takes no octree"),
    (["build", "{d}/w.3dmap"], "nothing to save"),
    (["build", "{d}/w.3dmap", "--grid", "{d}/x.npz", "--voxel-size", "2"], "only apply"),
    (["render", "{d}/w.3dmap", "-o", "{d}/x.gif"], "suffix"),
    (["render", "{d}/w.3dmap", "-o", "{d}/x.png", "--from", "0,0,0"], "both --from"),
    (["render", "{d}/w.3dmap", "-o", "{d}/x.png", "--nodes"], "--method svo"),
])
def test_bad_input_is_one_line_and_exit_2(work, argv, message):
    d, _, _ = work
    code, out, err = run("voxel", *[a.format(d=d) for a in argv])
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_a_blocked_end_is_refused(work):
    d, grid, _ = work
    z, y, x = np.argwhere(grid.blocked)[0]
    code, _, err = run("voxel", "path", d / "w.3dmap", "--from", f"{x},{y},{z}", "--to",
                       "0,0,0")
    assert code == 2 and "blocked" in err


def test_a_bad_cell_is_refused_while_parsing(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["voxel", "path", "w.3dmap", "--from", "1,2", "--to", "0,0,0"])
    assert exc.value.code == 2 and "X,Y,Z" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["astar", "svo"])
def test_movingai_simple_sample(method):
    data = require_movingai()
    scen = data / "scenarios" / "warframe" / "Simple.3dmap.3dscen"
    if not scen.is_file():
        reason = f"the Moving AI 3D scenario {scen} is missing"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (CI=true: the data must be there)", pytrace=False)
        pytest.skip(reason)
    code, out, _ = run("voxel", "scen", scen, "--method", method, "--sample", "20", "--json")
    report = json.loads(out)
    assert code == 0 and report["problems"] == 20 and report["mismatches"] == 0
    if method == "astar":
        assert report["max_ratio"] == pytest.approx(1.0, abs=1e-5)
