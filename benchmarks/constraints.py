"""Constraint-aware planning: the search domains of a navigation mesh with and without
constraints, highways, and AD* against A* to the first plan, the optimal plan and a repair.

Run from the repository root::

    python benchmarks/constraints.py [--out BENCHMARKS.md] [--quick]

Random worlds: ``obstacle_world(48, 32, obstacles=14, gap=1, seed=k)`` (walls, boxes and
pillars at any angle) and their navigation meshes; each query walks from the left edge to
the right edge under three constraints drawn along the way: a Near repeller disc (radius 2,
weight -5), a Near attractor between the two obstacles nearest a point of the way (weight
3) and a hard pond (a disc of radius 1.5).  The dense, hybrid and adaptive domains have a
spacing of 1.  The shape of Kapadia et al.'s evaluation: states expanded in the dense and
adaptive highway domains with and without constraints (their Fig. 6.4), expansions with
highways (Fig. 6.8), and AD* (epsilon0 2.5) on the dense and adaptive domains against A* on
the adaptive one, to the first plan, to the optimal plan and for the repair after the
repeller moves onto the path (Table 6.1).  Every optimal cost of a fixed-graph search (A* on
the tri, dense and hybrid domains, AD* on every domain, the adaptive one on its eager state
graph) is checked against scipy's Dijkstra on the domain's graph with the same costs (the
adaptive domain's A* is its lazy search, exact on no fixed graph), and every path against the
hard pond with shapely.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np
import shapely
from _report import publish, run_header, table
from scipy.sparse.csgraph import dijkstra

from wayfinding.constraints import (
    Annotation,
    Between,
    Constraint,
    ConstraintSet,
    Disc,
    Region,
)
from wayfinding.navmesh import AdaptiveDomain, NavMesh, constraint_domain
from wayfinding.navmesh.worlds import obstacle_world
from wayfinding.planning import ConstraintPlanner

SECTION = "## Constraint-aware planning"
WIDTH, HEIGHT, OBSTACLES, GAP = 48.0, 32.0, 14, 1.0
SPACING = 1.0
EPSILON = 2.5
#: Expansions per ``plan`` call until the first plan is published (1: the first round's
#: plan and expansions exactly, unless the next round ends on the same expansion).
SLICE = 1
WORLDS, QUICK_WORLDS = 40, 6
QUERIES, QUICK_QUERIES = 2, 1
#: The repeller, attractor and pond: radius and weight.
REPEL, ATTRACT, POND = (2.0, -5.0), 3.0, 1.5
#: Relative tolerance of the Dijkstra check.
TOLERANCE = 1e-9


def free_point(world: Any, rng: np.random.Generator, x0: float, x1: float) -> np.ndarray:
    """A point with x in ``[x0, x1]`` at least 0.6 from every wall and obstacle."""
    inner = world.buffer(-0.6)
    while True:
        p = np.array([rng.uniform(x0, x1), rng.uniform(1.0, HEIGHT - 1.0)])
        if inner.contains(shapely.Point(p)):
            return p


def along(start: np.ndarray, goal: np.ndarray, rng: np.random.Generator, lo: float, hi: float,
          side: float) -> np.ndarray:
    """A point at a random fraction ``lo``–``hi`` of the way, moved up to ``side`` across it."""
    d = goal - start
    normal = np.array([-d[1], d[0]]) / np.hypot(*d)
    return start + rng.uniform(lo, hi) * d + rng.uniform(-side, side) * normal


def query(world: Any, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, ConstraintSet]:
    """A walk from the left edge to the right edge and its three constraints (see the
    module): repeller, attractor, hard pond, in that order."""
    start = free_point(world, rng, 1.0, 5.0)
    goal = free_point(world, rng, WIDTH - 5.0, WIDTH - 1.0)
    holes = [np.asarray(ring.coords)[:-1] for ring in world.interiors]
    at = along(start, goal, rng, 0.3, 0.7, 0.0)
    near = np.argsort([np.hypot(*(h.mean(axis=0) - at)) for h in holes])[:2]
    repel = Constraint(Disc(along(start, goal, rng, 0.3, 0.7, 3.0), REPEL[0]), REPEL[1],
                       near=True)
    cover = Constraint(Between(*(Region(holes[i]) for i in near)), ATTRACT, near=True)
    while True:
        centre = along(start, goal, rng, 0.35, 0.65, 2.0)
        if world.buffer(-POND).contains(shapely.Point(centre)):
            break
    pond = Constraint.hard(Disc(centre, POND))
    return start, goal, ConstraintSet([repel, cover, pond])


def exact(domain: Any, start: np.ndarray, goal: np.ndarray, cs: ConstraintSet) -> float:
    """The optimal constrained cost of a query (``find_path``) by scipy's Dijkstra on the
    domain's graph under ``cs``: each end enters through any of its joining states (their
    legs added; the adaptive domain's goal through its nearest one), or the straight leg
    between the ends where it is free."""
    us, legs_s = domain.joins(start, cs)
    vs, legs_g = domain.joins(goal, cs)
    if isinstance(domain, AdaptiveDomain):      # its costs depend on the goal's state
        vs, legs_g = vs[:1], legs_g[:1]
    best = domain.straight_leg(start, goal, cs)
    if len(us) and len(vs):
        graph = domain.graph(cs, goal=int(vs[0])).to_scipy()
        dist = dijkstra(graph, indices=us)[:, vs]
        best = min(best, float((legs_s[:, None] + dist + legs_g[None, :]).min()))
    return best


def clear_of(pond: Disc, path: np.ndarray) -> bool:
    """The path (a polyline) stays out of the closed pond, by shapely's distance."""
    if len(path) < 2:
        return not len(path)
    return bool(shapely.LineString(path).distance(shapely.Point(pond.centre)) > pond.radius)


