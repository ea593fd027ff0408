"""Fields: fast marching against scikit-fmm on the same grids, in one process.

Run from the repository root::

    python benchmarks/fields.py [--out BENCHMARKS.md] [--repeats N]

Grids: open squares of side 256, 512, 1024 and 2048 with one source in a corner and a
per-cell speed field (a smooth band pattern between 0.5 and 2), and the Moving AI maps
dao/brc202d, mazes/maze512-1-0 and cities/Boston_0_512 (walls masked, unit speed, the goal of
the scenario file's middle problem as the source).  Both compute travel times of order 1 and
2 (``wayfinding.fields.eikonal_field`` and ``skfmm.travel_time``; first-order results are
checked equal to 1e-6).  Median of ``N`` runs each.  Target: wayfinding at least 1.5×
faster.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _report import find_data_dir, fmt_x, publish, run_header, table

SECTION = "## Fields"
SIDES = (256, 512, 1024, 2048)
MAPS = ("dao/brc202d", "mazes/maze512-1-0", "cities/Boston_0_512")


def median_time(repeats: int, fn, *args, **kwargs) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def cases(data: Path):
    """(name, speed array (0 = wall), source (x, y))."""
    from wayfinding.grid import read_map, read_scen

    for n in SIDES:
        yy, xx = np.mgrid[0:n, 0:n] / n
        speed = 1.25 + 0.75 * np.sin(9 * xx + 4 * yy) * np.cos(7 * yy)
        yield f"open {n}² (speeds 0.5-2)", speed, (0, 0)
    for name in MAPS:
        grid = read_map(data / "maps" / f"{name}.map")
        scen = read_scen(data / "scenarios" / f"{name}.map.scen")
        goal = scen.problems[len(scen.problems) // 2].goal
        yield f"{name} ({grid.width}×{grid.height})", grid.passable.astype(float), \
            (int(goal[0]), int(goal[1]))


def run(data: Path, repeats: int) -> list[list[str]]:
    import skfmm

    from wayfinding.fields import eikonal_field

    rows = []
    for name, speed, (x, y) in cases(data):
        phi = np.ones(speed.shape)
        phi[y, x] = 0.0
        phi = np.ma.MaskedArray(phi, speed == 0)
        peer_speed = np.where(speed > 0, speed, 1.0)
        row = [name]
        for order in (1, 2):
            ours = eikonal_field(speed, [(x, y)], order=order)
            theirs = np.ma.filled(skfmm.travel_time(phi, peer_speed, order=order), np.inf)
            if order == 1:
                both = np.isfinite(ours) & np.isfinite(theirs)
                if not np.allclose(ours[both], theirs[both], rtol=0, atol=1e-6):
                    raise AssertionError(f"{name}: first-order times differ from scikit-fmm")
            t_ours = median_time(repeats, eikonal_field, speed, [(x, y)], order=order)
            t_peer = median_time(repeats, skfmm.travel_time, phi, peer_speed, order=order)
            row += [f"{t_ours * 1e3:,.1f}", f"{t_peer * 1e3:,.1f}", fmt_x(t_peer / t_ours)]
        rows.append(row)
        print(f"  {name}: {row[1:]}", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    import skfmm

    t0 = time.perf_counter()
    rows = run(data, args.repeats)
    body = "\n\n".join([
        run_header("fields.py", argv, data, time.perf_counter() - t0,
                   f"scikit-fmm {skfmm.__version__}"),
        "Fast marching (travel times from one source, walls masked), median ms; "
        "target: wayfinding ≥ 1.5× faster than scikit-fmm.",
        table(["grid", "order 1: wayfinding ms", "scikit-fmm ms", "speed-up",
               "order 2: wayfinding ms", "scikit-fmm ms", "speed-up"], rows)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
