"""The path service answers over HTTP from a live uvicorn server on 127.0.0.1: every route,
the same paths and distance maps as the library, every 4xx case, the binary distance map,
and the same answers under 20 parallel requests."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from live_server import free_port, live_server

pytest.importorskip("starlette", reason="the [serve] extra (starlette) is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the [serve] extra (uvicorn) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx (the HTTP client of these tests) is absent")

from wayfinding import distance_map, find_path  # noqa: E402
from wayfinding.errors import InvalidQueryError  # noqa: E402
from wayfinding.grid.generate import maze, random_obstacles  # noqa: E402
from wayfinding.grid.grid import Grid  # noqa: E402
from wayfinding.grid.methods import PREPROCESSED, make_solver  # noqa: E402
from wayfinding.grid.movingai import read_map, write_map  # noqa: E402
from wayfinding.grid.search import GridSearch  # noqa: E402
from wayfinding.navmesh import NavMesh  # noqa: E402
from wayfinding.serve import SLICED_METHODS, WHOLE_METHODS, Limits, create_app  # noqa: E402
from wayfinding.voxel import VoxelGrid, find_voxel_path, write_3dmap  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
INDEXED = ("jps_plus", "subgoal", "astar_gb", "hpa")


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("maps")
    path = write_map(random_obstacles(40, 30, density=0.3, seed=4), folder / "rocks.map")
    return {"maze": maze(31, 21, seed=2), "rocks": path,
            "cut": Grid.from_ascii("....\n.#..\n....", diagonal="always")}


@pytest.fixture(scope="module")
def server(worlds: dict[str, Any]) -> Any:
    app = create_app(worlds, limits=Limits(max_body_bytes=4096, max_expansions=5000),
                     indexed={"rocks": INDEXED})
    with live_server(app) as url, httpx.Client(base_url=url, timeout=10) as client:
        yield client


def _grid(worlds: dict[str, Any], name: str) -> Grid:
    w = worlds[name]
    return w if isinstance(w, Grid) else read_map(w)


def _free_cells(grid: Grid, count: int, seed: int) -> list[list[int]]:
    ys, xs = np.nonzero(grid.passable)
    pick = np.random.default_rng(seed).choice(len(xs), count, replace=False)
    return [[int(xs[i]), int(ys[i])] for i in pick]


def _error(response: Any, status: int, error: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "detail"} and body["error"] == error
    return str(body["detail"])


def test_worlds_lists_names_and_sizes(server: Any) -> None:
    r = server.get("/worlds")
    assert r.status_code == 200
    every = [*SLICED_METHODS, *WHOLE_METHODS]
    grid = {"kind": "grid", "queries": ["path", "distance", "flow", "crowds"]}
    assert r.json() == {"worlds": [
        {"name": "maze", **grid, "width": 31, "height": 21, "diagonal": "no_corner_cutting",
         "methods": every},
        {"name": "rocks", **grid, "width": 40, "height": 30, "diagonal": "no_corner_cutting",
         "methods": [*every, *INDEXED]},
        {"name": "cut", **grid, "width": 4, "height": 3, "diagonal": "always",
         "methods": every}]}


@pytest.mark.parametrize("name", ["maze", "rocks", "cut"])
@pytest.mark.parametrize("method", SLICED_METHODS)
def test_paths_equal_the_library(server: Any, worlds: dict[str, Any], name: str,
                                 method: str) -> None:
    grid = _grid(worlds, name)
    cells = _free_cells(grid, 6, seed=len(method))
    for start, goal in zip(cells[::2], cells[1::2]):
        r = server.post(f"/worlds/{name}/path", json={"start": start, "goal": goal,
                                                       "method": method})
        assert r.status_code == 200, r.text
        got = r.json()
        want = find_path(grid, tuple(start), tuple(goal), method=method)
        assert got["path"] == want.path.tolist()
        assert got["found"] is want.found and got["status"] == want.status.value
        assert got["cost"] == (want.cost if want.found else None)
        assert got["stats"]["expanded"] == want.stats.expanded


@pytest.mark.parametrize("method", [*WHOLE_METHODS, *INDEXED])
def test_whole_and_indexed_methods_equal_the_library(server: Any, worlds: dict[str, Any],
                                                     method: str) -> None:
    grid = _grid(worlds, "rocks")
    solver = make_solver(grid, method)
    cells = _free_cells(grid, 6, seed=21)
    for start, goal in zip(cells[::2], cells[1::2]):
        r = server.post("/worlds/rocks/path", json={"start": start, "goal": goal,
                                                    "method": method})
        assert r.status_code == 200, r.text
        want = solver(tuple(start), tuple(goal))
        got = r.json()
        assert got["path"] == want.path.tolist() and got["found"] is want.found
        assert got["cost"] == (want.cost if want.found else None)


def test_index_methods_answer_only_where_indexed(server: Any, worlds: dict[str, Any]) -> None:
    a, b = _free_cells(_grid(worlds, "maze"), 2, seed=3)
    assert "on world 'maze'" in _error(server.post("/worlds/maze/path", json={
        "start": a, "goal": b, "method": "jps_plus"}), 400, "unknown method")
    with pytest.raises(InvalidQueryError, match="'nope' of world 'maze' is not one of"):
        create_app({"maze": worlds["maze"]}, indexed={"maze": ["nope"]})
    with pytest.raises(InvalidQueryError, match="world 'moon', which is not loaded"):
        create_app({"maze": worlds["maze"]}, indexed={"moon": ["jps_plus"]})
    assert set(INDEXED) < set(PREPROCESSED)


def test_unreachable_goal_is_found_false_with_null_cost() -> None:
    grid = Grid.from_ascii("..#..\n..#..")
    app_worlds = {"wall": grid}
    assert find_path(grid, (0, 0), (4, 0)).found is False
    with _run(app_worlds) as client:
        r = client.post("/worlds/wall/path", json={"start": [0, 0], "goal": [4, 0]})
    assert r.status_code == 200
    assert r.json()["found"] is False and r.json()["cost"] is None and r.json()["path"] == []


@contextmanager
def _run(worlds: dict[str, Any], limits: Limits | None = None) -> Iterator[Any]:
    """A second live server for one test."""
    app = create_app(worlds, limits=limits or Limits())
    with live_server(app) as url, httpx.Client(base_url=url) as client:
        yield client


@pytest.mark.parametrize("name", ["maze", "rocks", "cut"])
def test_distance_maps_equal_the_library(server: Any, worlds: dict[str, Any],
                                         name: str) -> None:
    grid = _grid(worlds, name)
    sources = _free_cells(grid, 2, seed=7)
    want = distance_map(grid, [tuple(s) for s in sources])
    r = server.post(f"/worlds/{name}/distance", json={"sources": sources})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["shape"] == list(want.shape)
    got = np.array([[np.inf if v is None else v for v in row] for row in body["distance"]])
    np.testing.assert_array_equal(got, want)
    assert np.isinf(want).any() or name == "cut"    # the null form is exercised


def test_distance_map_binary_round_trip(server: Any, worlds: dict[str, Any]) -> None:
    grid = _grid(worlds, "rocks")
    sources = _free_cells(grid, 3, seed=1)
    r = server.post("/worlds/rocks/distance", json={"sources": sources},
                    headers={"Accept": "application/octet-stream"})
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/octet-stream"
    shape = tuple(int(v) for v in r.headers["x-shape"].split(","))
    got = np.frombuffer(r.content, dtype="<f8").reshape(shape)
    np.testing.assert_array_equal(got, distance_map(grid, [tuple(s) for s in sources]))


def test_openapi_schema_names_every_route(server: Any) -> None:
    r = server.get("/openapi.json")
    assert r.status_code == 200
    schema = json.loads(r.text)
    assert schema["openapi"] == "3.1.0" and schema["info"]["title"]
    served = {(route.path, method.lower()) for route in create_app({}).routes
              for method in route.methods if method != "HEAD"}
    assert served == {(path, method) for path, ops in schema["paths"].items()
                      for method in ops}
    assert len(served) == 17       # 9 service routes, 8 of the playground
    assert schema["paths"]["/worlds/{name}/path"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["required"] == ["start", "goal"]
    refs = {v for v in _walk(schema) if isinstance(v, str) and v.startswith("#/")}
    for ref in refs:      # every reference resolves
        node: Any = schema
        for part in ref[2:].split("/"):
            node = node[part]
    validator = pytest.importorskip("openapi_spec_validator",
                                    reason="openapi-spec-validator is not installed")
    validator.validate(schema)


def _walk(value: Any) -> Any:
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)
    else:
        yield value


@pytest.mark.parametrize("body, detail", [
    ({"start": [0, 0, 1], "goal": [0, 0]}, "start must be [x, y]"),
    ({"start": [0, 0], "goal": "x"}, "goal must be [x, y]"),
    ({"start": [0, 0]}, "goal must be [x, y]"),
    ({"start": [0.0, 0], "goal": [0, 0]}, "start must be [x, y]"),
    ({"start": [True, 0], "goal": [0, 0]}, "start must be [x, y]"),
    ({"start": [0, 0], "goal": [31, 0]}, "outside the 31x21 world"),
    ({"start": [-1, 0], "goal": [0, 0]}, "outside"),
    ({"start": [0, 0], "goal": [1, 1]}, "goal [1, 1] is a blocked cell"),
])
def test_bad_coordinates_are_400(server: Any, body: dict[str, Any], detail: str) -> None:
    assert detail in _error(server.post("/worlds/maze/path", json=body), 400,
                            "bad coordinates")


def test_bad_requests_are_4xx_json(server: Any, worlds: dict[str, Any]) -> None:
    cells = _free_cells(_grid(worlds, "maze"), 2, seed=3)
    ok = {"start": cells[0], "goal": cells[1]}
    assert "not JSON" in _error(server.post("/worlds/maze/path", content=b"{start"), 400,
                                "bad JSON")
    _error(server.post("/worlds/maze/path", content=b"[1, 2]"), 400, "bad JSON")
    _error(server.post("/worlds/maze/path", content=b"\xff\xfe"), 400, "bad JSON")
    assert "'maze'" in _error(server.post("/worlds/maze/path",
                                          json={**ok, "method": "jps3"}), 400,
                              "unknown method")
    _error(server.post("/worlds/maze/path", json={**ok, "method": 3}), 400, "unknown method")
    assert "'atlantis'" in _error(server.post("/worlds/atlantis/path", json=ok), 404,
                                  "unknown world")
    _error(server.post("/worlds/atlantis/distance", json={"sources": [cells[0]]}), 404,
           "unknown world")
    _error(server.get("/nowhere"), 404, "not found")
    assert server.get("/worlds/maze/path").status_code == 405
    _error(server.post("/worlds/maze/distance", json={"sources": []}), 400, "bad coordinates")
    _error(server.post("/worlds/maze/distance", json={"sources": [[1, 1]]}), 400,
           "bad coordinates")


def test_too_large_bodies_are_413(server: Any, worlds: dict[str, Any]) -> None:
    cells = _free_cells(_grid(worlds, "maze"), 2, seed=3)
    big = json.dumps({"start": cells[0], "goal": cells[1], "pad": "x" * 5000}).encode()
    _error(server.post("/worlds/maze/path", content=big), 413, "too large")

    def chunks() -> Any:       # no Content-Length: the limit holds on the stream
        yield big[:3000]
        yield big[3000:]
    _error(server.post("/worlds/maze/path", content=chunks()), 413, "too large")


def test_out_of_budget_is_422(worlds: dict[str, Any]) -> None:
    grid = _grid(worlds, "rocks")
    a, b = _free_cells(grid, 2, seed=9)
    want = find_path(grid, tuple(a), tuple(b), method="dijkstra")
    need = want.stats.expanded
    assert need > 10
    body = {"start": a, "goal": b, "method": "dijkstra"}
    with _run({"rocks": grid}, Limits(max_expansions=need - 1)) as client:
        detail = _error(client.post("/worlds/rocks/path", json=body), 422, "out of budget")
    assert f"{need - 1} expansions" in detail
    with _run({"rocks": grid}, Limits(max_expansions=need)) as client:
        r = client.post("/worlds/rocks/path", json=body)
    assert r.status_code == 200 and r.json()["path"] == want.path.tolist()


def test_whole_methods_over_budget_are_422(worlds: dict[str, Any]) -> None:
    grid = _grid(worlds, "rocks")
    a, b = _free_cells(grid, 2, seed=9)
    need = make_solver(grid, "jps")(tuple(a), tuple(b)).stats.expanded
    assert need > 1
    body = {"start": a, "goal": b, "method": "jps"}
    with _run({"rocks": grid}, Limits(max_expansions=need - 1)) as client:
        _error(client.post("/worlds/rocks/path", json=body), 422, "out of budget")
    with _run({"rocks": grid}, Limits(max_expansions=need)) as client:
        assert client.post("/worlds/rocks/path", json=body).status_code == 200


def test_twenty_parallel_requests_answer_as_serial(server: Any, worlds: dict[str, Any]) -> None:
    grid = _grid(worlds, "rocks")
    cells = _free_cells(grid, 40, seed=11)
    mix = ["astar", "dijkstra", "bidirectional", "jps", "theta", "jps_plus", "subgoal", "hpa"]
    bodies = [{"start": a, "goal": b, "method": mix[i % len(mix)]}
              for i, (a, b) in enumerate(zip(cells[::2], cells[1::2]))]

    def ask(body: dict[str, Any]) -> Any:
        r = server.post("/worlds/rocks/path", json=body)
        return r.status_code, {k: v for k, v in r.json().items() if k != "stats"}

    serial = [ask(b) for b in bodies]
    with ThreadPoolExecutor(20) as pool:
        parallel = list(pool.map(ask, bodies))
    assert parallel == serial
    assert all(code == 200 for code, _ in serial)


def test_requests_share_at_most_max_threads_query_objects(
        worlds: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from wayfinding.serve import grids

    made: list[int] = []

    class Counted(GridSearch):
        def __init__(self, *args: Any, **kwargs: Any):
            made.append(threading.get_ident())
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(grids, "GridSearch", Counted)
    grid = _grid(worlds, "rocks")
    cells = _free_cells(grid, 48, seed=5)
    bodies = [{"start": a, "goal": b} for a, b in zip(cells[::2], cells[1::2])]
    with _run({"rocks": grid}, Limits(max_threads=2)) as client:
        with ThreadPoolExecutor(24) as pool:
            codes = list(pool.map(lambda b: client.post("/worlds/rocks/path",
                                                        json=b).status_code, bodies))
    assert codes == [200] * len(bodies)
    assert 1 <= len(made) <= 2      # one search object per worker thread, two threads at most


def test_limits_and_worlds_are_checked_at_load() -> None:
    with pytest.raises(InvalidQueryError, match="100 cells, more than the limit of 99"):
        create_app({"big": maze(10, 10)}, limits=Limits(max_cells=99))
    with pytest.raises(InvalidQueryError, match="max_expansions must be a positive int"):
        Limits(max_expansions=0)
    with pytest.raises(InvalidQueryError, match="Level or VoxelGrid, or the path of a file"):
        create_app({"x": 3})  # type: ignore[dict-item]


def test_cli_serves_world_files(worlds: dict[str, Any], tmp_path: Path) -> None:
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)], radius=0.5)
    mesh.save(tmp_path / "room.npz")
    sky = VoxelGrid(np.zeros((3, 4, 5), bool))
    write_3dmap(sky, tmp_path / "sky.3dmap")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "wayfinding", "serve", str(worlds["rocks"]),
                             str(tmp_path / "room.npz"), str(tmp_path / "sky.3dmap"),
                             "--port", str(port), "--index", "jps_plus",
                             "--max-expansions", "3", "--max-seconds", "30"], cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                r = httpx.get(f"{url}/worlds")
                break
            except httpx.ConnectError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
        listed = r.json()["worlds"]
        assert [(w["name"], w["kind"]) for w in listed] == [
            ("rocks", "grid"), ("room", "navmesh"), ("sky", "voxel")]
        assert listed[0]["methods"][-1] == "jps_plus"
        r = httpx.post(f"{url}/worlds/room/path", json={"start": [1, 1], "goal": [9, 9]})
        assert r.json()["cost"] == mesh.find_path((1, 1), (9, 9)).cost
        r = httpx.post(f"{url}/worlds/sky/path", json={"start": [0, 0, 0], "goal": [2, 2, 2]})
        assert r.json()["cost"] == find_voxel_path(sky, (0, 0, 0), (2, 2, 2)).cost
        grid = read_map(worlds["rocks"])
        a, b = _free_cells(grid, 2, seed=5)
        want = find_path(grid, tuple(a), tuple(b))
        assert want.stats.expanded > 3
        r = httpx.post(f"{url}/worlds/rocks/path", json={"start": a, "goal": b})
        assert "the limit per request" in _error(r, 422, "out of budget")   # --max-expansions
    finally:
        proc.terminate()
        proc.wait(10)
