"""Moving AI ``.map`` and ``.scen`` files: readers and writers that round-trip.

Readers are tolerant of tabs, repeated spaces, CRLF line ends and trailing blanks, and of
directory prefixes in a scenario's map column; they are strict about headers, sizes and
characters, and every error names the file and the line.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import numpy as np

from .._io import atomic_write_text, read_text
from ..errors import MapFormatError, ScenarioFormatError
from .grid import Grid
from .terrain import MOVINGAI_TERRAIN, make_terrain


# ---------------------------------------------------------------------- maps
def parse_rows(rows: Sequence[str], table: Mapping[str, float], *, source: Any,
               first_line: int, **options: Any) -> Grid:
    """Build a grid from equal-length text rows through a terrain table (internal helper)."""
    if not rows:
        raise MapFormatError("no map rows", source)
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise MapFormatError(
                f"row has {len(row)} characters, expected {width} like the first row",
                source, first_line + i)
        if not row.isascii():
            bad = next(ch for ch in row if not ch.isascii())
            raise MapFormatError(f"unknown map character {bad!r} at column {row.index(bad)}",
                                 source, first_line + i)
    if width == 0:
        raise MapFormatError("map rows are empty", source, first_line)
    tiles = np.frombuffer("".join(rows).encode("ascii"), dtype=np.uint8).reshape(len(rows), width)
    lookup = np.full(256, np.nan)
    for char, cost in table.items():
        lookup[ord(char)] = cost
    costs = lookup[tiles]
    if np.isnan(costs).any():
        y, x = (int(v) for v in np.argwhere(np.isnan(costs))[0])
        known = "".join(sorted(table))
        raise MapFormatError(
            f"unknown map character {chr(tiles[y, x])!r} at column {x} (known: {known!r})",
            source, first_line + y)
    return Grid(costs, tiles=tiles, **options)


def read_map(path: str | os.PathLike, *, terrain: Mapping[str, float] | None = None,
             **options: Any) -> Grid:
    """Read a Moving AI ``.map`` file into a :class:`Grid`.

    The header is ``type octile``, ``height H``, ``width W`` (in any order) then ``map``,
    followed by exactly H rows of W characters.  ``terrain`` overrides the Moving AI table
    (``.`` ``G`` ``S`` passable, ``@`` ``O`` ``T`` ``W`` blocked), e.g. ``{"S": 3.0}``.
    ``options`` go to :class:`Grid` (``diagonal``, ``origin``, ``cell_size``).
    Raises :class:`MapFormatError` naming the file and line.
    """
    text = read_text(path, MapFormatError)
    table = make_terrain(MOVINGAI_TERRAIN, terrain)
    lines = text.splitlines()
    if not any(ln.strip() for ln in lines):
        raise MapFormatError("empty file", path)
    header: dict[str, int | str] = {}
    i = 0
    while i < len(lines):
        words = lines[i].split()
        i += 1
        if not words:
            continue
        key = words[0].lower()
        if key == "map" and len(words) == 1:
            break
        if key not in ("type", "height", "width") or len(words) != 2:
            raise MapFormatError(
                f"expected a header line 'type octile', 'height N', 'width N' or 'map', "
                f"got {lines[i - 1].strip()[:60]!r}", path, i)
        if key in header:
            raise MapFormatError(f"header {key!r} given twice", path, i)
        if key == "type":
            if words[1].lower() != "octile":
                raise MapFormatError(f"map type {words[1]!r} is not supported (only 'octile')",
                                     path, i)
            header[key] = words[1]
        else:
            try:
                value = int(words[1])
            except ValueError:
                raise MapFormatError(f"{key} {words[1]!r} is not an integer", path, i) from None
            if value < 1:
                raise MapFormatError(f"{key} {value} must be >= 1", path, i)
            header[key] = value
    else:
        raise MapFormatError("header has no 'map' line", path, len(lines))
    for key in ("type", "height", "width"):
        if key not in header:
            raise MapFormatError(f"header has no '{key}' line", path, i)
    height, width = int(header["height"]), int(header["width"])
    first = i + 1
    rows = [ln.rstrip() for ln in lines[i:]]
    while rows and not rows[-1]:
        rows.pop()
    if len(rows) != height:
        raise MapFormatError(
            f"header says height {height} but the map has {len(rows)} rows", path,
            first + min(len(rows), height))
    for k, row in enumerate(rows):
        if len(row) != width:
            raise MapFormatError(
                f"row has {len(row)} characters, header says width {width}", path, first + k)
    return parse_rows(rows, table, source=path, first_line=first, **options)


def format_map(grid: Grid) -> str:
    """The text of a ``.map`` file for ``grid`` (see :meth:`Grid.to_ascii` for characters)."""
    return (f"type octile\nheight {grid.height}\nwidth {grid.width}\nmap\n"
            f"{grid.to_ascii()}\n")


def write_map(grid: Grid, path: str | os.PathLike) -> Path:
    """Write ``grid`` as a Moving AI ``.map`` file (atomically: temporary file + rename).

    A grid without tile characters is written with ``.`` (passable) and ``@`` (blocked); its
    terrain costs other than 1 cannot be expressed and raise :class:`MapFormatError`.
    """
    if grid.tiles is None and not grid.is_uniform:
        raise MapFormatError("grid has terrain costs but no tile characters to write", path)
    return atomic_write_text(path, format_map(grid))


# ---------------------------------------------------------------------- scenarios
@dataclass(frozen=True)
class Problem:
    """One scenario line: a start and goal on a map with the optimal length."""

    bucket: int
    map: str
    width: int
    height: int
    start: tuple[int, int]
    goal: tuple[int, int]
    optimal: float
    line: int = field(default=0, compare=False)

    def matches(self, length: float) -> bool:
        """Whether ``length`` equals the optimum within max(1e-3, 1e-5 x length)."""
        return abs(length - self.optimal) <= max(1e-3, 1e-5 * self.optimal)


@dataclass
class Scenario:
    """A Moving AI scenario file: its problems and where it was read from."""

    problems: list[Problem]
    path: Path | None = None
    version: str = "1"

    def __len__(self) -> int:
        return len(self.problems)

    def __iter__(self) -> Iterator[Problem]:
        return iter(self.problems)

    def __getitem__(self, i: int) -> Problem:
        return self.problems[i]

    def map_names(self) -> list[str]:
        return sorted({p.map for p in self.problems})

    def find_map(self, name: str | None = None,
                 search: Sequence[str | os.PathLike] = ()) -> Path:
        """Locate the map file a problem names, by its file name: next to the scenario, in a
        sibling ``maps/`` tree (``…/scenarios/<set>/x.scen`` -> ``…/maps/<set>/``), then in
        the folders of ``search``.  Raises :class:`ScenarioFormatError` if not found."""
        names = self.map_names()
        if name is None:
            if len(names) != 1:
                raise ScenarioFormatError(f"scenario names {len(names)} maps; pick one",
                                          self.path)
            name = names[0]
        base = PureWindowsPath(name).name if "\\" in name else PurePosixPath(name).name
        folders: list[Path] = []
        if self.path is not None:
            here = self.path.parent
            folders.append(here)
            parts = list(here.parts)
            for k in range(len(parts) - 1, -1, -1):
                if parts[k] == "scenarios":
                    folders.append(Path(*parts[:k], "maps", *parts[k + 1:]))
                    break
        folders.extend(Path(s) for s in search)
        for folder in folders:
            candidate = folder / base
            if candidate.is_file():
                return candidate
        tried = ", ".join(str(f) for f in folders) or "nowhere"
        raise ScenarioFormatError(f"map {name!r} not found (looked in: {tried})", self.path)

    def check_map(self, grid: Grid) -> None:
        """Raise :class:`ScenarioFormatError` if a problem's sizes or cells do not fit ``grid``."""
        for p in self.problems:
            if (p.width, p.height) != (grid.width, grid.height):
                raise ScenarioFormatError(
                    f"problem is for a {p.width}x{p.height} map but {p.map!r} is "
                    f"{grid.width}x{grid.height}", self.path, p.line)


