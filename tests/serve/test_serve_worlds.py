"""The path service on every world kind, from a live uvicorn server on 127.0.0.1: navmesh,
clearance-mesh, navmesh3d and voxel paths, flow fields and crowd sessions answer as the
library answers the same inputs; every 4xx case, the limits and timeouts, the binary forms,
files recognised by suffix, and the same answers under parallel requests."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the [serve] extra (starlette) is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the [serve] extra (uvicorn) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx (the HTTP client of these tests) is absent")

from wayfinding.crowd import Navigator  # noqa: E402
from wayfinding.errors import FileFormatError, InvalidQueryError  # noqa: E402
from wayfinding.fields import FlowField  # noqa: E402
from wayfinding.grid.generate import random_obstacles  # noqa: E402
from wayfinding.grid.grid import Grid  # noqa: E402
from wayfinding.navmesh import ClearanceMesh, NavMesh, NavMeshQuery  # noqa: E402
from wayfinding.navmesh3d import (  # noqa: E402
    Level,
    NavMesh3D,
    NavMesh3DQuery,
    build,
    generate,
    with_flags,
)
from wayfinding.serve import Limits, create_app  # noqa: E402
from wayfinding.voxel import METHODS, VoxelGrid, find_voxel_path, read_3dmap, write_3dmap  # noqa: E402
from wayfinding.voxel import generate as voxels  # noqa: E402

OUTLINE = [(0, 0), (20, 0), (20, 20), (0, 20)]
HOLES = [[(4, 4), (9, 4), (9, 9), (4, 9)], [(12, 10), (16, 10), (16, 17), (12, 17)]]
LIMITS = Limits(max_body_bytes=8192, max_agents=6, max_steps=40, max_crowds=4)


class Live:
    """A live uvicorn server of ``create_app(worlds, **options)`` on 127.0.0.1, and its
    client."""

    def __init__(self, worlds: dict[str, Any], **options: Any):
        self.app = create_app(worlds, **options)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=0,
                                                    log_level="warning"))

    def __enter__(self) -> Any:
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20)
        return self.client

    def __exit__(self, *exc: Any) -> None:
        self.client.close()
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("worlds")
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES, radius=0.5)
    mesh.save(folder / "mesh.npz")
    level = build(generate.multi_storey())
    level.save(folder / "level.npz")
    write_3dmap(voxels.random_voxels((12, 10, 8), density=0.25, seed=5), folder / "sky.3dmap")
    return {"rocks": random_obstacles(30, 20, density=0.2, seed=3),
            "mesh": folder / "mesh.npz",
            "clear": ClearanceMesh.build(outline=OUTLINE, holes=HOLES),
            "level": folder / "level.npz", "sky": folder / "sky.3dmap"}


@pytest.fixture(scope="module")
def loaded(worlds: dict[str, Any]) -> dict[str, Any]:
    """The library's own objects for the worlds the server loads."""
    return {"rocks": worlds["rocks"], "mesh": NavMesh.load(worlds["mesh"]),
            "clear": worlds["clear"], "level": with_flags(NavMesh3D.load(worlds["level"])),
            "sky": read_3dmap(worlds["sky"])}


@pytest.fixture(scope="module")
def server(worlds: dict[str, Any]) -> Any:
    with Live(worlds, limits=LIMITS) as client:
        yield client


def _error(response: Any, status: int, error: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "detail"} and body["error"] == error, body
    return str(body["detail"])


def _mesh_points(n: int, seed: int) -> list[list[float]]:
    rng = np.random.default_rng(seed)
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES, radius=0.5)
    points = []
    while len(points) < n:
        p = rng.uniform(0, 20, 2)
        if mesh.locate(p) >= 0:
            points.append(p.round(3).tolist())
    return points


def _free_voxels(grid: VoxelGrid, n: int, seed: int) -> list[list[int]]:
    free = np.argwhere(~grid.blocked)[:, ::-1]      # (x, y, z)
    pick = np.random.default_rng(seed).choice(len(free), n, replace=False)
    return free[pick].tolist()


