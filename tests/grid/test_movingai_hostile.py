"""Moving AI files under hostile input: precision of old scenarios, stray characters, strict
numbers, long garbage fields, blocked endpoints and writers that refuse what readers reject."""

import math

import numpy as np
import pytest

from wayfinding import MapFormatError, ScenarioFormatError, WayfindingError, find_path
from wayfinding.cli import main
from wayfinding.errors import InvalidGridError
from wayfinding.grid import Grid, Problem, Scenario, read_map, read_scen, write_scen

MAP = "type octile\nheight 2\nwidth 3\nmap\n.@.\nGTS\n"
SCEN = "version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\t2.41421356\n"


def write(tmp_path, text, name="m.map"):
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    return p


def random_map(seed, size=24, walls=0.2):
    rng = np.random.default_rng(seed)
    rows = np.where(rng.random((size, size)) < walls, "@", ".")
    return Grid.from_ascii("\n".join("".join(r) for r in rows))


def two_decimal_problems(grid, seed, n=40):
    """Problems between random free cells with exact lengths from Dijkstra, and the text of a
    ``version 1.0`` scenario printing those lengths with 2 decimals."""
    rng = np.random.default_rng(seed)
    free = np.argwhere(grid.passable)
    exact, lines = [], ["version 1.0"]
    while len(exact) < n:
        (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
        r = find_path(grid, (int(sx), int(sy)), (int(gx), int(gy)), method="dijkstra")
        if r.found:
            exact.append(r.cost)
            lines.append(f"0\tm.map\t{grid.width}\t{grid.height}\t{sx}\t{sy}\t{gx}\t{gy}\t"
                         f"{r.cost:.2f}")
    return exact, "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- precision
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_decimal_lengths_match_their_exact_values(tmp_path, seed):
    grid = random_map(seed)
    exact, text = two_decimal_problems(grid, seed)
    scen = read_scen(write(tmp_path, text, "m.map.scen"))
    # The file's rounding exceeds the relative tolerance for some problems...
    assert any(abs(e - p.optimal) > max(1e-3, 1e-5 * e) for e, p in zip(exact, scen))
    # ...yet every exact length matches, and a length off by more than the rounding does not.
    assert all(p.matches(e) for e, p in zip(exact, scen))
    assert not any(p.matches(e + 0.011) or p.matches(e - 0.011) for e, p in zip(exact, scen))


@pytest.mark.parametrize("written, inside, outside", [
    ("12.5", 12.549, 12.551),
    ("12.50", 12.5049, 12.5051),
    ("12", 12.0009, 12.0011),                # whole: no decimals were dropped
    ("4787", 4787.047, 4787.049),           # whole and large: 1e-5 of the length
    ("1.25e1", 12.549, 12.551),
    ("125e-1", 12.549, 12.551),
    ("2.41421356", 2.4152, 2.4155),          # 8 decimals: the 1e-3 floor is looser
    ("2000.00", 2000.019, 2000.021),         # large: the 1e-5 relative tolerance is looser
])
def test_tolerance_follows_the_written_precision(tmp_path, written, inside, outside):
    text = f"version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\t{written}\n"
    p = read_scen(write(tmp_path, text, "s.scen"))[0]
    assert p.matches(inside) and not p.matches(outside)
    assert p.matches(2 * float(written) - inside)


# weighted_astar counts failures, among them lengths below the optimum; weight 1 finds optimal
# lengths, which must not count as below a rounded optimum.
@pytest.mark.parametrize("method, counted", [(["astar"], "mismatches"),
                                           (["weighted_astar", "--weight", "1"], "failures")])
def test_cli_scen_accepts_a_two_decimal_file(tmp_path, capsys, method, counted):
    grid = random_map(7)
    _, text = two_decimal_problems(grid, 7)
    (tmp_path / "m.map").write_text(
        f"type octile\nheight {grid.height}\nwidth {grid.width}\nmap\n{grid.to_ascii()}\n")
    scen = write(tmp_path, text, "m.map.scen")
    code = main(["scen", str(scen), "--quiet", "--method", *method])
    out = capsys.readouterr().out
    assert code == 0, out
    assert [ln.split()[-1] for ln in out.splitlines() if ln.startswith(counted)] == ["0"]


# ---------------------------------------------------------------------- BOM
def test_byte_order_mark_is_accepted(tmp_path):
    bom = "\ufeff"
    assert read_map(write(tmp_path, bom + MAP, "b.map")) == read_map(write(tmp_path, MAP))
    with_bom = read_scen(write(tmp_path, bom + SCEN, "b.scen"))
    assert with_bom.problems == read_scen(write(tmp_path, SCEN, "s.scen")).problems
    assert with_bom[0].line == 2


# ---------------------------------------------------------------------- strict numbers
ODD_NUMBERS = ["1_0", "\u0661", "\uff11", "\u0661\u0660", "1\u0660"]
SCEN_FIELDS = {0: "bucket", 2: "width", 3: "height", 4: "start x", 5: "start y",
               6: "goal x", 7: "goal y", 8: "optimal length"}


ODD_FIELDS = [(column, value) for column in SCEN_FIELDS for value in ODD_NUMBERS] + [
    (8, value) for value in ("1_0.5", "\u0661.5", "1.\u0665", "1e\u0661")]


@pytest.mark.parametrize("column, value", ODD_FIELDS,
                         ids=[f"{SCEN_FIELDS[c]}-{v!r}" for c, v in ODD_FIELDS])
def test_scen_numbers_are_plain_ascii(tmp_path, column, value):
    fields = ["0", "m.map", "30", "20", "1", "1", "2", "1", "2.4"]
    fields[column] = value
    text = "version 1\n" + SCEN.split("\n")[1] + "\n" + "\t".join(fields) + "\n"
    path = write(tmp_path, text, "s.scen")
    with pytest.raises(ScenarioFormatError) as info:
        read_scen(path)
    assert info.value.line == 3
    assert SCEN_FIELDS[column] in info.value.reason and repr(value) in info.value.reason


@pytest.mark.parametrize("value", ODD_NUMBERS)
@pytest.mark.parametrize("key", ["height", "width"])
def test_map_header_numbers_are_plain_ascii(tmp_path, key, value):
    text = MAP.replace(f"{key} {2 if key == 'height' else 3}", f"{key} {value}")
    with pytest.raises(MapFormatError) as info:
        read_map(write(tmp_path, text))
    assert info.value.line == (2 if key == "height" else 3)
    assert repr(value) in info.value.reason


@pytest.mark.parametrize("value", ["\u0661", "\uff11", "1_0", "\u0661.0"])
def test_scen_version_is_plain_ascii(tmp_path, value):
    with pytest.raises(ScenarioFormatError, match="version") as info:
        read_scen(write(tmp_path, SCEN.replace("version 1", f"version {value}"), "s.scen"))
    assert info.value.line == 1


# ---------------------------------------------------------------------- stray separators
STRAYS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029", "\r",
          "\xa0", "\u3000"]


