"""A load test of the path service on 127.0.0.1: requests per second and p50/p90/p99 latency
at 1, 8 and 64 concurrent clients, every answer checked, and the server's memory over
100,000 requests.

Run from the repository root::

    python benchmarks/serve_load.py [--out BENCHMARKS.md] [--quick]

Needs the ``[serve]`` extra (starlette, uvicorn) and psutil (the ``[bench]`` extra).

**Server.**  ``python -m uvicorn serve_load:load_app --factory`` in a process of its own: one
worker process (the machine has 2 cores: one for the server, one for the load), on a free
port of 127.0.0.1, access log off, serving worlds the library generates (:data:`WORLDS`):
``rocks``, 256 x 256 cells with 25% random obstacles; ``maze``, a 512 x 512 maze with
corridors one cell wide; ``small``, 64 x 64 cells with 20% random obstacles.

**Load.**  This process, one asyncio event loop; each client holds one keep-alive HTTP/1.1
connection (asyncio streams: a few lines of client code spend less of the shared CPU than a
full HTTP client) and sends, one at a time, the next query of a fixed list made with a fixed
seed (:func:`make_queries`): 70% A* and 20% JPS paths on ``rocks`` and ``maze`` (``POST
/worlds/{name}/path``), their optimal costs spread evenly over the ranges 1–16, 16–64,
64–256 and 256–1024, and 10% distance maps of ``small`` from 1 to 3 sources (``POST
/worlds/small/distance``, JSON).  The list runs on from one phase to the next.

**Phases.**  For 1, 8 and 64 clients: connect, a warm-up of a few requests per client, then
requests until a count or a time bound, whichever comes first.  Latency: from writing a
request to reading the last byte of its answer; requests per second: answers over the
phase's wall time.

**Checks.**  Every answer must be status 200 with a JSON body equal to the library's answer
computed here beforehand (``GridSearch`` on the same generated worlds): a path found, its
cost equal and its ends the query's; a distance map equal cell by cell (``null`` where
unreachable).  A connection error, a timeout, another status or a wrong or unreadable body
is an error; any error makes the run exit with status 1.

**Memory.**  100,000 requests at 8 clients (bounded in time), right after the 8-client
phase, the server's resident set size (psutil) sampled before the first and after every
5,000th answer.  Steady: the growth over the second half (last sample minus the half-way
one) below :data:`STEADY_MIB`; exit status 1 otherwise, or when the time bound stops the
phase before its count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from _report import publish, run_header, table

SECTION = "## Path service under load"
HOST = "127.0.0.1"
SEED = 11
#: name -> (generator, width, height, options) of the served worlds.
WORLDS = {"rocks": ("random_obstacles", 256, 256, {"density": 0.25, "seed": 3}),
          "maze": ("maze", 512, 512, {"seed": 5}),
          "small": ("random_obstacles", 64, 64, {"density": 0.2, "seed": 7})}
PATH_WORLDS = ("rocks", "maze")
#: share of each query kind in the mix (``"distance"``: a distance map of ``small``).
MIX = {"astar": 0.7, "jps": 0.2, "distance": 0.1}
#: ranges of optimal path cost the path queries are spread over, evenly.
COST_RANGES = ((1.0, 16.0), (16.0, 64.0), (64.0, 256.0), (256.0, 1024.0))
#: (clients, requests, seconds) of each phase, full and ``--quick``.
PHASES = ((1, 3000, 15.0), (8, 6000, 15.0), (64, 8000, 20.0))
QUICK_PHASES = ((1, 100, 5.0), (8, 200, 5.0), (64, 400, 5.0))
WARMUP_PER_CLIENT = 5
#: (clients, requests, sample every, seconds) of the memory phase, full and ``--quick``.
MEMORY = (8, 100_000, 5_000, 300.0)
QUICK_MEMORY = (8, 5_000, 500, 30.0)
#: largest growth of the server's RSS over the second half of the memory phase (MiB).
STEADY_MIB = 10.0
TIMEOUT = 10.0
MIB = 1024 * 1024


def make_worlds() -> dict[str, Any]:
    """The served grids of :data:`WORLDS`, generated (the same on every call)."""
    from wayfinding.grid import generate

    return {name: getattr(generate, kind)(w, h, **options)
            for name, (kind, w, h, options) in WORLDS.items()}


def load_app() -> Any:
    """The service over :func:`make_worlds` (the factory uvicorn serves)."""
    from wayfinding.serve import create_app

    return create_app(make_worlds())


@dataclass(frozen=True)
class Query:
    """One request and the answer the library gives: ``cost`` and ``ends`` for a path,
    ``distance`` (rows, ``None`` where unreachable) for a distance map."""

    kind: str
    world: str
    body: dict[str, Any]
    cost: float = math.nan
    ends: tuple[list[int], list[int]] | None = None
    distance: list[list[float | None]] | None = None

    @property
    def route(self) -> str:
        return f"/worlds/{self.world}/{'distance' if self.kind == 'distance' else 'path'}"

    def request(self, port: int) -> bytes:
        """The whole HTTP/1.1 request (keep-alive)."""
        body = json.dumps(self.body, separators=(",", ":")).encode()
        head = (f"POST {self.route} HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        return head.encode() + body


def make_queries(worlds: dict[str, Any], count: int, *, seed: int = SEED,
                 ranges: tuple[tuple[float, float], ...] = COST_RANGES) -> list[Query]:
    """``count`` queries in the proportions of :data:`MIX` (rounded), in a seeded order, with
    the library's answers, on ``worlds`` named as :data:`WORLDS`.  A path query takes a random
    free start, then a goal whose optimal cost lies in ``[lo, hi)``, the next of ``ranges``
    in turn, from that start's distance map (``ValueError`` when 100 starts have none)."""
    from wayfinding.grid.search import GridSearch

    rng = np.random.default_rng(seed)
    searches = {name: GridSearch(grid) for name, grid in worlds.items()}
    kinds = [k for k, share in MIX.items() for _ in range(round(share * count))][:count]
    kinds += ["astar"] * (count - len(kinds))
    out = []
    for i, kind in enumerate(kinds):
        if kind == "distance":
            grid = worlds["small"]
            ys, xs = np.nonzero(grid.passable)
            picks = rng.choice(len(xs), int(rng.integers(1, 4)), replace=False)
            sources = [[int(xs[j]), int(ys[j])] for j in picks]
            dist = searches["small"].distance_map([tuple(s) for s in sources])
            rows = [[v if math.isfinite(v) else None for v in row] for row in dist.tolist()]
            out.append(Query(kind, "small", {"sources": sources}, distance=rows))
            continue
        name = PATH_WORLDS[i % len(PATH_WORLDS)]
        lo, hi = ranges[(i // len(PATH_WORLDS)) % len(ranges)]
        grid, search = worlds[name], searches[name]
        ys, xs = np.nonzero(grid.passable)
        for _ in range(100):
            j = int(rng.integers(len(xs)))
            start = (int(xs[j]), int(ys[j]))
            dist = search.distance_map(start)
            gy, gx = np.nonzero((dist >= lo) & (dist < hi))
            if len(gx):
                break
        else:
            raise ValueError(f"no goal at a cost in [{lo:g}, {hi:g}) from 100 random starts "
                             f"on world {name!r}")
        k = int(rng.integers(len(gx)))
        goal = (int(gx[k]), int(gy[k]))
        result = search.find_path(start, goal, method=kind)
        out.append(Query(kind, name, {"start": list(start), "goal": list(goal), "method": kind},
                         cost=result.cost, ends=(list(start), list(goal))))
    order = rng.permutation(len(out))
    return [out[j] for j in order]


def check(query: Query, status: int, body: bytes) -> str | None:
    """Why the answer ``status``, ``body`` to ``query`` is wrong, or ``None`` when right."""
    if status != 200:
        return f"status {status}"
    try:
        answer = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return "body not JSON"
    if not isinstance(answer, dict):
        return "body not a JSON object"
    if query.kind == "distance":
        return None if answer.get("distance") == query.distance else "wrong distance map"
    path = answer.get("path")
    if answer.get("found") is not True or not isinstance(path, list) or not path:
        return "path not found"
    if query.ends != (path[0], path[-1]):
        return "wrong path ends"
    return None if answer.get("cost") == query.cost else "wrong cost"


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The status and body of one HTTP/1.1 answer (the body sized by ``Content-Length``).

    Raises ``ValueError`` for a malformed answer, ``asyncio.IncompleteReadError`` when the
    connection closes first."""
    line = await reader.readuntil(b"\r\n")
    parts = line.split(None, 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise ValueError(f"bad status line {line!r}")
    length = None
    while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
        name, sep, value = line.partition(b":")
        if not sep:
            raise ValueError(f"bad header line {line!r}")
        if name.strip().lower() == b"content-length":
            if not value.strip().isdigit():
                raise ValueError(f"bad Content-Length {value.strip()!r}")
            length = int(value)
    if length is None:
        raise ValueError("an answer without Content-Length")
    return int(parts[1]), await reader.readexactly(length)


@dataclass
class Phase:
    """What one phase measured: ``requests`` answered (or failed) and their latencies (s, of
    the right answers) over ``seconds`` of wall time, errors by reason (warm-up included),
    ``rss`` samples ``(answers, bytes)``, whether the time bound stopped it, and the CPU
    seconds of the server (NaN when unknown) and of this process."""

    clients: int
    requests: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    rss: list[tuple[int, int]] = field(default_factory=list)
    timed_out: bool = False
    server_cpu: float = 0.0
    load_cpu: float = 0.0

    def row(self) -> list[str]:
        """clients, requests (marked when the time bound stopped them), req/s, p50, p90,
        p99 (ms), errors, server and load CPU (% of one core)."""
        n = len(self.latencies)
        p50, p90, p99 = (np.percentile(self.latencies, (50, 90, 99)) * 1e3 if n
                         else (math.nan,) * 3)
        rate, server, load = (np.array([n, self.server_cpu, self.load_cpu]) / self.seconds
                              if self.seconds > 0 else (math.nan,) * 3)
        bound = " (time bound)" if self.timed_out else ""
        return [str(self.clients), f"{self.requests:,}{bound}", f"{rate:,.0f}",
                f"{p50:.2f}", f"{p90:.2f}", f"{p99:.2f}", str(sum(self.errors.values())),
                f"{100 * server:.0f}%" if math.isfinite(server) else "–",
                f"{100 * load:.0f}%" if math.isfinite(load) else "–"]


class Load:
    """Clients of the server at ``port`` sending ``queries`` in turn (the turn runs on from
    one phase to the next); ``server``, the server's ``psutil.Process``, for its CPU time
    and memory."""

    def __init__(self, port: int, queries: list[Query], *, server: Any = None):
        self.port, self.queries, self.server = port, queries, server
        self.requests = [q.request(port) for q in queries]
        self.turn = 0

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.wait_for(asyncio.open_connection(HOST, self.port), TIMEOUT)

    async def run(self, phase: Phase, requests: int, seconds: float, *,
                  record: bool = True, sample: Callable[[int], None] | None = None,
                  every: int = 0) -> None:
        """Send ``requests`` requests from ``phase.clients`` clients, or as many as
        ``seconds`` allow; with ``record``, add their count, latencies and wall time to
        ``phase`` (errors are added in any case); ``sample(answers)`` after every
        ``every``-th answer."""
        conns: list[Any] = []
        for conn in await asyncio.gather(*(self._connect() for _ in range(phase.clients)),
                                         return_exceptions=True):
            if isinstance(conn, (OSError, asyncio.TimeoutError)):
                phase.errors[f"connection: {type(conn).__name__}"] += 1
                conn = None     # the client tries again with its first request
            elif isinstance(conn, BaseException):
                raise conn
            conns.append(conn)
        sent = answered = 0
        cpu0 = self._server_cpu(), time.process_time()
        t0 = time.perf_counter()
        deadline = t0 + seconds

        async def client(conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None) -> None:
            nonlocal sent, answered
            while sent < requests:
                if time.perf_counter() >= deadline:
                    phase.timed_out = phase.timed_out or record
                    break
                sent += 1
                i, self.turn = self.turn, (self.turn + 1) % len(self.queries)
                t = time.perf_counter()
                try:
                    if conn is None:
                        conn = await self._connect()
                    conn[1].write(self.requests[i])
                    status, body = await asyncio.wait_for(read_response(conn[0]), TIMEOUT)
                    latency = time.perf_counter() - t
                    problem = check(self.queries[i], status, body)
                except (OSError, ValueError, asyncio.IncompleteReadError,
                        asyncio.LimitOverrunError, asyncio.TimeoutError) as exc:
                    problem = f"connection: {type(exc).__name__}"
                    if conn is not None:
                        conn[1].close()
                    conn = None
                if problem is not None:
                    phase.errors[problem] += 1
                elif record:
                    phase.latencies.append(latency)
                answered += 1
                if sample is not None and answered % every == 0:
                    sample(answered)
            if conn is not None:
                conn[1].close()

        await asyncio.gather(*(client(c) for c in conns))
        if record:
            phase.requests += answered
            phase.seconds += time.perf_counter() - t0
            phase.server_cpu += self._server_cpu() - cpu0[0]
            phase.load_cpu += time.process_time() - cpu0[1]

    def _server_cpu(self) -> float:
        """The server's CPU seconds so far (user and system; NaN without its process)."""
        if self.server is None:
            return math.nan
        times = self.server.cpu_times()
        return float(times.user + times.system)


def memory_verdict(rss: list[tuple[int, int]]) -> tuple[str, bool]:
    """The memory line for samples ``(answers, bytes)``: start, end, max and growth over the
    second half (from the sample nearest half the answers to the last), and whether that
    growth is below :data:`STEADY_MIB`."""
    if len(rss) < 3:
        return f"memory: {len(rss)} samples, too few to judge", False
    half = rss[-1][0] / 2
    mid = min(rss, key=lambda s: abs(s[0] - half))
    growth = (rss[-1][1] - mid[1]) / MIB
    steady = growth < STEADY_MIB
    return (f"server RSS start {rss[0][1] / MIB:.1f} MiB, end {rss[-1][1] / MIB:.1f} MiB, "
            f"max {max(b for _, b in rss) / MIB:.1f} MiB; growth over the second half "
            f"(answers {mid[0]:,} to {rss[-1][0]:,}) {growth:+.2f} MiB: "
            f"{'steady' if steady else 'NOT steady'} (threshold {STEADY_MIB:g} MiB)"), steady


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start_server(log: Any) -> tuple[subprocess.Popen[bytes], int]:
    """uvicorn serving :func:`load_app` on a free port of 127.0.0.1 in one worker process,
    answering ``GET /worlds`` (output to the file ``log``)."""
    port = _free_port()
    cmd = [sys.executable, "-m", "uvicorn", "serve_load:load_app", "--factory",
           "--app-dir", str(Path(__file__).resolve().parent), "--host", HOST,
           "--port", str(port), "--workers", "1", "--no-access-log", "--log-level", "warning"]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        try:
            with socket.create_connection((HOST, port), timeout=1) as s:
                s.sendall(f"GET /worlds HTTP/1.1\r\nHost: {HOST}\r\n"
                          "Connection: close\r\n\r\n".encode())
                if s.recv(16).startswith(b"HTTP/1.1 200"):
                    return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not answer within 60 s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _stack() -> str:
    import h11
    import starlette
    import uvicorn

    loop = "uvloop" if _importable("uvloop") else "asyncio"
    http = "httptools" if _importable("httptools") else f"h11 {h11.__version__}"
    return (f"server: uvicorn {uvicorn.__version__} (1 worker process, {loop} loop, {http}), "
            f"starlette {starlette.__version__}")


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


async def _drive(load: Load, phases: tuple[tuple[int, int, float], ...],
                 memory: tuple[int, int, int, float]) -> tuple[list[Phase], Phase, str]:
    """Run ``phases``, and the ``memory`` phase right after the phase with as many clients
    (so that the server's thread pool holds the threads that many clients keep busy, neither
    fewer nor idle ones that end during it); also the server's RSS after start-up and its
    thread count at the memory phase's start and end, as a sentence."""
    startup = load.server.memory_info().rss
    clients, requests, every, seconds = memory
    mem = Phase(clients)
    threads: list[int] = []

    def sample(answers: int) -> None:
        mem.rss.append((answers, load.server.memory_info().rss))
        threads.append(load.server.num_threads())
        print(f"  memory: {answers:,}/{requests:,} answers, {time.perf_counter() - t0:.0f} s, "
              f"RSS {mem.rss[-1][1] / MIB:.1f} MiB, {threads[-1]} threads, errors "
              f"{sum(mem.errors.values())}", file=sys.stderr, flush=True)

    done = []
    for n, count, bound in phases:
        phase = Phase(n)
        await load.run(phase, WARMUP_PER_CLIENT * n, bound, record=False)
        await load.run(phase, count, bound)
        print(f"  {n} clients: " + ", ".join(phase.row()[1:]), file=sys.stderr, flush=True)
        done.append(phase)
        if n == clients:
            t0 = time.perf_counter()
            sample(0)
            await load.run(mem, requests, seconds, sample=sample, every=every)
    return done, mem, (f"Server RSS after start-up (worlds loaded, no request yet) "
                       f"{startup / MIB:.1f} MiB; server threads {threads[0]} at the memory "
                       f"phase's start, {threads[-1]} at its end")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: a few hundred requests a phase, 5,000 for memory")
    ap.add_argument("--queries", type=int, default=400, help="distinct queries in the mix")
    args = ap.parse_args(argv)
    for name, extra in (("starlette", "serve"), ("uvicorn", "serve"), ("psutil", "bench")):
        if not _importable(name):
            sys.exit(f"serve_load.py needs {name} (pip install -e '.[{extra}]')")
    phases, memory = (QUICK_PHASES, QUICK_MEMORY) if args.quick else (PHASES, MEMORY)
    t0 = time.perf_counter()
    busy = os.getloadavg()[0]
    worlds = make_worlds()
    queries = make_queries(worlds, args.queries)
    print(f"{len(queries)} queries made in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    with tempfile.TemporaryFile() as log:
        proc, port = start_server(log)
        try:
            import psutil

            load = Load(port, queries, server=psutil.Process(proc.pid))
            done, mem, server_note = asyncio.run(_drive(load, phases, memory))
        finally:
            stop_server(proc)
            log.seek(0)
            output = log.read().decode(errors="replace").strip()
    if output:
        print("server output:\n" + output, file=sys.stderr)
    verdict, steady = memory_verdict(mem.rss)
    errors: Counter[str] = Counter()
    for phase in (*done, mem):
        errors.update(phase.errors)
    counts = Counter(q.kind for q in queries)
    bounds = "; ".join(f"{c} client{'s' * (c > 1)}: {n:,} requests or {t:g} s"
                       for c, n, t in phases)
    clients, requests, every, seconds = memory
    failures = ([f"{sum(errors.values())} errors"] * bool(errors)
                + ["memory not steady"] * (not steady)
                + [f"the memory phase stopped by its time bound ({seconds:g} s) before "
                   f"{requests:,} requests"] * mem.timed_out)
    body = "\n\n".join([
        run_header("serve_load.py", argv, None, time.perf_counter() - t0, _stack(),
                   note=f"load average {busy:.2f} at the start"),
        "The service (`create_app` under uvicorn, one worker process, access log off) in one "
        "process on 127.0.0.1; the load from another: one asyncio event loop, one keep-alive "
        "connection per client, one request at a time per client.  Worlds generated: "
        "`rocks` 256 × 256 (25% random obstacles), `maze` 512 × 512 (corridors 1 wide), "
        f"`small` 64 × 64 (20% random obstacles).  The mix, {len(queries)} queries in a "
        f"seeded order sent in turn: {counts['astar']} A* and {counts['jps']} JPS paths on "
        "`rocks` and `maze` (optimal costs spread evenly over 1–16, 16–64, 64–256 and "
        f"256–1024), {counts['distance']} distance maps of `small` (JSON).  Each phase: a "
        f"warm-up of {WARMUP_PER_CLIENT} requests per client, then requests up to a count "
        f"or a time bound ({bounds}; memory: {clients} clients, {requests:,} requests or "
        f"{seconds:g} s).  Latency from writing the request to reading the last byte of "
        "the answer; every answer is checked against the library's (status 200, path found "
        "with the same cost and ends, the same distance map); errors count every other "
        "answer and every connection error, warm-up included.  CPU: the server's and this "
        "process's CPU time over the phase's wall time (100% is one core).",
        table(["clients", "requests", "req/s", "p50 ms", "p90 ms", "p99 ms", "errors",
               "server CPU", "load CPU"], [p.row() for p in (*done, mem)]),
        f"Memory ({clients} clients, the last row, run right after the {clients}-client phase; "
        f"RSS sampled every {every:,} answers): "
        f"{verdict}.  {server_note}.",
        *([f"Errors: {', '.join(f'{k} × {v}' for k, v in errors.most_common())}."]
          if errors else []),
        f"Verdict: {'; '.join(failures) if failures else 'no errors, memory steady'}."])
    publish(body, args.out, SECTION)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
