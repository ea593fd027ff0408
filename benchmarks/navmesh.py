"""Navigation meshes against the Python peers: build time, query time and path length against
the exact shortest path, on the same worlds and queries, in one process.

Run from the repository root::

    python benchmarks/navmesh.py [--out BENCHMARKS.md] [--queries N] [--seed S] [--quick]

Worlds: ``rects80`` (a 1000 × 1000 box with 80 non-overlapping axis-aligned rectangular
holes, as in the peer survey), ``random300`` (a 200 × 200 box minus 300 random rotated
boxes and triangles, overlapping; its largest connected part) and ``arena2`` (the passable
cells of the Moving AI map dao/arena2 as polygons).  Queries: random pairs of points of the
world, the same for every method.  Methods: wayfinding's navigation mesh (constrained
Delaunay + Hertel–Mehlhorn, and the subtractive builder), its clearance mesh (searched for
radius 0), jupedsim's routing engine,
pynavmesh's path finder (on wayfinding's polygons, as 3-D points on the XZ plane), and the
exact shortest paths of extremitypathfinder and of wayfinding's visibility map (the
reference; the two are checked equal).  Each query is timed alone (``time.perf_counter``)
after one warm-up query; lengths are those of the returned polylines.  A missing peer is
reported as such.  Then the build time of a world with 1,000 obstacles.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _report import find_data_dir, fmt_us, fmt_x, publish, run_header, table

SECTION = "## Navigation meshes"


def rects80(rng: np.random.Generator) -> Any:
    import shapely
    from shapely.geometry import box

    holes: list[Any] = []
    while len(holes) < 80:
        x, y = rng.random(2) * 900 + 20
        w, h = rng.random(2) * 60 + 10
        b = box(x, y, x + w, y + h)
        if all(not b.buffer(5).intersects(o) for o in holes):
            holes.append(b)
    return box(0, 0, 1000, 1000).difference(shapely.union_all(holes))


def random300(rng: np.random.Generator) -> Any:
    import shapely
    from shapely import affinity
    from shapely.geometry import Polygon, box

    holes = []
    for _ in range(300):
        x, y = rng.random(2) * 200
        w, h = rng.random(2) * 8 + 1
        if rng.random() < 0.3:
            holes.append(Polygon([(x, y), (x + w, y), (x, y + h)]))
        else:
            holes.append(affinity.rotate(box(x, y, x + w, y + h), rng.random() * 180))
    area = box(0, 0, 200, 200).difference(shapely.union_all(holes))
    return max(shapely.get_parts(area), key=lambda g: g.area)


def arena2(data: Path) -> Any:
    import shapely

    from wayfinding.grid import read_map
    from wayfinding.navmesh import walkable_area

    area = walkable_area(read_map(data / "maps" / "dao" / "arena2.map"))
    return max(shapely.get_parts(area), key=lambda g: g.area)


def thousand_obstacles(rng: np.random.Generator) -> Any:
    import shapely
    from shapely.geometry import box

    obs = [box(x, y, x + rng.random() * 3 + 0.5, y + rng.random() * 3 + 0.5)
           for x, y in rng.random((1000, 2)) * 200]
    return box(0, 0, 205, 205).difference(shapely.union_all(obs))


def sample_points(area: Any, rng: np.random.Generator, k: int) -> np.ndarray:
    import shapely

    shapely.prepare(area)
    x0, y0, x1, y1 = area.bounds
    out: list[np.ndarray] = []
    while len(out) < k:
        p = rng.random((4 * k, 2)) * [x1 - x0, y1 - y0] + [x0, y0]
        inside = shapely.contains_xy(area, p[:, 0], p[:, 1])
        out.extend(p[inside][:k - len(out)])
    return np.array(out)


def length(path: Any) -> float:
    p = np.asarray(path, dtype=float)[:, :2]
    return float(np.hypot(*np.diff(p, axis=0).T).sum()) if len(p) > 1 else 0.0


# ------------------------------------------------------------------------------ methods
def m_wayfinding(area: Any, method: str) -> Callable[[np.ndarray, np.ndarray], float]:
    from wayfinding.navmesh import NavMesh

    mesh = NavMesh.build(area, method=method)

    def query(a: np.ndarray, b: np.ndarray) -> float:
        r = mesh.find_path(a, b)
        return r.cost if r.found else math.inf
    return query


def m_clearance(area: Any) -> Callable[[np.ndarray, np.ndarray], float]:
    from wayfinding.navmesh import ClearanceMesh

    mesh = ClearanceMesh.build(area)

    def query(a: np.ndarray, b: np.ndarray) -> float:
        r = mesh.find_path(a, b)
        return r.cost if r.found else math.inf
    return query


def m_exact(area: Any) -> Callable[[np.ndarray, np.ndarray], float]:
    from wayfinding.navmesh.exact import VisibilityMap

    vm = VisibilityMap(area)
    return lambda a, b: vm.find_path(a, b).cost


def m_jupedsim(area: Any) -> Callable[[np.ndarray, np.ndarray], float]:
    import jupedsim

    engine = jupedsim.RoutingEngine(area)
    return lambda a, b: length(engine.compute_waypoints(tuple(a), tuple(b)))


def m_pynavmesh(area: Any) -> Callable[[np.ndarray, np.ndarray], float]:
    import pathfinder

    from wayfinding.navmesh import NavMesh

    mesh = NavMesh.build(area)
    verts = [(float(x), 0.0, float(y)) for x, y in mesh.vertices]
    polys = [mesh.polygons[i, :mesh.sizes[i]].tolist() for i in range(mesh.num_polygons)]
    finder = pathfinder.PathFinder(verts, polys)

    def query(a: np.ndarray, b: np.ndarray) -> float:
        path = finder.search_path((float(a[0]), 0.0, float(a[1])),
                                  (float(b[0]), 0.0, float(b[1])))
        return length([(p[0], p[2]) for p in path]) if path else math.inf
    return query


def m_extremity(area: Any) -> Callable[[np.ndarray, np.ndarray], float]:
    from extremitypathfinder import PolygonEnvironment
    from shapely.geometry.polygon import orient

    env = PolygonEnvironment()
    area = orient(area, 1.0)
    env.store(list(area.exterior.coords)[:-1],
              [list(h.coords)[:-1] for h in area.interiors], validate=False)
    env.prepare()
    return lambda a, b: env.find_shortest_path(tuple(a), tuple(b))[1]


def leaving(area: Any, pairs: np.ndarray) -> int:
    """How many of extremitypathfinder's paths for ``pairs`` leave the walkable area."""
    import shapely
    from extremitypathfinder import PolygonEnvironment
    from shapely.geometry.polygon import orient

    env = PolygonEnvironment()
    oriented = orient(area, 1.0)
    env.store(list(oriented.exterior.coords)[:-1],
              [list(h.coords)[:-1] for h in oriented.interiors], validate=False)
    env.prepare()
    grown = area.buffer(1e-9)
    shapely.prepare(grown)
    paths = [env.find_shortest_path(tuple(a), tuple(b))[0] for a, b in pairs]
    return sum(not grown.covers(shapely.linestrings(p)) for p in paths if len(p) > 1)


