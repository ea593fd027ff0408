"""``wayfinding path | scen | index | render``: search, scenario runs, preprocessed indexes
and pictures on Moving AI maps."""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path
from typing import Any

from .._io import atomic_write_bytes
from ..bench import run_scenario
from ..bench.dask_cluster import dask_client
from ..bench.distributed import build_goal_bounds_dask
from ..errors import InvalidQueryError
from ..grid import ALGORITHMS, HEURISTIC_CODES, Diagonal, Grid, GridSearch, read_map, read_scen
from ..grid.anyangle import ANY_ANGLE
from ..grid.index import GridIndex, load_index, read_index_info
from ..grid.methods import INDEX_SPECS, METHODS, PREPROCESSED, IndexSpec, Solver, make_solver
from .args import add_json_option, add_method_option, cell, positive_float, positive_int, to_json
from .constraints import (
    add_constraint_options,
    cell_points,
    path_constraints,
    plan_time,
    png_target,
    print_shares,
    shares,
)


def _methods_help(methods: dict[str, str]) -> str:
    return "; ".join(f"{name}: {text}" for name, text in methods.items())


def _add_search_options(p: argparse.ArgumentParser, *, index: bool = True) -> None:
    methods = METHODS if index else ALGORITHMS
    add_method_option(p, list(methods),
                      help=f"search method (default astar). {_methods_help(methods)}")
    if index:
        p.add_argument("--index", action="append", default=[], metavar="FILE",
                       help="a saved index (wayfinding index build) for the preprocessed "
                       "methods; what is not given is built (repeatable)")
    p.add_argument("--heuristic", choices=list(HEURISTIC_CODES), default=None,
                   help="heuristic (default octile; manhattan on 4-connected grids)")
    p.add_argument("--weight", type=positive_float, default=None,
                   help="heuristic weight for weighted_astar (>= 1, default 2)")
    p.add_argument("--agent-size", type=positive_int, default=1,
                   help="agent side in cells (default 1)")


def _search_options(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"method": args.method, "heuristic": args.heuristic,
                           "agent_size": args.agent_size}
    if args.weight is not None:
        out["weight"] = args.weight
    return out


def _load(args: argparse.Namespace) -> Grid:
    return read_map(args.map, diagonal=args.diagonal)


def _check_index_method(args: argparse.Namespace) -> None:
    """Refuse ``--index`` for a method that takes no index."""
    if args.index and args.method not in PREPROCESSED:
        raise InvalidQueryError(f"--index {args.index[0]}: method {args.method!r} takes no index "
                                f"(only {', '.join(PREPROCESSED)} do)")


def _indexes(args: argparse.Namespace, grid: Grid) -> list[GridIndex]:
    """The indexes ``--index`` names, loaded for ``grid``; each must be one the method uses."""
    _check_index_method(args)
    needs = PREPROCESSED[args.method].needs if args.index else ()
    indexes = [load_index(path, grid) for path in args.index]
    for path, index in zip(args.index, indexes):
        if not any(spec.matches(index) for spec in needs):
            raise InvalidQueryError(
                f"--index {path}: method {args.method!r} does not use a {index.kind} index "
                f"(it uses {', '.join(spec.name for spec in needs)})")
    return indexes


def _solver(args: argparse.Namespace, grid: Grid, **extra: Any) -> Solver:
    options = _search_options(args)
    method = options.pop("method")
    return make_solver(grid, method, indexes=_indexes(args, grid), **options, **extra)


