"""The pieces of the service load test (benchmarks/serve_load.py): the seeded query mix and
its answers, the HTTP answer reader, the answer checks, the percentiles and the memory
verdict, and a short run against a live server on 127.0.0.1 that counts wrong answers."""

from __future__ import annotations

import asyncio
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from live_server import free_port, live_server

from wayfinding import distance_map, find_path
from wayfinding.grid.generate import maze, random_obstacles

# the benchmark scripts import each other by their bare names: on the path for this import
# only, so that they shadow no module of the same name elsewhere in the suite
BENCHMARKS = str(Path(__file__).resolve().parents[2] / "benchmarks")
sys.path.insert(0, BENCHMARKS)
try:
    import serve_load
finally:
    sys.path.remove(BENCHMARKS)

RANGES = ((1.0, 6.0), (6.0, 20.0))
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def worlds() -> dict[str, Any]:
    return {"rocks": random_obstacles(30, 24, density=0.2, seed=1),
            "maze": maze(31, 21, seed=2),
            "small": random_obstacles(12, 10, density=0.2, seed=3)}


@pytest.fixture(scope="module")
def queries(worlds: dict[str, Any]) -> list[serve_load.Query]:
    return serve_load.make_queries(worlds, 40, ranges=RANGES)


def test_the_mix_has_the_shares_and_the_library_answers(worlds: dict[str, Any],
                                                         queries: list[serve_load.Query]) -> None:
    kinds = [q.kind for q in queries]
    assert {k: kinds.count(k) for k in serve_load.MIX} == {"astar": 28, "jps": 8,
                                                            "distance": 4}
    assert {q.world for q in queries if q.kind != "distance"} == set(serve_load.PATH_WORLDS)
    costs = []
    for q in queries:
        grid = worlds[q.world]
        if q.kind == "distance":
            want = distance_map(grid, [tuple(s) for s in q.body["sources"]])
            assert q.distance == [[v if math.isfinite(v) else None for v in row]
                                  for row in want.tolist()]
            continue
        result = find_path(grid, tuple(q.body["start"]), tuple(q.body["goal"]),
                           method=q.body["method"])
        assert result.found and q.cost == result.cost and q.body["method"] == q.kind
        assert q.ends == (q.body["start"], q.body["goal"])
        costs.append(q.cost)
    # spread over the ranges: half of the path queries in each
    assert sum(c < 6 for c in costs) == sum(6 <= c < 20 for c in costs) == len(costs) // 2


def test_the_mix_is_the_same_for_the_same_seed(worlds: dict[str, Any],
                                               queries: list[serve_load.Query]) -> None:
    # (By their reprs: distance queries carry cost nan, and from Python 3.13 on dataclasses
    # compare field by field, so such a query is not equal to itself.)
    again = serve_load.make_queries(worlds, 40, ranges=RANGES)
    assert list(map(repr, again)) == list(map(repr, queries))
    other = serve_load.make_queries(worlds, 40, ranges=RANGES, seed=serve_load.SEED + 1)
    assert [q.body for q in other] != [q.body for q in queries]


def test_a_cost_range_no_start_reaches_is_refused(worlds: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"no goal at a cost in \[500, 900\) from 100 random "
                                         r"starts on world 'rocks'"):
        serve_load.make_queries(worlds, 4, ranges=((500.0, 900.0),))


def test_a_request_is_keep_alive_http_with_its_json_body() -> None:
    q = serve_load.Query("astar", "rocks", {"start": [1, 2], "goal": [3, 4],
                                            "method": "astar"})
    head, body = q.request(8000).split(b"\r\n\r\n")
    assert head.split(b"\r\n") == [
        b"POST /worlds/rocks/path HTTP/1.1", b"Host: 127.0.0.1:8000",
        b"Content-Type: application/json", f"Content-Length: {len(body)}".encode()]
    assert body == b'{"start":[1,2],"goal":[3,4],"method":"astar"}'
    assert serve_load.Query("distance", "small", {}).route == "/worlds/small/distance"


