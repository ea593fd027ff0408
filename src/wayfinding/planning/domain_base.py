"""The domain abstraction of planning with multiple domains of control (Kapadia et al.): a
domain Σ = ⟨S, A, c, h, Φ⟩ is a state space, the transitions out of a state, their cost, a
heuristic towards a goal and the validity check Φ a transition must pass.  A domain is a
:class:`~wayfinding.graph.Graph` (``successors`` yields the valid transitions with their
costs), so the generic searches of :mod:`wayfinding.search` run on it directly; the
domains over a navigation mesh or a grid also give their compiled graph for
:class:`~wayfinding.search.ADStar`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np


class Domain(ABC):
    """A planning domain ⟨S, A, c, h, Φ⟩: ``actions(s)`` are the states ``s + δ(s, i)``
    one transition away, ``valid(s, n)`` is Φ, ``cost(s, n)`` the transition's cost and
    ``heuristic(s, goal)`` the estimate of the cost left; ``successors(s)`` (the graph
    protocol) pairs the valid ones with their costs.  ``position(s)`` is a state's world
    point ``(x, y)`` and ``state(point)`` the state holding a world point."""

    #: Short name of the domain in plans and reports ("static", "dynamic", "grid",
    #: "spacetime").
    name = ""

    @abstractmethod
    def actions(self, s: Any) -> Iterable[Hashable]:
        """The states one transition away from ``s``, valid or not."""

    @abstractmethod
    def cost(self, s: Any, n: Any) -> float:
        """The cost of the transition ``s -> n`` (>= 0)."""

    @abstractmethod
    def heuristic(self, s: Any, goal: Any) -> float:
        """An estimate of the cost from ``s`` to ``goal`` (>= 0)."""

    @abstractmethod
    def valid(self, s: Any, n: Any) -> bool:
        """Φ: whether the transition ``s -> n`` may be taken."""

    @abstractmethod
    def position(self, s: Any) -> np.ndarray:
        """The world point ``(2,)`` float64 of state ``s``."""

    @abstractmethod
    def state(self, point: Any) -> Any:
        """The state at the world point ``(x, y)``; raises
        :class:`~wayfinding.errors.InvalidQueryError` for a point outside the domain."""

    def successors(self, s: Any) -> list[tuple[Any, float]]:
        """Graph protocol: ``(n, cost)`` for every valid transition out of ``s``."""
        return [(n, self.cost(s, n)) for n in self.actions(s) if self.valid(s, n)]