def _free_cells(grid: Grid, n: int, seed: int) -> list[list[int]]:
    ys, xs = np.nonzero(grid.passable)
    pick = np.random.default_rng(seed).choice(len(xs), n, replace=False)
    return [[int(xs[i]), int(ys[i])] for i in pick]


def _binary(response: Any) -> np.ndarray:
    assert response.status_code in (200, 201), response.text
    assert response.headers["content-type"] == "application/octet-stream"
    shape = tuple(int(v) for v in response.headers["x-shape"].split(","))
    return np.frombuffer(response.content, dtype=np.dtype(response.headers["x-dtype"])
                         ).reshape(shape)


BINARY = {"Accept": "application/octet-stream"}


def test_worlds_lists_every_kind(server: Any) -> None:
    got = {w["name"]: w for w in server.get("/worlds").json()["worlds"]}
    assert [got[n]["kind"] for n in ("rocks", "mesh", "clear", "level", "sky")] == [
        "grid", "navmesh", "navmesh", "navmesh3d", "voxel"]
    assert got["mesh"]["queries"] == ["path", "crowds"] and got["clear"]["queries"] == ["path"]
    assert got["level"]["queries"] == got["sky"]["queries"] == ["path"]
    assert got["mesh"]["methods"] == ["astar", "polyanya"]
    assert got["clear"]["methods"] == ["clearance"]
    assert got["sky"]["methods"] == list(METHODS) and got["sky"]["size"] == [12, 10, 8]
    assert got["level"]["polygons"] > 1


@pytest.mark.parametrize("method", ["astar", "polyanya"])
def test_navmesh_paths_equal_the_library(server: Any, loaded: dict[str, Any],
                                         method: str) -> None:
    mesh = loaded["mesh"]
    query = NavMeshQuery(mesh)
    points = _mesh_points(8, seed=len(method))
    for start, goal in zip(points[::2], points[1::2]):
        r = server.post("/worlds/mesh/path", json={"start": start, "goal": goal,
                                                   "method": method, "corridor": True})
        assert r.status_code == 200, r.text
        got, want = r.json(), query.find_path(start, goal, method=method)
        assert got["path"] == want.path.tolist() and got["cost"] == want.cost
        assert got["found"] is True and got["status"] == want.status.value
        assert got["stats"]["expanded"] == want.stats.expanded
        assert got["corridor"] == want.corridor.tolist()
        for (a, b), p, q in zip(got["portals"], want.corridor[:-1], want.corridor[1:]):
            for polygon in (p, q):      # each portal is an edge of both its polygons
                corners = mesh.vertices[mesh.polygons[polygon, :mesh.sizes[polygon]]].tolist()
                assert a in corners and b in corners
            ahead = np.subtract(mesh.centroids()[q], mesh.centroids()[p])
            assert np.linalg.det([ahead, np.subtract(b, a)]) > 0     # b on the walker's left
    assert "corridor" not in server.post("/worlds/mesh/path", json={
        "start": points[0], "goal": points[1]}).json()


def test_navmesh_points_off_the_mesh_snap_as_the_library(server: Any,
                                                         loaded: dict[str, Any]) -> None:
    want = NavMeshQuery(loaded["mesh"]).find_path((6.5, 6.5), (25, 3))
    got = server.post("/worlds/mesh/path", json={"start": [6.5, 6.5], "goal": [25, 3]}).json()
    assert got["snapped_start"] is got["snapped_goal"] is True
    assert got["start"] == want.start.tolist() and got["path"] == want.path.tolist()


@pytest.mark.parametrize("radius", [0.0, 0.8])
def test_clearance_paths_equal_the_library(server: Any, loaded: dict[str, Any],
                                           radius: float) -> None:
    points = _mesh_points(6, seed=11)
    for start, goal in zip(points[::2], points[1::2]):
        r = server.post("/worlds/clear/path", json={"start": start, "goal": goal,
                                                    "radius": radius, "corridor": True})
        assert r.status_code == 200, r.text
        want = loaded["clear"].find_path(start, goal, radius=radius)
        got = r.json()
        assert got["path"] == want.path.tolist() and got["found"] is want.found
        assert got["cost"] == (want.cost if want.found else None)
        assert got["reason"] == want.reason and got["channel"] == want.channel.tolist()


