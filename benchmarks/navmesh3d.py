"""Voxel navmesh builds (``wayfinding.navmesh3d.build``) against Recast itself: Recast's test
level and terrains of 10 thousand to 1 million triangles, whole and in tiles over 2 threads.

Recast runs as the npm WASM build under node (tests/oracles/recast, ``npm ci`` there), the
same library the figures of ``../shared/data/recast/README.md`` come from; that README's
native figure (36.7 ms for nav_test on this class of machine) is quoted as context.

    python benchmarks/navmesh3d.py [--out BENCHMARKS.md] [--repeat N] [--quick]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import REPO, publish, run_header, table

from wayfinding.navmesh3d import BuildSettings, Level, build, generate

ORACLE = REPO / "tests" / "oracles" / "recast"
RECAST_DATA = REPO.parent / "shared" / "data" / "recast"
NATIVE_NAV_TEST_MS = 36.7


def recast_ms(level: Level, settings: BuildSettings, repeat: int) -> float | None:
    """Recast's fastest build of ``repeat`` in one node process (ms), or None without node."""
    node = shutil.which("node")
    if node is None or not (ORACLE / "node_modules").is_dir():
        return None
    sys.path.insert(0, str(REPO / "tests"))
    from recast_data import oracle_settings

    data = {"vertices": level.vertices.tolist(), "triangles": level.triangles.tolist(),
            "settings": oracle_settings(settings)}
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(data))
        subprocess.run([node, str(ORACLE / "stages.mjs"), str(src), str(out), "--counts-only",
                        "--repeat", str(repeat)], check=True, capture_output=True, timeout=3600)
        result = json.loads(out.read_text())
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="nav_test and the 10k terrain only")
    args = ap.parse_args(argv)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
