"""Moving AI ``.map`` and ``.scen`` files: readers and writers that round-trip.

Readers are tolerant of a UTF-8 byte-order mark, tabs, repeated spaces, CRLF line ends and
trailing blanks, and of directory prefixes in a scenario's map column; they are strict about
headers, sizes and characters, and every error names the file and the line.  Lines end with
``\n`` or ``\r\n`` only: other characters that Python treats as line breaks or blanks (form
feed, ``\x1c``-``\x1f``, ``\x85``, ``\u2028``, a lone ``\r``, no-break spaces...) are
refused where they stand.  Number fields hold ASCII digits only (``int()`` and ``float()``
would also take ``1_0`` and other scripts' digits).  Bad fields are quoted in messages cut to
about 80 characters.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import numpy as np

from .._deprecated import positional_options
from .._io import atomic_write_text, read_text
from ..errors import FileFormatError, MapFormatError, ScenarioFormatError, brief
from .grid import Grid, parse_rows
from .terrain import MOVINGAI_TERRAIN, make_terrain

#: What ``str.split()`` or ``str.splitlines()`` would take for a blank or a line break besides
#: space, tab, ``\n`` and ``\r\n``; none of it belongs in a Moving AI file.
#: (A ``\r`` that does not end a line, and these characters.)
_STRAY_CHARS = "\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680" + "".join(
    map(chr, range(0x2000, 0x200b))) + "\u2028\u2029\u202f\u205f\u3000"
_STRAY_ASCII = _STRAY_CHARS[:6]
_STRAY = re.compile("[" + _STRAY_CHARS + "]|\r(?!\n)")


def _read_lines(path: str | os.PathLike, error: type[FileFormatError]) -> list[str]:
    """The lines of a Moving AI file (UTF-8, an optional byte-order mark, lines ending with
    ``\n`` or ``\r\n``; a line keeps its ``\r``), after refusing any :data:`_STRAY`
    character with ``error`` naming its line and column."""
    text = read_text(path, error)
    if text.startswith("\ufeff"):
        text = text[1:]
    # A scan per character is much faster than the regular expression over a whole file.
    suspects = _STRAY_ASCII if text.isascii() else _STRAY_CHARS
    if (any(c in text for c in suspects)
            or ("\r" in text and text.count("\r") != text.count("\r\n"))) \
            and (stray := _STRAY.search(text)) is not None:
        at = stray.start()
        column = at - text.rfind("\n", 0, at) - 1
        raise error(f"stray character {text[at]!r} at column {column} (lines end with \\n or "
                    f"\\r\\n; fields are separated by spaces or tabs)",
                    path, text.count("\n", 0, at) + 1)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _plain(text: str) -> bool:
    """Whether a number field is plain ASCII without ``_`` (``int()`` and ``float()`` also
    read ``1_0`` and other scripts' digits)."""
    return text.isascii() and "_" not in text


# ---------------------------------------------------------------------- maps
def read_map(path: str | os.PathLike, *, terrain: Mapping[str, float] | None = None,
             **options: Any) -> Grid:
    """Read a Moving AI ``.map`` file into a :class:`Grid`.

    The header is ``type octile``, ``height H``, ``width W`` (in any order) then ``map``,
    followed by exactly H rows of W characters.  ``terrain`` overrides the Moving AI table
    (``.`` ``G`` ``S`` passable, ``@`` ``O`` ``T`` ``W`` blocked), e.g. ``{"S": 3.0}``.
    ``options`` go to :class:`Grid` (``diagonal``, ``origin``, ``cell_size``).
    Raises :class:`MapFormatError` naming the file and line.
    """
    table = make_terrain(MOVINGAI_TERRAIN, terrain)
    lines = _read_lines(path, MapFormatError)
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
                f"got {brief(lines[i - 1].strip())}", path, i)
        if key in header:
            raise MapFormatError(f"header {key!r} given twice", path, i)
        if key == "type":
            if words[1].lower() != "octile":
                raise MapFormatError(
                    f"map type {brief(words[1])} is not supported (only 'octile')", path, i)
            header[key] = words[1]
        else:
            try:
                if not _plain(words[1]):
                    raise ValueError
                value = int(words[1])
            except ValueError:
                raise MapFormatError(f"{key} {brief(words[1])} is not an integer", path,
                                     i) from None
            if value < 1:
                raise MapFormatError(f"{key} {brief(value)} must be >= 1", path, i)
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
    #: Half a unit of the last decimal of ``optimal`` as the file wrote it (``2.41`` -> 0.005,
    #: ``2.41421356`` -> 5e-9); 0 for a whole number (files that print 2 decimals keep
    #: their zeros, and those that drop them print 6 significant digits) and for a problem
    #: made in code.
    rounding: float = field(default=0.0, compare=False)

    @property
    def tolerance(self) -> float:
        """How far a length may be from ``optimal`` and still match: the loosest of 1e-3,
        1e-5 x ``optimal`` and ``rounding`` (old files print lengths with 2 decimals)."""
        return max(1e-3, 1e-5 * self.optimal, self.rounding)

    def matches(self, length: float) -> bool:
        """Whether ``length`` equals the optimum within :attr:`tolerance`."""
        return abs(length - self.optimal) <= self.tolerance


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

    @positional_options("name", "search")
    def find_map(self, *, name: str | None = None,
                 search: Sequence[str | os.PathLike] = ()) -> Path:
        """Locate the map file a problem names, by its file name: next to the scenario, in a
        sibling ``maps/`` tree (``…/scenarios/<set>/x.scen`` -> ``…/maps/<set>/``), then in
        the folders of ``search``; a name with folders in it (``maps/bgmaps/x.map``) is then
        also looked for as that relative path in the scenario's folder and each one above
        it, and in those of ``search`` (not when absolute or with ``..``).  Raises
        :class:`ScenarioFormatError` if not found."""
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
        candidates = [folder / base for folder in folders]
        rel = PurePosixPath(name.replace("\\", "/"))
        nested = len(rel.parts) > 1 and not rel.is_absolute() and ".." not in rel.parts \
            and not PureWindowsPath(name).drive
        if nested:
            here_up = [self.path.parent, *self.path.parent.parents] if self.path else []
            candidates += [root / rel for root in [*here_up, *(Path(s) for s in search)]]
        for candidate in candidates:
            try:
                if candidate.is_file():
                    return candidate
            except OSError:  # a name too long for the file system, say
                continue
        tried = ", ".join(str(f) for f in folders) or "nowhere"
        also = "; as a relative path, in the folders above the scenario and those given" \
            if nested else ""
        raise ScenarioFormatError(f"map {brief(name)} not found (looked in: {tried}{also})",
                                  self.path)

    def check_map(self, grid: Grid) -> None:
        """Raise :class:`ScenarioFormatError` naming the file and line if a problem's sizes do
        not fit ``grid`` or its start or goal is outside the grid or on a blocked cell."""
        for p in self.problems:
            if (p.width, p.height) != (grid.width, grid.height):
                raise ScenarioFormatError(
                    f"problem is for a {brief(p.width)}x{brief(p.height)} map but "
                    f"{brief(p.map)} is {grid.width}x{grid.height}", self.path, p.line)
        if not self.problems:
            return
        cells = [(*p.start, *p.goal) for p in self.problems]
        try:
            ends = np.array(cells, dtype=np.int64).reshape(-1, 2, 2)
        except OverflowError:   # coordinates beyond 64 bits: outside any map
            ends = np.array([[v if -1 <= v <= grid.width + grid.height else -1 for v in c]
                             for c in cells], dtype=np.int64).reshape(-1, 2, 2)
        x, y = ends[..., 0], ends[..., 1]
        inside = (x >= 0) & (x < grid.width) & (y >= 0) & (y < grid.height)
        free = np.zeros_like(inside)
        free[inside] = grid.passable[y[inside], x[inside]]
        if not free.all():
            k, end = (int(v) for v in np.argwhere(~free)[0])
            p = self.problems[k]
            label, cell = ("start", p.start) if end == 0 else ("goal", p.goal)
            what = "a blocked cell" if inside[k, end] else "outside the map"
            raise ScenarioFormatError(f"{label} {brief(tuple(cell))} is {what} of "
                                      f"{brief(p.map)}", self.path, p.line)


