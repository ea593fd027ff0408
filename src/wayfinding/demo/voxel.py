"""The demo page's section on flight through voxel worlds: a generated city of towers and
footbridges, one long problem solved by every voxel search (exact, any-angle and the sparse
voxel octree) and drawn, then a swarm crossing the city on octree paths, avoiding each other
with ORCA in 3D, shown as an animated GIF and in a 3D view to turn around."""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._io import atomic_write_text
from ..crowd.flight import FlightCrowd
from ..results import _fields_equal
from ..viz.voxel import animate_voxels, save_voxels, voxels_html
from ..voxel import generate
from ..voxel.grid import VoxelGrid
from ..voxel.methods import METHODS
from ..voxel.octree import SparseVoxelOctree
from ..voxel.search import VoxelSearch

#: The city: voxels along x, y (up) and z, and its seed.
CITY_SIZE, CITY_SEED = (56, 24, 56), 3
#: The swarm: agents, their radius (voxels), top speed (voxels a second), the time step and
#: the longest flight simulated (s).
AGENTS, RADIUS, SPEED, DT, MAX_SECONDS = 48, 0.35, 3.0, 0.1, 60.0


@dataclass
class Swarm:
    """A swarm's run: positions per frame ``(T, n, 3)`` (world units), who arrived, the
    simulated seconds and the mean wall time of a step."""

    positions: np.ndarray
    arrived: int
    seconds: float
    ms_per_step: float

    __eq__ = _fields_equal


def demo_city() -> VoxelGrid:
    """The demo's city."""
    return generate.towers(CITY_SIZE, seed=CITY_SEED)


def swarm(grid: VoxelGrid, octree: SparseVoxelOctree, *, agents: int = AGENTS,
          seed: int = 1) -> Swarm:
    """``agents`` agents from free voxels near the city's west edge (x small) to free voxels
    near its east edge, low down among the towers, each flying its octree path (smoothed) and
    avoiding the others with ORCA in 3D."""
    rng = np.random.default_rng(seed)
    nx, ny, nz = grid.size
    crowd = FlightCrowd(world=grid)
    placed: list[tuple[int, int, int]] = []
    ends: set[tuple[int, int, int]] = set()
    while len(placed) < agents:
        s = (int(rng.integers(0, 3)), int(rng.integers(1, ny // 2)), int(rng.integers(0, nz)))
        g = (int(rng.integers(nx - 3, nx)), int(rng.integers(1, ny // 2)),
             int(rng.integers(0, nz)))
        if s in ends or g in ends or not (grid.is_free(s) and grid.is_free(g)):
            continue
        r = octree.find_path(s, g)
        if not r.found:
            continue
        ends.update((s, g))
        placed.append(s)
        path = grid.voxel_size * r.smoothed + np.asarray(grid.origin)
        crowd.add(path[0], path=path, radius=RADIUS, max_speed=SPEED)
    frames = [crowd.position.copy()]
    t0 = time.perf_counter()
    steps = 0
    while steps * DT < MAX_SECONDS and not crowd.arrived().all():
        crowd.step(DT)
        frames.append(crowd.position.copy())
        steps += 1
    ms = (time.perf_counter() - t0) * 1e3 / max(steps, 1)
    return Swarm(np.stack(frames), int(crowd.arrived().sum()), steps * DT, ms)


def _corners(grid: VoxelGrid, y: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The free voxels of layer ``y`` nearest the layer's two opposite corners (x + z least
    and greatest)."""
    zx = np.argwhere(~grid.blocked[:, y, :])
    a, b = zx[np.argmin(zx.sum(axis=1))], zx[np.argmax(zx.sum(axis=1))]
    return (int(a[1]), y, int(a[0])), (int(b[1]), y, int(b[0]))


def voxel_section(out: Path) -> str:
    """Solve, draw and fly the city into ``out``; return the HTML section."""
    grid = demo_city()
    t0 = time.perf_counter()
    octree = SparseVoxelOctree.build(grid)
    build_ms = (time.perf_counter() - t0) * 1e3
    memory = octree.memory()
    nx, ny, nz = grid.size
    start, goal = _corners(grid, 2)
    search = VoxelSearch(grid)
    rows, paths = [], []
    for name in METHODS:
        t0 = time.perf_counter()
        r = search.find_path(start, goal, method=name)
        rows.append((name, METHODS[name].description, r.cost, r.stats.expanded,
                     (time.perf_counter() - t0) * 1e6))
        if name in ("astar", "theta"):
            paths.append(r.path)
    t0 = time.perf_counter()
    tree = octree.find_path(start, goal)
    rows.append(("svo", "A* over the octree's nodes (default variant), refined to voxel "
                 "moves and smoothed; not exact", tree.smoothed_length, tree.stats.expanded,
                 (time.perf_counter() - t0) * 1e6))
    paths.append(tree.smoothed)
    save_voxels(out / "voxel-city.png", grid, paths=paths, start=start, goal=goal)
    atomic_write_text(out / "voxel-city.html", voxels_html(
        grid, paths=paths, start=start, goal=goal, title="wayfinding: paths through a city"))
    run = swarm(grid, octree)
    animate_voxels(out / "voxel-swarm.gif", grid, run.positions[::2], fps=10, radius=RADIUS)
    atomic_write_text(out / "voxel-swarm.html", voxels_html(
        grid, agents=run.positions, fps=10, title="wayfinding: a swarm crossing a city"))
    esc = html.escape
    table = "".join(
        f"<tr><td>{esc(n)}</td><td style='text-align:left'>{esc(d)}</td><td>{c:.3f}</td>"
        f"<td>{e:,}</td><td>{us:,.0f}</td></tr>" for n, d, c, e, us in rows)
    return f"""<h2>Flight through voxel worlds</h2>
<p>A generated city of {nx} × {ny} × {nz} voxels (y up; towers on a ground plane, footbridges
between some of them; {grid.num_free:,} free voxels), searched under the Moving AI 3D rule
(26 neighbours, steps of 1, √2 and √3, a move needing its whole cube free).  Its sparse voxel
octree (Morton-ordered layers, 4 × 4 × 4 leaves in 64-bit masks) built in {build_ms:.1f} ms
into {memory['total'] / 1e3:,.1f} kB ({memory['ratio_bytes']:.2f} × a byte per voxel).
One problem from {start} to {goal}, low across the city, by every method:</p>
<table><tr><th>method</th><th>what it is</th><th>length</th><th>nodes expanded</th>
<th>µs</th></tr>{table}</table>
<figure><img src='voxel-city.png' alt='three paths across a voxel city'><figcaption>red: A*
(exact), teal: Theta* (any-angle), orange: the octree's smoothed path;
<a href='voxel-city.html'>turn it around in 3D</a></figcaption></figure>
<h3>A swarm crossing the city</h3>
<p>{AGENTS} flying agents (radius {RADIUS}, top speed {SPEED} voxels a second) from the west
edge to the east edge, each on its own octree path, avoiding one another with ORCA in 3D
(RVO2-3D's planes and linear programs) and never entering a blocked voxel: {run.arrived}
arrived within {run.seconds:.0f} s of simulated time ({run.ms_per_step:.2f} ms a step).</p>
<figure><img src='voxel-swarm.gif' alt='a swarm flying across a city'><figcaption>
<a href='voxel-swarm.html'>watch it in 3D</a></figcaption></figure>
"""
