"""Navigation-mesh builders compared on the same worlds, by the wavefront chapter's measures:
region count, near-degenerate regions, confluence, coverage, build time and the length of
navmesh paths against the exact shortest.

Run from the repository root::

    python benchmarks/wavefront.py [--out BENCHMARKS.md] [--worlds N] [--queries N]
                                   [--repeats N] [--seed S] [--data DIR] [--maps M ...]
                                   [--quick]

Builders: ``NavMesh.build(area, method=...)`` with ``"delaunay"`` (constrained Delaunay +
Hertel–Mehlhorn), ``"subtractive"`` and ``"wavefront"`` (``seed=0``, with and without its
convex merge) where the library has it.  Worlds: ``--worlds`` random obstacle worlds
(``obstacle_world(100, 100, obstacles=30, seed=k)``: walls, boxes and pillars at any angle,
as the chapter's 25) and small Moving AI maps polygonised in place (``walkable_area`` of the
grid, the largest connected part; ``dao/arena`` and ``dao/den312d`` unless ``--maps`` names
others), skipped with a printed reason where the data is absent.  Quality:
``mesh_quality`` with its default thresholds (interior angle < 10°, diameter > 10 × width,
shared boundary < 1 world unit, regions joined to the rest only at corners) against the free
space.  Build time: the median of ``--repeats`` builds (fewer once they took 10 s).  Path
excess: ``find_path``'s length over the exact shortest (Polyanya on the Delaunay mesh,
``method="polyanya"``), minus 1, over ``--queries`` random pairs of points per world
(``random_point`` of the Delaunay mesh, the same pairs for every builder).  ``--quick``: 3
worlds, 20 queries, 2 repeats, the first map.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _report import DATA_DIRS, publish, run_header, table

SECTION = "## Navigation-mesh builders: the wavefront chapter's measures"
MAPS = ("dao/arena", "dao/den312d")
#: Seconds of builds after which a builder is timed no more on a world.
BUDGET = 10.0
KINDS = ("small_angle", "slivers", "narrow", "disconnected")


def builders() -> list[tuple[str, str, dict[str, Any]]]:
    """The builders this library has: (label, method, extra keywords)."""
    from shapely.geometry import box

    from wayfinding.errors import WayfindingError
    from wayfinding.navmesh import NavMesh

    out: list[tuple[str, str, dict[str, Any]]] = [("delaunay", "delaunay", {}),
                                                   ("subtractive", "subtractive", {})]
    room = box(0, 0, 4, 4).difference(box(1, 1, 2, 2))
    for label, extra in (("wavefront", {"seed": 0}),
                         ("wavefront, no merge", {"seed": 0, "merge": False})):
        try:
            NavMesh.build(room, method="wavefront", **extra)
        except (WayfindingError, TypeError) as exc:
            print(f"{label}: not available ({exc})", file=sys.stderr)
        else:
            out.append((label, "wavefront", extra))
    return out


def data_dir(given: str | None) -> Path | None:
    """The Moving AI folder (``--data``, else the first of ``_report.DATA_DIRS`` with
    maps), or None with the reason printed."""
    for path in [Path(given)] if given else DATA_DIRS:
        if (path / "maps").is_dir():
            return path
    print("Moving AI maps not found (looked in: " + ", ".join(
        map(str, [given] if given else DATA_DIRS)) + "): the maps are left out",
        file=sys.stderr)
    return None


def movingai_area(data: Path, name: str) -> Any:
    import shapely

    from wayfinding.grid import read_map
    from wayfinding.navmesh import walkable_area

    area = walkable_area(read_map(data / "maps" / f"{name}.map"))
    return max(shapely.get_parts(area), key=lambda g: g.area)


def measure(area: Any, methods: list[tuple[str, str, dict[str, Any]]], queries: int,
            repeats: int, seed: int) -> dict[str, dict[str, Any]]:
    """Per builder: its mesh's quality, median build seconds (of ``repeats`` builds, fewer
    once they took :data:`BUDGET` seconds) and path excesses."""
    from wayfinding.navmesh import NavMesh
    from wayfinding.navmesh.quality import mesh_quality

    reference = NavMesh.build(area)
    rng = np.random.default_rng(seed)
    pts = np.array([reference.random_point(rng=rng)[1] for _ in range(2 * queries)])
    pairs = list(zip(pts[:queries].tolist(), pts[queries:].tolist()))
    exact = np.array([reference.find_path(a, b, method="polyanya").cost for a, b in pairs])
    out = {}
    for label, method, extra in methods:
        times: list[float] = []
        while len(times) < repeats and sum(times) < BUDGET:
            t0 = time.perf_counter()
            mesh = NavMesh.build(area, method=method, **extra)
            times.append(time.perf_counter() - t0)
        lengths = np.array([mesh.find_path(a, b).cost for a, b in pairs])
        excess = np.where(exact > 0, lengths / np.where(exact > 0, exact, 1.0) - 1.0, 0.0)
        out[label] = {"quality": mesh_quality(mesh, area=area),
                       "build": float(np.median(times)), "excess": excess}
    return out


def rows(name: str, runs: list[dict[str, dict[str, Any]]]) -> list[list[str]]:
    """One row per builder over the worlds of ``runs``."""
    out = []
    for label in runs[0]:
        got = [run[label] for run in runs]
        q = [g["quality"] for g in got]
        regions = np.array([x.regions for x in q], float)
        degenerate = np.array([len(x.degenerate) for x in q], float)
        kinds = "/".join(f"{np.mean([len(getattr(x, k)) for x in q]):.1f}" for k in KINDS)
        excess = np.concatenate([g["excess"] for g in got])
        finite = excess[np.isfinite(excess)]
        out.append([
            name, label, f"{regions.mean():.1f}", f"{degenerate.mean():.1f}",
            f"{100 * degenerate.sum() / regions.sum():.1f}%", kinds,
            f"{max(x.max_confluence for x in q)}", f"{sum(len(x.crowded) for x in q)}",
            f"{100 * min(x.coverage for x in q):.4f}%",
            f"{max(x.overlap for x in q):.1e}",
            f"{1e3 * np.median([g['build'] for g in got]):.1f}",
            f"{100 * finite.mean():.2f}%" if len(finite) else "–",
            f"{100 * finite.max():.2f}%" if len(finite) else "–",
            f"{len(excess) - len(finite)}"])
        print("  " + " | ".join(out[-1]), file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--data", help="Moving AI folder (maps/)")
    ap.add_argument("--worlds", type=int, default=25, help="random obstacle worlds")
    ap.add_argument("--queries", type=int, default=100, help="path queries per world")
    ap.add_argument("--repeats", type=int, default=5,
                    help=f"builds timed per world (fewer once they took {BUDGET:g} s)")
    ap.add_argument("--maps", nargs="*", default=list(MAPS),
                    help="Moving AI maps (<set>/<map>) to polygonise")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true",
                    help="3 worlds, 20 queries, 2 repeats, one map")
    args = ap.parse_args(argv)
    from wayfinding.navmesh.worlds import obstacle_world

    t0 = time.perf_counter()
    n_worlds = 3 if args.quick else args.worlds
    queries = 20 if args.quick else args.queries
    repeats = 2 if args.quick else args.repeats
    methods = builders()
    runs = []
    for k in range(n_worlds):
        world = obstacle_world(100, 100, obstacles=30, seed=args.seed + k)
        runs.append(measure(world, methods, queries, repeats, args.seed + k))
        print(f"world {k + 1}/{n_worlds} done", file=sys.stderr, flush=True)
    body = rows(f"random worlds ({n_worlds})", runs)
    data = data_dir(args.data)
    skipped = ""
    if data is None:
        skipped = ("Moving AI maps not found (see `_report.DATA_DIRS`): only the random "
                   "worlds were run.")
    else:
        for name in args.maps[:1] if args.quick else args.maps:
            area = movingai_area(data, name)
            body += rows(name, [measure(area, methods, queries, repeats, args.seed)])
    names = ", ".join(f"`{m}`" + (" (`merge=False`)" if "merge" in extra else "")
                      for _, m, extra in methods)
    parts = [
        run_header("wavefront.py", argv, data, time.perf_counter() - t0),
        f"Builders: {names} (`NavMesh.build(area, method=...)`).  Random worlds: "
        f"`obstacle_world(100, 100, obstacles=30, seed=k)` for k = {args.seed}.."
        f"{args.seed + n_worlds - 1} (walls, boxes and pillars at any angle in a 100 × 100 "
        "room); maps: the passable cells of small Moving AI maps as polygons (their largest "
        "connected part).  Near-degenerate regions by `mesh_quality`'s default thresholds "
        "(interior angle < 10°, diameter > 10 × width, a shared boundary < 1 unit, joined "
        "to the rest only at corners), given as the mean per world and the share of all "
        "regions, then by kind (angle/sliver/narrow/disconnected, means per world).  "
        "Confluence: the most regions meeting at one vertex over the worlds, and how many "
        "vertices have more than 5 (the chapter's bound for wavefront meshes).  Coverage: "
        "the smallest share of the free space covered; overlap: the largest area covered "
        "twice, as a share of the free space.  Build: median over the worlds of each "
        f"world's median of {repeats} builds (fewer once they took {BUDGET:g} s), ms.  "
        "Path excess: `find_path`'s length over the exact shortest (Polyanya on the "
        f"Delaunay mesh), minus 1, over {queries} random pairs of points per world, the same "
        "pairs for every builder.",
        table(["worlds", "builder", "regions", "near-degenerate", "share",
               "angle/sliver/narrow/disc.", "max confluence", "vertices > 5",
               "min coverage", "max overlap", "build ms", "mean excess", "max excess",
               "no path"], body),
    ] + [skipped] * bool(skipped)
    publish("\n\n".join(parts), args.out, SECTION)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
