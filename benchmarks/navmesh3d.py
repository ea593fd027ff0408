"""Voxel navmeshes against Recast and Detour themselves: builds (``wayfinding.navmesh3d.build``)
of Recast's test level and terrains of 10 thousand to 1 million triangles, whole and in tiles
over 2 threads; and queries (``NavMesh3DQuery``: nearest polygon, paths, raycasts, single
calls and batches) on Recast's test level and large generated levels.

Recast and Detour run as the npm WASM build under node (tests/oracles/recast, ``npm ci``
there: ``stages.mjs`` times builds, ``query_bench.mjs`` queries), the same library the figures
of ``../shared/data/recast/README.md`` come from; that README's native figures (a 36.7 ms
build of nav_test, findPath about 1.3 µs and findStraightPath 0.5-2.3 µs on its 21 path
tests, on this class of machine) are quoted as context.

    python benchmarks/navmesh3d.py [--out BENCHMARKS.md] [--repeat N] [--quick]
                                   [--only builds|queries]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import sys
import time

import numpy as np
from _report import REPO, publish, run_header, run_node, table

from wayfinding.navmesh3d import BuildSettings, Level, NavMesh3D, build, generate
from wayfinding.navmesh3d.links import ledge_links
from wayfinding.navmesh3d.query import NavMesh3DQuery, with_flags
from wayfinding.results import Status

ORACLE = REPO / "tests" / "oracles" / "recast"
RECAST_DATA = REPO.parent / "shared" / "data" / "recast"
NATIVE_NAV_TEST_MS = 36.7
#: Native Detour on nav_test's 21 path tests (the data README), µs per query.
NATIVE_FIND_PATH_US = 1.3
NATIVE_STRAIGHT_US = (0.5, 2.3)
#: The issue's targets: a batch query at most this many times native Detour's time, a
#: single call (Python included) at most this many µs.
BATCH_TARGET_X = 2.0
SINGLE_TARGET_US = 10.0
#: Expansions per step of the sliced path searches timed.
SLICE = 32
#: Query timings alternate between ours and Detour's this many rounds; the least of the
#: rounds' medians is kept (other work on the machine only ever slows a round down).
ROUNDS = 5


def recast_ms(level: Level, settings: BuildSettings, repeat: int) -> float | None:
    """Recast's fastest build of ``repeat`` in one node process (ms), or None without node."""
    node = shutil.which("node")
    if node is None or not (ORACLE / "node_modules").is_dir():
        return None
    sys.path.insert(0, str(REPO / "tests"))
    from recast_data import oracle_settings

    data = {"vertices": level.vertices.tolist(), "triangles": level.triangles.tolist(),
            "settings": oracle_settings(settings)}
    result = run_node(node, ORACLE / "stages.mjs", data, "--counts-only", "--repeat",
                      str(repeat))
    return float(result["ms_min"]["build_total"])


def ours_ms(level: Level, settings: BuildSettings, repeat: int, **options: int
            ) -> tuple[float, object]:
    """The median wall time of ``repeat`` builds (ms) and the last mesh."""
    times = []
    mesh = None
    for _ in range(repeat):
        t = time.perf_counter()
        mesh = build(level, settings=settings, **options)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), mesh