def highway_steps(domain: Any, nodes: np.ndarray) -> int:
    """How many transitions of a hybrid domain's node path are highways."""
    if len(nodes) < 2:
        return 0
    n = domain.num_nodes
    key = domain.edges[:, 0] * n + domain.edges[:, 1]
    ids = np.searchsorted(key, nodes[:-1] * n + nodes[1:])
    return int(domain.highway[ids].sum())


def anytime(domain: Any, start: np.ndarray, goal: np.ndarray, cs: ConstraintSet,
            moved: Annotation | None) -> dict[str, Any]:
    """AD* on ``domain``: seconds, expansions and cost to the first plan (slices of
    :data:`SLICE` expansions); with ``moved``, then to the optimal plan, and repaired to
    optimal again after constraint 0 moves onto ``moved``.  Times include building the
    planner (costing every transition) and the re-costing of the repair."""
    pond = cs[2].annotation
    t0 = time.perf_counter()
    planner = ConstraintPlanner(domain, start, goal, cs, epsilon=EPSILON)
    out: dict[str, Any] = {"build_s": time.perf_counter() - t0}
    expanded = 0
    while True:
        plan = planner.plan(max_expansions=SLICE)
        expanded += plan.stats.expanded
        if plan.found or planner.finished:
            break
    out.update(first_s=time.perf_counter() - t0, first_x=expanded, first_cost=plan.cost,
               first_eps=plan.epsilon, first_nodes=plan.nodes)
    if moved is None:
        return out
    plan = planner.plan()
    expanded += plan.stats.expanded
    out.update(opt_s=time.perf_counter() - t0, opt_x=expanded, opt_cost=plan.cost,
               opt_pond=clear_of(pond, plan.path))
    t1 = time.perf_counter()
    planner.move_constraint(0, moved)
    plan = planner.plan()
    out.update(repair_s=time.perf_counter() - t1, repair_x=plan.stats.expanded,
               repair_cost=plan.cost, repair_pond=clear_of(pond, plan.path),
               recosted=planner.repaired_edges / domain.num_edges)
    return out


def timed_path(mesh: NavMesh, start: np.ndarray, goal: np.ndarray, cs: ConstraintSet,
               kind: str) -> tuple[Any, float]:
    """``mesh.find_path`` (A*) in domain ``kind`` and its seconds."""
    t0 = time.perf_counter()
    r = mesh.find_path(start, goal, constraints=cs, domain=kind,
                       spacing=None if kind == "tri" else SPACING)
    return r, time.perf_counter() - t0


