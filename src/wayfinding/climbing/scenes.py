"""Generated climbing levels: a building face with ledges, pipes and ladders above a
navigation-mesh ground, for examples, the command line, the demo and tests.

:func:`climbing_wall` lays out ``bays`` x ``floors`` on the wall plane y = 0 (x along the
wall, z up; bays :data:`BAY` metres wide, floors :data:`FLOOR` metres high, the first
floor's ledges :data:`SILL` metres up, a roof ledge along the whole top).  Between two bays
a floor's ledges either meet (a shared node) or leave a gap of 0.4..1.6 m (a jump); each
ledge not needed by a pipe is missing with probability 1/4 (a quarter of them on
average).  Pipes run up from the ground or a floor through the floors above (crossing
their ledges), ladders from the ground to the first floor, short window sills sit 1 m
above some ledges (a jump up), and blockers (air conditioners in ledge gaps, balcony
slabs under floors) stop some jumps and drops.  Each floor is reached by a pipe and its
ledges join the pipes that meet it (while the bays have free slots, three a bay), so the
default character can climb from the ground to the roof.
The ground is a 2D :class:`~wayfinding.navmesh.NavMesh` in front of the wall (y < 0) at height 0,
joined to the feet of the pipes and ladders by clue links.

>>> from wayfinding.climbing import find_climb_path
>>> wall = climbing_wall(seed=3)
>>> g = wall.graph()
>>> p = find_climb_path(g, wall.clues(g), wall.position("roof"))
>>> p.found, bool(p.edges[0] == -1), bool(p.points[0, 2] == 0.0)
(True, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import count, number
from ..errors import InvalidQueryError
from ..navmesh import NavMesh
from .graph import ClimbGraph, build_climb_graph
from .markup import Blockers, Capabilities, ElementKind, TraversalElement
from .search import ClimbPosition, ClueLink, clue_links

BAY = 3.0       # metres: the width of a bay
FLOOR = 3.0     # metres: the height of a floor
SILL = 2.0      # metres: the height of the first floor's ledges
CLUE_REACH = 1.0  # metres: how far a clue link reaches from the ground to an element's end


@dataclass(frozen=True, eq=False)
class ClimbingWall:
    """A generated climbing level: its ``elements`` and their ``names`` (``"ledge-F-B"``
    for floor F, bay B; ``"sill-F-B"``, ``"pipe-N"``, ``"ladder-N"`` and ``"roof"``), the
    ``blockers`` of its jumps, its ``ground`` (a navmesh at height 0 in front of the wall)
    and its ``width`` and ``height`` in metres."""

    elements: tuple[TraversalElement, ...]
    names: tuple[str, ...]
    blockers: Blockers
    ground: NavMesh
    width: float
    height: float

    def graph(self, *, capabilities: Capabilities | None = None) -> ClimbGraph:
        """The wall's climb graph for a character with ``capabilities`` (default
        :class:`~wayfinding.climbing.Capabilities()`), links checked against its
        blockers."""
        return build_climb_graph(self.elements, capabilities=capabilities,
                                 blockers=self.blockers)

    def clues(self, graph: ClimbGraph) -> list[ClueLink]:
        """The clue links joining the ground to ``graph`` (built from this wall): the ends
        of elements within :data:`CLUE_REACH` metres of it."""
        return clue_links(graph, self.ground, max_distance=CLUE_REACH)

    def index(self, name: str) -> int:
        """The index of the element called ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            shown = ", ".join(self.names[:8]) + (", ..." if len(self.names) > 8 else "")
            raise InvalidQueryError(f"the wall has no element {name!r} (its elements: "
                                    f"{shown})") from None

    def position(self, name: str, *, distance: float | None = None) -> ClimbPosition:
        """The point ``distance`` metres along element ``name`` (default its middle)."""
        i = self.index(name)
        d = self.elements[i].length / 2 if distance is None else number(
            "distance", distance, min=0.0, max=self.elements[i].length)
        return ClimbPosition(i, d)