def _read(data: bytes) -> tuple[int, bytes]:
    async def go() -> tuple[int, bytes]:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        return await serve_load.read_response(reader)

    return asyncio.run(go())


def test_an_answer_is_read_by_its_content_length() -> None:
    assert _read(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                 b"content-length: 7\r\n\r\n{\"a\":1}HTTP/1.1 ...") == (200, b'{"a":1}')
    assert _read(b"HTTP/1.1 422 Unprocessable Entity\r\nContent-Length: 0\r\n\r\n") == (422, b"")


@pytest.mark.parametrize(("data", "message"), [
    (b"HTTP/2 200\r\n\r\n", "bad status line"),
    (b"HTTP/1.1 OK\r\n\r\n", "bad status line"),
    (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "bad header line"),
    (b"HTTP/1.1 200 OK\r\ncontent-length: -3\r\n\r\n", "bad Content-Length"),
    (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n", "without Content-Length"),
])
def test_a_malformed_answer_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _read(data)


def test_an_answer_cut_short_is_an_incomplete_read() -> None:
    with pytest.raises(asyncio.IncompleteReadError):
        _read(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{}")


def test_answers_are_checked_against_the_library_answer() -> None:
    q = serve_load.Query("astar", "rocks", {}, cost=2.5, ends=([0, 0], [2, 1]))
    right = b'{"path": [[0, 0], [1, 1], [2, 1]], "cost": 2.5, "found": true}'
    assert serve_load.check(q, 200, right) is None
    assert serve_load.check(q, 422, right) == "status 422"
    assert serve_load.check(q, 200, b"{nope") == "body not JSON"
    assert serve_load.check(q, 200, b"[1, 2]") == "body not a JSON object"
    assert serve_load.check(q, 200, right.replace(b"2.5", b"2.6")) == "wrong cost"
    assert serve_load.check(q, 200, right.replace(b"[2, 1]]", b"[2, 2]]")) == "wrong path ends"
    assert serve_load.check(q, 200, b'{"path": [], "cost": null, "found": false}') == \
        "path not found"
    d = serve_load.Query("distance", "small", {}, distance=[[0.0, None], [1.0, 1.5]])
    assert serve_load.check(d, 200, b'{"distance": [[0.0, null], [1.0, 1.5]]}') is None
    assert serve_load.check(d, 200, b'{"distance": [[0.0, null], [1.0, 2.5]]}') == \
        "wrong distance map"


def test_a_phase_row_gives_rate_percentiles_errors_and_cpu() -> None:
    phase = serve_load.Phase(8, requests=102, seconds=2.0,
                             latencies=[i / 1000 for i in range(1, 101)], server_cpu=2.0,
                             load_cpu=0.5)
    phase.errors["status 500"] += 2
    assert phase.row() == ["8", "102", "50", "50.50", "90.10", "99.01", "2", "100%", "25%"]
    phase.timed_out = True
    assert phase.row()[1] == "102 (time bound)"


def test_memory_is_steady_when_the_second_half_grows_less_than_the_threshold() -> None:
    grow = [(n, (200 + min(n, 40) / 4) * MIB) for n in range(0, 101, 10)]
    line, steady = serve_load.memory_verdict([(n, int(b)) for n, b in grow])
    assert steady
    assert line.startswith("server RSS start 200.0 MiB, end 210.0 MiB, max 210.0 MiB; "
                           "growth over the second half (answers 50 to 100) +0.00 MiB: steady")
    leak = [(n, int((200 + n * serve_load.STEADY_MIB / 40) * MIB)) for n in range(0, 101, 10)]
    line, steady = serve_load.memory_verdict(leak)
    assert not steady and f"+{1.25 * serve_load.STEADY_MIB:.2f} MiB: NOT steady" in line
    assert serve_load.memory_verdict(leak[:2]) == ("memory: 2 samples, too few to judge", False)


@pytest.fixture(scope="module")
def port(worlds: dict[str, Any]) -> Any:
    pytest.importorskip("starlette", reason="the [serve] extra (starlette) is not installed")
    pytest.importorskip("uvicorn", reason="the [serve] extra (uvicorn) is absent")
    from wayfinding.serve import create_app

    with live_server(create_app(worlds)) as url:
        yield int(url.rsplit(":", 1)[1])


def test_a_short_run_answers_every_query_right(port: int,
                                               queries: list[serve_load.Query]) -> None:
    load = serve_load.Load(port, queries)
    phase = serve_load.Phase(4)
    samples: list[int] = []
    asyncio.run(load.run(phase, 60, 30.0, sample=samples.append, every=20))
    assert not phase.errors and phase.requests == len(phase.latencies) == 60
    assert phase.seconds > 0
    assert samples == [20, 40, 60] and load.turn == 60 % len(queries)
    assert not phase.timed_out and np.isnan(phase.server_cpu) and phase.row()[-2] == "–"


def test_wrong_answers_and_refusals_are_counted_as_errors(
        port: int, queries: list[serve_load.Query]) -> None:
    path = next(q for q in queries if q.kind == "astar")
    wrong = replace(path, cost=path.cost + 1)
    unknown = replace(path, world="moon")
    load = serve_load.Load(port, [path, wrong, unknown])
    phase = serve_load.Phase(2)
    asyncio.run(load.run(phase, 9, 30.0))
    assert phase.errors == {"wrong cost": 3, "status 404": 3}
    assert len(phase.latencies) == 3 and phase.requests == 9


def test_a_run_stops_at_its_time_bound(port: int, queries: list[serve_load.Query]) -> None:
    phase = serve_load.Phase(2)
    asyncio.run(serve_load.Load(port, queries).run(phase, 10**6, 0.3))
    assert phase.timed_out and 0 < len(phase.latencies) < 10**6 and phase.seconds < 5
    assert phase.requests == len(phase.latencies)
    warm = serve_load.Phase(2)      # a warm-up is not recorded, nor marked as cut short
    asyncio.run(serve_load.Load(port, queries).run(warm, 10**6, 0.2, record=False))
    assert (warm.requests, warm.latencies, warm.seconds, warm.timed_out) == (0, [], 0.0, False)


def test_refused_connections_are_errors() -> None:
    path = serve_load.Query("astar", "rocks", {"start": [0, 0], "goal": [1, 1]})
    phase = serve_load.Phase(2)
    asyncio.run(serve_load.Load(free_port(), [path]).run(phase, 3, 5.0))
    assert phase.errors == {"connection: ConnectionRefusedError": 5} and not phase.latencies
    assert phase.requests == 3


def test_the_memory_phase_runs_after_the_phase_with_its_clients(
        port: int, queries: list[serve_load.Query]) -> None:
    psutil = pytest.importorskip("psutil", reason="psutil (the [bench] extra) is absent")
    load = serve_load.Load(port, queries, server=psutil.Process())
    done, mem, note = asyncio.run(serve_load._drive(
        load, ((1, 10, 10.0), (2, 12, 10.0), (3, 9, 10.0)), (2, 40, 10, 10.0)))
    assert [(p.clients, len(p.latencies)) for p in done] == [(1, 10), (2, 12), (3, 9)]
    assert [n for n, _ in mem.rss] == [0, 10, 20, 30, 40] and len(mem.latencies) == 40
    # the queries run on in turn: 5 warm-up requests per client before each load phase
    assert load.turn == (5 + 10 + 10 + 12 + 40 + 15 + 9) % len(queries)
    assert all(math.isfinite(p.server_cpu) for p in (*done, mem))
    assert note.startswith("Server RSS after start-up (worlds loaded, no request yet) ")
