"""The package's call shape: a public function or method takes its subjects by position and
every option by keyword only (an option still given by position works for a release and
warns)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import wayfinding
from wayfinding import Grid
from wayfinding.errors import InvalidQueryError, brief
from wayfinding.geometry import Obstacles
from wayfinding.navmesh import NavMesh

#: Parameters that keep a default and a position, by the qualified name of their callable.
ALLOWED = {
    # Result and record dataclasses: their fields are what they hold, in order (the fields a
    # result's subclass adds are keyword-only).
    **{f"wayfinding.{name}.__init__": {"stats", "algorithm", "expanded_nodes", "open_nodes",
                                       "status"}
       for name in ("results.PathResult", "navmesh.clearance.ClearancePath",
                    "navmesh.records.NavPath", "search.continuous.TimedPath",
                    "search.hierarchical.HierarchicalResult", "search.incremental.AnytimePath",
                    "search.lowmem.LowMemoryResult", "navmesh3d.query.NavPath3D",
                    "voxel.octree.OctreePathResult", "graph.constrained.ConstrainedPath",
                    "planning.constrained.ConstraintPlan",
                    "planning.specification.SpecificationPlan",
                    "planning.multidomain.MultiDomainPlan")},
    # A transition's base cost may be left out (its length); a move may be a turn alone.
    "wayfinding.constraints.constraint.ConstraintSet.transition_costs": {"base"},
    "wayfinding.constraints.annotations.Annotation.moved": {"offset"},
    "wayfinding.results.SearchStats.__init__": {"expanded", "generated", "reopened", "updated",
                                                "max_open", "elapsed"},
    "wayfinding.search.scheduler.PathRequest.__init__": {"callback", "status", "result",
                                                         "expanded", "order", "planner"},
    "wayfinding.grid.movingai.Problem.__init__": {"line", "rounding"},
    "wayfinding.grid.movingai.Scenario.__init__": {"path", "version"},
    "wayfinding.voxel.movingai3d.Problem3D.__init__": {"ratio", "line"},
    "wayfinding.voxel.movingai3d.Scenario3D.__init__": {"path"},
    "wayfinding.grid.methods.IndexSpec.__init__": {"options"},
    "wayfinding.grid.methods.Solver.__init__": {"indexes", "built"},
    "wayfinding.bench.scenarios.ScenarioReport.__init__": {
        "preprocess_s", "index_bytes", "worst", "exact", "mean_ratio", "max_ratio"},
    "wayfinding.fields.scenes.SceneRun.__init__": {"closest", "overlaps"},
    "wayfinding.fields.tiles.TileRoute.__init__": {"movement", "sectors", "exits", "cost",
                                                   "tiles", "valid", "_owner"},
    "wayfinding.navmesh3d.navmesh.BuildReport.__init__": {"counts", "ms"},
    "wayfinding.navmesh3d.navmesh.NavMesh3D.__init__": {"origin", "links"},
    "wayfinding.navmesh3d.query.NearbyPolygons3D.__init__": {"costs"},
    "wayfinding.navmesh3d.regions.Regions.__init__": {"dist", "max_distance", "overlaps"},
    # An error's constructor: the file and line it names.
    "wayfinding.errors.FileFormatError.__init__": {"path", "line"},
    # An empty result of a search: the kind of path it holds.
    "wayfinding.results.empty_path": {"dims"},
    # Subjects that may be left out: the world an index, mesh or picture is of...
    "wayfinding.navmesh.build.walkable_area": {"area"},
    "wayfinding.navmesh.clearance.ClearanceMesh.build": {"area"},
    "wayfinding.navmesh.exact.VisibilityMap.__init__": {"area"},
    "wayfinding.navmesh.mesh.NavMesh.build": {"area"},
    "wayfinding.geometry.obstacles.Obstacles.__init__": {"polygons"},
    "wayfinding.graph.positioned.PositionedGraph.__init__": {"edges"},
    "wayfinding.graph.waypoints.WaypointGraph.__init__": {"edges"},
    "wayfinding.graph.protocol.AdjacencyGraph.__init__": {"adjacency"},
    "wayfinding.graph.waypoints.WaypointGraph.connect": {"obstacles"},
    "wayfinding.viz.crowd.animate_run": {"obstacles"},
    # ...the field a picture shows...
    "wayfinding.viz.fields.render_flow_png": {"field"},
    "wayfinding.viz.fields.render_flow_svg": {"field"},
    "wayfinding.viz.fields.save_flow": {"field"},
    # ...the cells a field spreads from, and the claims a space-time search avoids.
    "wayfinding.fields.integration.eikonal_field": {"sources"},
    "wayfinding.search.spacetime.space_time_astar": {"table"},
    # A slice's budget is all a step is given, once per frame: no wrapper on that call.
    "wayfinding.sliced.SlicedSearch.step": {"max_expansions", "max_seconds"},
    "wayfinding.search.generic.AStarSearch.step": {"max_expansions", "max_seconds"},
}


def public_modules():
    """Every public module of the package but the command line and the demo."""
    names = ["wayfinding"] + [
        m.name for m in pkgutil.walk_packages(wayfinding.__path__, "wayfinding.")
        if not any(part.startswith("_") for part in m.name.split(".")[1:])
        and m.name.split(".")[1] not in ("cli", "demo")]
    return [importlib.import_module(name) for name in names]


def public_callables():
    """Every public function, class constructor and public method defined in the public
    modules, by qualified name (old names kept for a release are left out)."""
    found = {}
    for module in public_modules():
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    if inspect.isfunction(member):
                        found[f"{module.__name__}.{obj.__qualname__}.{attr}"] = member
            elif inspect.isfunction(obj):
                found[f"{module.__name__}.{obj.__qualname__}"] = obj
    return {name: func for name, func in found.items()
            if not (func.__doc__ or "").startswith("Deprecated")}


def positional_options(func):
    return {p.name for p in inspect.signature(func).parameters.values()
            if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is not p.empty}


def test_the_walk_finds_the_api():
    names = public_callables()
    assert len(names) > 400
    for name in ("wayfinding.search.find_path", "wayfinding.graph.csr.CSRGraph.node",
                 "wayfinding.sliced.SlicedSearch.step", "wayfinding.errors.brief",
                 "wayfinding.crowd.agents.Crowd.neighbours", "wayfinding.viz.raster.as_cells"):
        assert name in names
    assert not any(".cli." in name or ".demo." in name for name in names)


def test_no_option_can_be_given_by_position():
    found = {name: params for name, func in public_callables().items()
             if (params := positional_options(func) - ALLOWED.get(name, set()))}
    assert found == {}


def test_every_allowed_parameter_still_exists():
    names = public_callables()
    stale = {name: params - positional_options(names[name]) if name in names else params
             for name, params in ALLOWED.items()}
    assert {name: params for name, params in stale.items() if params} == {}


def test_a_result_s_own_fields_cannot_be_given_by_position():
    from wayfinding.navmesh.clearance import ClearancePath
    from wayfinding.results import SearchStats, Status

    # Before Status, the ninth argument was the radius: now it is refused, not taken as another
    # field.
    with pytest.raises(TypeError):
        ClearancePath([], 1.0, True, SearchStats(), "clearance", None, None, Status.FOUND, 0.5)
    assert ClearancePath([], 1.0, True, radius=0.5).radius == 0.5


def test_a_positional_option_still_works_for_a_release_and_warns():
    with pytest.warns(DeprecationWarning, match=r"brief\(\.\.\., limit\) by position is "
                      r"deprecated; use limit=\.\.\."):
        assert brief("x" * 50, 10) == brief("x" * 50, limit=10)
    obs = Obstacles([[(2, 2), (4, 2), (4, 4), (2, 4)]])
    with pytest.warns(DeprecationWarning, match=r"Obstacles\.points_clear\(\.\.\., radius\)"):
        got = obs.points_clear([(1.5, 3.0), (0.5, 3.0)], 1.0)
    np.testing.assert_array_equal(got, obs.points_clear([(1.5, 3.0), (0.5, 3.0)], radius=1.0))
    assert got.tolist() == [False, True]


def test_the_old_cell_keyword_of_a_subtractive_mesh_still_works_and_warns():
    area = [(0, 0), (10, 0), (10, 10), (0, 10)]
    want = NavMesh.build(outline=area, method="subtractive", cell_size=2.5)
    with pytest.warns(DeprecationWarning, match=r"build\(cell=\.\.\.\) is deprecated; use "
                      r"cell_size=\.\.\."):
        got = NavMesh.build(outline=area, method="subtractive", cell=2.5)
    assert got.num_polygons == want.num_polygons == 16



def test_a_node_s_name_by_position_still_works_and_warns():
    graph = Grid(np.ones((3, 3), dtype=bool)).to_csr()
    with pytest.warns(DeprecationWarning, match=r"CSRGraph\.node\(\.\.\., name\) by position"):
        with pytest.raises(InvalidQueryError, match="start 9 is outside 0..8"):
            graph.node(9, "start")
    assert graph.node(4, name="start") == 4