def read_scen(path: str | os.PathLike) -> Scenario:
    """Read a Moving AI ``.scen`` file (``version 1``; fields: bucket, map, width, height,
    start x, start y, goal x, goal y, optimal length).  Raises :class:`ScenarioFormatError`."""
    lines = _read_lines(path, ScenarioFormatError)
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines):
        raise ScenarioFormatError("empty file", path)
    words = lines[i].split()
    if len(words) != 2 or words[0].lower() != "version":
        raise ScenarioFormatError(f"expected 'version 1', got {brief(lines[i].strip())}",
                                  path, i + 1)
    try:
        version = float(words[1]) if _plain(words[1]) else -1.0
    except ValueError:
        version = -1.0
    if version != 1.0:
        raise ScenarioFormatError(
            f"scenario version {brief(words[1])} is not supported (only 1)", path, i + 1)
    problems = []
    for n in range(i + 1, len(lines)):
        text = lines[n]
        fields = text.split()
        if not fields:
            continue
        problems.append(_parse_problem(fields, text, path, n + 1))
    return Scenario(problems, Path(path), words[1])


#: The number fields of a scenario line: (index, name); the map name is field 1.
_NUMBERS = ((0, "bucket"), (2, "width"), (3, "height"), (4, "start x"), (5, "start y"),
            (6, "goal x"), (7, "goal y"), (8, "optimal length"))

