"""The maps the demo draws on, generated with fixed seeds so that the demo needs nothing
beside the package: a cave (with a Moving AI scenario, written into the demo's folder) and a
dungeon of rooms and corridors."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..grid import Grid, Problem, Scenario, generate, write_map, write_scen

CAVE_TEXT = "a generated cave (224×160, <code>generate.caves(seed=7)</code>)"
DUNGEON_TEXT = "a generated dungeon (72×64, <code>generate.rooms(seed=5)</code>)"


@cache
def cave() -> Grid:
    return generate.caves(224, 160, seed=7)


@cache
def cave_scenario() -> Scenario:
    return generate.benchmark_scenario(cave(), per_bucket=10, seed=7, map_name="cave.map")


def longest() -> Problem:
    """The cave scenario's longest problem."""
    return max(cave_scenario(), key=lambda p: p.optimal)


@cache
def dungeon() -> Grid:
    return generate.rooms(72, 64, rooms=9, room_size=(8, 16), corridor=3, seed=5)


def write_cave(out: Path) -> Path:
    """Write the cave and its scenario into ``out``; return the scenario's path."""
    write_map(cave(), out / "cave.map")
    return write_scen(cave_scenario(), out / "cave.map.scen")
