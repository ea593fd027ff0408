"""Terrain tables: which map characters are passable and what they cost."""

from __future__ import annotations

import math
from collections.abc import Mapping

from .._validate import CELL_COST_BOUNDS, cell_cost_ok, real_number
from ..errors import InvalidGridError, brief

#: The Moving AI benchmark rule: '.', 'G', 'S' passable at cost 1; '@', 'O', 'T', 'W' blocked.
MOVINGAI_TERRAIN: Mapping[str, float] = {
    ".": 1.0, "G": 1.0, "S": 1.0, "@": math.inf, "O": math.inf, "T": math.inf, "W": math.inf,
}

#: For ASCII pictures: the Moving AI characters plus '#' for walls.
ASCII_TERRAIN: Mapping[str, float] = {**MOVINGAI_TERRAIN, "#": math.inf}


def make_terrain(base: Mapping[str, float], overrides: Mapping[str, float] | None) -> dict:
    """Merge ``overrides`` into ``base`` after checking every entry.

    Keys are single printable, non-space ASCII characters (map rows are ASCII); values are
    numbers (not bools or strings) > 0 and at most 1e250 (``inf`` = blocked).
    """
    table = dict(base)
    for char, cost in (overrides or {}).items():
        if not isinstance(char, str) or len(char) != 1 or not char.isascii() \
                or not char.isprintable() or char.isspace():
            raise InvalidGridError(
                f"terrain key {brief(char)} must be one printable ASCII character (not a space)")
        value = real_number(cost)
        if not cell_cost_ok(value):
            raise InvalidGridError(f"terrain cost for {char!r} is {brief(cost)}; costs must "
                                   f"be numbers {CELL_COST_BOUNDS} (inf = blocked)")
        table[char] = value
    return table