#: Half a unit of the last of 0, 1, 2... decimals.
_HALF_UNITS = tuple(0.5 * 10.0 ** -k for k in range(20))
_INF = math.inf


def _parse_problem(fields: list[str], text: str, path: str | os.PathLike, line: int
                   ) -> Problem:
    """One problem from the fields of line ``line`` (whose text is ``text``)."""
    if len(fields) != 9:
        raise ScenarioFormatError(
            f"expected 9 fields (bucket map width height sx sy gx gy optimal), got {len(fields)}",
            path, line)
    try:
        if (not text.isascii() or "_" in text) and not _plain(fields[0] + "".join(fields[2:])):
            raise ValueError
        bucket, width, height = int(fields[0]), int(fields[2]), int(fields[3])
        sx, sy, gx, gy = int(fields[4]), int(fields[5]), int(fields[6]), int(fields[7])
        optimal = float(fields[8])
    except ValueError:
        raise _field_error(fields, path, line) from None
    if not (0 <= sx < width and 0 <= gx < width and 0 <= sy < height and 0 <= gy < height
            and 0 <= optimal < _INF):
        raise ScenarioFormatError(str(_fault(width, height, (sx, sy), (gx, gy), optimal)),
                                  path, line)
    written = fields[8]
    dot = written.find(".")
    if "e" in written or "E" in written or (dot >= 0 and len(written) - dot > 20):
        rounding = _half_unit(written)
    elif dot < 0:
        rounding = 0.0
    else:
        rounding = _HALF_UNITS[len(written) - dot - 1]
    return Problem(bucket, fields[1], width, height, (sx, sy), (gx, gy), optimal, line,
                   rounding)


def _field_error(fields: list[str], path: str | os.PathLike, line: int
                 ) -> ScenarioFormatError:
    """The error for the first number field of a scenario line that does not parse."""
    for k, name in _NUMBERS:
        value = fields[k]
        try:
            if not _plain(value):
                raise ValueError
            (float if k == 8 else int)(value)
        except ValueError:
            kind = "a number" if k == 8 else "an integer"
            return ScenarioFormatError(f"{name} {brief(value)} is not {kind}", path, line)
    raise AssertionError("no bad field")  # pragma: no cover


