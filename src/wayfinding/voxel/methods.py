"""The search methods of voxel grids by name: what ``method=`` of
:func:`wayfinding.voxel.search.find_path` takes, and what the command line, the benchmarks and
the demos list.

Exact methods return a shortest path under the grid's move rule; the any-angle ones
(:mod:`wayfinding.voxel.anyangle`) return a path between voxel centres that may turn at any
voxel and is never longer than the exact optimum, but is not the shortest any-angle path.

>>> [name for name, m in METHODS.items() if m.exact]
['astar', 'dijkstra', 'bidirectional']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class VoxelMethod:
    """A voxel search method: its ``name`` (the value of ``method=``), a one-line
    ``description``, and whether it is ``exact`` (its costs are optimal)."""

    name: str
    description: str
    exact: bool


#: Every method by name, the exact ones first, then the any-angle ones.
METHODS: dict[str, VoxelMethod] = {m.name: m for m in (
    VoxelMethod("astar", "A* with the exact empty-grid distance as heuristic, ties on f to the "
                "larger g (the default)", True),
    VoxelMethod("dijkstra", "Dijkstra's algorithm (A* without a heuristic)", True),
    VoxelMethod("bidirectional", "bidirectional A*, each side toward the other's origin, "
                "stopping when a side's least f reaches the best meeting cost (the fastest exact "
                "method on the Moving AI 3D maps)", True),
    VoxelMethod("theta", "Theta*: any-angle A* whose voxels take their parent's parent when "
                "it is in sight (not exact)", False),
    VoxelMethod("lazy_theta", "Lazy Theta*: Theta* checking line of sight once per expansion "
                "(not exact)", False),
)}
#: The names of the exact methods.
EXACT_METHODS: tuple[str, ...] = tuple(n for n, m in METHODS.items() if m.exact)
#: The names of the any-angle methods.
ANY_ANGLE_METHODS: tuple[str, ...] = tuple(n for n, m in METHODS.items() if not m.exact)