def test_navmesh3d_paths_equal_the_library(server: Any, loaded: dict[str, Any]) -> None:
    query = NavMesh3DQuery(loaded["level"])
    rng = np.random.default_rng(2)
    for _ in range(4):
        start, goal = (list(query.random_point(rng=rng)[1]) for _ in range(2))
        r = server.post("/worlds/level/path", json={"start": start, "goal": goal,
                                                    "corridor": True})
        assert r.status_code == 200, r.text
        got, want = r.json(), query.find_path(start, goal)
        assert got["path"] == want.path.tolist() and got["cost"] == want.cost
        assert got["found"] is want.found is True and got["corridor"] == want.corridor.tolist()
        assert got["start"] == list(want.start) and got["goal"] == list(want.goal)
        assert got["stats"]["expanded"] == want.stats.expanded


@pytest.mark.parametrize("method", list(METHODS))
def test_voxel_paths_equal_the_library(server: Any, loaded: dict[str, Any],
                                       method: str) -> None:
    grid = loaded["sky"]
    cells = _free_voxels(grid, 6, seed=len(method))
    for start, goal in zip(cells[::2], cells[1::2]):
        r = server.post("/worlds/sky/path", json={"start": start, "goal": goal,
                                                  "method": method})
        assert r.status_code == 200, r.text
        got, want = r.json(), find_voxel_path(grid, start, goal, method=method)
        assert got["path"] == want.path.tolist() and got["found"] is want.found
        assert got["cost"] == (want.cost if want.found else None)
        assert got["stats"]["expanded"] == want.stats.expanded


@pytest.mark.parametrize("method", ["eikonal", "dijkstra"])
def test_flow_fields_equal_the_library(server: Any, loaded: dict[str, Any],
                                       method: str) -> None:
    grid = loaded["rocks"]
    goals = _free_cells(grid, 2, seed=4)
    want = FlowField.build(grid, [tuple(g) for g in goals], method=method)
    body = {"goals": goals, "method": method}
    got = server.post("/worlds/rocks/flow", json=body).json()
    assert got["shape"] == [20, 30] and got["codes"] == want.codes.tolist()
    field = np.array([[np.inf if v is None else v for v in row] for row in got["field"]])
    np.testing.assert_array_equal(field, want.field)
    assert np.isinf(want.field).any()               # the null form is exercised
    y, x = np.argwhere(want.codes < got["goal"])[0]     # a code steps by its direction
    dx, dy = got["directions"][want.codes[y, x]]
    assert want.field[y + dy, x + dx] < want.field[y, x]
    codes = _binary(server.post("/worlds/rocks/flow", json=body, headers=BINARY))
    assert codes.dtype == np.uint8 and np.array_equal(codes, want.codes)
    field = _binary(server.post("/worlds/rocks/flow", json={**body, "array": "field"},
                                headers=BINARY))
    assert field.dtype == np.float64 and np.array_equal(field, want.field)


def test_distance_map_binary_names_its_dtype(server: Any, loaded: dict[str, Any]) -> None:
    from wayfinding import distance_map

    sources = _free_cells(loaded["rocks"], 2, seed=8)
    got = _binary(server.post("/worlds/rocks/distance", json={"sources": sources},
                              headers=BINARY))
    assert got.dtype == np.dtype("<f8")
    np.testing.assert_array_equal(got, distance_map(loaded["rocks"],
                                                    [tuple(s) for s in sources]))


def _agents(world: str, loaded: dict[str, Any]) -> list[dict[str, Any]]:
    if world == "rocks":
        cells = np.array(_free_cells(loaded["rocks"], 8, seed=6)) + 0.5
        return [{"position": a.tolist(), "goal": b.tolist(), "max_speed": 1.0 + i / 4}
                for i, (a, b) in enumerate(zip(cells[::2], cells[1::2]))]
    points = _mesh_points(8, seed=6)
    return [{"position": a, "goal": b, "radius": 0.4} for a, b in zip(points[::2], points[1::2])]