def _half_unit(written: str) -> float:
    """Half a unit of the last digit of a number as written: ``2.41`` -> 0.005, ``12`` ->
    0.5, ``1.5e1`` -> 0.5."""
    mantissa, _, exponent = written.lower().partition("e")
    digits = exponent.lstrip("+-").lstrip("0")
    scale = (int(digits) if len(digits) < 5 else 10**5) if digits else 0
    dot = mantissa.find(".")
    power = (-scale if exponent.startswith("-") else scale) \
        - (len(mantissa) - dot - 1 if dot >= 0 else 0)
    return 0.5 * 10.0 ** min(max(power, -330), 300)


def _fault(width: int, height: int, start: Sequence[int], goal: Sequence[int],
           optimal: float) -> str | None:
    """Why a problem with these sizes, cells and length is not valid, or None."""
    if not math.isfinite(optimal) or optimal < 0:
        return f"optimal length {brief(optimal)} must be finite and >= 0"
    if width < 1 or height < 1:
        return f"map size {brief(width)}x{brief(height)} must be positive"
    for label, (x, y) in (("start", start), ("goal", goal)):
        if not (0 <= x < width and 0 <= y < height):
            return (f"{label} {brief((x, y))} is outside the {brief(width)}x{brief(height)} "
                    f"map")
    return None


def _format_length(value: float) -> str:
    text = f"{value:.8f}"
    return text if float(text) == value else repr(value)


def _unwritable(p: Problem) -> str | None:
    """Why ``p`` cannot be written as a line that :func:`read_scen` reads back, or None."""
    name = p.map
    if not isinstance(name, str) or name.split() != [name]:
        return f"map name {brief(name)} must be text without spaces, tabs or line breaks"
    if not name.isascii():
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            return f"map name {brief(name)} cannot be written as UTF-8"
    for label, cell in (("start", p.start), ("goal", p.goal)):
        if not isinstance(cell, (tuple, list, np.ndarray)) or len(cell) != 2:
            return f"{label} {brief(cell)} is not a cell (x, y)"
    values = (p.bucket, p.width, p.height, *p.start, *p.goal)
    if not {int}.issuperset(map(type, values)):  # else numpy integers, or not integers
        for k, value in enumerate(values):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                return f"{_NUMBERS[k][1]} {brief(value)} is not an integer"
    if type(p.optimal) is not float and (isinstance(p.optimal, bool) or
                                         not isinstance(p.optimal, (int, np.number))):
        return f"optimal length {brief(p.optimal)} is not a number"
    return _fault(p.width, p.height, p.start, p.goal, p.optimal)


def _scen_text(scenario: Scenario | Sequence[Problem], path: str | os.PathLike | None) -> str:
    problems = scenario.problems if isinstance(scenario, Scenario) else scenario
    for k, p in enumerate(problems):
        fault = _unwritable(p)
        if fault is not None:
            raise ScenarioFormatError(f"cannot write problem {k}: {fault}", path)
    out = ["version 1"]
    for p in problems:
        out.append("\t".join([str(p.bucket), p.map, str(p.width), str(p.height),
                              str(p.start[0]), str(p.start[1]), str(p.goal[0]),
                              str(p.goal[1]), _format_length(p.optimal)]))
    return "\n".join(out) + "\n"


def format_scen(scenario: Scenario | Sequence[Problem]) -> str:
    """The text of a ``.scen`` file (``version 1``, tab-separated fields).  A problem that
    :func:`read_scen` would not read back (a length that is NaN, infinite or negative, a cell
    outside the map or not two integers, a map name with blanks...) raises
    :class:`ScenarioFormatError` naming its index."""
    return _scen_text(scenario, None)


def write_scen(scenario: Scenario | Sequence[Problem], path: str | os.PathLike) -> Path:
    """Write problems as a ``.scen`` file (atomically: temporary file + rename).  Problems
    are checked as by :func:`format_scen` before anything is written."""
    return atomic_write_text(path, _scen_text(scenario, path))