def run_query(mesh: NavMesh, world: Any, rng: np.random.Generator) -> dict[str, Any] | None:
    """Every measure of one query (None when the pond leaves no way through)."""
    start, goal, cs = query(world, rng)
    pond = cs[2].annotation
    domains = {kind: constraint_domain(mesh, kind, spacing=SPACING)
               for kind in ("dense", "adaptive", "hybrid")}
    none = ConstraintSet(())
    row: dict[str, Any] = {}
    checks: list[tuple[float, float]] = []
    ponds: list[bool] = []
    for kind in ("dense", "adaptive", "hybrid", "tri"):
        for label, field in (("", cs), ("_free", none)):
            if kind in ("hybrid", "tri") and label:
                continue
            r, seconds = timed_path(mesh, start, goal, field, kind)
            if not r.found and kind == "dense":
                return None
            row[f"{kind}{label}_x"] = r.stats.expanded
            row[f"{kind}{label}_cost"] = r.cost
            row[f"{kind}{label}_s"] = seconds
            d = domains[kind] if kind != "tri" else constraint_domain(mesh, "tri",
                                                                      constraints=field)
            row[f"{kind}{label}_exact"] = exact(d, start, goal, field)
            if kind != "adaptive":      # its find_path is the lazy search, exact on no fixed graph
                checks.append((r.cost, row[f"{kind}{label}_exact"]))
            if not label:
                row[f"{kind}_path"], row[f"{kind}_nodes"] = r.path, r.nodes
                ponds.append(clear_of(pond, r.path))
    row["hybrid_highways"] = highway_steps(domains["hybrid"], row["hybrid_nodes"])
    path = row["dense_path"]
    seg = np.hypot(*np.diff(path, axis=0).T)
    target = path[min(int(np.searchsorted(np.cumsum(seg), 0.5 * seg.sum())) + 1,
                      len(path) - 1)]
    repel = cs[0].annotation
    onto = repel.moved(target - np.asarray(repel.anchor))
    moved = cs.replaced(0, cs[0].with_annotation(onto))
    for kind in ("dense", "adaptive"):
        ad = anytime(domains[kind], start, goal, cs, onto)
        row.update({f"ad_{kind}_{k}": v for k, v in ad.items()})
        r, seconds = timed_path(mesh, start, goal, moved, kind)
        row[f"{kind}_moved_cost"], row[f"{kind}_moved_s"] = r.cost, seconds
        checks += [(ad["opt_cost"], exact(domains[kind], start, goal, cs)),
                   (ad["repair_cost"], exact(domains[kind], start, goal, moved))]
        if kind != "adaptive":
            checks.append((r.cost, exact(domains[kind], start, goal, moved)))
        ponds += [ad["opt_pond"], ad["repair_pond"], clear_of(pond, r.path)]
    ad = anytime(domains["hybrid"], start, goal, cs, None)
    row["hybrid_ad_x"] = ad["first_x"]
    row["hybrid_ad_highways"] = highway_steps(domains["hybrid"], ad["first_nodes"])
    row["checks"] = checks
    row["ponds"] = ponds
    return row


def med(rows: list[dict[str, Any]], key: str, over: str | None = None) -> float:
    """The median over the queries of a measure, or of its ratio to measure ``over``."""
    return float(np.median(ratio(rows, key, over)))


def ratio(rows: list[dict[str, Any]], key: str, over: str | None = None) -> np.ndarray:
    """A measure of every query, or its ratio to measure ``over``."""
    return np.array([r[key] / (r[over] if over else 1.0) for r in rows])


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


def fig64(rows: list[dict[str, Any]]) -> list[list[str]]:
    """States expanded, dense against adaptive, with and without constraints."""
    out = []
    for label, tag in (("with constraints", ""), ("no constraints", "_free")):
        d, a = f"dense{tag}", f"adaptive{tag}"
        cost = ratio(rows, a + "_cost", d + "_cost")
        out.append([label, f"{med(rows, d + '_x'):,.0f}", f"{med(rows, a + '_x'):,.0f}",
                    f"{100 * (1 - med(rows, a + '_x', d + '_x')):.0f}%",
                    f"{np.median(cost):.3f}",
                    f"{cost.max():.3f}", ms(med(rows, d + "_s")), ms(med(rows, a + "_s"))])
    return out