@pytest.mark.parametrize("char", STRAYS, ids=repr)
def test_stray_separator_in_a_map_row_is_reported_on_its_line(tmp_path, char):
    text = "type octile\nheight 4\nwidth 3\nmap\n...\n...\n." + char + ".\n..x\n"
    with pytest.raises(MapFormatError) as info:
        read_map(write(tmp_path, text))
    assert info.value.line == 7 and repr(char) in info.value.reason
    assert "column 1" in info.value.reason


@pytest.mark.parametrize("char", STRAYS, ids=repr)
def test_stray_separator_in_a_map_header_is_reported_on_its_line(tmp_path, char):
    text = MAP.replace("width 3", "width" + char + "3")
    with pytest.raises(MapFormatError) as info:
        read_map(write(tmp_path, text))
    assert info.value.line == 3 and repr(char) in info.value.reason


@pytest.mark.parametrize("where", ["in the name", "between fields", "in a number"])
@pytest.mark.parametrize("char", STRAYS, ids=repr)
def test_stray_separator_in_a_scen_line_is_reported_on_its_line(tmp_path, char, where):
    line = {"in the name": "0\tm" + char + ".map\t3\t2\t0\t0\t2\t1\t2.4",
            "between fields": "0\tm.map\t3\t2\t0" + char + "0\t2\t1\t2.4",
            "in a number": "0\tm.map\t3\t2\t0\t0\t2\t1\t2" + char + "4"}[where]
    text = SCEN + SCEN.split("\n")[1] + "\n" + line + "\nnot a problem\n"
    with pytest.raises(ScenarioFormatError) as info:
        read_scen(write(tmp_path, text, "s.scen"))
    assert info.value.line == 4 and repr(char) in info.value.reason