def cmd_path(args: argparse.Namespace) -> int:
    _check_index_method(args)
    field = path_constraints(args)
    grid = _load(args)
    if field is not None:
        return _constrained_path(args, grid, field)
    record = bool(args.render) and args.method not in ("bidirectional", *PREPROCESSED,
                                                     *ANY_ANGLE)
    solve = _solver(args, grid, **({"record": True} if record else {}))
    r = solve(args.start, args.goal)
    if args.render:
        from ..viz import save

        shown = {"explored": r, "frontier": r} if record else {}
        save(args.render, grid, path=r, start=args.start, goal=args.goal, **shown)
    if args.json:
        print(to_json({
            "found": r.found, "cost": r.cost if r.found else None, "algorithm": r.algorithm,
            "path": r.path.tolist(), "expanded": r.stats.expanded,
            "generated": r.stats.generated, "elapsed_us": r.stats.elapsed * 1e6,
        }))
    elif r.found:
        print(f"cost {r.cost:.8f}, {len(r.path) - 1} steps, {r.stats.expanded} expanded, "
              f"{r.stats.elapsed * 1e6:.0f} µs")
        print(" ".join(f"{x:g},{y:g}" for x, y in r.path.tolist()))
    else:
        print(f"no path from {args.start} to {args.goal}")
    if args.render:
        print(f"picture: {args.render}", file=sys.stderr)
    return 0


def _constrained_path(args: argparse.Namespace, grid: Grid, field: Any) -> int:
    """``path --constraints FILE``: the grid's constrained search (astar or dijkstra)."""
    if args.index:
        raise InvalidQueryError("--index cannot be combined with --constraints")
    if args.render:
        png_target(args.render, "--render")
    t = plan_time(args)
    r = GridSearch(grid).find_path(args.start, args.goal, constraints=field, t=t,
                                   **_search_options(args))
    points = cell_points(grid, r.path)
    inside = shares(field, points)
    if args.render:
        from ..viz.constraints import render_constraints_png

        start, goal = cell_points(grid, [args.start, args.goal])
        atomic_write_bytes(args.render, render_constraints_png(
            grid, field, paths=[r] if r.found else [], start=start, goal=goal, t=t,
            title=f"{args.constraints} at t={t:g}"))
    if args.json:
        print(to_json({
            "found": r.found, "cost": r.cost if r.found else None, "algorithm": r.algorithm,
            "path": r.path.tolist(), "expanded": r.stats.expanded,
            "generated": r.stats.generated, "elapsed_us": r.stats.elapsed * 1e6,
            "constraints": args.constraints, "t": t, "satisfaction": inside,
        }))
    elif r.found:
        print(f"cost {r.cost:.8f}, {len(r.path) - 1} steps, {r.stats.expanded} expanded, "
              f"{r.stats.elapsed * 1e6:.0f} µs, under {args.constraints} at t={t:g}")
        print(" ".join(f"{x:g},{y:g}" for x, y in r.path.tolist()))
        print_shares(field, inside, t)
    else:
        print(f"no path from {args.start} to {args.goal} under {args.constraints} at t={t:g}")
    if args.render:
        print(f"picture: {args.render}", file=sys.stderr)
    return 0


def cmd_scen(args: argparse.Namespace) -> int:
    _check_index_method(args)
    scen = read_scen(args.scen)
    indexes = []
    if args.index:
        indexes = _indexes(args, read_map(scen.find_map(search=args.maps or ())))
    report = run_scenario(args.scen, sample=args.sample, maps=args.maps or (),
                          show_progress=not args.json and not args.quiet, scenario=scen,
                          indexes=indexes, **_search_options(args))
    if args.json:
        print(to_json(report.as_dict()))
    else:
        print(report.table())
        for w in report.worst:
            print(f"  {'mismatch' if report.exact else 'failure'} at line {w['line']}: "
                  f"{w['start']} -> {w['goal']}: "
                  f"optimal {w['optimal']}, found {w['found']}")
    return 1 if report.mismatches else 0