METHODS: list[tuple[str, str | None, Callable[[Any], Any]]] = [
    ("wayfinding navmesh", None, lambda area: m_wayfinding(area, "delaunay")),
    ("wayfinding subtractive", None, lambda area: m_wayfinding(area, "subtractive")),
    ("wayfinding clearance mesh (r = 0)", None, m_clearance),
    ("jupedsim RoutingEngine", "jupedsim", m_jupedsim),
    ("pynavmesh PathFinder", "pathfinder", m_pynavmesh),
    ("extremitypathfinder (exact)", "extremitypathfinder", m_extremity),
    ("wayfinding exact (visibility)", None, m_exact),
]


def available(module: str | None) -> bool:
    if module is None:
        return True
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def run_world(name: str, area: Any, pairs: np.ndarray) -> tuple[str, dict[str, Any]]:
    results: dict[str, Any] = {}
    exact_q = m_exact(area)
    exact = np.array([exact_q(a, b) for a, b in pairs])
    for label, module, make in METHODS:
        if not available(module):
            results[label] = None
            continue
        try:
            t0 = time.perf_counter()
            query = make(area)
            build = time.perf_counter() - t0
            query(*pairs[0])
        except Exception as exc:  # a peer that cannot take this world is reported
            results[label] = f"fails: {type(exc).__name__}: {exc}"
            print(f"  {name}: {label:30s} {results[label]}", file=sys.stderr, flush=True)
            continue
        times, lengths = [], []
        for a, b in pairs:
            t = time.perf_counter()
            lengths.append(query(a, b))
            times.append(time.perf_counter() - t)
        ratio = np.array(lengths) / np.where(exact > 0, exact, 1.0)
        results[label] = (build, np.array(times), ratio)
        print(f"  {name}: {label:30s} build {build:7.3f} s  median {fmt_us(np.median(times))}"
              f" µs  mean ratio {np.nanmean(ratio[np.isfinite(ratio)]):.4f}", file=sys.stderr,
              flush=True)
    if results.get("extremitypathfinder (exact)") is not None:
        ratio = results["extremitypathfinder (exact)"][2]
        dev = float(np.max(np.abs(ratio - 1.0)))
        note = f"extremitypathfinder's lengths ÷ the visibility map's: max deviation {dev:.1e}"
        if dev > 1e-9:
            note += (f"; {leaving(area, pairs)} of its {len(pairs)} paths leave the walkable "
                     "area (checked with shapely)")
    else:
        note = "extremitypathfinder not installed: exact lengths from the visibility map only"
    base = results["wayfinding navmesh"][1]
    rows = []
    for label, _, _ in METHODS:
        got = results[label]
        if got is None or isinstance(got, str):
            rows.append([label, "not installed" if got is None else got[:60]] + ["–"] * 6)
            continue
        build, times, ratio = got
        ok = np.isfinite(ratio)
        rows.append([label, f"{build:.3f}", fmt_us(float(np.median(times))),
                     fmt_us(float(np.mean(times))),
                     fmt_x(float(np.median(times) / np.median(base))),
                     f"{np.mean(ratio[ok]):.4f}" if ok.any() else "–",
                     f"{np.max(ratio[ok]):.4f}" if ok.any() else "–",
                     f"{int((~ok).sum())}"])
    holes = sum(len(p.interiors) for p in getattr(area, "geoms", [area]))
    head = (f"### {name} ({len(pairs)} queries; {holes} holes, "
            f"{len(area.exterior.coords) - 1 if hasattr(area, 'exterior') else '–'} outline "
            f"vertices)\n\n")
    return head + table(["method", "build s", "median µs", "mean µs",
                         "median ÷ wayfinding navmesh", "mean length ÷ exact", "max",
                         "no path"], rows) + f"\n\n{note}.", results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="20 queries, no arena2")
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    t0 = time.perf_counter()
    n = 20 if args.quick else args.queries
    worlds = [("rects80", rects80(np.random.default_rng(args.seed))),
              ("random300", random300(np.random.default_rng(args.seed)))]
    if not args.quick:
        worlds.append(("dao/arena2", arena2(data)))
    tables = []
    for name, area in worlds:
        pts = sample_points(area, np.random.default_rng(args.seed + 1), 2 * n)
        pairs = np.stack([pts[:n], pts[n:]], axis=1)
        text, _ = run_world(name, area, pairs)
        tables.append(text)
    from wayfinding.navmesh import ClearanceMesh, NavMesh

    big = thousand_obstacles(np.random.default_rng(0))
    builds = []
    for label, kwargs in (("radius 0", {}), ("radius 0.3", {"radius": 0.3})):
        times = []
        for _ in range(3):
            t = time.perf_counter()
            mesh = NavMesh.build(big, **kwargs)
            times.append(time.perf_counter() - t)
        builds.append([f"`NavMesh`, {label}", f"{mesh.num_polygons:,}",
                       f"{len(mesh.vertices):,}", f"{np.median(times):.3f}"])
    t = time.perf_counter()
    lct = ClearanceMesh.build(big)
    builds.append(["`ClearanceMesh` (every radius)", f"{lct.num_triangles:,} triangles",
                   f"{len(lct.vertices):,} ({lct.steiner:,} Steiner)",
                   f"{time.perf_counter() - t:.3f} (one run)"])
    parts = [
        run_header("navmesh.py", argv, data, time.perf_counter() - t0),
        "Every method answers the same random pairs of points of each world in one process; "
        "only the query call is timed, after one warm-up query.  Lengths are those of the "
        "returned polylines, divided by the exact shortest length (wayfinding's visibility "
        "map; extremitypathfinder's deviation from it is given under each table).  "
        "jupedsim keeps a clearance at corners and pynavmesh searches over polygon centres, "
        "so their paths are longer by design.",
        *tables,
        "### Build time of a world with 1,000 obstacles",
        "A 205 × 205 box minus 1,000 random axis-aligned boxes (0.5–3.5 units, overlapping), "
        "`NavMesh.build` (constrained Delaunay + Hertel–Mehlhorn), median of 3; "
        "`ClearanceMesh.build` (constrained Delaunay, clearances, refinement).",
        table(["mesh", "cells", "vertices", "build s"], builds),
    ]
    body = "\n\n".join(parts)
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
