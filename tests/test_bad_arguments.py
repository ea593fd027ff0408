"""Hostile scalar arguments at the public boundaries: every bad value of every kind (huge and
huge negative ints, None, a bool, a string, NaN, infinity, a list, an object) given to each
parameter in the table ends as a :class:`~wayfinding.errors.WayfindingError` (also a
``ValueError``), never a TypeError, an OverflowError or a silent acceptance."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from wayfinding.errors import InvalidQueryError, WayfindingError

BAD = {
    "huge": 10**30,
    "-huge": -10**30,
    "None": None,
    "True": True,
    "str": "1",
    "nan": float("nan"),
    "inf": float("inf"),
    "list": [],
    "object": object(),
}


@functools.cache
def grid() -> Any:
    from wayfinding.grid import Grid

    return Grid.from_ascii("""
........
..####..
..#.....
..#..#..
........""")


@functools.cache
def mesh(radius: float = 0.0) -> Any:
    from wayfinding.navmesh import NavMesh

    return NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
                         holes=[[(4, 4), (6, 4), (6, 6), (4, 6)]], radius=radius)


@functools.cache
def obstacles() -> Any:
    from wayfinding.geometry import Obstacles

    return Obstacles([[(4, 4), (6, 4), (6, 6), (4, 6)]])


def crowd() -> Any:
    from wayfinding.crowd import Crowd

    c = Crowd()
    c.add((0.0, 0.0), goal=(5.0, 0.0))
    c.add((1.0, 0.5), goal=(-5.0, 0.0))
    return c


SQUARE = [(0, 0), (10, 0), (10, 10), (0, 10)]


def _grid_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding import find_path
    from wayfinding.grid import (
        DifferentialHeuristic,
        GridSearch,
        HPAStar,
        JPSPlus,
        SubgoalGraph,
        distance_map,
        find_paths,
    )

    g = grid
    return {
        "Grid.cell_size": lambda v: g().with_options(cell_size=v),
        "Grid.origin": lambda v: g().with_options(origin=(v, 0.0)),
        "Grid.diagonal": lambda v: g().with_options(diagonal=v),
        "Grid.for_agent": lambda v: g().for_agent(v),
        "Grid.cell": lambda v: g().cell((v, 0)),
        "Grid.world_to_cell": lambda v: g().world_to_cell((v, 0.0)),
        "find_path.start": lambda v: find_path(g(), (v, 0), (4, 3)),
        "find_path.weight": lambda v: find_path(g(), (0, 0), (4, 3), weight=v),
        "find_path.method": lambda v: find_path(g(), (0, 0), (4, 3), method=v),
        "find_path.heuristic": lambda v: find_path(g(), (0, 0), (4, 3), heuristic=v),
        "find_path.agent_size": lambda v: find_path(g(), (0, 0), (4, 3), agent_size=v),
        "GridSearch.find_path.weight":
            lambda v: GridSearch(g()).find_path((0, 0), (4, 3), method="weighted", weight=v),
        "distance_map.limit": lambda v: distance_map(g(), [(0, 0)], limit=v),
        "distance_map.method": lambda v: distance_map(g(), [(0, 0)], method=v),
        "find_paths.threads": lambda v: find_paths(g(), [(0, 0)], [(4, 3)], threads=v),
        "JPSPlus.bucket_width":
            lambda v: JPSPlus.build(g()).find_path((0, 0), (4, 3), buckets=True,
                                                   bucket_width=v),
        "SubgoalGraph.levels": lambda v: SubgoalGraph.build(g(), levels=v),
        "HPAStar.cluster_size": lambda v: HPAStar.build(g(), cluster_size=v),
        "HPAStar.levels": lambda v: HPAStar.build(g(), levels=v),
        "DifferentialHeuristic.pivots": lambda v: DifferentialHeuristic.build(g(), pivots=v),
    }


def _navmesh_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.navmesh import ClearanceMesh, NavMesh, OffMeshLink, QueryFilter

    m = mesh
    return {
        "NavMesh.build.area": lambda v: NavMesh.build(v),
        "NavMesh.build.radius": lambda v: NavMesh.build(outline=SQUARE, radius=v),
        "NavMesh.build.max_verts": lambda v: NavMesh.build(outline=SQUARE, max_verts=v),
        "NavMesh.build.quad_segs": lambda v: NavMesh.build(outline=SQUARE, quad_segs=v),
        "NavMesh.build.seed": lambda v: NavMesh.build(outline=SQUARE, method="wavefront", seed=v),
        "NavMesh.build.merge": lambda v: NavMesh.build(outline=SQUARE, method="wavefront",
                                                       merge=v),
        "NavMesh.build.snap": lambda v: NavMesh.build(outline=SQUARE, snap=v),
        "NavMesh.build.method": lambda v: NavMesh.build(outline=SQUARE, method=v),
        "NavMesh.build.cell_size": lambda v: NavMesh.build(outline=SQUARE, method="subtractive",
                                                           cell_size=v),
        "NavMesh.build.outline": lambda v: NavMesh.build(outline=[(0, 0), (v, 0), (0, 1)]),
        "OffMeshLink.cost": lambda v: NavMesh.build(outline=SQUARE, links=[
            OffMeshLink((1, 1), (2, 2), cost=v)]),
        "OffMeshLink.area": lambda v: NavMesh.build(outline=SQUARE, links=[
            OffMeshLink((1, 1), (2, 2), area=v)]),
        "NavMesh.find_path": lambda v: m().find_path((v, 1.0), (9.0, 9.0)),
        "NavMesh.locate": lambda v: m().locate((v, 1.0)),
        "NavMesh.raycast": lambda v: m().raycast((1.0, 1.0), (v, 1.0)),
        "NavMesh.move_along_surface": lambda v: m().move_along_surface((1.0, 1.0), (v, 1.0)),
        "NavMesh.distance_to_wall": lambda v: m().distance_to_wall((1.0, 1.0), v),
        "NavMesh.polygons_in_circle": lambda v: m().polygons_in_circle((1.0, 1.0), v),
        "NavMesh.random_point.radius":
            lambda v: m().random_point(rng=0, centre=(1.0, 1.0), radius=v),
        "NavMesh.polygon": lambda v: m().polygon(v),
        "QueryFilter.include": lambda v: m().find_path((1, 1), (9, 9),
                                                       filter=QueryFilter(include=v)),
        "QueryFilter.costs": lambda v: m().find_path((1, 1), (9, 9),
                                                     filter=QueryFilter(costs={0: v})),
        "ClearanceMesh.find_path.radius":
            lambda v: ClearanceMesh.build(outline=SQUARE).find_path((1, 1), (9, 9), radius=v),
    }


def _geometry_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.geometry import Obstacles, circle_tangent, orient2d

    o = obstacles
    return {
        "Obstacles.polygons": lambda v: Obstacles([[(0, 0), (v, 0), (0, 1)]]),
        "Obstacles.points_clear.radius": lambda v: o().points_clear([(1.0, 1.0)], radius=v),
        "Obstacles.segments_clear.radius":
            lambda v: o().segments_clear([(1.0, 1.0)], [(2.0, 1.0)], radius=v),
        "Obstacles.contains": lambda v: o().contains([(v, 1.0)]),
        "orient2d": lambda v: orient2d((v, 0), (1, 0), (0, 1)),
        "circle_tangent.r0": lambda v: circle_tangent((0, 0), 1, v, (5, 0), 1, 1.0),
        "circle_tangent.s0": lambda v: circle_tangent((0, 0), v, 1.0, (5, 0), 1, 1.0),
    }


def _fields_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.fields import (
        CongestionMap,
        ContinuumField,
        ContinuumParams,
        FlowField,
        FlowTiles,
        PheromoneTrail,
        PotentialField,
        Wavefront,
        dijkstra_field,
        eikonal_field,
    )

    g = grid
    return {
        "FlowField.build.order": lambda v: FlowField.build(g(), [(0, 0)], order=v),
        "FlowField.build.limit": lambda v: FlowField.build(g(), [(0, 0)], limit=v),
        "FlowField.build.method": lambda v: FlowField.build(g(), [(0, 0)], method=v),
        "FlowField.trace.step": lambda v: FlowField.build(g(), [(0, 0)]).trace((4.5, 3.5),
                                                                              step=v),
        "FlowField.trace.max_steps":
            lambda v: FlowField.build(g(), [(0, 0)]).trace((4.5, 3.5), max_steps=v),
        "dijkstra_field.limit": lambda v: dijkstra_field(g(), [(0, 0)], limit=v),
        "eikonal_field.cell_size": lambda v: eikonal_field(g(), [(0, 0)], cell_size=v),
        "eikonal_field.order": lambda v: eikonal_field(g(), [(0, 0)], order=v),
        "CongestionMap.block": lambda v: CongestionMap(g(), block=v),
        "CongestionMap.radius": lambda v: CongestionMap(g(), radius=v),
        "CongestionMap.smoothing": lambda v: CongestionMap(g(), smoothing=v),
        "CongestionMap.speed": lambda v: CongestionMap(g(), speed=v),
        "CongestionMap.field.weight": lambda v: CongestionMap(g()).field([(0, 0)], weight=v),
        "ContinuumParams.alpha": lambda v: ContinuumParams(alpha=v),
        "ContinuumParams.offset": lambda v: ContinuumParams(offset=v),
        "ContinuumField.threads": lambda v: ContinuumField(g(), threads=v),
        "FlowTiles.sector": lambda v: FlowTiles(g(), sector=v),
        "FlowTiles.cache_size": lambda v: FlowTiles(g(), cache_size=v),
        "FlowTiles.order": lambda v: FlowTiles(g(), order=v),
        "PheromoneTrail.amount": lambda v: PheromoneTrail((4, 4), amount=v),
        "PheromoneTrail.keep": lambda v: PheromoneTrail((4, 4), keep=v),
        "PheromoneTrail.shape": lambda v: PheromoneTrail((v, 4)),
        "PotentialField.period": lambda v: PotentialField(g(), period=v),
        "PotentialField.combine": lambda v: PotentialField(g(), combine=v),
        "PotentialField.climb.steps": lambda v: PotentialField(g()).climb((0, 0), steps=v),
        "Wavefront.stop": lambda v: Wavefront(g(), (0, 0), stop=v),
        "Wavefront.run": lambda v: Wavefront(g(), (0, 0)).run(max_iterations=v),
    }


def _crowd_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.crowd import (
        ORCA,
        AnticipatoryForces,
        ContextMap,
        Crowd,
        Navigator,
        PathAvoidance,
        PowerLaw,
        VelocityObstacles,
        Wander,
        arrive,
        separation,
    )

    return {
        "Crowd.neighbour_dist": lambda v: Crowd(neighbour_dist=v),
        "Crowd.max_neighbours": lambda v: Crowd(max_neighbours=v),
        "Crowd.add.position": lambda v: Crowd().add((v, 0.0)),
        "Crowd.add.radius": lambda v: Crowd().add((0.0, 0.0), radius=v),
        "Crowd.add.max_speed": lambda v: Crowd().add((0.0, 0.0), max_speed=v),
        "Crowd.add.max_accel": lambda v: Crowd().add((0.0, 0.0), max_accel=v),
        "Crowd.add.group": lambda v: Crowd().add((0.0, 0.0), group=v),
        "Crowd.remove": lambda v: crowd().remove(v),
        "Crowd.neighbours.distance": lambda v: crowd().neighbours(distance=v),
        "Crowd.neighbours.max_neighbours": lambda v: crowd().neighbours(max_neighbours=v),
        "Crowd.step.dt": lambda v: crowd().step(v),
        "ORCA.time_horizon": lambda v: ORCA(time_horizon=v),
        "ORCA.max_neighbours": lambda v: ORCA(max_neighbours=v),
        "ORCA.neighbour_dist": lambda v: ORCA(neighbour_dist=v),
        "ORCA.step.dt": lambda v: ORCA().step(crowd(), v),
        "PowerLaw.k": lambda v: PowerLaw(k=v),
        "PowerLaw.max_neighbours": lambda v: PowerLaw(max_neighbours=v),
        "AnticipatoryForces.neighbour_dist": lambda v: AnticipatoryForces(neighbour_dist=v),
        "VelocityObstacles.rings": lambda v: VelocityObstacles(rings=v),
        "VelocityObstacles.weight": lambda v: VelocityObstacles(weight=v),
        "ContextMap.slots": lambda v: ContextMap(v),
        "Navigator.corner_radius": lambda v: Navigator(mesh(), corner_radius=v),
        "Navigator.max_replans": lambda v: Navigator(mesh(), max_replans=v),
        "Navigator.update.dt": lambda v: Navigator(mesh(radius=0.5)).update(v),
        "PathAvoidance.horizon": lambda v: PathAvoidance(horizon=v),
        "PathAvoidance.add.speed": lambda v: PathAvoidance().add([(0, 0), (5, 0)], speed=v),
        "PathAvoidance.advance.dt": lambda v: PathAvoidance().advance(v),
        "Wander.radius": lambda v: Wander(radius=v),
        "arrive.slowing": lambda v: arrive(crowd(), (1.0, 1.0), slowing=v),
        "separation.max_neighbours": lambda v: separation(crowd(), max_neighbours=v),
        "separation.distance": lambda v: separation(crowd(), distance=v),
    }


def _paths_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.paths import Formation, smooth_corridor, turning_path

    return {
        "Formation.rows": lambda v: Formation(v, 2, 1.0),
        "Formation.spacing": lambda v: Formation(2, 2, v),
        "Formation.style": lambda v: Formation(2, 2, 1.0, style=v),
        "Formation.advance.step": lambda v: Formation(2, 2, 1.0).advance((5.0, 0.0), v),
        "turning_path.radius": lambda v: turning_path((0, 0), (1, 0), (5, 5), (0, 1), v),
        "smooth_corridor.iterations":
            lambda v: smooth_corridor([(0, 0), (1, 0), (2, 0), (3, 0)], [1, 1, 1, 1],
                                      (1, 0), (1, 0), iterations=v),
        "smooth_corridor.alpha":
            lambda v: smooth_corridor([(0, 0), (1, 0), (2, 0), (3, 0)], [1, 1, 1, 1],
                                      (1, 0), (1, 0), alpha=v),
    }


def _graph_calls() -> dict[str, Callable[[Any], Any]]:
    from wayfinding.graph.roadmap import Roadmap
    from wayfinding.graph.waypoints import lattice_points

    return {
        "lattice_points.spacing": lambda v: lattice_points(obstacles(), (0, 0, 10, 10), v),
        "Roadmap.n": lambda v: Roadmap.build(obstacles(), (0, 0, 10, 10), n=v, k=2),
    }


CALLS: dict[str, Callable[[Any], Any]] = {
    **_grid_calls(), **_navmesh_calls(), **_geometry_calls(), **_fields_calls(),
    **_crowd_calls(), **_paths_calls(), **_graph_calls(),
}

#: The kinds of value a parameter takes as a good one: None for "the default", inf for
#: "no limit".
ALLOWED = {
    "find_path.weight": {"None"}, "find_path.heuristic": {"None"},
    "distance_map.limit": {"inf"}, "NavMesh.build.cell_size": {"None"},
    "NavMesh.build.seed": {"None"}, "NavMesh.build.merge": {"None", "True"},
    "OffMeshLink.cost": {"None"}, "QueryFilter.costs": {"inf"},
    "FlowField.build.limit": {"inf"}, "FlowField.trace.max_steps": {"None"},
    "dijkstra_field.limit": {"inf"}, "Crowd.add.max_accel": {"inf"},
    "Crowd.neighbours.distance": {"None"}, "Crowd.neighbours.max_neighbours": {"None"},
    "ORCA.max_neighbours": {"None"}, "ORCA.neighbour_dist": {"None"},
    "PowerLaw.max_neighbours": {"None"}, "AnticipatoryForces.neighbour_dist": {"None"},
    "separation.max_neighbours": {"None"}, "separation.distance": {"None"},
}
assert set(ALLOWED) <= set(CALLS)


@pytest.mark.parametrize("where, kind", [(w, k) for w in CALLS for k in BAD
                                         if k not in ALLOWED.get(w, ())])
def test_a_bad_argument_raises_the_library_s_error(where, kind):
    with pytest.raises(WayfindingError) as info:
        CALLS[where](BAD[kind])
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("where, kind", [(w, k) for w, kinds in ALLOWED.items()
                                         for k in sorted(kinds)])
def test_a_default_or_unlimited_value_is_accepted(where, kind):
    CALLS[where](BAD[kind])


def _absurd_sizes() -> dict[str, Callable[[], Any]]:
    from wayfinding.crowd import VelocityObstacles
    from wayfinding.fields import FlowField, PheromoneTrail, PotentialField
    from wayfinding.graph.roadmap import Roadmap
    from wayfinding.graph.waypoints import lattice_points
    from wayfinding.paths import Formation, smooth_corridor

    return {
        "lattice spacing 0.001 over 1e6 x 1e6":
            lambda: lattice_points(obstacles(), (0, 0, 1e6, 1e6), 0.001),
        "roadmap of 1e9 samples": lambda: Roadmap.build(obstacles(), (0, 0, 10, 10), n=10**9),
        "trace steps of 1e-300": lambda: FlowField.build(grid(), [(0, 0)]).trace((4, 3),
                                                                                step=1e-300),
        "climb of 2**62 steps": lambda: PotentialField(grid()).climb((0, 0), steps=2**62),
        "trail of 1e5 x 1e5": lambda: PheromoneTrail((10**5, 10**5)),
        "2**40 neighbours": lambda: crowd().neighbours(max_neighbours=2**40),
        "1e5 x 1e5 candidate velocities": lambda: VelocityObstacles(rings=10**5, spokes=10**5),
        "formation of 1e5 x 1e5": lambda: Formation(10**5, 10**5, 1.0),
        "formation following at steps of 1e-300":
            lambda: Formation(2, 2, 1.0).follow([(0, 0), (10, 0)], 1e-300),
        "1e9 smoothing iterations":
            lambda: smooth_corridor([(0, 0), (1, 0), (2, 0), (3, 0)], [1, 1, 1, 1], (1, 0),
                                    (1, 0), iterations=10**9),
    }


ABSURD = _absurd_sizes()


@pytest.mark.parametrize("what", list(ABSURD))
def test_an_absurd_size_is_refused_before_allocating(what):
    with pytest.raises(WayfindingError, match=r"would need .* \(wayfinding\._validate\.MAX_"):
        ABSURD[what]()


def _crossing(dt: float) -> None:
    from wayfinding.vehicles import street_crossing
    street_crossing(dt=dt)


def _recorded(dt: float) -> None:
    from wayfinding.crowd import Crowd, record
    crowd = Crowd()
    crowd.add((0.0, 0.0), goal=(1.0, 0.0))
    record(crowd, lambda c, step: None, dt=dt, seconds=1.0)


def _scene(dt: float) -> None:
    from wayfinding.fields.scenes import scene, simulate_scene
    simulate_scene(scene("lanes", units=4), seconds=1.0, dt=dt)


def _settings(dt: float) -> None:
    from wayfinding.planning import SimulationSettings
    SimulationSettings(dt=dt)


@pytest.mark.parametrize("run", [_crossing, _recorded, _scene, _settings])
def test_simulated_runs_refuse_more_steps_than_they_may_take(run):
    # A step of 1e-300 s would take 1e300 steps: refused before the first is taken.
    with pytest.raises(InvalidQueryError, match="MAX_TIME_STEPS"):
        run(1e-300)