@pytest.mark.parametrize("char", STRAYS, ids=repr)
def test_stray_separator_in_an_ascii_picture_is_reported_on_its_line(char):
    with pytest.raises(MapFormatError) as info:
        Grid.from_ascii("...\n." + char + ".\n...")
    assert info.value.line == 2 and repr(char) in info.value.reason


def test_crlf_still_reads(tmp_path):
    assert read_map(write(tmp_path, MAP.replace("\n", "\r\n"))) == read_map(
        write(tmp_path, MAP, "plain.map"))
    assert read_scen(write(tmp_path, SCEN.replace("\n", "\r\n"), "s.scen"))[0] == \
        read_scen(write(tmp_path, SCEN, "plain.scen"))[0]


# ---------------------------------------------------------------------- terrain keys
BAD_KEYS = ["\u6c34", "\xe9", "ab", "", "\x7f", " ", "\u2028", 1, None]


@pytest.mark.parametrize("key", BAD_KEYS, ids=repr)
@pytest.mark.parametrize("reader", ["read_map", "from_ascii"])
def test_terrain_keys_are_single_ascii_characters(tmp_path, key, reader):
    path = write(tmp_path, MAP)
    with pytest.raises(InvalidGridError, match="one printable ASCII character") as info:
        if reader == "read_map":
            read_map(path, terrain={key: 2.0})
        else:
            Grid.from_ascii(".@.\nGTS", terrain={key: 2.0})
    assert repr(key) in str(info.value)


# ---------------------------------------------------------------------- long garbage
GARBAGE = "x" * 1_000_000


def garbage_cases():
    body = SCEN.split("\n")[1]
    fields = body.split("\t")
    scen = {f"scen {name}": "version 1\n" + "\t".join(
        fields[:k] + [GARBAGE] + fields[k + 1:]) + "\n" for k, name in SCEN_FIELDS.items()}
    return {
        "map header line": MAP.replace("width 3", GARBAGE),
        "map header key": MAP.replace("width 3", "width " + GARBAGE),
        "map type": MAP.replace("octile", GARBAGE),
        "scen version line": SCEN.replace("version 1", GARBAGE),
        "scen version": SCEN.replace("version 1", "version " + GARBAGE),
        **scen,
    }


@pytest.mark.parametrize("case", list(garbage_cases()))
def test_error_messages_quote_a_bounded_excerpt(tmp_path, case):
    text = garbage_cases()[case]
    name, error, reader = (("s.scen", ScenarioFormatError, read_scen) if "scen" in case
                           else ("m.map", MapFormatError, read_map))
    with pytest.raises(error) as info:
        reader(write(tmp_path, text, name))
    assert len(info.value.reason) < 200 and "xxxx\u2026" in info.value.reason


@pytest.mark.parametrize("terrain", [{GARBAGE: 1.0}, {"x": GARBAGE}])
def test_terrain_errors_quote_a_bounded_excerpt(terrain):
    with pytest.raises(InvalidGridError) as info:
        Grid.from_ascii("..", terrain=terrain)
    assert len(str(info.value)) < 200 and "\u2026" in str(info.value)


def test_long_map_names_are_bounded_in_messages(tmp_path):
    text = f"version 1\n0\t{GARBAGE}\t3\t2\t0\t0\t2\t1\t2.4\n"
    scen = read_scen(write(tmp_path, text, "s.scen"))
    with pytest.raises(ScenarioFormatError) as info:
        scen.find_map()
    assert len(str(info.value)) < 400
    with pytest.raises(ScenarioFormatError) as info:
        scen.check_map(Grid.from_ascii("...."))
    assert len(str(info.value)) < 400


