"""Moving AI 3D files: .3dmap and .3dscen round trips, hostile files refused with the file and
line, and the Warframe sample read in place."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from movingai_data import require_movingai

from wayfinding.errors import MapFormatError, ScenarioFormatError
from wayfinding.voxel.grid import VoxelGrid, octile3
from wayfinding.voxel.movingai3d import (
    Problem3D,
    Scenario3D,
    format_3dmap,
    read_3dmap,
    read_3dscen,
    write_3dmap,
    write_3dscen,
)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_maps_round_trip(nx: int, ny: int, nz: int, seed: int) -> None:
    blocked = np.random.default_rng(seed).random((nz, ny, nx)) < 0.3
    g = VoxelGrid(blocked)
    with tempfile.TemporaryDirectory() as d:
        path = write_3dmap(g, Path(d) / "m.3dmap")
        h = read_3dmap(path)
    assert h == g
    text = format_3dmap(g)
    assert text.splitlines()[0] == f"voxel {nx} {ny} {nz}"
    assert len(text.splitlines()) == 1 + int(blocked.sum())


def test_map_options_and_layout(tmp_path: Path) -> None:
    p = tmp_path / "m.3dmap"
    p.write_text("\ufeffvoxel 3 2 4\r\n2 1 3\r\n\r\n0 0 0\n")
    g = read_3dmap(p, connectivity=6, voxel_size=2.0)
    assert g.size == (3, 2, 4) and g.connectivity == 6 and g.voxel_size == 2.0
    assert not g.is_free((2, 1, 3)) and not g.is_free((0, 0, 0)) and g.num_free == 22


@pytest.mark.parametrize(("text", "line", "match"), [
    ("", None, "empty file"),
    ("\n\n", None, "empty file"),
    ("voxels 2 2 2\n", 1, "header"),
    ("\nvoxel 2 2\n", 2, "header"),
    ("voxel 2 -2 2\n", 1, "header"),
    ("voxel 2 0 2\n", 1, "positive"),
    ("voxel 2 2 2\n0 0 0\n1 1\n", 3, "three non-negative"),
    ("voxel 2 2 2\n0 0 0\n\n1 x 1\n", 4, "three non-negative"),
    ("voxel 2 2 2\n0 0 0\n1 2 1\n", 3, r"\(1, 2, 1\) is outside"),
    ("voxel 2 2 2\n0 0 0 0\n", 2, "three non-negative"),
    ("voxel 2 2 2\n1 1 ٣\n", 2, "three non-negative"),
    ("voxel 2 2 2\n0 0 0 1 1 1\n", 2, "three non-negative"),       # two voxels on one line
    ("voxel 2 2 2\n1 1\n1 1 1 1\n", 2, "three non-negative"),     # one split over two
    ("voxel 3 3 3\n99999999999999999999 0 0\n", 2, "is outside"),  # beyond any int64
    ("voxel 2000000 1 1\n", 1, "below 2..20"),
])
def test_hostile_maps_name_the_line(tmp_path: Path, text: str, line: int | None,
                                    match: str) -> None:
    p = tmp_path / "bad.3dmap"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(MapFormatError, match=match) as info:
        read_3dmap(p)
    assert info.value.line == line and "bad.3dmap" in str(info.value)


def test_unreadable_maps(tmp_path: Path) -> None:
    with pytest.raises(MapFormatError):
        read_3dmap(tmp_path / "missing.3dmap")
    (tmp_path / "bin.3dmap").write_bytes(b"voxel 2 2 2\n\xff\xfe\x00\n")
    with pytest.raises(MapFormatError):
        read_3dmap(tmp_path / "bin.3dmap")


def test_scenarios_round_trip(tmp_path: Path) -> None:
    s = Scenario3D("m.3dmap", [Problem3D((0, 1, 2), (3, 4, 5), 7.25, 1.5),
                               Problem3D((1, 1, 1), (1, 1, 1), 0.0, 0.0)])
    path = write_3dscen(s, tmp_path / "m.3dmap.3dscen")
    back = read_3dscen(path)
    assert back.map == "m.3dmap" and back.problems == s.problems
    assert [p.line for p in back] == [3, 4] and len(back) == 2 and back[1].goal == (1, 1, 1)
    starts, goals, optimal = back.arrays()
    assert starts.tolist() == [[0, 1, 2], [1, 1, 1]] and goals.shape == (2, 3)
    assert optimal.tolist() == [7.25, 0.0]
    write_3dmap(VoxelGrid(np.zeros((6, 5, 4), bool)), tmp_path / "m.3dmap")
    assert back.find_map() == tmp_path / "m.3dmap"
    assert back[0].matches(7.2505) and not back[0].matches(7.26)


@pytest.mark.parametrize(("text", "line", "match"), [
    ("", None, "empty file"),
    ("version 2\nm.3dmap\n", 1, "version 1"),
    ("version 1\n", 1, "file name"),
    ("version 1\nm 3dmap\n", 2, "file name"),
    ("version 1\nm.3dmap\n1 2 3 4 5 6 7.0\n", 3, "sx sy sz"),
    ("version 1\nm.3dmap\n1 2 3 4 5 6 7.0 1.0\n1 2 -3 4 5 6 7.0 1.0\n", 4, "sx sy sz"),
    ("version 1\nm.3dmap\n\n1 2 3 4 5 6 seven 1.0\n", 4, "not a number"),
    ("version 1\nm.3dmap\n1 2 3 4 5 6 nan 1.0\n", 3, "finite"),
    ("version 1\nm.3dmap\n1 2 3 4 5 6 -1 1.0\n", 3, "finite"),
])
def test_hostile_scenarios_name_the_line(tmp_path: Path, text: str, line: int | None,
                                         match: str) -> None:
    p = tmp_path / "bad.3dscen"
    p.write_text(text)
    with pytest.raises(ScenarioFormatError, match=match) as info:
        read_3dscen(p)
    assert info.value.line == line and "bad.3dscen" in str(info.value)


def test_missing_map_is_named(tmp_path: Path) -> None:
    p = tmp_path / "x.3dscen"
    p.write_text("version 1\nnowhere.3dmap\n")
    with pytest.raises(ScenarioFormatError, match="nowhere.3dmap"):
        read_3dscen(p).find_map()


def test_warframe_simple_is_read_in_place() -> None:
    root = require_movingai()
    scen = read_3dscen(root / "scenarios" / "warframe" / "Simple.3dmap.3dscen")
    grid = read_3dmap(scen.find_map())
    assert grid.size == (105, 132, 105) and len(scen) == 10_000
    starts, goals, optimal = scen.arrays()
    assert all(grid.is_free(tuple(s)) for s in starts[:200])
    # Every problem's ends share a component, and the optimal length is at least the
    # empty-grid distance.
    labels = grid.components()
    assert (labels[starts[:, 2], starts[:, 1], starts[:, 0]]
            == labels[goals[:, 2], goals[:, 1], goals[:, 0]]).all()
    assert (octile3(np.abs(goals - starts)) <= optimal + 1e-3).all()
