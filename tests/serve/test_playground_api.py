"""The playground's page and JSON API, served by a live uvicorn server on 127.0.0.1: the same
paths, expansions, meshes, fields and crowd steps as the library gives, and every 4xx."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from live_server import live_server

pytest.importorskip("starlette", reason="the [serve] extra (starlette) is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the [serve] extra (uvicorn) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx (the HTTP client of these tests) is absent")

from starlette.applications import Starlette  # noqa: E402

from wayfinding.crowd import ORCA, Crowd  # noqa: E402
from wayfinding.errors import InvalidQueryError, WayfindingError  # noqa: E402
from wayfinding.fields import FlowField  # noqa: E402
from wayfinding.grid.generate import random_obstacles  # noqa: E402
from wayfinding.grid.grid import Grid  # noqa: E402
from wayfinding.grid.methods import make_solver  # noqa: E402
from wayfinding.grid.search import GridSearch  # noqa: E402
from wayfinding.navmesh import NavMesh  # noqa: E402
from wayfinding.serve import SLICED_METHODS  # noqa: E402
from wayfinding.serve.playground import PLAYGROUND_METHODS, playground_routes  # noqa: E402

LIMITS = {"max_body_bytes": 16 * 1024, "max_cells": 64 * 64, "max_slices": 40,
          "max_agents": 20, "max_frames": 50, "max_obstacle_vertices": 40}
OBSTACLES = [[[4, 2], [8, 2], [8, 9], [4, 9]], [[11, 5], [15, 3], [16, 8]]]
WORLD = {"width": 20, "height": 12, "obstacles": OBSTACLES}


@pytest.fixture(scope="module")
def client() -> Any:
    app = Starlette(routes=playground_routes(**LIMITS))
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        yield http


def _cells(grid: Grid) -> str:
    """A grid as the page sends it: '#' walls, digits their costs."""
    return "".join("#" if not np.isfinite(c) else str(int(c)) for c in grid.costs.ravel())


def _body(grid: Grid, start: Any, goal: Any, **extra: Any) -> dict[str, Any]:
    return {"width": grid.width, "height": grid.height, "cells": _cells(grid),
            "start": list(start), "goal": list(goal), **extra}


def _corners(grid: Grid) -> tuple[tuple[int, int], tuple[int, int]]:
    """The cells of the largest component nearest the top-left and bottom-right corners."""
    ids = grid.components[grid.passable]
    largest = np.bincount(ids).argmax()
    ys, xs = np.nonzero(grid.passable & (grid.components == largest))
    a, b = int(np.argmin(xs + ys)), int(np.argmax(xs + ys))
    return (int(xs[a]), int(ys[a])), (int(xs[b]), int(ys[b]))


@pytest.fixture(scope="module")
def uniform() -> Grid:
    return random_obstacles(30, 20, density=0.25, seed=3)


@pytest.fixture(scope="module")
def weighted(uniform: Grid) -> Grid:
    costs = np.where(uniform.passable, 1.0, np.inf)
    costs[5:15, 8:20] = np.where(np.isfinite(costs[5:15, 8:20]), 4.0, np.inf)
    return Grid(costs)


def _error(response: Any, status: int, error: str | None = None) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "detail"}
    if error is not None:
        assert body["error"] == error
    return str(body["detail"])


def test_page_and_static_files(client: Any) -> None:
    for route in ("/", "/playground"):
        r = client.get(route)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "/playground/static/playground.js" in r.text
    for name, kind in (("playground.js", "text/javascript"), ("playground.css", "text/css")):
        r = client.get(f"/playground/static/{name}")
        assert r.status_code == 200 and r.headers["content-type"].startswith(kind)
    _error(client.get("/playground/static/app.py"), 404, "not found")


def test_methods_say_where_the_library_answers(client: Any, weighted: Grid) -> None:
    info = client.get("/playground/api/methods").json()
    assert [m["name"] for m in info["methods"]] == list(PLAYGROUND_METHODS)
    assert info["limits"]["max_cells"] == LIMITS["max_cells"]
    start, goal = _corners(weighted)
    for m in info["methods"]:
        try:
            make_solver(weighted, m["name"], progress=False)(start, goal)
        except WayfindingError:
            assert not m["weighted"], m["name"]
        else:
            assert m["weighted"], m["name"]
        for rule in info["diagonals"]:
            assert (rule in m["diagonals"]) == _answers(m["name"], rule)


def _answers(method: str, rule: str) -> bool:
    grid = Grid(np.ones((4, 4)), diagonal=rule)
    try:
        make_solver(grid, method, progress=False)((0, 0), (3, 3))
    except WayfindingError:
        return False
    return True


@pytest.mark.parametrize("method", PLAYGROUND_METHODS)
def test_grid_paths_equal_the_library(client: Any, uniform: Grid, weighted: Grid,
                                      method: str) -> None:
    for grid in (uniform, weighted):
        start, goal = _corners(grid)
        r = client.post("/playground/api/grid", json=_body(grid, start, goal, method=method,
                                                           slice=50))
        try:
            want = make_solver(grid, method, progress=False)(start, goal)
        except WayfindingError as exc:
            assert str(exc) in _error(r, 400, "bad request")
            continue
        assert r.status_code == 200, r.text
        got = r.json()
        assert got["found"] and want.found and got["method"] == method
        assert got["cost"] == want.cost
        assert got["path"] == want.path.tolist()
        assert got["polyline"] == (want.path.dtype.kind == "f")
        assert got["slices"][-1]["expanded"] == want.stats.expanded


@pytest.mark.parametrize("method", [m for m in SLICED_METHODS if m != "bidirectional"])
def test_sliced_searches_give_each_slice_and_the_expansion_order(client: Any, weighted: Grid,
                                                                   method: str) -> None:
    start, goal = _corners(weighted)
    size = 30
    got = client.post("/playground/api/grid", json=_body(weighted, start, goal, method=method,
                                                         slice=size)).json()
    want = GridSearch(weighted).find_path(start, goal, method=method, record=True)
    slices = got["slices"]
    assert len(slices) == math.ceil(want.stats.expanded / size)
    assert [s["expanded"] for s in slices[:-1]] == [size * (i + 1) for i in range(len(slices) - 1)]
    assert slices[-1]["expanded"] == want.stats.expanded
    assert slices[-1]["generated"] == want.stats.generated
    assert all(a["elapsed"] <= b["elapsed"] for a, b in zip(slices, slices[1:]))
    assert got["expanded_nodes"] == want.expanded_nodes.tolist()
    assert got["open_nodes"] == want.open_nodes.tolist()


def test_walls_change_the_path(client: Any) -> None:
    open_grid = Grid(np.ones((10, 12)))
    costs = np.ones((10, 12))
    costs[0:8, 6] = np.inf
    walled = Grid(costs)
    a = client.post("/playground/api/grid", json=_body(open_grid, (0, 0), (11, 0))).json()
    b = client.post("/playground/api/grid", json=_body(walled, (0, 0), (11, 0))).json()
    assert a["cost"] == 11 and b["cost"] == GridSearch(walled).find_path((0, 0), (11, 0)).cost
    assert b["cost"] > a["cost"]


def test_an_unreachable_goal_is_an_answer(client: Any) -> None:
    costs = np.ones((5, 5))
    costs[:, 2] = np.inf
    got = client.post("/playground/api/grid", json=_body(Grid(costs), (0, 0), (4, 4))).json()
    assert got["found"] is False and got["cost"] is None and got["path"] == []


@pytest.mark.parametrize("radius", [0.0, 0.6])
def test_navmesh_equals_the_library(client: Any, radius: float) -> None:
    body = {**WORLD, "radius": radius, "start": [1, 6], "goal": [19, 6]}
    got = client.post("/playground/api/navmesh", json=body).json()
    outline = [(0, 0), (20, 0), (20, 12), (0, 12)]
    mesh = NavMesh.build(outline=outline, holes=OBSTACLES, radius=radius)
    want = mesh.find_path((1, 6), (19, 6))
    assert got["found"] and got["cost"] == want.cost
    assert got["path"] == want.path.tolist()
    assert got["corridor"] == want.corridor.tolist()
    assert got["polygons"] == [mesh.polygon(i).tolist() for i in range(mesh.num_polygons)]
    assert len(got["portals"]) == len(got["corridor"]) - 1
    for (a, b), p, q in zip(got["portals"], want.corridor, want.corridor[1:]):
        for polygon in (mesh.polygon(p).tolist(), mesh.polygon(q).tolist()):
            assert a in polygon and b in polygon


def test_the_radius_changes_the_navmesh_path(client: Any) -> None:
    paths = [client.post("/playground/api/navmesh", json={
        **WORLD, "radius": r, "start": [1, 6], "goal": [19, 6]}).json() for r in (0.0, 1.0)]
    assert paths[0]["path"] != paths[1]["path"] and paths[1]["cost"] > paths[0]["cost"]


@pytest.mark.parametrize("method", ["eikonal", "dijkstra"])
def test_flow_equals_the_library(client: Any, weighted: Grid, method: str) -> None:
    goal = _corners(weighted)[1]
    body = {"width": weighted.width, "height": weighted.height, "cells": _cells(weighted),
            "goal": list(goal), "method": method}
    got = client.post("/playground/api/flow", json=body).json()
    want = FlowField.build(weighted, [goal], method=method)
    assert np.array_equal(np.array(got["field"], dtype=float),
                          np.where(np.isfinite(want.field), want.field, np.nan), equal_nan=True)
    assert got["codes"] == want.codes.tolist()
    assert got["vectors"] == want.vectors.tolist()


def test_crowd_frames_equal_a_local_crowd(client: Any) -> None:
    agents = [{"position": [1, 3], "goal": [19, 3]}, {"position": [19, 3.2], "goal": [1, 3]},
              {"position": [10, 1], "goal": [10, 11], "radius": 0.3, "max_speed": 2}]
    got = client.post("/playground/api/crowd", json={**WORLD, "agents": agents, "frames": 30,
                                                     "dt": 0.2}).json()
    crowd = Crowd()
    for a in agents:
        crowd.add(a["position"], goal=a["goal"], radius=a.get("radius", 0.4),
                  max_speed=a.get("max_speed", 1.4))
    outline = [(0, 0), (20, 0), (20, 12), (0, 12)]
    orca = ORCA(time_horizon=2.0, time_horizon_obst=1.0,
                obstacles=NavMesh.build(outline=outline, holes=OBSTACLES))
    frames = []
    for _ in range(30):
        orca.step(crowd, 0.2)
        frames.append(crowd.position.tolist())
    assert got["frames"] == frames and got["dt"] == 0.2
    assert got["frames"][-1] != [a["position"] for a in agents]


def _grid_body(**change: Any) -> dict[str, Any]:
    body = {"width": 4, "height": 3, "cells": "." * 12, "start": [0, 0],
            "goal": [3, 2]}
    body.update(change)
    return {k: v for k, v in body.items() if v is not None}


BAD_GRIDS = {
    "width zero": (_grid_body(width=0), 400),
    "width a float": (_grid_body(width=4.0), 400),
    "cells too short": (_grid_body(cells="...."), 400),
    "cells a list": (_grid_body(cells=[1] * 12), 400),
    "a bad cell": (_grid_body(cells="....x......."), 400),
    "too many cells": (_grid_body(width=65, height=64, cells="." * 65 * 64), 413),
    "start outside": (_grid_body(start=[4, 0]), 400),
    "start not cells": (_grid_body(start=[0.5, 0]), 400),
    "goal missing": (_grid_body(goal=None), 400),
    "start on a wall": (_grid_body(cells="#..........."), 400),
    "unknown method": (_grid_body(method="teleport"), 400),
    "unknown diagonal": (_grid_body(diagonal="sometimes"), 400),
    "slice zero": (_grid_body(slice=0), 400),
    "jps on weights": (_grid_body(cells="...5........", method="jps"), 400),
    "too many slices": (_grid_body(width=60, height=60, cells="." * 3600, goal=[59, 59],
                                   method="dijkstra", slice=1), 422),
}


@pytest.mark.parametrize("case", BAD_GRIDS)
def test_bad_grid_requests(client: Any, case: str) -> None:
    body, status = BAD_GRIDS[case]
    detail = _error(client.post("/playground/api/grid", json=body), status)
    assert detail


@pytest.mark.parametrize("route", ["grid", "navmesh", "flow", "crowd"])
def test_bad_json_and_bodies(client: Any, route: str) -> None:
    url = f"/playground/api/{route}"
    _error(client.post(url, content=b"{nope"), 400, "bad JSON")
    _error(client.post(url, json=[1, 2]), 400, "bad JSON")
    _error(client.post(url, content=b"[" + b"0," * 10_000 + b"0]"), 413, "too large")
    assert client.get(url).status_code == 405


NAV = {**WORLD, "radius": 0.5, "start": [1, 6], "goal": [19, 6]}
BAD_NAVMESHES = {
    "a two-point obstacle": ({**NAV, "obstacles": [[[1, 1], [2, 2]]]}, 400),
    "an obstacle outside": ({**NAV, "obstacles": [[[1, 1], [30, 1], [2, 2]]]}, 400),
    "obstacles not a list": ({**NAV, "obstacles": {"a": 1}}, 400),
    "crossing obstacles": ({**NAV, "obstacles": [[[2, 2], [6, 2], [6, 6], [2, 6]],
                                                 [[4, 4], [8, 4], [8, 8], [4, 8]]]}, 400),
    "a bow-tie obstacle": ({**NAV, "obstacles": [[[2, 2], [6, 6], [6, 2], [2, 6]]]}, 400),
    "too many vertices": ({**NAV, "obstacles": [[[1 + i / 50, 1 + (i % 2) / 10]
                                                 for i in range(41)]]}, 413),
    "a negative radius": ({**NAV, "radius": -1}, 400),
    "a huge radius": ({**NAV, "radius": 7}, 400),
    "start NaN-like": ({**NAV, "start": ["a", 1]}, 400),
    "goal outside": ({**NAV, "goal": [25, 1]}, 400),
    "width zero": ({**NAV, "width": 0}, 400),
}


@pytest.mark.parametrize("case", BAD_NAVMESHES)
def test_bad_navmesh_requests(client: Any, case: str) -> None:
    body, status = BAD_NAVMESHES[case]
    assert _error(client.post("/playground/api/navmesh", json=body), status)


def test_bad_flow_requests(client: Any) -> None:
    body = _grid_body(start=None)
    assert _error(client.post("/playground/api/flow", json={**body, "method": "magic"}), 400,
                  "unknown method")
    assert _error(client.post("/playground/api/flow", json={**body, "goal": [9, 9]}), 400)
    assert _error(client.post("/playground/api/flow", json={**body, "cells": "#" * 12,
                                                            "goal": [0, 0]}), 400)


AGENT = {"position": [1, 1], "goal": [5, 5]}
BAD_CROWDS = {
    "no agents": ({**WORLD, "agents": []}, 400),
    "agents not a list": ({**WORLD, "agents": AGENT}, 400),
    "too many agents": ({**WORLD, "agents": [AGENT] * 21}, 413),
    "an agent not an object": ({**WORLD, "agents": [[1, 1]]}, 400),
    "an agent outside": ({**WORLD, "agents": [{"position": [30, 1], "goal": [1, 1]}]}, 400),
    "an agent without a goal": ({**WORLD, "agents": [{"position": [1, 1]}]}, 400),
    "a zero radius": ({**WORLD, "agents": [{**AGENT, "radius": 0}]}, 400),
    "too many frames": ({**WORLD, "agents": [AGENT], "frames": 51}, 400),
    "dt zero": ({**WORLD, "agents": [AGENT], "dt": 0}, 400),
}


@pytest.mark.parametrize("case", BAD_CROWDS)
def test_bad_crowd_requests(client: Any, case: str) -> None:
    body, status = BAD_CROWDS[case]
    assert _error(client.post("/playground/api/crowd", json=body), status)


@pytest.mark.parametrize("option", ["max_body_bytes", "max_cells", "max_slices", "max_agents",
                                    "max_frames", "max_obstacle_vertices"])
@pytest.mark.parametrize("value", [0, 2.5, "10"])
def test_bad_limits(option: str, value: Any) -> None:
    with pytest.raises(InvalidQueryError, match=option):
        playground_routes(**{option: value})


def test_the_json_answers_are_plain_json(client: Any, weighted: Grid) -> None:
    start, goal = _corners(weighted)
    r = client.post("/playground/api/grid", json=_body(weighted, start, goal))
    assert json.loads(r.text, parse_constant=lambda c: pytest.fail(f"{c} in the answer"))


def test_navmeshes_without_shapely_are_not_installed(client: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import wayfinding.navmesh.build as build

    def absent() -> None:
        raise ImportError("building a navigation mesh needs shapely")

    monkeypatch.setattr(build, "_shapely", absent)
    body = {**WORLD, "radius": 0.5, "start": [1, 6], "goal": [19, 6]}
    assert "shapely" in _error(client.post("/playground/api/navmesh", json=body), 501,
                               "not installed")
