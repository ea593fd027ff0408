"""Run Moving AI 3D scenario files (``.3dscen``) through a voxel method and summarise the
outcome in the report of the 2D runs (:class:`~wayfinding.bench.scenarios.ScenarioReport`),
so ``wayfinding voxel scen --json`` prints the keys ``wayfinding scen --json`` prints.

Methods (:func:`voxel_methods`): the methods of :mod:`wayfinding.voxel.methods`, run by a
:class:`~wayfinding.voxel.search.VoxelSearch` kept for the run: the exact searches (``astar``,
``dijkstra``, ``bidirectional``), whose lengths must match the file's optimum, and the any-angle
searches of :mod:`wayfinding.voxel.anyangle` (``theta``, ``lazy_theta``); and ``svo``, A* over
the sparse voxel octree (:class:`~wayfinding.voxel.octree.SparseVoxelOctree`) with its
default variant, its path refined to voxel moves and smoothed as a plain ``find_path`` call
does.  The time of a query is the wall time of the whole Python call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidQueryError, ScenarioFormatError, brief
from ..results import PathResult
from ..voxel.grid import VoxelGrid
from ..voxel.methods import ANY_ANGLE_METHODS, METHODS
from ..voxel.movingai3d import Problem3D, Scenario3D, read_3dmap, read_3dscen
from ..voxel.octree import SparseVoxelOctree
from ..voxel.search import VoxelSearch
from ..voxel.sight import lines_of_sight
from .scenarios import ScenarioReport, solve_problems

#: The octree search by name.
OCTREE = {"svo": "A* over the sparse voxel octree's nodes (default variant), refined to "
                 "voxel moves and smoothed (not exact)"}


def voxel_methods() -> dict[str, str]:
    """Every method a scenario run takes, name -> one line: the exact ones first."""
    return {**{name: m.description for name, m in METHODS.items()}, **OCTREE}


@dataclass
class VoxelSolver:
    """One method ready to answer queries on one grid: ``solve(start, goal)`` returns a
    :class:`~wayfinding.results.PathResult`; ``exact`` says whether its costs are optimal;
    ``octree`` is the octree the ``svo`` method searches (built or given), ``built_s`` the
    seconds spent building it here (0 when given)."""

    method: str
    solve: Callable[[Any, Any], PathResult]
    exact: bool
    _: KW_ONLY
    octree: SparseVoxelOctree | None = None
    built_s: float = 0.0


def make_voxel_solver(grid: VoxelGrid, method: str, *, octree: SparseVoxelOctree | None = None,
                      workers: int | None = None, progress: bool = False) -> VoxelSolver:
    """A :class:`VoxelSolver` of ``method`` (a name of :func:`voxel_methods`) on ``grid``.
    ``svo`` searches ``octree`` (built for ``grid``) or builds one with ``workers`` threads
    (a bar on stderr with ``progress``); other methods refuse an octree."""
    methods = voxel_methods()
    if method not in methods:
        raise InvalidQueryError(f"unknown voxel method {brief(method)}; known: "
                                f"{', '.join(methods)}")
    if octree is not None and method not in OCTREE:
        raise InvalidQueryError(f"method {method!r} takes no octree (only svo does)")
    if method in OCTREE:
        built = 0.0
        if octree is None:
            octree = SparseVoxelOctree.build(grid, workers=workers, progress=progress)
            built = octree.build_time
        else:
            octree.check(grid)
        return VoxelSolver(method, octree.find_path, False, octree=octree, built_s=built)
    search = VoxelSearch(grid)

    def solve(start: Any, goal: Any) -> PathResult:
        return search.find_path(start, goal, method=method)
    return VoxelSolver(method, solve, METHODS[method].exact)


def sample_problems3d(problems: list[Problem3D], n: int | None) -> list[Problem3D]:
    """A deterministic, evenly spread sample of ``n`` problems (all when ``n`` is None), as
    the 2D runs take theirs."""
    if n is None or n >= len(problems):
        return list(problems)
    if n < 1:
        return []
    idx = np.linspace(0, len(problems) - 1, n).round().astype(int)
    return [problems[i] for i in idx]


def find_map3d(scenario: Scenario3D, *, maps: Iterable[str | Path] = ()) -> Path:
    """The scenario's map: in one of the folders ``maps``, else next to the scenario or in
    its sibling ``maps/`` tree (:meth:`Scenario3D.find_map`)."""
    name = Path(scenario.map.replace("\\", "/")).name
    for folder in maps:
        if (Path(folder) / name).is_file():
            return Path(folder) / name
    return scenario.find_map()


def run_scenario3d(path: str | Path, *, method: str = "astar", sample: int | None = None,
                   maps: Iterable[str | Path] = (), show_progress: bool = True,
                   scenario: Scenario3D | None = None, grid: VoxelGrid | None = None,
                   octree: SparseVoxelOctree | None = None) -> ScenarioReport:
    """Solve every problem of a ``.3dscen`` file (or an even sample of ``sample`` of them)
    with ``method`` and compare each length with the file's optimum (within
    :attr:`Problem3D.tolerance`: 1e-3 or 1e-5 x the length).

    For an exact method ``mismatches`` counts the problems not solved at the optimal length.
    For the others it counts failures only: no path where the file has one, or a path that
    is not legal: for ``svo`` (voxel moves) a step that is not a move of the grid, a cost
    that is not the sum of the steps or one below the optimum; for the any-angle methods a
    leg not in line of sight (:mod:`wayfinding.voxel.sight`) or a cost that is not the
    polyline's length.  ``mean_ratio`` and ``max_ratio`` are the costs ÷ the optimum over
    the problems solved (optimum > 0).  ``preprocess_s`` and ``index_bytes`` give the octree's
    build time (when built here) and memory for ``svo``.  ``grid`` (the map, already read)
    and ``octree`` save reading and building them again.
    """
    scen = scenario if scenario is not None else read_3dscen(path)
    map_path = find_map3d(scen, maps=maps)
    if grid is None:
        grid = read_3dmap(map_path)
    chosen = sample_problems3d(scen.problems, sample)
    _check_cells(grid, chosen, scen)
    solver = make_voxel_solver(grid, method, octree=octree, progress=show_progress)
    any_angle = method in ANY_ANGLE_METHODS
    measured = solve_problems(
        chosen, solver.solve,
        lambda p, r: p.matches(r.cost) if solver.exact else legal_path(grid, p, r,
                                                                      any_angle=any_angle),
        label=Path(path).name, show_progress=show_progress)
    return ScenarioReport(
        scenario=str(path), map=str(map_path), algorithm=method, preprocess_s=solver.built_s,
        index_bytes=solver.octree.nbytes if solver.octree is not None else 0,
        exact=solver.exact, **measured)


def _check_cells(grid: VoxelGrid, problems: list[Problem3D], scen: Scenario3D) -> None:
    """Refuse a scenario whose problems do not fit the map (naming the file and line)."""
    for p in problems:
        for name, c in (("start", p.start), ("goal", p.goal)):
            if not grid.in_bounds(c):
                raise ScenarioFormatError(f"{name} {c} is outside the map of size "
                                          f"{grid.size}", scen.path, p.line)


def legal_path(grid: VoxelGrid, p: Problem3D, r: PathResult, *, any_angle: bool) -> bool:
    """Whether ``r`` is a legal answer to ``p`` (see :func:`run_scenario3d`); vectorised."""
    path = np.asarray(r.path)
    if path.ndim != 2 or path.shape[1:] != (3,) or len(path) == 0 \
            or tuple(path[0]) != tuple(p.start) or tuple(path[-1]) != tuple(p.goal):
        return False
    if ((path < 0) | (path >= np.array(grid.size))).any():
        return False
    d = np.diff(path, axis=0)
    if any_angle:
        length = float(np.linalg.norm(d, axis=1).sum())
        return abs(length - r.cost) <= 1e-9 * max(1.0, length) and \
            bool(lines_of_sight(grid, path[:-1], path[1:]).all())
    steps = np.abs(d).sum(axis=1)
    if len(d) and ((np.abs(d).max(axis=1) != 1).any()
                   or (steps > {6: 1, 18: 2, 26: 3}[grid.connectivity]).any()):
        return False
    # every voxel of the cube each step spans must be free
    bits = np.array([(i, j, k) for i in (0, 1) for j in (0, 1) for k in (0, 1)])
    corners = path[:-1, None, :] + d[:, None, :] * bits[None]
    if grid.blocked[corners[..., 2], corners[..., 1], corners[..., 0]].any():
        return False
    cost = float(np.sqrt(steps).sum())
    return abs(cost - r.cost) <= 1e-6 * max(1.0, cost) and r.cost >= p.optimal - p.tolerance
