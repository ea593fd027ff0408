"""Yes-or-no options at the public boundaries take ``True`` or ``False`` (numpy's too) and
nothing else: ``1``, ``"no"``, None or a list is refused with the library's error, never
taken for yes or no by its truth value."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from wayfinding.errors import WayfindingError

NOT_FLAGS = {"one": 1, "zero": 0, "no": "no", "None": None, "float": 1.0, "list": [],
             "array": np.array([True, False])}
SQUARE = [(0, 0), (10, 0), (10, 10), (0, 10)]


@functools.cache
def grid() -> Any:
    from wayfinding.grid import Grid

    free = np.ones((5, 8), dtype=bool)
    free[1:4, 2] = free[1, 3:6] = False
    return Grid(free)


@functools.cache
def mesh() -> Any:
    from wayfinding.navmesh import NavMesh

    return NavMesh.build(outline=SQUARE, holes=[[(4, 4), (6, 4), (6, 6), (4, 6)]])


@functools.cache
def voxels() -> Any:
    from wayfinding.voxel import VoxelGrid

    blocked = np.zeros((4, 5, 6), dtype=bool)
    blocked[1:3, 2, 1:5] = True
    return VoxelGrid(blocked)


@functools.cache
def road() -> Any:
    from wayfinding.traffic.roads import road_grid

    return road_grid(2, 1)


def _grid_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.fields import FlowField, eikonal_field
    from wayfinding.grid import GridSearch, HPAStar, JPSPlus, SubgoalGraph
    from wayfinding.search import AStarSearch

    g = grid
    a, b = (0, 0), (7, 4)
    return {
        "GridSearch.find_path.record": lambda v: GridSearch(g()).find_path(a, b, record=v),
        "GridSearch.find_path.record (dijkstra)":
            lambda v: GridSearch(g()).find_path(a, b, method="dijkstra", record=v),
        "GridSearch.find_path.record (jps)":
            lambda v: GridSearch(g()).find_path(a, b, method="jps", record=v),
        "GridSearch.start.record": lambda v: GridSearch(g()).start(a, b, record=v),
        "JPSPlus.find_path.record": lambda v: JPSPlus.build(g()).find_path(a, b, record=v),
        "JPSPlus.find_path.buckets": lambda v: JPSPlus.build(g()).find_path(a, b, buckets=v),
        "JPSPlus.path_costs.buckets":
            lambda v: JPSPlus.build(g()).path_costs([a], [b], buckets=v),
        "SubgoalGraph.find_path.record":
            lambda v: SubgoalGraph.build(g()).find_path(a, b, record=v),
        "HPAStar.find_path.smooth": lambda v: HPAStar.build(g()).find_path(a, b, smooth=v),
        "AStarSearch.record": lambda v: AStarSearch(g(), a, b, record=v),
        "AStarSearch.reopen": lambda v: AStarSearch(g(), a, b, reopen=v),
        "FlowField.build.los": lambda v: FlowField.build(g(), [b], los=v),
        "eikonal_field.los": lambda v: eikonal_field(g(), [b], los=v),
        "Grid.cell.passable": lambda v: g().cell(a, passable=v),
        "Grid.cells.passable": lambda v: g().cells([a], passable=v),
    }


def _graph_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding import AdjacencyGraph
    from wayfinding.graph import CSRGraph
    from wayfinding.search.hierarchy import cell_grouping

    def csr() -> Any:
        return CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0],
                                   coords=[(0, 0), (1, 0), (2, 0)])

    return {
        "CSRGraph.from_edges.directed":
            lambda v: CSRGraph.from_edges(2, [0], [1], [1.0], directed=v),
        "CSRGraph.find_path.record": lambda v: csr().find_path(0, 2, record=v),
        "CSRGraph.start.record": lambda v: csr().start(0, 2, record=v),
        "AdjacencyGraph.from_edges.directed":
            lambda v: AdjacencyGraph.from_edges([("a", "b", 1.0)], directed=v),
        "cell_grouping.connected": lambda v: cell_grouping(2.0, connected=v),
    }


def _navmesh_calls() -> dict[str, Callable[[Any], Any]]:
    from shapely.geometry import Polygon

    from wayfinding.navmesh import ClearanceMesh, NavMesh, OffMeshLink, PolyanyaSearch
    from wayfinding.navmesh.wavefront import wavefront_regions

    m = mesh
    return {
        "NavMesh.find_path.partial": lambda v: m().find_path((1, 1), (9, 9), partial=v),
        "NavMesh.find_paths.partial":
            lambda v: m().find_paths([(1, 1)], [(9, 9)], partial=v),
        "PolyanyaSearch.find_path.partial":
            lambda v: PolyanyaSearch(m()).find_path((1, 1), (9, 9), partial=v),
        "OffMeshLink.bidirectional":
            lambda v: NavMesh.build(outline=SQUARE,
                                    links=[OffMeshLink((1, 1), (2, 2), bidirectional=v)]),
        "ClearanceMesh.build.refine": lambda v: ClearanceMesh.build(outline=SQUARE, refine=v),
        "wavefront_regions.merge": lambda v: wavefront_regions(Polygon(SQUARE), merge=v),
    }


def _world3d_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.navmesh3d import BuildSettings
    from wayfinding.voxel import SparseVoxelOctree, theta_star

    return {
        "BuildSettings.filter_ledge_spans": lambda v: BuildSettings(filter_ledge_spans=v),
        "SparseVoxelOctree.build.progress":
            lambda v: SparseVoxelOctree.build(voxels(), progress=v),
        "SparseVoxelOctree.find_path.smooth":
            lambda v: SparseVoxelOctree.build(voxels()).find_path((0, 0, 0), (5, 4, 3),
                                                                  smooth=v),
        "VoxelGrid.cell.free": lambda v: voxels().cell((0, 0, 0), free=v),
        "theta_star.lazy": lambda v: theta_star(voxels(), (0, 0, 0), (5, 4, 3), lazy=v),
    }


def _motion_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.constraints import Constraint, Disc
    from wayfinding.crowd.context import ContextMap
    from wayfinding.geometry.circles import circle_tangent
    from wayfinding.geometry.obstacles import segments_cross
    from wayfinding.planning.footstep_model import pendulum
    from wayfinding.planning.motion_simulation import MotionCommand
    from wayfinding.planning.tasks import task_priority
    from wayfinding.progress import progress
    from wayfinding.search.spacetime import ReservationTable
    from wayfinding.traffic.levels import road_lattice
    from wayfinding.traffic.roads import LaneSpec
    from wayfinding.traffic.routes import DriverCosts
    from wayfinding.vehicles import plan_car_path
    from wayfinding.viz import render_png, render_svg, render_world_svg

    seg = np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]])
    lane = road().lanes[0]
    return {
        "Constraint.near": lambda v: Constraint(Disc((0, 0), 1.0), 2.0, near=v),
        "ContextMap.lateral": lambda v: ContextMap(8, lateral=v),
        "circle_tangent.clamp":
            lambda v: circle_tangent((0, 0), 1, 1.0, (5, 0), 1, 1.0, clamp=v),
        "segments_cross.touching": lambda v: segments_cross(*seg, *seg, touching=v),
        "pendulum.exact": lambda v: pendulum((0, 0), (1, 0), 0.1, leg_length=1.0, exact=v),
        "MotionCommand.circle": lambda v: MotionCommand(start_speed=1.0, goal_speed=1.0, circle=v),
        "task_priority.finished": lambda v: task_priority(2, 1.5, finished=v),
        "progress.enabled": lambda v: list(progress(range(2), 2, enabled=v)),
        "ReservationTable.reserve.park": lambda v: ReservationTable().reserve([(0, 0)], park=v),
        "road_lattice.forward":
            lambda v: road_lattice(road(), 0, forward=v, start=1.0, spacing=5.0, n_sets=2),
        "LaneSpec.forward": lambda v: LaneSpec(offset=1.0, forward=v),
        "Lane.heading.at_end": lambda v: lane.heading(at_end=v),
        "DriverCosts.factor.oncoming":
            lambda v: DriverCosts().factor(lane.type, lane.kind, lane.road, oncoming=v),
        "plan_car_path.reverse":
            lambda v: plan_car_path(grid(), (0.5, 0.5, 0.0), (7.5, 4.5, 0.0), turning_radius=1.0,
                                    length=0.5, width=0.3, reverse=v),
        "render_svg.colour_bar": lambda v: render_svg(grid(), colour_bar=v),
        "render_png.colour_bar": lambda v: render_png(grid(), colour_bar=v),
        "render_world_svg.nodes": lambda v: render_world_svg(mesh(), nodes=v),
        "render_world_svg.edges": lambda v: render_world_svg(mesh(), edges=v),
    }


CALLS = {**_grid_calls(), **_graph_calls(), **_navmesh_calls(), **_world3d_calls(),
         **_motion_calls()}


@pytest.mark.parametrize("where, kind", [(w, k) for w in CALLS for k in NOT_FLAGS])
def test_a_value_that_is_not_a_bool_is_refused(where, kind):
    with pytest.raises(WayfindingError) as caught:
        CALLS[where](NOT_FLAGS[kind])
    assert "True or False" in str(caught.value)


@pytest.mark.parametrize("where", list(CALLS))
def test_true_false_and_numpy_bools_are_taken(where):
    for value in (True, False, np.True_, np.False_):
        CALLS[where](value)
