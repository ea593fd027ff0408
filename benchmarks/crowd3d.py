"""Crowds on voxel navmeshes: ``Navigator3D`` per frame against Detour's ``dtCrowd``.

Run from the repository root::

    python benchmarks/crowd3d.py [--out BENCHMARKS.md] [--frames F]

Detour runs as the npm WASM build under node (tests/oracles/recast, ``npm ci`` there:
``crowd_bench.mjs``), on the navmesh Recast builds from the same level and settings, with
RecastDemo's agent settings (its "high" sampled obstacle avoidance, separation, anticipated
turns, visibility and topology optimization).  Ours: ORCA among the agents and each one's
walls, Detour's corridor and collision handling (see ``wayfinding.crowd.surface``).  Scenes:
the two-storey level (``generate.multi_storey``, no link: its stairs, bridge and ground
routes, as in the demo) and a 64 x 64 hilly terrain in tiles of 32 cells with agents between
random points (seeded).  Both run the same F frames of 0.1 s from the same starts; the table
gives the median and mean time a frame and how many agents ended within a radius (0.6) of
their targets.  Detour is compiled code throughout; ours runs Python per agent over compiled
queries, so the gap narrows as agents share the work of the vectorised stages.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time

import numpy as np
from _report import REPO, fmt_x, machine_line, publish, run_node, table

from wayfinding.crowd.surface import Navigator3D
from wayfinding.navmesh3d import BuildSettings, Level, build, generate, with_flags
from wayfinding.navmesh3d.query import NavMesh3DQuery

SECTION = "## Crowds on 3D navmeshes"
ORACLE = REPO / "tests" / "oracles" / "recast"
DT, RADIUS, HEIGHT = 0.1, 0.6, 2.0
#: How near (xz) its target an agent must end to count as arrived: a radius (Detour's agents
#: slow in proportion to the distance left and are pushed about by separation near the end).
ARRIVED = RADIUS
#: The demo's routes without the jump: (start box, target box) as (x range, y, z range).
ROUTES = (
    (((1.0, 4.0), 0.0, (6.0, 15.0)), ((6.5, 10.0), 3.0, (10.0, 15.0))),
    (((6.5, 10.0), 3.0, (4.0, 10.0)), ((17.8, 21.0), 3.0, (1.0, 15.0))),
    (((24.5, 31.0), 0.0, (1.0, 15.0)), ((1.0, 4.5), 0.0, (5.0, 15.0))),
)


def storey_agents(per_route: int, seed: int = 3) -> np.ndarray:
    """``(n, 7)`` rows: start, target, top speed; points of a route at least 1.5 apart."""
    rng = np.random.default_rng(seed)
    rows: list[list[float]] = []
    for start, goal in ROUTES:
        for box, col in ((start, 0), (goal, 3)):
            taken: list[tuple[float, float]] = []
            for k in range(per_route):
                (x0, x1), y, (z0, z1) = box
                for _ in range(500):
                    x, z = rng.uniform(x0, x1), rng.uniform(z0, z1)
                    if all((x - a) ** 2 + (z - b) ** 2 >= 2.25 for a, b in taken):
                        break
                taken.append((x, z))
                if col == 0:
                    rows.append([x, y, z, 0, 0, 0, float(rng.uniform(1.2, 1.6))])
                else:
                    rows[len(rows) - per_route + k][3:6] = [x, y, z]
    return np.array(rows)


def terrain_agents(level: Level, n: int, seed: int = 0) -> np.ndarray:
    q = NavMesh3DQuery(with_flags(build(level, tile_size=32)))
    rng = np.random.default_rng(seed)
    rows = [[*q.random_point(rng=rng)[1], *q.random_point(rng=rng)[1], 1.4] for _ in range(n)]
    return np.array(rows)


def ours(level: Level, tile_size: int, agents: np.ndarray, frames: int
         ) -> tuple[list[float], int]:
    """Our milliseconds per frame and the agents that ended within :data:`ARRIVED` of their
    targets."""
    nav = Navigator3D(with_flags(build(level, tile_size=tile_size)), radius=RADIUS,
                      height=HEIGHT)
    ids = [nav.add(a[:3], target=a[3:6], max_speed=float(a[6])) for a in agents]
    ms = []
    for _ in range(frames):
        t0 = time.perf_counter()
        nav.update(DT)
        ms.append((time.perf_counter() - t0) * 1000)
    arrived = sum(np.hypot(*(nav.position(i) - a[3:6])[[0, 2]]) < ARRIVED
                  for i, a in zip(ids, agents))
    return ms, int(arrived)


def detour(level: Level, tile_size: int, agents: np.ndarray, frames: int
           ) -> tuple[list[float], int] | None:
    """Detour's milliseconds per frame and arrivals (one node process), or None without
    node and the oracle."""
    node = shutil.which("node")
    if node is None or not (ORACLE / "node_modules").is_dir():
        return None
    sys.path.insert(0, str(REPO / "tests"))
    from recast_data import oracle_settings

    settings = BuildSettings()
    st = oracle_settings(settings)
    st["tile_size"] = tile_size
    st["agent_max_climb"] = settings.agent_max_climb
    data = {"vertices": level.vertices.tolist(), "triangles": level.triangles.tolist(),
            "settings": st, "agents": agents.tolist(), "radius": RADIUS, "height": HEIGHT,
            "dt": DT, "frames": frames}
    result = run_node(node, ORACLE / "crowd_bench.mjs", data)
    final = np.array(result["final"])
    return result["ms"], int((np.hypot(*(final - agents[:, 3:6])[:, [0, 2]].T) < ARRIVED).sum())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the section into this Markdown file")
    parser.add_argument("--frames", type=int, default=400)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    storeys, hills = generate.multi_storey(), generate.terrain(size=64, seed=2)
    scenes = [(f"two storeys, {3 * k} agents", storeys, 0, storey_agents(k)) for k in (4, 12)]
    scenes += [(f"terrain 64 × 64, {n} agents", hills, 32, terrain_agents(hills, n))
               for n in (50, 200)]
    rows = []
    for name, level, tile_size, agents in scenes:
        ms, arrived = ours(level, tile_size, agents, args.frames)
        theirs = detour(level, tile_size, agents, args.frames)
        med = statistics.median(ms)
        if theirs is None:
            rows.append([name, f"{med:.2f}", f"{np.mean(ms):.2f}", f"{arrived}/{len(agents)}",
                         "–", "–", "–", "–"])
            continue
        d_ms, d_arrived = theirs
        d_med = statistics.median(d_ms)
        rows.append([name, f"{med:.2f}", f"{np.mean(ms):.2f}", f"{arrived}/{len(agents)}",
                     f"{d_med:.3f}", f"{np.mean(d_ms):.3f}", f"{d_arrived}/{len(agents)}",
                     fmt_x(med / d_med if d_med > 0 else float("inf"))])
        print(name, rows[-1], file=sys.stderr)
    body = (f"{machine_line()}; {args.frames} frames of {DT} s, "
            f"{(time.perf_counter() - t0) / 60:.1f} min.  Command: "
            f"`python benchmarks/crowd3d.py {' '.join(sys.argv[1:] if argv is None else argv)}`"
            f"\n\n" + table(["scene", "ours ms/frame (median)", "ours mean", "ours arrived",
                             "Detour ms/frame (median)", "Detour mean", "Detour arrived",
                             "ours / Detour (median)"], rows) + "\n")
    publish(body, args.out, SECTION)


if __name__ == "__main__":
    main()