# ---------------------------------------------------------------------- blocked endpoints
@pytest.mark.parametrize("start, goal, label", [
    ((1, 0), (2, 1), "start (1, 0)"),
    ((0, 0), (1, 1), "goal (1, 1)"),
])
def test_problem_on_a_blocked_cell_names_file_and_line(tmp_path, start, goal, label):
    grid = read_map(write(tmp_path, MAP))
    bad = f"0\tm.map\t3\t2\t{start[0]}\t{start[1]}\t{goal[0]}\t{goal[1]}\t2.4\n"
    path = write(tmp_path, SCEN + bad, "s.scen")
    with pytest.raises(ScenarioFormatError) as info:
        read_scen(path).check_map(grid)
    assert info.value.line == 3 and str(path) in str(info.value)
    assert f"{label} is a blocked cell" in info.value.reason


@pytest.mark.parametrize("start, goal, label", [
    ((10**30, 0), (1, 0), "start (1000000000000000000000000000000, 0) is outside"),
    ((0, 0), (1, -2**64), "goal (1, -18446744073709551616) is outside"),
    ((0, 0), (1, 2**63), "goal (1, 9223372036854775808) is outside"),
])
def test_problems_made_in_code_beyond_64_bits_are_outside_the_map(start, goal, label):
    """Problems need not come from a file: coordinates past int64 raised OverflowError."""
    scen = Scenario([Problem(0, "m.map", 3, 2, (0, 0), (2, 0), 2.0),
                     Problem(0, "m.map", 3, 2, start, goal, 1.0)])
    with pytest.raises(ScenarioFormatError) as info:
        scen.check_map(Grid.from_ascii("...\n..."))
    assert label in info.value.reason


def test_blocked_cell_is_reported_by_the_cli(tmp_path, capsys):
    write(tmp_path, MAP)
    scen = write(tmp_path, SCEN + "0\tm.map\t3\t2\t0\t0\t1\t0\t1\n", "s.scen")
    assert main(["scen", str(scen), "--quiet"]) == 2
    assert "line 3" in capsys.readouterr().err


# ---------------------------------------------------------------------- writer
GOOD = Problem(0, "m.map", 3, 2, (0, 0), (2, 1), 2.41421356)
BAD_PROBLEMS = {
    "nan length": {"optimal": math.nan},
    "inf length": {"optimal": math.inf},
    "negative length": {"optimal": -1.0},
    "string length": {"optimal": "2.4"},
    "bool length": {"optimal": True},
    "start x outside": {"start": (3, 0)},
    "start y negative": {"start": (0, -1)},
    "goal y outside": {"goal": (0, 2)},
    "fractional cell": {"start": (0.5, 0)},
    "float cell": {"goal": (2.0, 1)},
    "numpy float cell": {"goal": (np.float64(2), 1)},
    "bool cell": {"start": (True, 0)},
    "three coordinates": {"start": (0, 0, 0)},
    "zero width": {"width": 0, "start": (0, 0), "goal": (0, 0)},
    "float width": {"width": 3.0},
    "string bucket": {"bucket": "0"},
    "tab in name": {"map": "a\tb.map"},
    "newline in name": {"map": "a\nb.map"},
    "space in name": {"map": "a b.map"},
    "line separator in name": {"map": "a\u2028b.map"},
    "empty name": {"map": ""},
    "surrogate in name": {"map": "a\ud800.map"},
    "name not text": {"map": 3},
}


@pytest.mark.parametrize("case", BAD_PROBLEMS, ids=str)
def test_write_scen_refuses_what_read_scen_rejects(tmp_path, case):
    from dataclasses import replace

    bad = replace(GOOD, **BAD_PROBLEMS[case])
    target = tmp_path / "out.scen"
    target.write_text("precious")
    with pytest.raises(ScenarioFormatError) as info:
        write_scen(Scenario([GOOD, bad]), target)
    assert "problem 1" in str(info.value) and str(target) in str(info.value)
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["out.scen"]


def test_write_scen_accepts_numpy_integers_and_reads_back(tmp_path):
    p = Problem(np.int64(3), "d/m.map", np.int32(3), 2, (np.int64(0), 1), (2, np.int16(1)),
                np.float64(2.5))
    out = read_scen(write_scen([p], tmp_path / "ok.scen"))
    assert out.problems == [p]


def test_errors_are_library_errors():
    assert issubclass(ScenarioFormatError, WayfindingError)
    assert issubclass(InvalidGridError, ValueError)
