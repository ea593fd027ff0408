"""Precomputed routes (table look-ups) against compiled CSR A*, in one process.

Run from the repository root::

    python benchmarks/tables.py [--data DIR] [--out BENCHMARKS.md] [--queries N]
                                [--seed S] [--tile T] [--zone Z] [--levels 2,3,4]

Cases, each on the graph of a Moving AI map's passable cells (8-connected, no corner
cutting): (a) the flat all-pairs table (``CSRPathTable``) on ``dao/arena`` (2,054 nodes);
(b) A* with the cluster heuristic (``CSRZoneTable``) and (c) the tiled exit tables
(``CSRExitTables``, with 2, 3 and 4 levels) on ``dao/arena2`` (24,311 nodes).  Per case:
build time, memory against the flat tables of the same graph, median and mean µs per query
of the table answer and of compiled ``CSRGraph.find_path`` A* on the same random
reproducible pairs (only the query call is timed), and the length ratio to the A* optimum
(mean, max); then the exit tables' sizes by part and number of levels; then, on every 2D
map of the data folder, the exit tables' (``--every-levels`` levels; tiles ``--tile``, or
``--every-large-tile`` on maps of more than ``--every-max-nodes`` nodes) length ratio to the
optimum, mean and max, on ``--every-queries`` random pairs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _report import find_data_dir, publish, run_header

from wayfinding.graph import CSRExitTables, CSRGraph, CSRPathTable, CSRZoneTable
from wayfinding.graph.tables import table_bytes
from wayfinding.grid import read_map

SECTION = "## Precomputed routes"


def passable_graph(path: Path) -> CSRGraph:
    """The move graph of a map restricted to the nodes that have an edge."""
    full = read_map(path).to_csr()
    src = np.repeat(np.arange(full.num_nodes), np.diff(full.indptr))
    live = np.flatnonzero(np.diff(full.indptr) + np.bincount(full.indices,
                                                              minlength=full.num_nodes))
    local = np.full(full.num_nodes, -1)
    local[live] = np.arange(len(live))
    return CSRGraph.from_edges(len(live), local[src], local[full.indices], full.weights,
                               coords=full.coords[live])


def timed(fn, pairs):
    out, times = [], []
    fn(*pairs[0])
    for a, b in pairs:
        t0 = time.perf_counter()
        r = fn(a, b)
        times.append(time.perf_counter() - t0)
        out.append(r)
    return out, np.array(times) * 1e6


def run_case(label, graph, index, query, pairs):
    mine, t_mine = timed(query, pairs)
    ref, t_ref = timed(graph.find_path, pairs)
    ratios = [m.cost / r.cost for m, r in zip(mine, ref) if r.found and r.cost > 0]
    assert all(m.found == r.found for m, r in zip(mine, ref)), label
    nbytes = index.nbytes
    flat = table_bytes(graph.num_nodes)
    return (f"| {label} | {graph.num_nodes} | {index.build_time:.2f} | {nbytes / 1e6:.2f} | "
            f"{flat / 1e6:.1f} | {nbytes / flat:.4f} | {np.median(t_mine):.1f} | "
            f"{np.mean(t_mine):.1f} | {np.median(t_ref):.1f} | {np.mean(t_ref):.1f} | "
            f"{np.median(t_ref) / np.median(t_mine):.2f} | {np.mean(ratios):.4f} | "
            f"{max(ratios):.4f} |")


def every_map_rows(data: Path, args: argparse.Namespace) -> list[str]:
    rows = []
    for path in sorted((data / "maps").glob("*/*.map")):
        graph = passable_graph(path)
        tile = args.tile if graph.num_nodes <= args.every_max_nodes else args.every_large_tile
        exits = CSRExitTables.build(graph, tile_size=tile, levels=args.every_levels)
        rng = np.random.default_rng(args.seed)
        ratios = []
        while len(ratios) < args.every_queries:
            a, b = (int(v) for v in rng.integers(0, graph.num_nodes, 2))
            opt = graph.find_path(a, b)
            if not opt.found or opt.cost == 0:
                continue
            route = exits.find_path(a, b)
            assert route.found, (path.name, a, b)
            ratios.append(route.cost / opt.cost)
        rows.append(f"| {path.parent.name}/{path.stem} | {graph.num_nodes} | {tile:g} | "
                    f"{exits.build_time:.1f} | {len(ratios)} | {np.mean(ratios):.4f} | "
                    f"{max(ratios):.4f} |")
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tile", type=float, default=8.0, help="exit-table tile side (cells)")
    ap.add_argument("--levels", default="2,3,4", help="exit-table level counts to compare")
    ap.add_argument("--zone", type=float, default=16.0, help="zone side (cells)")
    ap.add_argument("--every-levels", type=int, default=3,
                    help="exit-table levels in the every-map table")
    ap.add_argument("--every-queries", type=int, default=200)
    ap.add_argument("--every-max-nodes", type=int, default=100_000,
                    help="in the every-map table, larger maps get tiles of --every-large-tile "
                    "(the build runs a Dijkstra over the whole graph per component)")
    ap.add_argument("--every-large-tile", type=float, default=16.0)
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    t0 = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    rows = []
    small = passable_graph(data / "maps" / "dao" / "arena.map")
    pairs = [tuple(map(int, p)) for p in rng.integers(0, small.num_nodes, (args.queries, 2))]
    flat = CSRPathTable.build(small)
    rows.append(run_case("(a) flat table, dao/arena", small, flat, flat.find_path, pairs))
    big = passable_graph(data / "maps" / "dao" / "arena2.map")
    pairs = [tuple(map(int, p)) for p in rng.integers(0, big.num_nodes, (args.queries, 2))]
    zones = CSRZoneTable.build(big, zone_size=args.zone)
    rows.append(run_case(f"(b) cluster-heuristic A*, dao/arena2, zones {args.zone:g}", big,
                         zones, zones.find_path, pairs))
    size_rows = []
    for levels in (int(v) for v in args.levels.split(",")):
        exits = CSRExitTables.build(big, tile_size=args.tile, levels=levels)
        rows.append(run_case(f"(c) exit tables, dao/arena2, tiles {args.tile:g}, {levels} "
                             "levels", big, exits, exits.find_path, pairs))
        sizes = exits.table_sizes()
        comps = [len(exits.arrays[k]) for k in exits.arrays if k.endswith("centre")]
        size_rows.append(f"| {levels} | {' / '.join(f'{c:,}' for c in comps)} | "
                         + " | ".join(f"{sizes[k] / 1e6:.2f}" for k in
                                      ("near", "centre", "top", "other", "total")) + " |")
    every = every_map_rows(data, args)
    head = ("| case | nodes | build s | MB | flat MB | / flat | table µs median | mean | "
            "A* µs median | mean | A* / table (median) | length ratio mean | max |\n"
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
            "---: | ---: |")
    body = "\n".join([
        run_header("tables.py", argv, data, time.perf_counter() - t0), "",
        f"{args.queries} random reproducible pairs (seed {args.seed}) per map; table answers "
        "and A* run on the same pairs in one process.",
        "", head, *rows, "",
        f"Exit-table sizes on dao/arena2 (tiles {args.tile:g}) by number of levels, MB; the "
        f"flat tables of the same graph take {table_bytes(big.num_nodes) / 1e6:,.0f} MB.",
        "",
        "| levels | components per tiled level | near | centre | top | other | total |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: |", *size_rows, "",
        f"Exit tables ({args.every_levels} levels) on every map, tiles {args.tile:g} (maps "
        f"over {args.every_max_nodes:,} nodes: {args.every_large_tile:g}): length ratio to "
        f"the A* optimum over {args.every_queries} random reproducible pairs (seed "
        f"{args.seed}) of connected nodes.", "",
        "| map | nodes | tile | build s | pairs | ratio mean | max |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |", *every])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
