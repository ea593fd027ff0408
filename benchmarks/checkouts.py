"""No-slowdown check: the same public operations timed in two checkouts of wayfinding.

Run from the repository root, with the other checkout built in place (its kernels compiled)::

    python benchmarks/checkouts.py OTHER_CHECKOUT [--rounds R]

Each round runs every operation once in a fresh process per checkout, alternating which goes
first, and each process reports the median of its repeats; the table gives, per operation,
the median over the rounds in each checkout and their ratio (this checkout / the other).
The operations: grid A* and JPS (``GridSearch``), JPS+ and subgoal-graph queries on a
generated cave map; A* on its ``CSRGraph``; an eikonal flow field; a continuum-crowd update;
a navigation-mesh query; an ORCA step of 5,000 agents; a ``Navigator`` update of 200 agents
on a mesh.  Set-up (maps, indexes, meshes) is outside the timings.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _selector(func, method):
    """``{"method": method}``, or ``{"algo": method}`` in checkouts that spell it so."""
    params = inspect.signature(func).parameters
    return {"method" if "method" in params else "algo": method}


def operations():
    """(name, set-up) pairs; a set-up returns the function to time."""
    import numpy as np

    from wayfinding.crowd import ORCA, Crowd, Navigator
    from wayfinding.fields import ContinuumField, FlowField
    from wayfinding.grid import GridSearch, JPSPlus, SubgoalGraph, generate
    from wayfinding.navmesh import NavMesh

    grid = generate.caves(256, 256, seed=3)
    draw = getattr(generate, "benchmark_scenario", None) or generate.scenario
    problems = [(p.start, p.goal) for p in draw(grid, per_bucket=2, seed=3)][-40:]

    def grid_search(method):
        gs = GridSearch(grid)
        how = _selector(GridSearch.find_path, method)
        return lambda: [gs.find_path(s, g, **how) for s, g in problems]

    def index(cls):
        ix = cls.build(grid)
        return lambda: [ix.find_path(s, g) for s, g in problems]

    def csr():
        to_csr = getattr(grid, "to_csr", None)
        if to_csr is None:
            from wayfinding.graph import CSRGraph
            graph = CSRGraph.from_grid(grid)
        else:
            graph = to_csr()
        w = grid.width
        pairs = [(s[1] * w + s[0], g[1] * w + g[0]) for s, g in problems]
        return lambda: [graph.find_path(s, g) for s, g in pairs]

    def flow():
        goal = problems[-1][1]
        return lambda: FlowField.build(grid, [goal])

    def continuum():
        field = ContinuumField(grid)
        rng = np.random.default_rng(1)
        free = np.argwhere(grid.passable)[:, ::-1].astype(float) + 0.5
        pos = free[rng.choice(len(free), 2000, replace=False)]
        vel = np.zeros_like(pos)
        goal = [tuple(problems[-1][1])]
        return lambda: field.update(positions=pos, velocities=vel, goals=goal)

    outline = [(0, 0), (60, 0), (60, 60), (0, 60)]
    holes = [[(x, y), (x + 4, y), (x + 4, y + 4), (x, y + 4)]
             for x in range(6, 54, 10) for y in range(6, 54, 10)]
    mesh = NavMesh.build(outline=outline, holes=holes, radius=0.5)
    rng = np.random.default_rng(2)
    pts = [(float(x), float(y)) for x, y in rng.uniform(1, 59, (400, 2))
           if not any(h[0][0] - 0.6 < x < h[1][0] + 0.6 and h[0][1] - 0.6 < y < h[2][1] + 0.6
                      for h in holes)]
    queries = list(zip(pts[0::2], pts[1::2]))[:60]

    def navmesh():
        return lambda: [mesh.find_path(a, b) for a, b in queries]

    def orca():
        n = 5000
        a = 2 * np.pi * np.arange(n) / n
        start = 1000 * np.stack([np.cos(a), np.sin(a)], 1)
        crowd = Crowd()
        for p, q in zip(start, -start):
            crowd.add(p, goal=q, radius=1.5, max_speed=2.0)
        model = ORCA(time_horizon=10.0, time_horizon_obst=10.0)
        for _ in range(20):
            model.step(crowd, 0.25, preferred=crowd.preferred_velocity(0.25))
        pref = crowd.preferred_velocity(0.25)
        return lambda: model.step(crowd, 0.25, preferred=pref)

    def navigator():
        nav = Navigator(mesh)
        for (p, q) in queries[:50] + [(b, a) for a, b in queries[:50]] * 3:
            nav.add(p, target=q, radius=0.5, max_speed=1.5)
        for _ in range(5):
            nav.update(0.1)
        return lambda: nav.update(0.1)

    return [("grid A*", lambda: grid_search("astar")), ("grid JPS", lambda: grid_search("jps")),
            ("JPS+", lambda: index(JPSPlus)), ("subgoal graph", lambda: index(SubgoalGraph)),
            ("CSR A*", csr), ("flow field", flow), ("continuum update", continuum),
            ("navmesh queries", navmesh), ("ORCA step, 5,000", orca),
            ("Navigator update, 200", navigator)]


def measure(repeats: int) -> dict[str, float]:
    """Median seconds of each operation in this process."""
    warnings.simplefilter("ignore", DeprecationWarning)
    out = {}
    for name, setup in operations():
        run = setup()
        run()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        out[name] = statistics.median(times)
    return out


def child(checkout: Path, repeats: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(checkout / "src"))
    done = subprocess.run([sys.executable, __file__, "--child", str(repeats)], env=env,
                          cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", nargs="?", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child)))
        return 0
    if args.other is None:
        ap.error("give the other checkout")
    here = HERE.parent
    runs: dict[str, list[dict[str, float]]] = {"this": [], "other": []}
    for r in range(args.rounds):
        order = [("this", here), ("other", args.other)]
        for label, path in (order if r % 2 == 0 else order[::-1]):
            runs[label].append(child(path, args.repeats))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"| operation | this checkout (ms) | {args.other.name} (ms) | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for name in runs["this"][0]:
        a = statistics.median(x[name] for x in runs["this"]) * 1e3
        b = statistics.median(x[name] for x in runs["other"]) * 1e3
        print(f"| {name} | {a:.2f} | {b:.2f} | {a / b:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
