"""``wayfinding index build --dask``: goal bounds built on a Dask cluster save the file the
serial build saves; other kinds, bad schedulers and options that do not apply are refused."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding.cli import build_parser, main
from wayfinding.grid import generate, read_map, write_map
from wayfinding.grid.index import load_index, read_index_info


@pytest.fixture(scope="module")
def map_file(tmp_path_factory):
    return write_map(generate.caves(30, 24, fill=0.4, seed=6),
                     tmp_path_factory.mktemp("dask_cli") / "cave.map")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_dask_build_saves_the_serial_file(capsys, tmp_path, map_file):
    pytest.importorskip("distributed", reason="the [dask] extra (dask[distributed]) is absent")
    serial, dask = tmp_path / "serial.npz", tmp_path / "dask.npz"
    assert run(capsys, "index", "build", map_file, "goal_bounds", "-o", serial,
               "--workers", "1", "--quiet")[0] == 0
    code, out, _ = run(capsys, "index", "build", map_file, "goal_bounds", "-o", dask,
                       "--dask", "local:2", "--batch", "256", "--quiet")
    assert code == 0 and "on Dask (local:2)" in out and dask.exists()
    grid = read_map(map_file)
    a, b = load_index(serial, grid), load_index(dask, grid)
    assert type(a) is type(b) and a.options == b.options
    assert sorted(a.arrays) == sorted(b.arrays)
    for name in a.arrays:
        np.testing.assert_array_equal(a.arrays[name], b.arrays[name])
    info_a, info_b = read_index_info(serial), read_index_info(dask)
    for info in (info_a, info_b):
        info.pop("build_time")
    assert info_a == info_b


def test_dask_build_on_a_scheduler_address(capsys, tmp_path, map_file):
    distributed = pytest.importorskip("distributed",
                                      reason="the [dask] extra (dask[distributed]) is absent")
    saved = tmp_path / "gb.npz"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  protocol="tcp", dashboard_address=":0") as cluster:
        code, out, _ = run(capsys, "index", "build", map_file, "goal_bounds", "-o", saved,
                           "--dask", cluster.scheduler_address, "--batch", "64", "--quiet")
    assert code == 0 and cluster.scheduler_address in out
    grid = read_map(map_file)
    serial = load_index(saved, grid).__class__.build(grid, workers=1, progress=False)
    np.testing.assert_array_equal(load_index(saved, grid).arrays["boxes"], serial.boxes)


@pytest.mark.parametrize(("argv", "message"), [
    (["jps_plus", "--dask", "local:2"], "--dask builds only goal_bounds; build jps_plus"),
    (["goal_bounds", "--dask", "nowhere"], "scheduler 'nowhere' must be local:N"),
    (["goal_bounds", "--dask", "local:0"], "at least 1 worker"),
    (["goal_bounds", "--dask", "local:2", "--workers", "2"], "do not apply with --dask"),
    (["goal_bounds", "--dask", "local:2", "--checkpoint", "c.npz"], "do not apply with --dask"),
    (["goal_bounds", "--batch", "8"], "--batch only applies with --dask"),
])
def test_dask_build_refusals_exit_2(capsys, tmp_path, map_file, argv, message):
    out = tmp_path / "x.npz"
    code, _, err = run(capsys, "index", "build", map_file, *argv, "-o", out)
    assert code == 2 and message in err
    assert not out.exists()


def test_dask_option_in_help():
    parser = build_parser()
    index = next(a for a in parser._subparsers._group_actions[0].choices["index"]._actions
                 if a.dest == "index_command")
    text = index.choices["build"].format_help()
    assert "--dask SCHEDULER" in text and "local:N" in text and "--batch N" in text