def _navigator(world: str, loaded: dict[str, Any]) -> Navigator:
    """A local navigator with the agents of :func:`_agents`, as the service makes one."""
    nav = Navigator(loaded[world])
    for a in _agents(world, loaded):
        nav.add(a["position"], target=a["goal"],
                **{k: v for k, v in a.items() if k not in ("position", "goal")})
    return nav


@pytest.mark.parametrize("world", ["rocks", "mesh"])
def test_crowds_step_as_a_local_navigator(server: Any, loaded: dict[str, Any],
                                          world: str) -> None:
    agents = _agents(world, loaded)
    r = server.post(f"/worlds/{world}/crowds", json={"agents": agents})
    assert r.status_code == 201, r.text
    crowd = r.json()
    assert crowd["steps"] == 0 and crowd["ids"] == [0, 1, 2, 3]
    assert crowd["position"] == [a["position"] for a in agents]
    key = crowd["id"]
    nav = _navigator(world, loaded)
    for steps, dt in ((5, 0.1), (7, 0.25)):
        r = server.post(f"/crowds/{key}/step", json={"steps": steps, "dt": dt})
        assert r.status_code == 200, r.text
        for _ in range(steps):
            nav.update(dt)
    nav.update(0.1)
    assert np.array_equal(_binary(server.post(f"/crowds/{key}/step", json={},
                                              headers=BINARY)), nav.crowd.position)
    got = server.get(f"/crowds/{key}").json()
    assert got["steps"] == 13 and got["time"] == pytest.approx(2.35)
    assert got["position"] == nav.crowd.position.tolist()
    assert got["velocity"] == nav.crowd.velocity.tolist()
    assert got["state"] == [nav.state(a) for a in nav.crowd.ids]
    assert "moving" in got["state"] and got["position"] != crowd["position"]
    assert np.array_equal(_binary(server.get(f"/crowds/{key}", headers=BINARY)),
                          nav.crowd.position)
    assert server.delete(f"/crowds/{key}").status_code == 204
    _error(server.get(f"/crowds/{key}"), 404, "unknown crowd")
    _error(server.delete(f"/crowds/{key}"), 404, "unknown crowd")


@pytest.mark.parametrize("route, world, body, query", [
    ("distance", "mesh", {"sources": [[1, 1]]}, "distance"),
    ("flow", "sky", {"goals": [[1, 1]]}, "flow"),
    ("crowds", "level", {"agents": [{"position": [1, 1]}]}, "crowds"),
    ("crowds", "clear", {"agents": [{"position": [1, 1]}]}, "crowds"),
    ("crowds", "sky", {"agents": [{"position": [1, 1]}]}, "crowds"),
])
def test_queries_a_kind_does_not_answer_are_400(server: Any, route: str, world: str,
                                                body: dict[str, Any], query: str) -> None:
    detail = _error(server.post(f"/worlds/{world}/{route}", json=body), 400,
                    "unsupported query")
    assert f"world {world!r} is a" in detail and f"not {query}" in detail


@pytest.mark.parametrize("world, body, error, detail", [
    ("mesh", {"start": [1, 1], "goal": [1, "x"]}, "bad coordinates", "goal"),
    ("mesh", {"start": [1, 1, 1], "goal": [1, 1]}, "bad coordinates", "start"),
    ("mesh", {"start": [1, 1], "goal": [2, 2], "method": "clearance"}, "unknown method",
     "'mesh'"),
    ("mesh", {"start": [1, 1], "goal": [2, 2], "partial": 1}, "bad request", "partial"),
    ("mesh", {"start": [1, 1], "goal": [2, 2], "corridor": "yes"}, "bad request", "corridor"),
    ("clear", {"start": [1, 1], "goal": [30, 2]}, "bad coordinates", "not on the walkable"),
    ("clear", {"start": [1, 1], "goal": [2, 2], "radius": -1}, "bad request", "radius"),
    ("level", {"start": [1, 1], "goal": [2, 2, 2]}, "bad coordinates", "start"),
    ("sky", {"start": [0, 0], "goal": [1, 1, 1]}, "bad coordinates", "start must be [x, y, z]"),
    ("sky", {"start": [12, 0, 0], "goal": [1, 1, 1]}, "bad coordinates", "outside the 12x10x8"),
])
def test_bad_path_requests_are_400(server: Any, world: str, body: dict[str, Any], error: str,
                                   detail: str) -> None:
    assert detail in _error(server.post(f"/worlds/{world}/path", json=body), 400, error)


