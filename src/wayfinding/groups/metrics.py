"""Measuring formations in a recorded run: slot error over time, time to reform, and how
close the agents came (the least pairwise separation, the largest overlap over radius).

A :class:`FormationRun` is a crowd :class:`~wayfinding.crowd.Run` (every agent's positions,
radii, goals and arrival times, with its collision, path-ratio and energy measures) plus
the members' slots at every step.  Agents are never taken out of a formation run: a member's
goal is its slot at the end of the path, where it stops.

>>> run = FormationRun(np.array([[[0.0, 0.0], [3.0, 0.0]], [[0.5, 0.0], [1.5, 0.0]]]), 1.0,
...                    np.array([0.5, 0.5]), np.zeros((2, 2)), np.array([1.0, np.inf]),
...                    slots=np.array([[[0.0, 1.0]], [[0.5, 0.0]]]), members=np.array([0]))
>>> run.slot_error()[0].tolist(), run.time_to_reform(0.1), run.min_separation()
([1.0, 0.0], 1.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from .._validate import count
from ..crowd import Run
from ..results import _fields_equal
from .reform import time_to_reform


@dataclass
class FormationRun(Run):
    """A recorded formation run: the crowd :class:`~wayfinding.crowd.Run` fields
    (``positions`` ``(steps + 1, n, 2)`` of every agent, ``dt``, ``radius``, ``goal``,
    ``arrived``) and ``slots``, ``(steps + 1, m, 2)``, the slot of each member at each step,
    ``members``, ``(m,)`` int64, the columns of ``positions`` they are (formation by
    formation), ``formation``, ``(m,)`` int64, the formation each is in (default all 0),
    ``reformed``, the step from which the members hold their last formation's slots,
    ``obstacles``, the polygons of the scene, and ``name``."""

    _: KW_ONLY
    slots: np.ndarray
    members: np.ndarray
    formation: np.ndarray | None = None
    reformed: int = 0
    obstacles: list[np.ndarray] = field(default_factory=list)
    name: str = ""

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        self.members = np.asarray(self.members, dtype=np.int64)
        if self.formation is None:
            self.formation = np.zeros(len(self.members), dtype=np.int64)

    def groups(self) -> np.ndarray:
        """Per agent (column of ``positions``), its formation + 1, or 0 for an agent in
        none: ``(n,)`` int64 (to colour the agents by)."""
        out = np.zeros(self.positions.shape[1], dtype=np.int64)
        out[self.members] = np.asarray(self.formation) + 1
        return out

    def slot_error(self) -> tuple[np.ndarray, np.ndarray]:
        """The members' mean and largest distance to their slots at each step, two
        ``(steps + 1,)`` float64 arrays (world units)."""
        d = self.positions[:, self.members] - self.slots
        gap = np.hypot(d[..., 0], d[..., 1])
        return gap.mean(axis=1), gap.max(axis=1)

    def time_to_reform(self, tolerance: float, *, start: int | None = None) -> float | None:
        """Seconds from step ``start`` (default :attr:`reformed`) until every member is
        within ``tolerance`` (world units) of its slot
        (:func:`~wayfinding.groups.time_to_reform`), None if never."""
        start = count("start", self.reformed if start is None else start, min=0,
                      max=len(self.positions) - 1)
        k = time_to_reform(self.positions[start:, self.members], self.slots[start:],
                           tolerance=tolerance)
        return None if k is None else k * self.dt

    def _gaps(self) -> tuple[float, float]:
        """The least ``distance - r_i - r_j`` over all pairs and steps (inf for fewer than
        two agents), and the largest ``(r_i + r_j - distance) / min(r_i, r_j)`` (>= 0)."""
        i, j = np.triu_indices(self.positions.shape[1], 1)
        d = self.positions[:, i] - self.positions[:, j]
        gap = np.hypot(d[..., 0], d[..., 1]) - (self.radius[i] + self.radius[j])
        ratio = -gap / np.minimum(self.radius[i], self.radius[j])
        return float(np.nanmin(gap, initial=math.inf)), float(np.nanmax(ratio, initial=0.0))

    def min_separation(self) -> float:
        """The least gap between two agents' discs over the run (negative: they
        overlapped; inf with fewer than two agents)."""
        return self._gaps()[0]

    def max_overlap_ratio(self) -> float:
        """The deepest overlap of two agents over the smaller one's radius (0: none)."""
        return self._gaps()[1]

    def summary(self) -> dict[str, float]:
        """The crowd measures and the formation's: the slot error's mean and largest over
        the run and the largest at its end, the least separation, the largest overlap
        ratio."""
        mean, top = self.slot_error()
        return {**super().summary(), "slot_error_mean": float(mean.mean()),
                "slot_error_max": float(top.max()), "final_slot_error": float(top[-1]),
                "min_separation": self.min_separation(),
                "max_overlap_ratio": self.max_overlap_ratio()}