def climbing_wall(*, bays: int = 6, floors: int = 4, seed: int = 0) -> ClimbingWall:
    """A seeded climbing wall of ``bays`` (2..64) by ``floors`` (1..32); see the module
    docstring for its layout.  The same arguments give the same wall."""
    bays = count("bays", bays, min=2, max=64)
    floors = count("floors", floors, min=1, max=32)
    seed = count("seed", seed, min=0)
    rng = np.random.default_rng(seed)
    heights = [SILL + FLOOR * f for f in range(floors + 1)]     # the last is the roof
    width = BAY * bays
    els: list[TraversalElement] = []
    names: list[str] = []

    def add(kind: ElementKind, name: str, *points: tuple[float, float, float]) -> None:
        els.append(TraversalElement(kind, np.array(points, dtype=np.float64)))
        names.append(name)

    # pipes and ladders: three slots across each bay, one riser per slot
    slots = [(b, k) for b in range(bays) for k in range(3)]
    free = rng.permutation(len(slots)).tolist()
    needed: set[tuple[int, int]] = set()                    # (floor, bay): ledges in use
    risers: list[tuple[ElementKind, int, float, float, float]] = []  # kind, bay, x, foot, top
    for t in range(-1, floors):                              # t = -1: from the ground
        for _ in range(1 + int(rng.random() < 0.5)):
            if not free:
                break
            b, k = slots[free.pop()]
            x = BAY * b + 0.9 + 0.6 * k
            if t < 0 and rng.random() < 0.5:
                risers.append((ElementKind.LADDER, b, x, 0.3, heights[0]))
                needed.add((0, b))
                continue
            top = min(t + 1 + int(rng.integers(0, 2)), floors)
            foot = 0.5 if t < 0 else heights[t] - 1.0
            risers.append((ElementKind.PIPE, b, x, foot,
                           heights[top] + (0.5 if top < floors else 0.0)))
            needed.update((f, b) for f in range(max(t, 0), min(top + 1, floors)))
    # every ledge between the risers a floor meets, so that each floor leads on upwards
    for f in range(floors):
        meet = [b for g, b in needed if g == f]
        if meet:
                needed.update((f, b) for b in range(min(meet), max(meet) + 1))
    pipes = {b for kind, b, *_ in risers if kind is ElementKind.PIPE}
    # ledges: gaps between bays (0: the ledges meet), each missing with probability
    # 1/4 unless needed
    conditioners: list[tuple[float, float]] = []
    for f in range(floors):
        gaps = [0.0 if rng.random() < 0.3 else float(rng.uniform(0.4, 1.6))
                for _ in range(bays + 1)]
        gaps[0] = gaps[-1] = 0.6
        z = heights[f]
        conditioners += [(BAY * b, z) for b in range(1, bays) if gaps[b] > 0.6
                         and ((f, b - 1) not in needed or (f, b) not in needed)
                         and rng.random() < 0.3]
        for b in range(bays):
            if (f, b) not in needed and rng.random() < 0.25:
                continue
            add(ElementKind.LEDGE, f"ledge-{f}-{b}", (BAY * b + gaps[b] / 2, 0.0, z),
                (BAY * (b + 1) - gaps[b + 1] / 2, 0.0, z))
            if rng.random() < 0.2:
                add(ElementKind.LEDGE, f"sill-{f}-{b}", (BAY * b + 0.5, 0.0, z + 1.0),
                    (BAY * b + 1.7, 0.0, z + 1.0))
    add(ElementKind.LEDGE, "roof", (0.0, 0.0, heights[-1]), (width, 0.0, heights[-1]))
    counts = {ElementKind.PIPE: 0, ElementKind.LADDER: 0}
    for kind, _bay, x, z0, z1 in risers:
        add(kind, f"{kind.value}-{counts[kind]}", (x, 0.0, z0), (x, 0.0, z1))
        counts[kind] += 1
    # blockers: air conditioners in ledge gaps, balcony slabs under floors without pipes
    boxes = [((x - 0.15, -0.5, z - 0.3), (x + 0.15, 0.5, z + 0.3)) for x, z in conditioners]
    boxes += [((BAY * b + 0.2, -1.2, heights[f] - 1.2), (BAY * (b + 1) - 0.2, 0.3,
                                                        heights[f] - 0.9))
              for f in range(1, floors) for b in range(bays)
              if b not in pipes and rng.random() < 0.3]
    ground = NavMesh.build(outline=[(-2.0, -6.0), (width + 2.0, -6.0), (width + 2.0, 0.0),
                                    (-2.0, 0.0)])
    return ClimbingWall(tuple(els), tuple(names),
                        Blockers(boxes=np.array(boxes, dtype=np.float64).reshape(-1, 2, 3)),
                        ground, width, heights[-1])