def test_blocked_voxels_and_unknown_methods_are_400(server: Any, loaded: dict[str, Any]) -> None:
    x, y, z = np.argwhere(loaded["sky"].blocked)[0][::-1].tolist()
    free = _free_voxels(loaded["sky"], 1, seed=0)[0]
    assert "is a blocked voxel" in _error(server.post("/worlds/sky/path", json={
        "start": free, "goal": [x, y, z]}), 400, "bad coordinates")
    assert "on world 'sky'" in _error(server.post("/worlds/sky/path", json={
        "start": free, "goal": free, "method": "jps"}), 400, "unknown method")


@pytest.mark.parametrize("body, error, detail", [
    ({"goals": []}, "bad coordinates", "goals must be a non-empty list"),
    ({"goals": [[0, 0, 0]]}, "bad coordinates", "goals[0] must be [x, y]"),
    ({"goals": [[1, 1]], "method": "bfs"}, "bad request", "method \"bfs\""),
    ({"goals": [[1, 1]], "array": "vectors"}, "bad request", "array \"vectors\""),
])
def test_bad_flow_requests_are_400(server: Any, loaded: dict[str, Any], body: dict[str, Any],
                                   error: str, detail: str) -> None:
    if body["goals"] == [[1, 1]]:
        body = {**body, "goals": _free_cells(loaded["rocks"], 1, seed=1)}
    assert detail in _error(server.post("/worlds/rocks/flow", json=body), 400, error)


@pytest.mark.parametrize("agents, detail", [
    ([], "agents must be a non-empty list"),
    ("x", "agents must be a non-empty list"),
    ([{"goal": [1, 1]}], "agents[0] must be an object with position"),
    ([{"position": [1, 1], "colour": 3}], "agents[0] must be an object"),
    ([{"position": [1, "a"]}], "agents[0].position"),
    ([{"position": [1, 1], "goal": [1]}], "agents[0].goal"),
    ([{"position": [1, 1], "radius": 0}], "agents[0].radius"),
    ([{"position": [1, 1], "max_speed": True}], "agents[0].max_speed"),
    ([{"position": [-50, 28.5]}], "agents[0].position [-50.0, 28.5] is off the walkable"),
    ([{"position": [1e300, 28.5]}], "agents[0].position [1e+300, 28.5] is off the walkable"),
])
def test_bad_crowds_are_400(server: Any, agents: Any, detail: str) -> None:
    assert detail in _error(server.post("/worlds/rocks/crowds", json={"agents": agents}), 400,
                            "bad request")


def test_agents_in_walls_or_off_the_world_are_400(server: Any, loaded: dict[str, Any]) -> None:
    y, x = np.argwhere(~loaded["rocks"].passable)[0].tolist()
    agents = [{"position": [x + 0.5, y + 0.5]}]
    assert "is off the walkable world" in _error(
        server.post("/worlds/rocks/crowds", json={"agents": agents}), 400, "bad request")
    assert "is off the walkable world" in _error(
        server.post("/worlds/mesh/crowds", json={"agents": [{"position": [-1e6, 5.0]}]}),
        400, "bad request")


