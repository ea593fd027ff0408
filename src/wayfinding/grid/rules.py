"""Movement rules: the diagonal rule and the legal-move masks of a grid."""

from __future__ import annotations

import enum

import numpy as np

from .._kernels import _codes
from ..errors import InvalidGridError

#: Step directions in bit order: N, E, S, W, NE, SE, SW, NW as (dx, dy); y grows downward
#: (the compiled kernels' order).
DIRECTIONS = _codes.DIRECTIONS
#: Length of a diagonal step (the compiled kernels' constant).
SQRT2 = _codes.SQRT2


class Diagonal(enum.Enum):
    """When a diagonal step from a cell to a free diagonal neighbour is legal.

    ``NEVER``: no diagonal steps (4-connected).  ``NO_CORNER_CUTTING`` (default, the Moving AI
    rule): both side cells must be free.  ``ALLOW_ONE_BLOCKED``: at least one side cell free.
    ``ALWAYS``: side cells are ignored.
    """

    NEVER = "never"
    NO_CORNER_CUTTING = "no_corner_cutting"
    ALLOW_ONE_BLOCKED = "allow_one_blocked"
    ALWAYS = "always"

    @property
    def code(self) -> int:
        """Integer code used by the compiled kernels."""
        return _CODES[self]

    @classmethod
    def parse(cls, value: Diagonal | str) -> Diagonal:
        """Accept a member or its name (``"no_corner_cutting"``); raise on anything else."""
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).lower())
        except ValueError:
            names = ", ".join(m.value for m in cls)
            raise InvalidGridError(
                f"unknown diagonal rule {value!r}; expected one of: {names}") from None


_CODES = {rule: _codes.DIAGONAL_CODES[rule.value] for rule in Diagonal}


def move_masks(passable: np.ndarray, rule: Diagonal) -> np.ndarray:
    """Bit masks of legal steps for a padded grid.

    ``passable`` is ``(H, W)`` bool indexed ``[y, x]``.  Returns ``(H + 2) * (W + 2)`` uint8, the
    padded grid flattened row-major, with bit ``d`` set where the step ``DIRECTIONS[d]`` is legal.
    """
    h, w = passable.shape
    pad = np.zeros((h + 2, w + 2), dtype=bool)
    pad[1:-1, 1:-1] = passable
    here = pad[1:-1, 1:-1]

    def at(dx: int, dy: int) -> np.ndarray:
        return pad[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx]

    masks = np.zeros((h + 2, w + 2), dtype=np.uint8)
    inner = masks[1:-1, 1:-1]
    for bit, (dx, dy) in enumerate(DIRECTIONS):
        ok = here & at(dx, dy)
        if dx and dy:
            a, b = at(dx, 0), at(0, dy)
            if rule is Diagonal.NEVER:
                continue
            if rule is Diagonal.NO_CORNER_CUTTING:
                ok &= a & b
            elif rule is Diagonal.ALLOW_ONE_BLOCKED:
                ok &= a | b
        inner |= ok.astype(np.uint8) << bit
    return masks.ravel()
