"""Temporary obstacles on a tiled voxel navmesh (``wayfinding.navmesh3d.tilecache``): the
cost of adding, moving and removing an obstacle (tiles rebuilt and milliseconds until the
mesh is up to date, medians), of laying each new mesh out for queries (whole, and from the
previous mesh's layout, as ``compile_mesh`` does for a tile cache's meshes) and of making
a query on it, and the memory kept per tile; at tiles of 48 and 32 cells on Recast's
test level (skipped with a message when absent) and a large generated terrain.

Detour's own tile cache (``dtTileCache``, the WASM build of @recast-navigation/core under
node, ``tests/oracles/recast/tilecache.mjs``) runs the same obstacles where node is there;
A Detour user reports about 7 ms per obstacle added, nearly all of it rebuilding tiles
(native release build, tiles of 48 cells of 0.17 m; recastnavigation issue #390), quoted
as context.

    python benchmarks/tilecache.py [--out BENCHMARKS.md] [--obstacles N] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import sys
import time

import numpy as np
from _report import REPO, publish, run_header, run_node, table

from wayfinding.navmesh3d import BuildSettings, Level, generate
from wayfinding.navmesh3d.obstacles import Cylinder
from wayfinding.navmesh3d.query import WALK, NavMesh3DQuery, compile_mesh
from wayfinding.navmesh3d.tilecache import TileCache

ORACLE = REPO / "tests" / "oracles" / "recast"
RECAST_DATA = REPO.parent / "shared" / "data" / "recast"
DETOUR_ISSUE_MS = 7.0
#: The obstacle RecastDemo's tile cache sample drops: a cylinder 1 wide and 2 high.
RADIUS, HEIGHT = 1.0, 2.0


def spots(cache: TileCache, n: int, seed: int) -> list[tuple[float, float, float]]:
    """``n`` points on the ground of the mesh: over the centres of random polygons (uniform
    over polygons), at the height of their detail."""
    polygons = cache.mesh.polygons()
    query = NavMesh3DQuery(cache.mesh)
    rng = np.random.default_rng(seed)
    return [query.nearest(polygons[k].mean(axis=0))[1]
            for k in rng.integers(0, len(polygons), n)]


def off_mesh(query: NavMesh3DQuery, point: tuple[float, float, float]) -> bool:
    """Whether the mesh no longer holds an obstacle's centre: no polygon near, or the
    nearest point on one at least half the radius away (xz) or on another floor (more than
    the climb, 0.9, above or below)."""
    poly, (x, y, z) = query.nearest(point)
    return poly < 0 or float(np.hypot(x - point[0], z - point[2])) >= 0.5 * RADIUS or \
        abs(y - point[1]) > 0.9


def timed_update(cache: TileCache) -> tuple[float, int]:
    """(ms, tiles rebuilt) of bringing the cache up to date."""
    t = time.perf_counter()
    cache.update()
    return (time.perf_counter() - t) * 1e3, len(cache.changed)


def ours(level: Level, settings: BuildSettings, tile_size: int,
         places: list[tuple[float, float, float]], moves: list[tuple[float, float, float]]
         ) -> dict[str, float]:
    """Our figures for one level and tile size: each obstacle added, moved and removed."""
    t = time.perf_counter()
    cache = TileCache(level, settings=settings, tile_size=tile_size, flags=WALK)
    build_ms = (time.perf_counter() - t) * 1e3
    ms: dict[str, list[float]] = {"add": [], "move": [], "remove": [], "layout": [],
                                  "whole": [], "query": []}
    tiles: dict[str, list[int]] = {"add": [], "move": [], "remove": []}
    blocked = 0
    for here, there in zip(places, moves, strict=True):
        oid = cache.add(Cylinder((here[0], here[1] - 0.5, here[2]), RADIUS, HEIGHT))
        for op in ("add", "move", "remove"):
            if op == "move":
                cache.move(oid, Cylinder((there[0], there[1] - 0.5, there[2]), RADIUS, HEIGHT))
            elif op == "remove":
                cache.remove(oid)
            spent, n = timed_update(cache)
            ms[op].append(spent)
            tiles[op].append(n)
            if n:
                t = time.perf_counter()      # the mesh laid out from the previous layout
                compile_mesh(cache.mesh)
                ms["layout"].append((time.perf_counter() - t) * 1e3)
                copy = dataclasses.replace(cache.mesh)   # made from none: laid out whole
                t = time.perf_counter()
                compile_mesh(copy)
                ms["whole"].append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            query = NavMesh3DQuery(cache.mesh)
            ms["query"].append((time.perf_counter() - t) * 1e3)
            if op == "add":
                blocked += off_mesh(query, here)
    memory = list(cache.memory().values())
    per_tile = [m / max(n, 1) for op in ("add", "move", "remove")
                for m, n in zip(ms[op], tiles[op], strict=True) if n]
    return {"build_ms": build_ms, "tiles": float(len(cache.mesh.tiles)),
            "blocked": blocked / len(places),
            **{f"{op}_ms": statistics.median(v) for op, v in ms.items()},
            **{f"{op}_tiles": statistics.median(v) for op, v in tiles.items()},
            "per_tile_ms": statistics.median(per_tile),
            "kb_per_tile": statistics.mean(memory) / 1024, "kb_max": max(memory) / 1024}


def detour(level: Level, settings: BuildSettings, tile_size: int,
           places: list[tuple[float, float, float]], moves: list[tuple[float, float, float]]
           ) -> dict[str, float] | None:
    """Detour's tile cache on the same obstacles (median ms per add, move and remove, a
    move being a remove and an add), or None without node and the oracle."""
    node = shutil.which("node")
    script = ORACLE / "tilecache.mjs"
    if node is None or not (ORACLE / "node_modules").is_dir() or not script.is_file():
        return None
    sys.path.insert(0, str(REPO / "tests"))
    from recast_data import oracle_settings

    data = {"vertices": level.vertices.tolist(), "triangles": level.triangles.tolist(),
            "settings": {**oracle_settings(settings), "tile_size": tile_size},
            "radius": RADIUS, "height": HEIGHT,
            "places": [[x, y - 0.5, z] for x, y, z in places],
            "moves": [[x, y - 0.5, z] for x, y, z in moves]}
    return {k: float(v) for k, v in run_node(node, script, data).items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--obstacles", type=int, default=30, help="obstacles per level and size")
    ap.add_argument("--quick", action="store_true", help="a smaller terrain")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    settings = BuildSettings()
    levels: list[tuple[str, Level]] = []
    if (RECAST_DATA / "nav_test.obj").is_file():
        levels.append(("nav_test", Level.read(RECAST_DATA / "nav_test.obj")))
    else:
        print(f"Recast's nav_test.obj not found in {RECAST_DATA}: left out", file=sys.stderr)
    size = 100 if args.quick else 300
    levels.append((f"terrain {size}×{size}",
                   generate.terrain(size=size, cell=1.0, height=size / 8, seed=1)))
    rows, theirs_rows = [], []
    # Detour's tile cache builds no height detail and splits layers without a distance
    # field: the last row shows our rebuild with the nearest settings
    lighter = settings.replace(partition="monotone", detail_sample_dist=0.0)
    configs = ((48, settings, ""), (32, settings, ""),
               (48, lighter, ", monotone, no detail samples"))
    for name, level in levels:
        for tile_size, config, note in configs:
            probe = TileCache(level, tile_size=tile_size, flags=WALK)
            places = spots(probe, args.obstacles, 1)
            moves = spots(probe, args.obstacles, 2)
            f = ours(level, config, tile_size, places, moves)
            rows.append([name, f"{tile_size}{note}", f"{f['tiles']:.0f}",
                         f"{f['build_ms']:.0f}",
                         *(f"{f[op + '_ms']:.1f} ({f[op + '_tiles']:.0f})"
                           for op in ("add", "move", "remove")),
                         f"{f['per_tile_ms']:.2f}",
                         f"{f['whole_ms']:.2f} → {f['layout_ms']:.2f}", f"{f['query_ms']:.2f}",
                         f"{f['kb_per_tile']:.1f} (max {f['kb_max']:.1f})",
                         f"{f['blocked']:.0%}"])
            d = None if note else detour(level, settings, tile_size, places, moves)
            if d is not None:
                theirs_rows.append([name, str(tile_size), f"{d['build_ms']:.0f}",
                                    *(f"{d[op + '_ms']:.2f}" for op in ("add", "move", "remove")),
                                    f"{d['kb_per_tile']:.1f}", f"{d['blocked']:.0%}",
                                    f"{f['add_ms'] / d['add_ms']:.2f}×"])
    parts = [
        run_header("tilecache.py", argv, RECAST_DATA, time.perf_counter() - t0,
                   "Detour: @recast-navigation/core (WASM) under node"),
        f"{args.obstacles} cylinders ({RADIUS} m radius, {HEIGHT} m high) dropped on random "
        "polygons of each level, each added, moved to another polygon and removed, the mesh "
        "brought up to date after each change (`update()` with no budget). Times are medians "
        "in ms, with the tiles rebuilt in brackets; a tile rebuilt: erosion to detail of its "
        "kept heightfield; layout: laying each new mesh out for queries (`compile_mesh`), "
        "whole → from the previous mesh's layout (kept tiles copied, only rebuilt tiles laid "
        "out and only they, their neighbours and off-mesh link ends joined again; what a "
        "tile cache's meshes get); query: `NavMesh3DQuery(cache.mesh)` once it is laid out; "
        "memory: the compact heightfield kept per tile "
        "(zlib-compressed); centre blocked: the share of added cylinders whose centre the "
        "new mesh no longer holds (no point on its floor within half the radius). "
        "RecastDemo's default settings. A Detour user reports about "
        f"{DETOUR_ISSUE_MS:.0f} ms per obstacle added (native, tiles of 48 cells of 0.17 m; "
        "recastnavigation #390).",
        table(["level", "tile", "tiles", "first build ms", "add", "move", "remove",
               "ms per tile rebuilt", "layout ms (whole → incremental)", "query ms",
               "KiB per tile", "centre blocked"], rows),
    ]
    if theirs_rows:
        parts += ["### Detour's tile cache on the same obstacles",
                  "dtTileCache (heightfield layers, FastLZ-compressed; obstacles marked "
                  "without erosion by the agent's radius), `update` called until up to "
                  "date; medians in ms. Ratio: our add ÷ Detour's.",
                  table(["level", "tile", "first build ms", "add", "move", "remove",
                         "KiB per tile", "centre blocked", "ours ÷ Detour (add)"],
                        theirs_rows)]
    publish("\n\n".join(parts), args.out, "## Tile cache: temporary obstacles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