def test_bad_steps_and_unknown_crowds_are_4xx(server: Any, loaded: dict[str, Any]) -> None:
    key = server.post("/worlds/rocks/crowds", json={"agents": _agents("rocks", loaded)}
                      ).json()["id"]
    try:
        for body, detail in (({"steps": 0}, "steps 0"), ({"steps": 1.5}, "steps 1.5"),
                             ({"dt": 0}, "dt 0"), ({"dt": "x"}, "dt 'x'"),
                             ({"dt": 1e308}, "dt 1e+308"), ({"dt": 1.5}, "dt 1.5")):
            assert detail in _error(server.post(f"/crowds/{key}/step", json=body), 400,
                                    "bad request")
        assert "over the limit of 40" in _error(server.post(
            f"/crowds/{key}/step", json={"steps": 41}), 422, "too many steps")
        _error(server.post(f"/crowds/{key}/step", content=b"{"), 400, "bad JSON")
        _error(server.post(f"/crowds/{key}/step", content=b"[" * 2000 + b"]" * 2000), 400,
               "bad JSON")
        _error(server.post(f"/crowds/{key}/step", json={"pad": "x" * 9000}), 413, "too large")
        _error(server.post("/worlds/rocks/crowds", json={"agents": [{"position": [1, 1]}] * 700}),
               413, "too large")
        assert server.get(f"/crowds/{key}").json()["steps"] == 0      # nothing changed
    finally:
        server.delete(f"/crowds/{key}")
    _error(server.post("/crowds/nope/step", json={}), 404, "unknown crowd")
    _error(server.post("/worlds/atlantis/crowds", json={"agents": []}), 404, "unknown world")
    assert server.put(f"/crowds/{key}").status_code == 405


def test_a_crowd_stepping_for_another_request_is_409(worlds: dict[str, Any],
                                                     loaded: dict[str, Any]) -> None:
    live = Live({"rocks": worlds["rocks"]})
    service = live.app.routes[0].endpoint.__self__
    with live as client:
        key = client.post("/worlds/rocks/crowds", json={"agents": _agents("rocks", loaded)}
                          ).json()["id"]
        busy = service.crowds.get(key).busy
        with busy:
            _error(client.post(f"/crowds/{key}/step", json={}), 409, "crowd busy")
        assert client.post(f"/crowds/{key}/step", json={}).status_code == 200


def test_crowd_limits_are_422_and_429(worlds: dict[str, Any], loaded: dict[str, Any]) -> None:
    agents = _agents("rocks", loaded)
    with Live({"rocks": worlds["rocks"]}, limits=Limits(max_agents=3, max_crowds=2,
                                                        crowd_idle_seconds=0.5)) as client:
        assert "4 agents, over the limit of 3" in _error(client.post(
            "/worlds/rocks/crowds", json={"agents": agents}), 422, "too many agents")
        keys = [client.post("/worlds/rocks/crowds", json={"agents": agents[:3]}).json()["id"]
                for _ in range(2)]
        assert "2 crowds are live" in _error(client.post(
            "/worlds/rocks/crowds", json={"agents": agents[:1]}), 429, "too many crowds")
        assert client.delete(f"/crowds/{keys[0]}").status_code == 204
        r = client.post("/worlds/rocks/crowds", json={"agents": agents[:1]})
        assert r.status_code == 201
        time.sleep(0.6)                                 # both idle past their expiry
        _error(client.get(f"/crowds/{keys[1]}"), 404, "unknown crowd")
        for _ in range(2):
            assert client.post("/worlds/rocks/crowds", json={"agents": agents[:1]}
                               ).status_code == 201


def test_fields_over_the_cell_budget_are_422(worlds: dict[str, Any]) -> None:
    grid = worlds["rocks"]
    goal = _free_cells(grid, 1, seed=2)
    for cells, status in ((599, 422), (600, 200)):
        with Live({"rocks": grid}, limits=Limits(max_field_cells=cells)) as client:
            for route, body in (("distance", {"sources": goal}), ("flow", {"goals": goal})):
                r = client.post(f"/worlds/rocks/{route}", json=body)
                if status == 422:
                    assert "600 cells, more than the limit of 599" in _error(
                        r, 422, "field too large")
                else:
                    assert r.status_code == 200


