"""Reading and writing .map and .scen files: round trips, tolerance, strictness, fuzzing."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from movingai_data import movingai_map, movingai_names, movingai_scen_path

from wayfinding import MapFormatError, ScenarioFormatError, WayfindingError
from wayfinding.grid import (
    Grid,
    Problem,
    Scenario,
    format_map,
    read_map,
    read_scen,
    write_map,
    write_scen,
)

GOOD = "type octile\nheight 2\nwidth 3\nmap\n.@.\nGTS\n"


def write(tmp_path, text, name="m.map"):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


@pytest.mark.parametrize("name", movingai_names())
def test_map_round_trip(name, tmp_path):
    path = movingai_map(name)
    grid = read_map(path)
    out = write_map(grid, tmp_path / path.name)
    again = read_map(out)
    assert again == grid
    np.testing.assert_array_equal(again.tiles, grid.tiles)
    # The written text equals the original up to line ends and trailing blanks.
    norm = [ln.rstrip() for ln in path.read_text().splitlines() if ln.strip()]
    assert out.read_text().splitlines() == norm


@pytest.mark.parametrize("name", movingai_names())
def test_scen_round_trip(name, tmp_path):
    path = movingai_scen_path(name)
    scen = read_scen(path)
    out = write_scen(scen, tmp_path / path.name)
    assert read_scen(out).problems == scen.problems


def test_moving_ai_terrain_defaults(tmp_path):
    grid = read_map(write(tmp_path, GOOD))
    assert grid.passable.tolist() == [[True, False, True], [True, False, True]]


def test_terrain_override(tmp_path):
    grid = read_map(write(tmp_path, GOOD), terrain={"S": 3.0, "T": 2.0})
    assert grid.costs[1].tolist() == [1.0, 2.0, 3.0]


def test_tolerant_of_tabs_crlf_and_blanks(tmp_path):
    text = "type\toctile\r\nheight   2\r\n\twidth 3\r\nmap\r\n.@.  \r\nGTS\r\n\r\n\r\n"
    assert read_map(write(tmp_path, text)) == read_map(write(tmp_path, GOOD, "b.map"))


def test_header_keys_in_any_order(tmp_path):
    text = "width 3\ntype octile\nheight 2\nmap\n.@.\nGTS\n"
    assert read_map(write(tmp_path, text)).shape == (2, 3)


BAD_MAPS = {
    "empty": ("", "empty file", None),
    "blank": ("\n\n  \n", "empty file", None),
    "binary": (b"type octile\x00\x01\x02", "binary", None),
    "not utf8": (b"type octile\nheight 1\nwidth 1\nmap\n\xff\n", "UTF-8", 5),
    "bad type": ("type hex\nheight 1\nwidth 1\nmap\n.\n", "map type 'hex'", 1),
    "bad header": ("type octile\nheight 1\nwidht 1\nmap\n.\n", "expected a header line", 3),
    "no map line": ("type octile\nheight 1\nwidth 1\n", "no 'map' line", 3),
    "missing width": ("type octile\nheight 1\nmap\n.\n", "no 'width'", 3),
    "height not int": ("type octile\nheight x\nwidth 1\nmap\n.\n", "height 'x'", 2),
    "zero width": ("type octile\nheight 1\nwidth 0\nmap\n\n", "width 0", 3),
    "repeated key": ("type octile\nheight 1\nheight 1\nwidth 1\nmap\n.\n", "twice", 3),
    "too few rows": ("type octile\nheight 3\nwidth 2\nmap\n..\n..\n", "height 3", 7),
    "too many rows": ("type octile\nheight 1\nwidth 2\nmap\n..\n..\n", "height 1", 6),
    "ragged row": ("type octile\nheight 2\nwidth 3\nmap\n...\n..\n", "2 characters", 6),
    "unknown char": ("type octile\nheight 1\nwidth 3\nmap\n.x.\n", "'x' at column 1", 5),
    "non ascii": ("type octile\nheight 1\nwidth 2\nmap\n.é\n", "'é'", 5),
}


@pytest.mark.parametrize("case", BAD_MAPS, ids=str)
def test_malformed_maps_name_file_and_line(case, tmp_path):
    text, reason, line = BAD_MAPS[case]
    path = write(tmp_path, text)
    with pytest.raises(MapFormatError) as info:
        read_map(path)
    msg = str(info.value)
    assert str(path) in msg and reason in msg
    assert info.value.line == line


def test_missing_map_file(tmp_path):
    with pytest.raises(MapFormatError, match="not found"):
        read_map(tmp_path / "nope.map")


SCEN_LINE = "0\tmaps/m.map\t3\t2\t0\t0\t2\t1\t2.41421356\n"

BAD_SCENS = {
    "empty": ("", "empty file", None),
    "no version": (SCEN_LINE, "expected 'version 1'", 1),
    "version 2": ("version 2\n" + SCEN_LINE, "version '2'", 1),
    "few fields": ("version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\n", "9 fields", 2),
    "bad int": ("version 1\n0\tm.map\t3\t2\ta\t0\t2\t1\t2.4\n", "start x 'a'", 2),
    "bad float": ("version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\tlong\n", "optimal length", 2),
    "nan length": ("version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\tnan\n", "finite", 2),
    "outside": ("version 1\n0\tm.map\t3\t2\t0\t0\t3\t1\t2.4\n", "goal (3, 1) is outside", 2),
    "binary": (b"version 1\n\x00\x00", "binary", None),
}


@pytest.mark.parametrize("case", BAD_SCENS, ids=str)
def test_malformed_scens_name_file_and_line(case, tmp_path):
    text, reason, line = BAD_SCENS[case]
    path = write(tmp_path, text, "s.scen")
    with pytest.raises(ScenarioFormatError) as info:
        read_scen(path)
    assert str(path) in str(info.value) and reason in str(info.value)
    assert info.value.line == line


def test_scen_tolerates_spaces_and_prefixes(tmp_path):
    text = "version 1.0\n\n0  some/dir\\m.map 3 2   0 0 2 1 2.41421356\n"
    scen = read_scen(write(tmp_path, text, "s.scen"))
    assert scen[0] == Problem(0, "some/dir\\m.map", 3, 2, (0, 0), (2, 1), 2.41421356)
    write(tmp_path, GOOD)
    assert scen.find_map().name == "m.map"


def test_scen_map_resolution_in_sibling_maps_tree(tmp_path):
    (tmp_path / "scenarios" / "set").mkdir(parents=True)
    (tmp_path / "maps" / "set").mkdir(parents=True)
    (tmp_path / "maps" / "set" / "m.map").write_text(GOOD)
    scen_path = tmp_path / "scenarios" / "set" / "m.map.scen"
    scen_path.write_text("version 1\n" + SCEN_LINE)
    assert read_scen(scen_path).find_map() == tmp_path / "maps" / "set" / "m.map"


def test_scen_map_resolution_by_its_relative_path(tmp_path):
    """A name with folders (``maps/bgmaps/m.map``) is found as that path in a folder above
    the scenario or in a folder given, but never through ``..`` or as an absolute path."""
    (tmp_path / "maps" / "bgmaps").mkdir(parents=True)
    (tmp_path / "maps" / "bgmaps" / "m.map").write_text(GOOD)
    (tmp_path / "scenarios" / "bg512").mkdir(parents=True)
    line = SCEN_LINE.replace("maps/m.map", "maps/bgmaps/m.map")
    scen_path = tmp_path / "scenarios" / "bg512" / "m.map.scen"
    scen_path.write_text("version 1\n" + line)
    assert read_scen(scen_path).find_map() == tmp_path / "maps" / "bgmaps" / "m.map"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    scen = read_scen(write(elsewhere, "version 1\n" + line.replace("maps/bgmaps", "bgmaps"),
                           "s.scen"))
    assert scen.find_map(search=[tmp_path / "maps"]) == tmp_path / "maps" / "bgmaps" / "m.map"
    with pytest.raises(ScenarioFormatError, match="as a relative path"):
        scen.find_map()
    for name in ("../maps/bgmaps/m.map", str(tmp_path / "maps" / "bgmaps" / "m.map")):
        hostile = read_scen(write(elsewhere, "version 1\n" + line.replace("maps/bgmaps/m.map",
                                                                          name), "h.scen"))
        with pytest.raises(ScenarioFormatError, match="not found"):
            hostile.find_map(search=[tmp_path / "scenarios"])


def test_scen_missing_map_is_a_clear_error(tmp_path):
    scen = read_scen(write(tmp_path, "version 1\n" + SCEN_LINE, "s.scen"))
    with pytest.raises(ScenarioFormatError, match="map 'maps/m.map' not found"):
        scen.find_map()


def test_scen_size_mismatch_is_a_clear_error(tmp_path):
    grid = Grid.from_ascii("....\n....")
    scen = read_scen(write(tmp_path, "version 1\n" + SCEN_LINE, "s.scen"))
    with pytest.raises(ScenarioFormatError, match=r"3x2 map but .* is 4x2") as info:
        scen.check_map(grid)
    assert info.value.line == 2


def test_scenario_problem_tolerance():
    p = Problem(0, "m", 1, 1, (0, 0), (0, 0), 1000.0)
    assert p.matches(1000.009) and not p.matches(1000.02)
    q = Problem(0, "m", 1, 1, (0, 0), (0, 0), 1.0)
    assert q.matches(1.0009) and not q.matches(1.002)


def test_writers_are_atomic(tmp_path, monkeypatch):
    target = tmp_path / "keep.map"
    target.write_text("precious")
    grid = Grid.from_ascii("..\n..")

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("wayfinding._io.os.replace", boom)
    with pytest.raises(OSError):
        write_map(grid, target)
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.map"]


def test_weighted_grid_without_tiles_cannot_be_written(tmp_path):
    with pytest.raises(MapFormatError, match="terrain costs"):
        write_map(Grid(np.array([[1.0, 2.0]])), tmp_path / "w.map")
    assert not (tmp_path / "w.map").exists()


def test_write_scen_keeps_lengths_exactly(tmp_path):
    problems = [Problem(1, "a.map", 5, 5, (0, 1), (4, 4), math.sqrt(2) * 3 + 1)]
    out = read_scen(write_scen(Scenario(problems), tmp_path / "x.scen"))
    assert out.problems == problems


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_map_reader_raises_only_format_errors(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "f.map"
    path.write_bytes(data)
    try:
        grid = read_map(path)
    except MapFormatError:
        return
    assert grid.width >= 1 and grid.height >= 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="type octilehgwdmap0123456789.@GSTWO\n\t x", max_size=200))
def test_fuzz_map_reader_text(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "f.map"
    path.write_text(text)
    try:
        read_map(path)
    except MapFormatError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="version1.0\t -e5abcmap/", max_size=200))
def test_fuzz_scen_reader(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "f.scen"
    path.write_text(text)
    try:
        read_scen(path)
    except ScenarioFormatError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet=".@TGSWO", min_size=4, max_size=4), min_size=1, max_size=6))
def test_round_trip_random_maps(tmp_path_factory, rows):
    grid = Grid.from_ascii("\n".join(rows))
    path = tmp_path_factory.mktemp("rt") / "r.map"
    assert format_map(read_map(write_map(grid, path))) == format_map(grid)


def test_errors_share_a_base_class():
    assert issubclass(MapFormatError, WayfindingError)
    assert issubclass(MapFormatError, ValueError)
