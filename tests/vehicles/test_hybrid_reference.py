"""The compiled car planner against a plain reference: the same hybrid A* written with numpy
and the library's Python Reeds–Shepp and Dubins paths, whose every pose, count and length
the kernel must reproduce (expansions, generated nodes and the open list's peak included,
so a change in the heuristic, the collision test or the tie-breaking shows)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from wayfinding._kernels import _hybrid
from wayfinding.grid import Grid, GridSearch
from wayfinding.grid.generate import caves
from wayfinding.navmesh import NavMesh
from wayfinding.paths import reeds_shepp_path, turning_path
from wayfinding.paths.reeds_shepp import _advance
from wayfinding.results import Status
from wayfinding.vehicles.hybrid import CarPath, _grid_body, _mesh_body, plan_car_path

TAU = 2 * math.pi


class RefBody:
    """The car's rectangle sampled along moves (see plan_car_path's docstring)."""

    def __init__(self, cell: float, length: float, width: float, radius: float):
        self.cell = cell
        reach = math.hypot(length, width) / 2
        shift = cell / 8
        self.step = shift / (1 + reach / radius)
        self.half = np.array([length / 2 + shift / 2, width / 2 + shift / 2])
        self.inner = min(length, width) / 2

    def boxes(self, poses: np.ndarray) -> tuple[np.ndarray, ...]:
        c, s = np.cos(poses[:, 2]), np.sin(poses[:, 2])
        a, b = self.half
        ex = np.abs(a * c) + np.abs(b * s)
        ey = np.abs(a * s) + np.abs(b * c)
        lo = np.array([(poses[:, 0] - ex).min(), (poses[:, 1] - ey).min()])
        hi = np.array([(poses[:, 0] + ex).max(), (poses[:, 1] + ey).max()])
        return c, s, ex, ey, lo, hi


def in_chunks(test: Callable[[np.ndarray], bool], poses: np.ndarray) -> bool:
    return all(test(poses[i:i + 48]) for i in range(0, len(poses), 48))


class RefGridBody(RefBody):
    def __init__(self, grid: Grid, cell: float, length: float, width: float, radius: float):
        super().__init__(cell, length, width, radius)
        cs = grid.cell_size
        self.grid, self.cs = grid, cs
        self.origin = np.asarray(grid.origin, dtype=np.float64)
        self.blocked = ~grid.passable
        h, w = grid.shape
        self.hi = self.origin + cs * np.array([w, h], dtype=np.float64)
        self.near = (grid.obstacle_distance - math.sqrt(2)) * cs <= math.hypot(*self.half)

    def aim(self, goal: np.ndarray) -> None:
        grid, cs = self.grid, self.cs
        room = grid.obstacle_distance * cs + cs / math.sqrt(2) >= self.inner
        stand = Grid(np.where(room & grid.passable, 1.0, np.inf), diagonal="always")
        self.distances = GridSearch(stand).distance_map([grid.world_to_cell(goal[:2])]) * cs

    def holonomic(self, pose: np.ndarray) -> float:
        x, y = self.grid.world_to_cell(pose[:2])
        return float(self.distances[y, x])

    def clear(self, poses: np.ndarray) -> bool:
        cells = np.floor((poses[:, :2] - self.origin) / self.cs).astype(np.int64)
        h, w = self.blocked.shape
        if ((cells < 0) | (cells >= (w, h))).any():
            return False
        return in_chunks(self._clear, poses[self.near[cells[:, 1], cells[:, 0]]])

    def _clear(self, poses: np.ndarray) -> bool:
        c, s, ex, ey, lo, hi = self.boxes(poses)
        a, b = self.half
        if (lo < self.origin).any() or (hi > self.hi).any():
            return False
        x0, y0 = np.floor((lo - self.origin) / self.cs).astype(int)
        x1, y1 = np.floor((hi - self.origin) / self.cs).astype(int)
        ys, xs = np.nonzero(self.blocked[y0:y1 + 1, x0:x1 + 1])
        if not len(xs):
            return True
        half_cell = self.cs / 2
        dx = (self.origin[0] + (xs + x0 + 0.5) * self.cs)[None, :] - poses[:, 0, None]
        dy = (self.origin[1] + (ys + y0 + 0.5) * self.cs)[None, :] - poses[:, 1, None]
        c, s, ex, ey = c[:, None], s[:, None], ex[:, None], ey[:, None]
        spread = half_cell * (np.abs(c) + np.abs(s))
        hit = ((np.abs(dx) < half_cell + ex) & (np.abs(dy) < half_cell + ey)
               & (np.abs(dx * c + dy * s) < a + spread)
               & (np.abs(dy * c - dx * s) < b + spread))
        return not bool(hit.any())


class RefMeshBody(RefBody):
    def __init__(self, mesh: NavMesh, cell: float, length: float, width: float,
                 radius: float):
        super().__init__(cell, length, width, radius)
        self.mesh = mesh
        loops = mesh.boundary()
        self.a = np.concatenate(loops)
        self.b = np.concatenate([np.roll(v, -1, axis=0) for v in loops])
        d = self.b - self.a
        self.normal = np.column_stack([-d[:, 1], d[:, 0]]) / np.hypot(d[:, 0], d[:, 1])[:, None]
        self.lo, self.hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)

    def aim(self, goal: np.ndarray) -> None:
        self.goal = goal[:2]

    def holonomic(self, pose: np.ndarray) -> float:
        r = self.mesh.find_path(pose[:2], self.goal)
        return float(r.cost) if r.found else math.inf

    def clear(self, poses: np.ndarray) -> bool:
        if (self.mesh.locate_many(poses[:, :2]) < 0).any():
            return False
        return in_chunks(self._clear, poses)

    def _clear(self, poses: np.ndarray) -> bool:
        c, s, ex, ey, lo, hi = self.boxes(poses)
        a, b = self.half
        near = np.nonzero((self.hi > lo).all(1) & (self.lo < hi).all(1))[0]
        pa, pb, n = self.a[near], self.b[near], self.normal[near]
        c, s = c[:, None], s[:, None]
        x, y = poses[:, 0, None], poses[:, 1, None]

        def apart(ux: np.ndarray, uy: np.ndarray, half: float) -> np.ndarray:
            ta = (pa[:, 0] - x) * ux + (pa[:, 1] - y) * uy
            tb = (pb[:, 0] - x) * ux + (pb[:, 1] - y) * uy
            return (np.minimum(ta, tb) >= half) | (np.maximum(ta, tb) <= -half)

        across = np.abs((x - pa[:, 0]) * n[:, 0] + (y - pa[:, 1]) * n[:, 1]) >= (
            a * np.abs(c * n[:, 0] + s * n[:, 1]) + b * np.abs(c * n[:, 1] - s * n[:, 0]))
        return bool((apart(c, s, a) | apart(-s, c, b) | across).all())


def reference_plan(world: Grid | NavMesh, start: tuple, goal: tuple, *, turning_radius: float,
                   length: float, width: float, reverse: bool = True,
                   reverse_cost: float = 1.0, cell_size: float | None = None,
                   heading_bins: int = 72, expansion_every: int = 5,
                   max_expansions: int | None = 200_000) -> dict:
    """The planner in plain Python: status, counts, poses, gears, length and cost."""
    s0, g0 = np.array(start, dtype=np.float64), np.array(goal, dtype=np.float64)
    r = turning_radius
    cell = cell_size or (world.cell_size if isinstance(world, Grid) else width)
    body: RefGridBody | RefMeshBody = (RefGridBody if isinstance(world, Grid)
                                       else RefMeshBody)(world, cell, length, width, r)
    body.aim(g0)
    goal_dir = (math.cos(g0[2]), math.sin(g0[2]))

    def key(p: np.ndarray) -> tuple[int, int, int]:
        return (math.floor(p[0] / cell), math.floor(p[1] / cell),
                int(p[2] % TAU / TAU * heading_bins) % heading_bins)

    def heuristic(p: np.ndarray) -> float:
        d = (math.cos(p[2]), math.sin(p[2]))
        path = reeds_shepp_path if reverse else turning_path
        return max(body.holonomic(p), path(p[:2], d, g0[:2], goal_dir, r).length)

    def drive(p: np.ndarray, steer: int, span: float) -> np.ndarray:
        k = max(int(math.ceil(abs(span) / body.step)), 1)
        return _advance(float(p[0]), float(p[1]), float(p[2]), steer, r,
                        span * np.arange(1, k + 1) / k)

    def word(p: np.ndarray) -> list[tuple[str, float]]:
        """The analytic expansion's letters and signed lengths: the shortest Reeds–Shepp
        word, or forward only the shortest Dubins word."""
        d = (math.cos(p[2]), math.sin(p[2]))
        if reverse:
            rs = reeds_shepp_path(p[:2], d, g0[:2], goal_dir, r)
            return list(zip(rs.word[::2], rs.segments))
        dubins = turning_path(p[:2], d, g0[:2], goal_dir, r)
        first, last = r * dubins.arcs[0], r * dubins.arcs[-1]
        middle = (dubins.length - r * (dubins.arcs[0] + dubins.arcs[1])
                  if dubins.word[1] == "S" else r * dubins.arcs[1])
        return list(zip(dubins.word, (first, middle, last)))

    def analytic(p: np.ndarray) -> tuple[list[np.ndarray], list[float]] | None:
        parts, spans = [], []
        for letter, s in word(p):
            if s == 0:
                continue
            part = drive(p, {"L": 1, "R": -1, "S": 0}[letter], s)
            if not body.clear(part):
                return None
            parts.append(part)
            spans.append(s)
            p = part[-1]
        return parts, spans

    out = {"status": Status.FAILED, "expanded": 0, "generated": 0, "max_open": 0}
    if not math.isfinite(body.holonomic(s0)):
        return out
    poses, gs, parents, samples, spans = [s0], [0.0], [-1], [s0[None]], [0.0]
    best = {key(s0): 0}
    closed: set[tuple[int, int, int]] = set()
    heap = [(heuristic(s0), 0, 0)]
    out["generated"] = tie = 1
    steps = [cell * math.sqrt(2) * g for g in ((1, -1) if reverse else (1,))]
    while heap:
        out["max_open"] = max(out["max_open"], len(heap))
        _, _, i = heapq.heappop(heap)
        k = key(poses[i])
        if k in closed or best.get(k) != i:
            continue
        if max_expansions is not None and out["expanded"] >= max_expansions:
            out["status"] = Status.OUT_OF_BUDGET
            return out
        closed.add(k)
        out["expanded"] += 1
        if (out["expanded"] - 1) % expansion_every == 0:
            tail = analytic(poses[i])
            if tail is not None:
                chain = []
                while i >= 0:
                    chain.append(i)
                    i = parents[i]
                chain.reverse()
                parts = [samples[j] for j in chain] + tail[0]
                signed = [spans[j] for j in chain[1:]] + tail[1]
                gears = np.concatenate([np.zeros(1, dtype=np.int8)] + [
                    np.full(len(p), 1 if s > 0 else -1, dtype=np.int8)
                    for p, s in zip(parts[1:], signed)])
                gears[0] = gears[1] if len(gears) > 1 else 1
                out.update(status=Status.FOUND, poses=np.concatenate(parts), gears=gears,
                           length=float(sum(abs(s) for s in signed)),
                           cost=float(sum(abs(s) * (reverse_cost if s < 0 else 1.0)
                                          for s in signed)))
                return out
        for span in steps:
            weight = abs(span) * (reverse_cost if span < 0 else 1.0)
            for steer in (1, 0, -1):
                part = drive(poses[i], steer, span)
                if not body.clear(part):
                    continue
                k2 = key(part[-1])
                if k2 in closed:
                    continue
                g = gs[i] + weight
                j = best.get(k2)
                if j is not None and gs[j] <= g:
                    continue
                h = heuristic(part[-1])
                if not math.isfinite(h):
                    continue
                best[k2] = len(poses)
                heapq.heappush(heap, (g + h, tie, len(poses)))
                poses.append(part[-1])
                gs.append(g)
                parents.append(i)
                samples.append(part)
                spans.append(span)
                tie += 1
                out["generated"] += 1
    return out


def assert_same(got: CarPath, want: dict) -> None:
    assert got.status is want["status"]
    assert (got.stats.expanded, got.stats.generated, got.stats.max_open) == (
        want["expanded"], want["generated"], want["max_open"])
    if want["status"] is not Status.FOUND:
        assert not got.found and got.poses.shape == (0, 3) and got.length == math.inf
        return
    assert got.found
    assert got.poses.shape == want["poses"].shape
    np.testing.assert_allclose(got.poses, want["poses"], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(got.gears, want["gears"])
    assert got.length == pytest.approx(want["length"], rel=0, abs=1e-9)
    assert got.cost == pytest.approx(want["cost"], rel=0, abs=1e-9)


def corridor(height: int = 6, length: int = 28) -> Grid:
    free = np.zeros((height + 2, length + 2), dtype=bool)
    free[1:-1, 1:-1] = True
    return Grid(free)


def pillars() -> Grid:
    """An open floor with a row of pillars and a wall to go round."""
    free = np.ones((30, 40), dtype=bool)
    free[4:6, 8:30:5] = False
    free[10:26, 20:22] = False
    return Grid(free, origin=(-3.0, 2.0), cell_size=0.75)


def room_mesh() -> NavMesh:
    return NavMesh.build(outline=[(0, 0), (40, 0), (40, 30), (0, 30)],
                         holes=[[(15, 0.5), (17, 0.5), (17, 20), (15, 20)]])


CAR = {"turning_radius": 3.0, "length": 2.0, "width": 1.0}
CASES = {
    "u-turn": (corridor, (20.0, 4.0, 0.0), (10.0, 4.0, math.pi), {}),
    "u-turn-reverse-costly": (corridor, (20.0, 4.0, 0.0), (10.0, 4.0, math.pi),
                              {"reverse_cost": 3.0, "heading_bins": 36}),
    "parallel": (corridor, (6.0, 2.0, 0.0), (14.0, 2.0, 0.0), {}),
    "pillars-forward": (pillars, (4.0, 15.0, 0.5), (22.0, 15.0, -2.0),
                        {"reverse": False, "expansion_every": 3}),
    "pillars-reverse": (pillars, (22.0, 16.0, 3.0), (4.0, 13.0, 0.5), {"cell_size": 1.0}),
    "cave-budget": (lambda: caves(48, 48, seed=3), (9.5, 9.5, 0.0), (38.5, 38.5, 1.5),
                    {"max_expansions": 60}),
    "mesh-round-the-wall": (room_mesh, (5.0, 5.0, 0.0), (30.0, 5.0, 0.0),
                            {"cell_size": 2.0, "max_expansions": 40}),
    "mesh-across": (room_mesh, (10.0, 12.0, 1.0), (24.0, 8.0, -1.0), {"cell_size": 2.0}),
    "mesh-turn": (room_mesh, (5.0, 5.0, math.pi / 2), (8.0, 5.0, -math.pi / 2), {}),
    # forward only, where the Dubins word ends the search early
    "mesh-turn-forward": (room_mesh, (5.0, 5.0, math.pi / 2), (8.0, 5.0, -math.pi / 2),
                          {"reverse": False}),
    "pillars-back-forward": (pillars, (22.0, 16.0, 3.0), (4.0, 13.0, 0.5),
                             {"cell_size": 1.0, "reverse": False}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_kernel_reproduces_the_reference(name: str) -> None:
    make, start, goal, options = CASES[name]
    world = make()
    assert_same(plan_car_path(world, start, goal, **CAR, **options),
                reference_plan(world, start, goal, **CAR, **options))


def random_poses(grid: Grid, n: int, seed: int) -> list[tuple[float, float, float]]:
    """Poses where the planner takes the car, drawn on ``grid``."""
    rng = np.random.default_rng(seed)
    out: list[tuple[float, float, float]] = []
    while len(out) < n:
        x, y = rng.uniform(1, 47, 2)
        pose = (float(x), float(y), float(rng.uniform(-math.pi, math.pi)))
        try:
            plan_car_path(grid, pose, pose, **CAR, max_expansions=0)
        except ValueError:
            continue
        out.append(pose)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_random_queries_match_the_reference(seed: int) -> None:
    grid = caves(48, 48, seed=10 + seed)
    start, goal = random_poses(grid, 2, seed)
    options = {"max_expansions": 80, "expansion_every": 2, "reverse": seed % 2 == 0}
    assert_same(plan_car_path(grid, start, goal, **CAR, **options),
                reference_plan(grid, start, goal, **CAR, **options))


@pytest.mark.parametrize("world", ["cave", "pillars", "mesh"])
def test_the_collision_test_matches_the_reference(world: str) -> None:
    # Poses all over the world, many touching obstacles, one by one and in runs of 60
    # (more than the 48 the mesh test takes at once).
    grid_or_mesh = {"cave": lambda: caves(48, 48, seed=3), "pillars": pillars,
                    "mesh": room_mesh}[world]()
    args = (1.0, CAR["length"], CAR["width"], CAR["turning_radius"])
    if isinstance(grid_or_mesh, Grid):
        body, ref = _grid_body(grid_or_mesh, *args), RefGridBody(grid_or_mesh, *args)
    else:
        body, ref = _mesh_body(grid_or_mesh, *args), RefMeshBody(grid_or_mesh, *args)
    rng = np.random.default_rng(7)
    poses = np.column_stack([rng.uniform(-4, 50, 3000), rng.uniform(-4, 50, 3000),
                             rng.uniform(-7, 7, 3000)])
    single = [body.clear(p[None]) for p in poses]
    assert single == [ref.clear(p[None]) for p in poses]
    assert 300 < sum(single) < 2700
    runs = poses[:2400].reshape(40, 60, 3)
    # runs along a line, so some are clear all the way
    runs[:20] = poses[:20, None, :] + np.linspace(0, 1.5, 60)[None, :, None] * (1, 0.5, 0.1)
    got = [body.clear(run) for run in runs]
    assert got == [ref.clear(run) for run in runs]
    assert any(got[:20]) and not all(got[:20])


def test_queries_on_threads_give_the_serial_answers() -> None:
    grid = caves(48, 48, seed=3)
    queries = [((9.5, 9.5, 0.0), (38.5, 38.5, 1.5)), ((38.5, 38.5, math.pi), (9.5, 9.5, -1.0))]
    serial = [plan_car_path(grid, a, b, **CAR) for a, b in queries * 2]
    with ThreadPoolExecutor(2) as pool:
        threaded = list(pool.map(lambda q: plan_car_path(grid, *q, **CAR), queries * 2))
    for got, want in zip(threaded, serial):
        assert got.poses.tobytes() == want.poses.tobytes()
        assert (got.stats.expanded, got.length) == (want.stats.expanded, want.length)


KERNEL_OPTIONS = {"radius": 3.0, "reverse": True, "back_cost": 1.0, "cell": 2.0, "bins": 72,
                  "every": 5, "limit": -1}


def test_a_failing_mesh_distance_stops_the_kernel_with_its_error() -> None:
    mesh = room_mesh()
    body = _mesh_body(mesh, 2.0, CAR["length"], CAR["width"], CAR["turning_radius"])
    start, goal = np.array([5.0, 5.0, 0.0]), np.array([30.0, 5.0, 0.0])
    calls = []

    def distance(x: float, y: float) -> float:
        calls.append((x, y))
        if len(calls) == 3:
            raise KeyError("no such polygon")
        return 0.0
    body.aim(distance)
    with pytest.raises(KeyError, match="no such polygon"):
        _hybrid.plan(body, start, goal, **KERNEL_OPTIONS)
    assert len(calls) == 3


def test_the_start_holonomic_distance_is_asked_once() -> None:
    mesh = room_mesh()
    body = _mesh_body(mesh, 2.0, CAR["length"], CAR["width"], CAR["turning_radius"])
    calls = []

    def distance(x: float, y: float) -> float:
        calls.append((x, y))
        return 0.0
    body.aim(distance)
    status = _hybrid.plan(body, np.array([5.0, 5.0, 0.0]), np.array([30.0, 5.0, 0.0]),
                          **{**KERNEL_OPTIONS, "limit": 0})[0]
    assert status == _hybrid.OUT_OF_BUDGET and calls == [(5.0, 5.0)]


def test_the_kernel_refuses_bad_input() -> None:
    mesh = room_mesh()
    body = _mesh_body(mesh, 2.0, CAR["length"], CAR["width"], CAR["turning_radius"])
    start, goal = np.array([5.0, 5.0, 0.0]), np.array([30.0, 5.0, 0.0])
    with pytest.raises(ValueError, match="aim it first"):
        _hybrid.plan(body, start, goal, **KERNEL_OPTIONS)
    with pytest.raises(ValueError, match="must be callable"):
        body.aim(1.5)
    body.aim(lambda x, y: 0.0)
    with pytest.raises(ValueError, match=r"\(3,\) poses"):
        _hybrid.plan(body, start[:2], goal, **KERNEL_OPTIONS)
    with pytest.raises(ValueError, match="every and bins"):
        _hybrid.plan(body, start, goal, **{**KERNEL_OPTIONS, "every": 0})
    with pytest.raises(ValueError, match=r"must be \(n, 3\)"):
        body.clear(np.zeros((2, 2)))
    grid = corridor()
    grid_body = _grid_body(grid, 1.0, CAR["length"], CAR["width"], CAR["turning_radius"])
    with pytest.raises(ValueError, match="grid's shape"):
        grid_body.aim(np.zeros((3, 3)))
