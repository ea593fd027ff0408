"""Saved indexes are untrusted input: crafted files of every kind are refused with an
IndexFormatError naming the file and the fault, before any kernel reads them."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from index_files import KINDS, pairs, read_members, stored, write_index, write_zip, zip_bomb

from wayfinding._index import Index
from wayfinding.cli import main
from wayfinding.errors import IndexFormatError


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any, Any]]:
    """Per kind: the world, the built index and the path of its saved file."""
    from index_files import random_grid

    folder = tmp_path_factory.mktemp("indexes")
    grid = random_grid(7, 20)
    out = {}
    for kind, (build, world_of, _) in KINDS.items():
        world = world_of(grid)
        index = build(world)
        path = folder / f"{kind}.npz"
        index.save(path)
        out[kind] = (world, index, path)
    return out


def _load(saved: dict, kind: str, path: Any) -> Index:
    world, index, _ = saved[kind]
    return type(index).load(path, world)


def _refused(saved: dict, kind: str, path: Any, *words: str) -> str:
    with pytest.raises(IndexFormatError) as err:
        _load(saved, kind, path)
    text = str(err.value)
    assert str(path) in text
    for w in words:
        assert w in text, text
    return text


@pytest.mark.parametrize("kind", KINDS)
def test_saved_index_loads_and_answers_as_built(saved, kind):
    world, index, path = saved[kind]
    loaded = _load(saved, kind, path)
    query = KINDS[kind][2]
    for s, g in pairs(world, 5, seed=1):
        a, b = query(index, s, g), query(loaded, s, g)
        assert a.found == b.found and a.cost == b.cost


# ---------------------------------------------------------------- faults of every kind

def _first(arrays: dict[str, np.ndarray]) -> str:
    return max(arrays, key=lambda k: arrays[k].size)


def _wrong_dtype(header, arrays):
    name = _first(arrays)
    a = arrays[name]
    arrays[name] = a.astype(np.float32 if a.dtype == np.float64 else np.float64)
    return name


def _short(header, arrays):
    name = _first(arrays)
    arrays[name] = arrays[name][:-1]
    return ""       # the message may name this array or one whose length must match it


def _missing(header, arrays):
    name = _first(arrays)
    del arrays[name]
    return name


def _unknown(header, arrays):
    arrays["extra"] = np.zeros(3)
    return "extra"


def _version(value):
    def change(header, arrays):
        header["version"] = value
        return "version"
    return change


def _options(header, arrays):
    header["options"] = ["levels", 2]
    return "options"


def _build_time(header, arrays):
    header["build_time"] = "fast"
    return "build_time"


def _text_array(header, arrays):
    name = _first(arrays)
    arrays[name] = np.array(["a", "b"])
    return name


FAULTS: dict[str, Callable[[dict, dict], str]] = {
    "wrong dtype": _wrong_dtype, "wrong shape": _short, "missing array": _missing,
    "unknown member": _unknown, "version string": _version("1"),
    "version bool": _version(True), "version float": _version(1.0),
    "options not a dict": _options, "build_time string": _build_time,
    "text array": _text_array,
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("kind", KINDS)
def test_crafted_file_is_refused(saved, tmp_path, kind, fault):
    header, arrays = read_members(saved[kind][2])
    name = FAULTS[fault](header, arrays)
    path = write_index(tmp_path / "bad.npz", header, arrays)
    _refused(saved, kind, path, name)


@pytest.mark.parametrize("kind", KINDS)
def test_zip_bomb_is_refused_from_the_directory(saved, tmp_path, kind):
    header, arrays = read_members(saved[kind][2])
    name = _first(arrays)
    del arrays[name]
    path = write_index(tmp_path / "bomb.npz", header, arrays, [zip_bomb(name)])
    assert path.stat().st_size < 2e6
    t0 = time.perf_counter()
    _refused(saved, kind, path, name, "larger than")
    assert time.perf_counter() - t0 < 2.0


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9, 0.999])
def test_truncated_file_is_refused(saved, tmp_path, cut):
    data = saved["jps_plus"][2].read_bytes()
    path = tmp_path / "cut.npz"
    path.write_bytes(data[:int(len(data) * cut)])
    _refused(saved, "jps_plus", path)


_BROKEN_NPY = b"\x93NUMPY\x01\x00\x1e\x00{'descr': '<i2', 'shape': (9,  \n"


@pytest.mark.parametrize("name,data", [("notes.txt", b"hello"), ("dist.npy", _BROKEN_NPY),
                                       ("dist.npy", b"\x93NUMPY\x07\x00"),
                                       ("dist.npy", b"")])
def test_member_that_is_no_readable_npy_is_refused(saved, tmp_path, name, data):
    header, arrays = read_members(saved["jps_plus"][2])
    del arrays["dist"]
    members = [stored("__header__", np.array(json.dumps(header)))]
    members += [stored(k, v) for k, v in arrays.items()]
    members.append((name, data, len(data), zlib.crc32(data), 0))
    _refused(saved, "jps_plus", write_zip(tmp_path / "x.npz", members), name.split(".")[0])


# ---------------------------------------------------------------- values out of range

def _set(name: str, change: Callable[[np.ndarray], None]):
    def apply(header, arrays):
        a = arrays[name].copy()
        change(a)
        arrays[name] = a
        return name
    return apply


def _option(name: str, value: Any):
    def apply(header, arrays):
        header["options"][name] = value
        return name
    return apply


def _at(index: Any, value: Any):
    def change(a):
        a[index] = value
    return change


def _scale(factor: float):
    def change(a):
        a *= factor
    return change


def _swap_first_rows(a):
    # offsets that go down: CSR rows must be non-decreasing
    a[1], a[-2] = a[-2], a[1]


def _past_end(a):
    a[0, 1] = len(a)


def _next_back(a):
    # a next hop that leads back: from 0 toward b, go to v; from v toward b, back to 0
    b = int(np.flatnonzero(a[0] >= 0)[-1])
    v = int(a[0, b])
    a[v, b] = 0


VALUES: dict[str, list[tuple[str, Callable]]] = {
    "jps_plus": [("jump out of the map", _set("dist", _at((slice(None), 1), 30000))),
                 ("wall too far", _set("dist", _at((slice(None), 0), -30000))),
                 ("one jump changed", _set("dist", _at((30, 2), 7))),
                 ("option", _option("cluster_size", 3))],
    "goal_bounds": [("box beyond the map", _set("boxes", _at((slice(None), 1, 1), 500))),
                    ("box ends reversed", _set("boxes", _at((30, 0), [5, 2, 1, 3]))),
                    ("bad option", _option("chunk", 0))],
    "subgoal": [("target out of range", _set("targets", _at(0, 10**6))),
                ("offsets go down", _set("indptr", _swap_first_rows)),
                ("NaN cost", _set("costs", _at(0, np.nan))),
                ("level out of range", _set("level", _at(0, 9))),
                ("levels a string", _option("levels", "2"))],
    "differential": [("NaN distance", _set("distances", _at((0, 30), np.nan))),
                     ("distances doubled", _set("distances", _scale(2.0))),
                     ("pivot off the map", _set("pivots", _at(0, [-1, 0]))),
                     ("pivots a bool", _option("pivots", True))],
    "hpa": [("edge target out of range", _set("indices1", _at(0, 10**6))),
            ("offsets go down", _set("indptr1", _swap_first_rows)),
            ("NaN weight", _set("weights1", _at(0, np.nan))),
            ("negative weight", _set("weights2", _at(0, -1.0))),
            ("node moved", _set("nodes", _at(0, 1))),
            ("cluster_size 0", _option("cluster_size", 0)),
            ("cluster_size bool", _option("cluster_size", True)),
            ("levels a string", _option("levels", "2"))],
    "csr_exit_tables": [("exit past the edges", _set("near", _at(slice(None), 200))),
                        ("tile out of range", _set("tile", _at(0, 10**6))),
                        ("offsets go down", _set("blk_ptr", _swap_first_rows)),
                        ("top hop out of range", _set("top_next", _past_end)),
                        ("levels a float", _option("levels", 3.0))],
    "csr_differential": [("NaN distance", _set("from_pivot", _at((0, 3), np.nan))),
                         ("pivot out of range", _set("pivots", _at(0, 10**6))),
                         ("distances halved", _set("from_pivot", _scale(3.0)))],
    "csr_goal_bounds": [("NaN box", _set("boxes", _at(0, np.nan))),
                        ("axes 3", _option("axes", 3))],
    "csr_path_table": [("hop out of range", _set("next", _at((0, 1), 10**4))),
                       ("hop leads back", _set("next", _next_back)),
                       ("NaN distance", _set("dist", _at((0, 1), np.nan))),
                       ("negative distance", _set("dist", _at((0, 1), -1.0)))],
    "csr_zones": [("zone out of range", _set("zone", _at(0, 10**6))),
                  ("NaN bound", _set("zone_dist", _at((0, 1), np.nan))),
                  ("zone_size 0", _option("zone_size", 0))],
    "csr_hierarchy": [("group out of range", _set("parent0", _at(0, 10**6))),
                      ("link out of range", _set("indices1", _at(0, 10**6))),
                      ("levels a bool", _option("levels", True)),
                      ("unknown link cost", _option("link_cost", "max"))],
}


@pytest.mark.parametrize("kind,label", [(k, label) for k, cases in VALUES.items()
                                        for label, _ in cases])
def test_crafted_values_are_refused(saved, tmp_path, kind, label):
    header, arrays = read_members(saved[kind][2])
    name = dict(VALUES[kind])[label](header, arrays)
    path = write_index(tmp_path / "bad.npz", header, arrays)
    _refused(saved, kind, path, name)


# ---------------------------------------------------------------- index info

def test_index_info_reads_the_header_alone(saved, tmp_path, capsys):
    header, arrays = read_members(saved["jps_plus"][2])
    path = write_index(tmp_path / "bomb.npz", header, {}, [zip_bomb("dist")])
    t0 = time.perf_counter()
    assert main(["index", "info", str(path), "--json"]) == 0
    assert time.perf_counter() - t0 < 2.0
    assert json.loads(capsys.readouterr().out)["kind"] == "jps_plus"


@pytest.mark.parametrize("field,value", [("version", "1"), ("nbytes", "big"),
                                         ("shape", ["a", 3]), ("options", 3),
                                         ("build_time", None), ("kind", ["jps_plus"])])
def test_index_info_refuses_header_fields_of_the_wrong_type(saved, tmp_path, capsys, field,
                                                            value):
    header, arrays = read_members(saved["jps_plus"][2])
    header[field] = value
    path = write_index(tmp_path / "odd.npz", header, arrays)
    assert main(["index", "info", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and field in err


# ---------------------------------------------------------------- goal-bound checkpoints

@pytest.mark.parametrize("fault", ["box beyond the map", "bomb", "done as ints"])
def test_crafted_goal_bound_checkpoint_is_refused(saved, tmp_path, fault):
    from wayfinding.grid import GoalBounds

    grid = saved["goal_bounds"][0]
    path = tmp_path / "gb.ckpt"
    GoalBounds.build(grid, workers=1, progress=False, checkpoint=path)
    header, arrays = read_members(path)
    extra = []
    if fault == "box beyond the map":
        arrays["boxes"][:, 1] = [0, 500, 0, 1]
    elif fault == "bomb":
        del arrays["boxes"]
        extra = [zip_bomb("boxes")]
    else:
        arrays["done"] = arrays["done"].astype(np.int64)
    write_index(path, header, arrays, extra)
    with pytest.raises(IndexFormatError, match="boxes|done"):
        GoalBounds.build(grid, workers=1, progress=False, checkpoint=path)