def cmd_index_build(args: argparse.Namespace) -> int:
    if args.dask is None and args.batch is not None:
        raise InvalidQueryError("--batch only applies with --dask")
    grid = _load(args)
    spec = INDEX_SPECS[args.kind]
    index = _build_dask(args, grid, spec.name) if args.dask is not None \
        else _build(args, grid, spec)
    index.save(args.output)
    where = f" on Dask ({args.dask})" if args.dask is not None else ""
    print(f"{spec.name} index of {args.map}: {index.nbytes / 1e6:,.2f} MB, built in "
          f"{index.build_time:,.2f} s{where} -> {args.output}")
    return 0


def _build(args: argparse.Namespace, grid: Grid, spec: IndexSpec) -> GridIndex:
    extra: dict[str, Any] = {}
    if spec.name == "goal_bounds":
        extra = {"workers": args.workers, "checkpoint": args.checkpoint,
                 "progress": not args.quiet}
    elif args.workers is not None or args.checkpoint is not None:
        raise InvalidQueryError("--workers and --checkpoint only apply to goal_bounds")
    if spec.name == "differential":
        extra["pivots"] = args.pivots
    elif args.pivots is not None:
        raise InvalidQueryError("--pivots only applies to differential")
    return spec.build(grid, **{k: v for k, v in extra.items() if v is not None})


#: The index kinds ``wayfinding index build --dask`` builds, with their Dask builds.
_DASK_BUILDS = {"goal_bounds": build_goal_bounds_dask}


def _build_dask(args: argparse.Namespace, grid: Grid, kind: str) -> GridIndex:
    build = _DASK_BUILDS.get(kind)
    if build is None:
        raise InvalidQueryError(f"--dask builds only {', '.join(_DASK_BUILDS)}; build {kind} "
                                "without --dask")
    if args.workers is not None or args.checkpoint is not None or args.pivots is not None:
        raise InvalidQueryError("--workers, --checkpoint and --pivots do not apply with --dask")
    options = {} if args.batch is None else {"batch": args.batch}
    with dask_client(args.dask) as client:
        return build(grid, client=client, progress=not args.quiet, **options)


def cmd_index_info(args: argparse.Namespace) -> int:
    info = read_index_info(args.file)
    if args.json:
        print(to_json(info))
        return 0
    shape = info.get("shape") or ["?", "?"]
    rows = [("kind", info.get("kind")), ("format version", info.get("version")),
            ("map", f"{shape[1]} x {shape[0]}, diagonal {info.get('diagonal')}"),
            ("map fingerprint", info.get("fingerprint")),
            ("options", to_json(info.get("options", {}))),
            ("memory", f"{info.get('nbytes', 0) / 1e6:,.2f} MB"),
            ("build time", f"{info.get('build_time', 0.0):,.2f} s")]
    width = max(len(k) for k, _ in rows)
    print("\n".join(f"{k:<{width}}  {v}" for k, v in rows))
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from ..viz import picture

    grid = _load(args)
    options: dict[str, Any] = {}
    if args.start is not None and args.goal is not None:
        r = GridSearch(grid).find_path(args.start, args.goal, record=args.method != "bidirectional",
                                       **_search_options(args))
        options.update(path=r, start=args.start, goal=args.goal)
        if args.explored and r.expanded_nodes is not None:
            options.update(explored=r, frontier=r)
    elif (args.start is None) != (args.goal is None):
        raise InvalidQueryError("give both --from and --to, or neither")
    if args.distances_from is not None:
        options["distances"] = GridSearch(grid).distance_map(args.distances_from)
        options.setdefault("start", args.distances_from)
    # Every picture made and every folder checked before any is written: a failure leaves
    # no picture of the command behind.
    made = [(out, picture(out, grid, **options)) for out in args.output]
    for out, _ in made:
        folder = Path(out).resolve().parent
        if not folder.is_dir():
            raise FileNotFoundError(errno.ENOENT, "no such folder", str(folder))
    for out, data in made:
        atomic_write_bytes(out, data)
        print(out)
    return 0