def fig68(rows: list[dict[str, Any]], hybrid: Any) -> list[list[str]]:
    """Expansions with highways: A* (optimal) and AD*'s first plan, dense against hybrid."""
    lengths = np.hypot(*(hybrid.points[hybrid.edges[:, 1]]
                         - hybrid.points[hybrid.edges[:, 0]]).T)
    ratio = lengths[hybrid.highway].mean() / lengths[~hybrid.highway].mean()
    return [[f"{med(rows, 'dense_x'):,.0f}", f"{med(rows, 'hybrid_x'):,.0f}",
             f"{med(rows, 'hybrid_highways'):.0f}",
             f"{med(rows, 'ad_dense_first_x'):,.0f}", f"{med(rows, 'hybrid_ad_x'):,.0f}",
             f"{med(rows, 'hybrid_ad_highways'):.0f}",
             f"{med(rows, 'hybrid_cost', 'dense_cost'):.3f}",
             f"{ratio:.1f}×", f"{med(rows, 'tri_x'):,.0f}",
             f"{med(rows, 'tri_cost', 'dense_cost'):.3f}"]]


def table61(rows: list[dict[str, Any]]) -> list[list[str]]:
    """AD* dense, AD* adaptive, A* adaptive: median ms / cost over the dense optimum."""
    def cell(kind: str, phase: str, ref: str) -> str:
        s = med(rows, f"ad_{kind}_{phase}_s")
        c = med(rows, f"ad_{kind}_{phase}_cost", ref)
        x = med(rows, f"ad_{kind}_{phase}_x")
        return f"{ms(s)} / {c:.3f} ({x:,.0f})"

    def astar(cost: str, seconds: str, ref: str, x: str | None) -> str:
        c = med(rows, cost, ref)
        return f"{ms(med(rows, seconds))} / {c:.3f}" + (f" ({med(rows, x):,.0f})" if x else "")

    return [["to the first plan", cell("dense", "first", "dense_cost"),
             cell("adaptive", "first", "dense_cost"), "–"],
            ["to the optimal plan", cell("dense", "opt", "dense_cost"),
             cell("adaptive", "opt", "dense_cost"),
             astar("adaptive_cost", "adaptive_s", "dense_cost", "adaptive_x")],
            ["plan repair", cell("dense", "repair", "dense_moved_cost"),
             cell("adaptive", "repair", "dense_moved_cost"),
             astar("adaptive_moved_cost", "adaptive_moved_s", "dense_moved_cost", None)]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true", help="fewer worlds")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    worlds = QUICK_WORLDS if args.quick else WORLDS
    per = QUICK_QUERIES if args.quick else QUERIES
    rows: list[dict[str, Any]] = []
    skipped = 0
    hybrid = None
    for seed in range(worlds):
        world = obstacle_world(WIDTH, HEIGHT, obstacles=OBSTACLES, gap=GAP, seed=seed)
        mesh = NavMesh.build(world)
        rng = np.random.default_rng(seed)
        for _ in range(per):
            row = run_query(mesh, world, rng)
            if row is None:
                skipped += 1
                continue
            rows.append(row)
        if seed == 0:
            hybrid = constraint_domain(mesh, "hybrid", spacing=SPACING)
        print(f"  world {seed}: {len(rows)} queries", file=sys.stderr, flush=True)
    checks = [c for r in rows for c in r["checks"]]
    ok = sum(a == b or abs(a - b) <= TOLERANCE * max(1.0, abs(b)) for a, b in checks)
    worst = max((abs(a - b) for a, b in checks if a != b), default=0.0)
    ponds = [p for r in rows for p in r["ponds"]]
    body = "\n\n".join([
        run_header("constraints.py", argv, None, time.perf_counter() - t0),
        f"{len(rows)} queries ({worlds} worlds × {per}; {skipped} without a way past the "
        f"pond) on `obstacle_world({WIDTH:g}, {HEIGHT:g}, obstacles={OBSTACLES}, "
        f"gap={GAP:g}, seed=k)`, left edge to right edge, under a Near repeller disc "
        f"(radius {REPEL[0]:g}, weight {REPEL[1]:g}), a Near attractor between two "
        f"obstacles (weight {ATTRACT:g}) and a hard pond (radius {POND:g}); dense, hybrid "
        f"and adaptive domains at spacing {SPACING:g} (the adaptive one at its defaults: "
        "runs of 4 steps, cancelled wherever a soft constraint acts).  Correctness: "
        f"**{ok}/{len(checks)}** optimal costs (A* in the tri, dense and hybrid domains, AD*'s "
        f"optimal and repaired plans in every domain — the adaptive A* is its lazy search, "
        f"on no fixed graph) equal scipy's Dijkstra on the domain's graph with the same costs "
        f"to {TOLERANCE:g} (largest difference {worst:.1e}); **{sum(ponds)}/{len(ponds)}** "
        "paths keep out of the hard pond (shapely distance).",
        "States expanded by A* (`NavMesh.find_path(constraints=, domain=, spacing=)`; "
        "no constraints: an empty set), medians; the adaptive domain's reduction is the "
        "median of the per-query ratios, and its cost is over the dense optimum (Kapadia "
        "et al.'s Fig. 6.4: 892 → 637 states with constraints, 493 → 367 without).",
        table(["case", "dense", "adaptive", "reduction", "cost median", "cost max",
               "dense ms", "adaptive ms"], fig64(rows)),
        "Highways (Fig. 6.8: 145 → 90 expansions on a small instance, 545 → 527 on a hard "
        "one): A* expansions in the dense and hybrid domains with the highway transitions "
        f"on the plan, AD*'s (epsilon0 {EPSILON:g}) expansions to its first plan (one "
        "expansion per `plan` call) with the highways on it, the hybrid optimum over the dense "
        "one, highway over dense transition length (world 0; the notes: 2–6×), and the "
        "triangulation domain (cut along the annotations) for scale.",
        table(["A* dense", "A* hybrid", "highways", "AD* dense", "AD* hybrid", "highways",
               "hybrid cost", "highway length", "tri expanded", "tri cost"],
              fig68(rows, hybrid)),
        f"AD* (epsilon0 {EPSILON:g}, step 0.5) on the dense and adaptive domains and A* on the "
        "adaptive domain (Table 6.1: 0.84 s / 76, 0.22 s / 83 to the first plan; 1.94 s / "
        "68, 0.50 s / 73, 0.19 s to the optimal plan; 0.33 s / 65, 0.04 s / 69, 0.18 s for "
        "a repair): median ms (AD* from building the planner; the repair from "
        "`move_constraint` to the optimal plan again, A*'s from scratch) / median cost "
        "over the dense optimum (after the move for the repair) (median expansions).  "
        f"Building the planner (costing every transition) takes a median "
        f"{ms(med(rows, 'ad_dense_build_s'))} ms (dense) and "
        f"{ms(med(rows, 'ad_adaptive_build_s'))} ms (adaptive); the first plan's median "
        f"bound is epsilon {med(rows, 'ad_dense_first_eps'):g} (dense) and "
        f"{med(rows, 'ad_adaptive_first_eps'):g} (adaptive): the rounds after the first "
        "that need no expansion end with it.  The repair moves the repeller onto the "
        "middle of the dense optimal path and re-costs a median "
        f"{100 * med(rows, 'ad_dense_recosted'):.0f}% (dense) and "
        f"{100 * med(rows, 'ad_adaptive_recosted'):.0f}% (adaptive) of the transitions.",
        table(["", "AD*, dense", "AD*, adaptive", "A*, adaptive"], table61(rows))])
    publish(body, args.out, SECTION)
    return 0 if ok == len(checks) and all(ponds) else 1


if __name__ == "__main__":
    sys.exit(main())
