"""The maps the tests run on: maps the library generates (always there; their scenario lengths
come from our Dijkstra, checked against scipy in tests/grid/test_generate.py), and the Moving AI
benchmark, read in place from ``$WAYFINDING_MOVINGAI`` or ``../shared/data/movingai``.

Where the Moving AI data is absent, tests that need it skip with a reason naming where it is
expected; under ``CI=true`` its absence fails them instead.

Names: ``"gen/<kind>"`` for generated maps, ``"<set>/<map>"`` (e.g. ``"dao/arena2"``) for
Moving AI ones; :func:`load` gives the grid and a scenario for either.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

from wayfinding.grid import Grid, Scenario, generate, read_map, read_scen, write_map, write_scen

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = ROOT.parent / "shared" / "data" / "movingai"
#: The parameter that stands for the Moving AI files when they are absent.
MISSING = "movingai-data-missing"
#: Problems per scenario file in the default suite: an evenly spread sample.
SAMPLE = 125


def full_movingai() -> Path | None:
    """The Moving AI set: $WAYFINDING_MOVINGAI or ../shared/data/movingai."""
    env = os.environ.get("WAYFINDING_MOVINGAI")
    for candidate in ([Path(env)] if env else []) + [EXPECTED]:
        if (candidate / "scenarios").is_dir():
            return candidate
    return None


MOVINGAI = full_movingai()


def require_movingai() -> Path:
    """The Moving AI folder; skips the test where it is absent (fails it under CI=true)."""
    if MOVINGAI is None:
        reason = (f"Moving AI benchmark data not found: expected at {EXPECTED} or in "
                  "$WAYFINDING_MOVINGAI")
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (CI=true: the data must be there)", pytrace=False)
        pytest.skip(reason)
    return MOVINGAI


def movingai_names(*only: str) -> list[str]:
    """``"<set>/<map>"`` of every 2D scenario file (or of those named in ``only``), for
    ``parametrize``; ``[MISSING]`` where the data is absent (the test then skips or fails)."""
    if MOVINGAI is None:
        return [MISSING]
    names = sorted(f"{p.parent.name}/{p.name.removesuffix('.map.scen')}"
                   for p in (MOVINGAI / "scenarios").glob("*/*.map.scen"))
    return [n for n in names if not only or n in only]


def movingai_map(name: str) -> Path:
    return require_movingai() / "maps" / f"{name}.map"


def movingai_scen_path(name: str) -> Path:
    return require_movingai() / "scenarios" / f"{name}.map.scen"


@cache
def movingai_scen(name: str, sample: int | None = SAMPLE) -> Scenario:
    """The scenario file of ``name``: all its problems, or ``sample`` spread evenly."""
    scen = read_scen(movingai_scen_path(name))
    if sample is not None and len(scen) > sample:
        step = len(scen) // sample
        scen = Scenario(scen.problems[::step][:sample], scen.path, scen.version)
    return scen


@cache
def movingai_grid(name: str) -> Grid:
    return read_map(movingai_map(name))


def prebuilt_index(map_path: Path, kind: str) -> Path | None:
    """``$WAYFINDING_INDEX_DIR/<map>.<kind>.npz`` when it exists: an index built beforehand
    (``wayfinding index build``), for the exhaustive run on maps where building takes hours."""
    folder = os.environ.get("WAYFINDING_INDEX_DIR")
    path = Path(folder) / f"{map_path.stem}.{kind}.npz" if folder else None
    return path if path is not None and path.is_file() else None


# ---------------------------------------------------------------------- generated maps
#: One map of each generated family, about the size of the smaller Moving AI maps.
GENERATED = {
    "caves": lambda: generate.caves(160, 128, seed=11),
    "rooms": lambda: generate.rooms(160, 160, rooms=16, room_size=(8, 24), seed=12),
    "maze1": lambda: generate.maze(127, 127, seed=13),
    "maze4": lambda: generate.maze(160, 160, corridor=4, seed=14),
    "random25": lambda: generate.random_obstacles(128, 128, density=0.25, seed=15),
    "city": lambda: generate.city(160, 160, seed=16),
}
GENERATED_NAMES = [f"gen/{k}" for k in GENERATED]


@cache
def generated_grid(kind: str) -> Grid:
    return GENERATED[kind]()


@cache
def generated_scen(kind: str) -> Scenario:
    return generate.benchmark_scenario(generated_grid(kind), per_bucket=2, problems=SAMPLE, seed=7,
                             map_name=f"{kind}.map")


def write_generated(kind: str, folder: Path) -> tuple[Path, Path]:
    """Write the generated map ``kind`` and its scenario into ``folder``; their paths."""
    map_path = folder / f"{kind}.map"
    write_map(generated_grid(kind), map_path)
    return map_path, write_scen(generated_scen(kind), folder / f"{kind}.map.scen")


# ---------------------------------------------------------------------- either
def all_names() -> list[str]:
    """Generated names and Moving AI names, for ``parametrize``."""
    return GENERATED_NAMES + movingai_names()


def load(name: str, sample: int | None = SAMPLE) -> tuple[Grid, Scenario]:
    """The grid and the scenario of a generated or Moving AI name."""
    if name.startswith("gen/"):
        kind = name.removeprefix("gen/")
        return generated_grid(kind), generated_scen(kind)
    return movingai_grid(name), movingai_scen(name, sample)