def read_scen(path: str | os.PathLike) -> Scenario:
    """Read a Moving AI ``.scen`` file (``version 1``; fields: bucket, map, width, height,
    start x, start y, goal x, goal y, optimal length).  Raises :class:`ScenarioFormatError`."""
    text = read_text(path, ScenarioFormatError)
    lines = text.splitlines()
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines):
        raise ScenarioFormatError("empty file", path)
    words = lines[i].split()
    if len(words) != 2 or words[0].lower() != "version":
        raise ScenarioFormatError(f"expected 'version 1', got {lines[i].strip()[:60]!r}",
                                  path, i + 1)
    try:
        version = float(words[1])
    except ValueError:
        version = -1.0
    if version != 1.0:
        raise ScenarioFormatError(f"scenario version {words[1]!r} is not supported (only 1)",
                                  path, i + 1)
    problems = []
    for n in range(i + 1, len(lines)):
        fields = lines[n].split()
        if not fields:
            continue
        problems.append(_parse_problem(fields, path, n + 1))
    return Scenario(problems, Path(path), words[1])


def _parse_problem(fields: list[str], path: Any, line: int) -> Problem:
    if len(fields) != 9:
        raise ScenarioFormatError(
            f"expected 9 fields (bucket map width height sx sy gx gy optimal), got {len(fields)}",
            path, line)
    names = ("bucket", None, "width", "height", "start x", "start y", "goal x", "goal y")
    ints = []
    for k, name in enumerate(names):
        if name is None:
            continue
        try:
            ints.append(int(fields[k]))
        except ValueError:
            raise ScenarioFormatError(f"{name} {fields[k]!r} is not an integer",
                                      path, line) from None
    bucket, width, height, sx, sy, gx, gy = ints
    try:
        optimal = float(fields[8])
    except ValueError:
        raise ScenarioFormatError(f"optimal length {fields[8]!r} is not a number",
                                  path, line) from None
    if not math.isfinite(optimal) or optimal < 0:
        raise ScenarioFormatError(f"optimal length {fields[8]!r} must be finite and >= 0",
                                  path, line)
    if width < 1 or height < 1:
        raise ScenarioFormatError(f"map size {width}x{height} must be positive", path, line)
    for label, (x, y) in (("start", (sx, sy)), ("goal", (gx, gy))):
        if not (0 <= x < width and 0 <= y < height):
            raise ScenarioFormatError(
                f"{label} {(x, y)} is outside the {width}x{height} map", path, line)
    return Problem(bucket, fields[1], width, height, (sx, sy), (gx, gy), optimal, line)


def _format_length(value: float) -> str:
    text = f"{value:.8f}"
    return text if float(text) == value else repr(value)


def format_scen(scenario: Scenario | Sequence[Problem]) -> str:
    """The text of a ``.scen`` file (``version 1``, tab-separated fields)."""
    problems = scenario.problems if isinstance(scenario, Scenario) else scenario
    out = ["version 1"]
    for p in problems:
        out.append("\t".join([str(p.bucket), p.map, str(p.width), str(p.height),
                              str(p.start[0]), str(p.start[1]), str(p.goal[0]),
                              str(p.goal[1]), _format_length(p.optimal)]))
    return "\n".join(out) + "\n"


def write_scen(scenario: Scenario | Sequence[Problem], path: str | os.PathLike) -> Path:
    """Write problems as a ``.scen`` file (atomically: temporary file + rename)."""
    return atomic_write_text(path, format_scen(scenario))