def test_expansion_budget_holds_on_every_kind(loaded: dict[str, Any]) -> None:
    points = [[1.0, 1.0], [18.5, 18.5]]
    q3 = NavMesh3DQuery(loaded["level"])
    rng = np.random.default_rng(5)
    while True:             # two points joined by a path over several polygons
        ends3 = [list(q3.random_point(rng=rng)[1]) for _ in range(2)]
        if q3.find_path(*ends3).found and q3.find_path(*ends3).stats.expanded > 2:
            break
    sky = _free_voxels(loaded["sky"], 2, seed=1)
    cases = {"mesh": ({"start": points[0], "goal": points[1]},
                      NavMeshQuery(loaded["mesh"]).find_path(*points)),
             "level": ({"start": ends3[0], "goal": ends3[1]}, q3.find_path(*ends3)),
             "sky": ({"start": sky[0], "goal": sky[1]}, find_voxel_path(loaded["sky"], *sky))}
    for name, (body, want) in cases.items():
        need = want.stats.expanded
        assert need > 1, name
        with Live({name: loaded[name]}, limits=Limits(max_expansions=need - 1)) as client:
            detail = _error(client.post(f"/worlds/{name}/path", json=body), 422,
                            "out of budget")
        assert detail.endswith(f"the limit of {need - 1} per request") if name != "level" \
            else f"made {need - 1} expansions, the limit" in detail    # level: sliced
        with Live({name: loaded[name]}, limits=Limits(max_expansions=need)) as client:
            assert client.post(f"/worlds/{name}/path", json=body).json()["cost"] == want.cost


def test_requests_past_the_deadline_are_503(loaded: dict[str, Any]) -> None:
    open_grid = Grid.from_ascii("\n".join(["." * 400] * 300))
    sky = _free_voxels(loaded["sky"], 2, seed=1)
    worlds = {"open": open_grid, "sky": loaded["sky"], "mesh": loaded["mesh"],
              "level": loaded["level"]}
    with Live(worlds, limits=Limits(max_seconds=1e-9)) as client:
        _error(client.post("/worlds/mesh/path", json={"start": [1, 1], "goal": [18, 18]}),
               503, "timed out")
        _error(client.post("/worlds/level/path", json={"start": [1, 0, 1], "goal": [9, 0, 9]}),
               503, "timed out")
        for method in ("dijkstra", "jps"):      # stopped in slices; checked when it ends
            assert "the search ran past the limit of 1e-09 s" in _error(client.post(
                "/worlds/open/path", json={"start": [0, 0], "goal": [399, 299],
                                           "method": method}), 503, "timed out")
        _error(client.post("/worlds/sky/path", json={"start": sky[0], "goal": sky[1]}), 503,
               "timed out")
        _error(client.post("/worlds/open/distance", json={"sources": [[0, 0]]}), 503,
               "timed out")
        _error(client.post("/worlds/open/flow", json={"goals": [[0, 0]]}), 503, "timed out")
        key = client.post("/worlds/mesh/crowds", json={"agents": [{"position": [1, 1]}]}
                          ).json()["id"]
        assert "made 0 of 3 steps" in _error(client.post(
            f"/crowds/{key}/step", json={"steps": 3}), 503, "timed out")


@pytest.mark.parametrize("name", ["max_body_bytes", "max_cells", "max_expansions",
                                  "max_seconds", "max_field_cells", "max_agents", "max_steps",
                                  "max_crowds", "crowd_idle_seconds"])
@pytest.mark.parametrize("value", [0, -1, "3", None, True, float("nan")])
def test_every_limit_is_checked(name: str, value: Any) -> None:
    with pytest.raises(InvalidQueryError, match=f"Limits.{name}"):
        Limits(**{name: value})


def test_time_limits_take_floats_and_counts_take_ints() -> None:
    assert Limits(max_seconds=0.5, crowd_idle_seconds=2).max_seconds == 0.5
    with pytest.raises(InvalidQueryError, match="Limits.max_steps must be a positive int"):
        Limits(max_steps=2.0)  # type: ignore[arg-type]