def add_grid_parsers(sub: Any) -> None:
    """Register ``path``, ``scen``, ``index`` and ``render``."""
    diag = {"choices": [d.value for d in Diagonal], "default": "no_corner_cutting",
            "help": "diagonal rule (default no_corner_cutting, the Moving AI rule)"}

    p = sub.add_parser("path", help="grids: find one path on a Moving AI .map")
    p.add_argument("map", help="a Moving AI .map file")
    p.add_argument("--from", dest="start", type=cell, required=True, metavar="X,Y")
    p.add_argument("--to", dest="goal", type=cell, required=True, metavar="X,Y")
    p.add_argument("--diagonal", **diag)
    _add_search_options(p)
    add_json_option(p)
    p.add_argument("--render", metavar="OUT", help="also draw the search to OUT (.png/.svg; "
                   "with --constraints the constraint field under the path, .png)")
    add_constraint_options(p)
    p.set_defaults(run=cmd_path)

    s = sub.add_parser("scen", help="grids: solve a Moving AI .scen file and check its optimal "
                       "lengths",
                       description="Solve every problem of a .scen file (or a deterministic "
                       f"sample) and check each length. Methods: {_methods_help(METHODS)}.")
    s.add_argument("scen", help="a Moving AI .scen file")
    _add_search_options(s)
    s.add_argument("--sample", type=positive_int, default=None, metavar="N",
                   help="solve an evenly spread sample of N problems")
    s.add_argument("--maps", action="append", metavar="DIR",
                   help="extra folder to look for the map in (repeatable)")
    add_json_option(s)
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(run=cmd_scen, diagonal="no_corner_cutting")

    ix = sub.add_parser("index", help="grids: build a preprocessed index (JPS+, goal "
                        "bounds, subgoal graphs, HPA*...) or describe a saved one")
    ixsub = ix.add_subparsers(dest="index_command", required=True)
    b = ixsub.add_parser("build", help="build an index for a .map and save it (.npz)")
    b.add_argument("map", help="a Moving AI .map file")
    b.add_argument("kind", choices=list(INDEX_SPECS), help="what to build")
    b.add_argument("-o", "--output", required=True, metavar="FILE", help="where to save it")
    b.add_argument("--diagonal", **diag)
    b.add_argument("--workers", type=positive_int, default=None,
                   help="goal_bounds: threads (default: all cores)")
    b.add_argument("--checkpoint", default=None, metavar="FILE",
                   help="goal_bounds: save progress here and resume from it")
    b.add_argument("--pivots", type=positive_int, default=None,
                   help="differential: number of pivots (default 8)")
    b.add_argument("--dask", default=None, metavar="SCHEDULER",
                   help="goal_bounds: build as a Dask task graph on SCHEDULER, a scheduler "
                   "address (tcp://host:8786) or local:N for a LocalCluster of N worker "
                   "processes (the [dask] extra)")
    b.add_argument("--batch", type=positive_int, default=None, metavar="N",
                   help="with --dask: goals flooded per task (default 256)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(run=cmd_index_build)
    i = ixsub.add_parser("info", help="describe a saved index")
    i.add_argument("file", help="a saved index (.npz)")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.set_defaults(run=cmd_index_info)

    r = sub.add_parser("render", help="grids: draw a map with a path, explored cells or a "
                       "distance map (SVG, PNG)")
    r.add_argument("map", help="a Moving AI .map file")
    r.add_argument("-o", "--output", action="append", required=True, metavar="OUT",
                   help="picture to write (.png or .svg; repeatable)")
    r.add_argument("--from", dest="start", type=cell, metavar="X,Y")
    r.add_argument("--to", dest="goal", type=cell, metavar="X,Y")
    r.add_argument("--explored", action="store_true", help="show explored and open cells")
    r.add_argument("--distances-from", type=cell, metavar="X,Y",
                   help="colour cells by their cost from this cell")
    r.add_argument("--diagonal", **diag)
    _add_search_options(r, index=False)
    r.set_defaults(run=cmd_render)