def builds(args: argparse.Namespace, argv: list[str] | None) -> None:
    """The "Voxel navmesh builds" section."""
    t0 = time.perf_counter()
    settings = BuildSettings()
    levels: list[tuple[str, Level]] = []
    if (RECAST_DATA / "nav_test.obj").is_file():
        levels.append(("nav_test", Level.read(RECAST_DATA / "nav_test.obj")))
    sizes = (71,) if args.quick else (71, 224, 707)
    for size in sizes:
        levels.append((f"terrain {size}×{size}",
                       generate.terrain(size=size, cell=1.0, height=size / 8, seed=1)))
    rows, memory = [], []
    for name, level in levels:
        reps = args.repeat if level.num_triangles < 200_000 else max(2, args.repeat // 5)
        whole, mesh = ours_ms(level, settings, reps)
        tiled, tmesh = ours_ms(level, settings, reps, tile_size=64, workers=2)
        theirs = recast_ms(level, settings, reps)
        ratio = "–" if theirs is None else f"{whole / theirs:.2f}×"
        tratio = "–" if theirs is None else f"{tiled / theirs:.2f}×"
        c = mesh.report.counts   # type: ignore[attr-defined]
        rows.append([name, f"{level.num_triangles:,}", f"{c['grid_width']} × {c['grid_depth']}",
                     f"{c['polygons']:,}", f"{whole:.1f}",
                     f"{tiled:.1f} ({tmesh.num_tiles} tiles)",   # type: ignore[attr-defined]
                     "–" if theirs is None else f"{theirs:.1f}", ratio, tratio])
        stages = mesh.report.ms  # type: ignore[attr-defined]
        memory.append([name, f"{mesh.report.bytes_per_column:.1f}",  # type: ignore[attr-defined]
                       ", ".join(f"{k} {v:.1f}" for k, v in stages.items())])
    body = "\n\n".join([
        run_header("navmesh3d.py", argv, RECAST_DATA, time.perf_counter() - t0,
                   "Recast: @recast-navigation/core (WASM) under node"),
        "Build times in ms: ours the median of the runs (whole, then tiles of 64 cells over "
        "2 threads), Recast's the fastest of the same number of runs in one node process "
        "(its first run is several times slower while the WASM warms up), both with "
        f"RecastDemo's defaults. Native Recast on nav_test: {NATIVE_NAV_TEST_MS} ms (the "
        "data README). Ratios are ours ÷ Recast's (below 1: faster).",
        table(["level", "triangles", "grid", "polygons", "ours, whole", "ours, tiled",
               "Recast (WASM)", "whole ÷ Recast", "tiled ÷ Recast"], rows),
        "### Heightfield memory and stage times (whole builds)",
        table(["level", "bytes per column", "stage ms (last run)"], memory),
    ])
    publish(body, args.out, "## Voxel navmesh builds")


# ---------------------------------------------------------------------------- queries
class Workload:
    """One level's mesh and its queries: ``starts``/``goals`` (path pairs, the starts also
    the nearest-polygon points) and ``ray_ends`` (rays from the starts)."""

    def __init__(self, name: str, level: Level, mesh: NavMesh3D, starts: np.ndarray,
                 goals: np.ndarray, ray_ends: np.ndarray):
        self.name, self.level, self.mesh = name, level, mesh
        self.starts, self.goals, self.ray_ends = starts, goals, ray_ends


def random_workload(name: str, level: Level, n: int, *, tile_size: int = 0,
                    ray_length: float = 8.0, seed: int = 1, links: bool = False) -> Workload:
    """``n`` pairs of random points on the mesh (uniform by area) joined by a path, and
    rays of ``ray_length`` from the first of each pair in a random direction (xz); with
    ``links``, the mesh has its ledge links (jumps and drops, checked against the level)."""
    mesh = with_flags(build(level, tile_size=tile_size, workers=2))
    if links:
        mesh = mesh.with_links(ledge_links(mesh, level=level))
    q = NavMesh3DQuery(mesh)
    rng = np.random.default_rng(seed)
    starts: list[tuple[float, float, float]] = []
    goals: list[tuple[float, float, float]] = []
    while len(starts) < n:
        a, b = q.random_point(rng=rng)[1], q.random_point(rng=rng)[1]
        if q.find_path(a, b).found:
            starts.append(a)
            goals.append(b)
    angle = rng.uniform(0, 2 * math.pi, n)
    s = np.array(starts)
    ends = s + ray_length * np.c_[np.cos(angle), np.zeros(n), np.sin(angle)]
    return Workload(name, level, mesh, s, np.array(goals), ends)


def per_query(loop, n: int, repeat: int) -> float:
    """The median over ``repeat`` runs of ``loop`` (all ``n`` queries) of its time per query
    (s), after one run to warm up."""
    loop()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        loop()
        times.append((time.perf_counter() - t) / max(n, 1))
    return statistics.median(times)


def ours_queries(w: Workload, repeat: int) -> tuple[dict[str, float], dict[str, int]]:
    """Our times per query (µs) by kind, and what the paths and rays found."""
    q = NavMesh3DQuery(w.mesh)
    s, g, e = w.starts, w.goals, w.ray_ends
    st, gt, et = [tuple(p) for p in s.tolist()], [tuple(p) for p in g.tolist()], \
        [tuple(p) for p in e.tolist()]
    n = len(s)
    us: dict[str, float] = {}

    def nearest() -> None:
        for p in st:
            q.nearest(p)

    def paths() -> None:
        for a, b in zip(st, gt):
            q.find_path(a, b)

    def sliced() -> None:
        for a, b in zip(st, gt):
            search = q.start(a, b)
            while search.step(max_expansions=SLICE) is Status.RUNNING:
                pass
            search.result()

    def rays() -> None:
        for a, b in zip(st, et):
            q.raycast(a, b)

    us["nearest"] = per_query(nearest, n, repeat)
    us["nearest_many"] = per_query(lambda: q.nearest_many(s), n, repeat)
    us["whole_path"] = per_query(paths, n, repeat)
    us["find_paths"] = per_query(lambda: q.find_paths(s, g), n, repeat)
    us["sliced_path"] = per_query(sliced, n, repeat)
    us["whole_raycast"] = per_query(rays, n, repeat)
    us["raycast_many"] = per_query(lambda: q.raycast_many(s, e), n, repeat)
    batch = q.find_paths(s, g)
    hits = q.raycast_many(s, e)
    counts = {"polygons": w.mesh.num_polygons, "tiles": w.mesh.num_tiles,
              "found": int((batch.codes == 1).sum()),
              "straight_corners": int(np.diff(batch.corner_ptr)[batch.codes == 1].sum()),
              "hits": int(hits.hit.sum())}
    return {k: v * 1e6 for k, v in us.items()}, counts


def detour_queries(w: Workload, settings: BuildSettings, repeat: int
                   ) -> tuple[dict[str, float], dict[str, int]] | None:
    """Detour's times per query (µs, medians in one node process) and counts, or None
    without node."""
    node = shutil.which("node")
    if node is None or not (ORACLE / "node_modules").is_dir():
        return None
    sys.path.insert(0, str(REPO / "tests"))
    from recast_data import oracle_settings

    st = oracle_settings(settings)
    st["tile_size"] = w.mesh.tile_size
    st["agent_max_climb"] = settings.agent_max_climb
    data = {"vertices": w.level.vertices.tolist(), "triangles": w.level.triangles.tolist(),
            "settings": st, "repeat": repeat + 1, "points": w.starts.tolist(),
            "paths": np.c_[w.starts, w.goals].tolist(),
            "rays": np.c_[w.starts, w.ray_ends].tolist(),
            "links": [{"start": list(x.start), "end": list(x.end),
                       "radius": settings.agent_radius if x.radius is None else x.radius,
                       "bidirectional": x.bidirectional} for x in w.mesh.links]}
    result = run_node(node, ORACLE / "query_bench.mjs", data)
    return result["us"], result["counts"]


def _least_of(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {k: min(r[k] for r in rounds) for k in rounds[0]}


def _us(v: float | None) -> str:
    return "–" if v is None or not math.isfinite(v) else (f"{v:.2f}" if v < 10 else f"{v:.1f}")


def _x(a: float | None, b: float | None) -> str:
    return "–" if a is None or b is None or not b else f"{a / b:.2f}×"


def query_rows(w: Workload, ours: dict[str, float], theirs: dict[str, float] | None,
               native: bool) -> list[list[str]]:
    """The table rows of one workload: per query kind, ours single and batch, Detour's WASM
    and native figures, and the ratios."""
    d = theirs or {}
    nat_path = NATIVE_FIND_PATH_US if native else None
    nat_straight = (NATIVE_FIND_PATH_US + sum(NATIVE_STRAIGHT_US) / 2) if native else None
    rows = [
        ("nearest polygon", ours["nearest"], ours["nearest_many"], d.get("nearest"), None),
        ("path: A* only (findPath)", None, None, d.get("find_path"), nat_path),
        ("path: A* + straight path (findPath + findStraightPath)", None, None,
         d.get("path_and_straight"), nat_straight),
        ("path: whole query (2 × nearest + A* + straight path)", ours["whole_path"],
         ours["find_paths"], d.get("whole_path"), nat_straight),
        (f"path: sliced, {SLICE} expansions a step (start, steps, result)",
         ours["sliced_path"], None, None, None),
        ("raycast from a known polygon", None, None, d.get("raycast"), None),
        ("raycast: whole query (nearest + raycast)", ours["whole_raycast"],
         ours["raycast_many"], d.get("whole_raycast"), None),
    ]
    out = []
    for label, single, batch, wasm, nat in rows:
        out.append([f"{w.name}: {label}", _us(single), _us(batch), _us(wasm),
                    "–" if nat is None else (f"{nat:.1f}" if label.endswith("(findPath)")
                                             else f"{nat:.1f} (1.8–3.6)"),
                    _x(single, wasm), _x(batch, wasm), _x(batch, nat)])
    return out


def target_row(w: Workload, ours: dict[str, float], native: bool) -> list[str]:
    """Whether the workload meets the issue's targets, with the figures."""
    single = {"nearest": ours["nearest"], "find_path": ours["whole_path"],
              "raycast": ours["whole_raycast"]}
    missed = [f"{k} {_us(v)}" for k, v in single.items() if v > SINGLE_TARGET_US]
    met = "met" if not missed else "missed: " + ", ".join(missed)
    if native:
        lo, hi = (NATIVE_FIND_PATH_US + x for x in NATIVE_STRAIGHT_US)
        b = ours["find_paths"]
        verdict = ("met" if b <= BATCH_TARGET_X * lo else
                   "met against the range's top" if b <= BATCH_TARGET_X * hi else "missed")
        batch = f"{_us(b)} µs: {b / hi:.2f}–{b / lo:.2f}× native ({verdict})"
    else:
        batch = "– (no native figure)"
    return [w.name, met, batch]


def queries(args: argparse.Namespace, argv: list[str] | None) -> None:
    """The "3D navmesh queries" section."""
    t0 = time.perf_counter()
    load = os.getloadavg()[0]
    settings = BuildSettings()
    n = 300 if args.quick else 3000
    works: list[Workload] = []
    native_for: set[str] = set()
    if (RECAST_DATA / "nav_test.obj").is_file():
        level = Level.read(RECAST_DATA / "nav_test.obj")
        mesh = with_flags(build(level))
        tests = [ln.split() for ln in (RECAST_DATA / "nav_mesh_test.txt").read_text()
                 .splitlines() if ln.startswith("pf")]
        s = np.array([[float(v) for v in t[1:4]] for t in tests])
        g = np.array([[float(v) for v in t[4:7]] for t in tests])
        works.append(Workload("nav_test, 21 tests", level, mesh, s, g, g))
        native_for.add(works[-1].name)
        works.append(random_workload(f"nav_test, {n:,} random", level, n))
        works.append(random_workload(f"nav_test with its ledge links, {n:,} random", level,
                                     n, links=True))
    if not args.quick:
        works.append(random_workload(f"terrain 256, tiles of 64, {n:,} random",
                                     generate.terrain(size=256, cell=1.0, height=32, seed=1),
                                     n, tile_size=64))
        works.append(random_workload(f"building of 20 storeys, {n:,} random",
                                     generate.building(storeys=20, size=30.0), n))
    rows, agree, targets = [], [], []
    for w in works:
        reps = args.repeat * (20 if len(w.starts) < 100 else 1)
        rounds_ours, rounds_theirs = [], []
        for _ in range(ROUNDS):     # alternating, so that a busy spell hits both
            ours, oc = ours_queries(w, reps)
            rounds_ours.append(ours)
            got = detour_queries(w, settings, reps)
            if got:
                rounds_theirs.append(got[0])
        tc = got[1] if got else {}
        ours = _least_of(rounds_ours)
        theirs = _least_of(rounds_theirs) if rounds_theirs else None
        rows += query_rows(w, ours, theirs, w.name in native_for)
        targets.append(target_row(w, ours, w.name in native_for))
        agree.append([w.name, f"{oc['polygons']:,} / {tc.get('polygons', '–')}",
                      f"{oc['tiles']} / {tc.get('tiles', '–')}",
                      f"{oc['found']:,} / {tc.get('found', '–')}",
                      f"{oc['straight_corners']:,} / {tc.get('straight_corners', '–')}",
                      f"{oc['hits']:,} / {tc.get('hits', '–')}"])
    body = "\n\n".join([
        run_header("navmesh3d.py", argv, RECAST_DATA, time.perf_counter() - t0,
                   "Detour: @recast-navigation/core (WASM) under node"),
        "Microseconds per query, medians over the runs of every query of a workload (ours: "
        "`time.perf_counter` round the loop; Detour: `performance.now` in node, its first "
        f"run left out), in {ROUNDS} rounds alternating ours and Detour's, the least of "
        "the rounds' medians kept (the machine is shared: other work slows whole rounds "
        f"down; load average {load:.1f} when the run began). Ours *single*: one Python call per "
        "query (`nearest`, `find_path`, "
        "`raycast`: argument checks and result objects included); *batch*: one call for all "
        "the queries (`nearest_many`, `find_paths`, `raycast_many`). Detour (WASM): the "
        "bindings called directly with buffers made once, the filter of every flag, 2048 "
        "search nodes and 256 polygons per path as RecastDemo (its bindings have no sliced "
        "search); its A* alone and A* + "
        "straight path start from the polygons found beforehand. Native: the data "
        "README's figures for nav_test's 21 tests (findPath 1.3 µs, findStraightPath "
        "0.5–2.3 µs: 2.7 taken as the middle of 1.8–3.6 for both together, no nearest "
        "polygon search included). Ratios: ours ÷ theirs (below 1: faster). Our path "
        "query has no A*-only call (the funnel runs in the same compiled call); the A*-only "
        "rows give Detour's share as context. RecastDemo's defaults build every level; "
        "random points are drawn uniformly by area (`random_point`), rays run 8 m in a "
        f"random direction. Targets: single calls ≤ {SINGLE_TARGET_US:.0f} µs, batch ≤ "
        f"{BATCH_TARGET_X:.0f}× native Detour.",
        table(["workload: query", "ours, single", "ours, batch", "Detour (WASM)",
               "native Detour", "single ÷ WASM", "batch ÷ WASM", "batch ÷ native"], rows),
        "### Targets",
        table(["workload", f"single calls ≤ {SINGLE_TARGET_US:.0f} µs",
               f"batch path ≤ {BATCH_TARGET_X:.0f}× native (findPath + findStraightPath)"],
              targets),
        "### What the queries found (ours / Detour's)",
        table(["workload", "polygons", "tiles", "paths found", "straight-path corners",
               "rays stopped by a wall"], agree),
    ])
    publish(body, args.out, "## 3D navmesh queries")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the sections into this Markdown file")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--quick", action="store_true",
                    help="builds: nav_test and the 10k terrain; queries: nav_test only")
    ap.add_argument("--only", choices=("builds", "queries"), help="one section only")
    args = ap.parse_args(argv)
    if args.only in (None, "builds"):
        builds(args, argv)
    if args.only in (None, "queries"):
        queries(args, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