def test_worlds_load_by_suffix_or_refuse_clearly(tmp_path: Path,
                                                 worlds: dict[str, Any]) -> None:
    VoxelGrid(np.zeros((2, 3, 4), bool)).save(tmp_path / "box.npz")
    ClearanceMesh.build(outline=OUTLINE).save(tmp_path / "wide.npz")
    generate.stairs().to_obj(tmp_path / "stairs.obj")
    app = create_app({"box": tmp_path / "box.npz", "wide": str(tmp_path / "wide.npz"),
                      "level": build(generate.floor()), "floor": generate.floor(),
                      "stairs": tmp_path / "stairs.obj"})
    service = app.routes[0].endpoint.__self__
    assert [w.kind for w in service.worlds.values()] == [
        "voxel", "navmesh", "navmesh3d", "navmesh3d", "navmesh3d"]
    stairs = NavMesh3DQuery(with_flags(build(Level.read(tmp_path / "stairs.obj"))))
    a, b = (1.5, 0.0, 0.3), (1.5, 1.6, 3.8)
    with Live({"stairs": tmp_path / "stairs.obj"}) as client:
        got = client.post("/worlds/stairs/path", json={"start": a, "goal": b}).json()
    want = stairs.find_path(a, b)
    assert got["path"] == want.path.tolist() and got["found"] is want.found is True
    np.save(tmp_path / "plain.npy", np.zeros(3))
    (tmp_path / "odd.txt").write_text("v 0 0 0\n")
    with pytest.raises(InvalidQueryError, match="unknown world file suffix '.txt'"):
        create_app({"odd": tmp_path / "odd.txt"})
    (tmp_path / "odd.obj").write_text("v 0 0 0\n")
    with pytest.raises(FileFormatError, match="odd.obj: no faces"):
        create_app({"odd": tmp_path / "odd.obj"})
    with pytest.raises(InvalidQueryError, match="unknown world file suffix '.npy'"):
        create_app({"plain": tmp_path / "plain.npy"})
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    with pytest.raises(FileFormatError, match="other.npz"):
        create_app({"other": tmp_path / "other.npz"})
    with pytest.raises(FileFormatError, match="file not found"):
        create_app({"gone": tmp_path / "gone.npz"})
    with pytest.raises(InvalidQueryError, match="65536 voxels, more than the limit of 1000"):
        create_app({"big": VoxelGrid(np.zeros((16, 64, 64), bool))},
                   limits=Limits(max_cells=1000))
    with pytest.raises(InvalidQueryError, match="a navmesh world: only grid worlds"):
        create_app({"mesh": worlds["mesh"]}, indexed={"mesh": ["jps_plus"]})


def test_parallel_requests_on_every_kind_answer_as_serial(server: Any,
                                                          loaded: dict[str, Any]) -> None:
    points = _mesh_points(8, seed=9)
    sky = _free_voxels(loaded["sky"], 8, seed=9)
    cells = _free_cells(loaded["rocks"], 8, seed=9)
    q3 = NavMesh3DQuery(loaded["level"])
    rng = np.random.default_rng(9)
    level = [list(q3.random_point(rng=rng)[1]) for _ in range(8)]
    asks = [(f"/worlds/{w}/path", {"start": a, "goal": b, **extra})
            for w, ends, extra in (("mesh", points, {"method": "polyanya"}),
                                   ("mesh", points, {}), ("sky", sky, {}),
                                   ("sky", sky, {"method": "theta"}), ("level", level, {}),
                                   ("rocks", cells, {}), ("clear", points, {"radius": 0.3}))
            for a, b in zip(ends[::2], ends[1::2])]
    asks.append(("/worlds/rocks/flow", {"goals": cells[:2]}))

    def ask(item: tuple[str, dict[str, Any]]) -> Any:
        r = server.post(item[0], json=item[1])
        return r.status_code, json.dumps({k: v for k, v in r.json().items() if k != "stats"})

    serial = [ask(a) for a in asks]
    with ThreadPoolExecutor(16) as pool:
        parallel = list(pool.map(ask, asks))
    assert parallel == serial and all(code == 200 for code, _ in serial)


def test_crowds_stepped_in_parallel_step_as_local_navigators(server: Any,
                                                             loaded: dict[str, Any]) -> None:
    worlds = ["rocks", "mesh", "rocks", "mesh"]
    keys = [server.post(f"/worlds/{w}/crowds", json={"agents": _agents(w, loaded)}).json()["id"]
            for w in worlds]

    def step(key: str) -> Any:
        for _ in range(4):
            r = server.post(f"/crowds/{key}/step", json={"steps": 5})
        return r.json()["position"]

    try:
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(step, keys))
    finally:
        for key in keys:
            server.delete(f"/crowds/{key}")
    for world, positions in zip(worlds, got):
        nav = _navigator(world, loaded)
        for _ in range(20):
            nav.update(0.1)
        assert positions == nav.crowd.position.tolist()
