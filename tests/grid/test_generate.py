"""The map generators and their scenarios: determinism, each family's shape, and optimal
lengths checked against scipy's Dijkstra on a move graph built from the written rules."""

import math

import numpy as np
import pytest
from grid_oracle import legal_steps
from movingai_data import GENERATED, generated_grid, generated_scen
from scipy.sparse import csr_array
from scipy.sparse.csgraph import connected_components, dijkstra

from wayfinding.cli import main
from wayfinding.errors import InvalidGridError
from wayfinding.grid import Grid, generate, read_map, read_scen

KINDS = {
    "caves": lambda seed: generate.caves(60, 40, seed=seed),
    "rooms": lambda seed: generate.rooms(60, 40, rooms=6, seed=seed),
    "maze": lambda seed: generate.maze(41, 31, corridor=2, seed=seed),
    "random": lambda seed: generate.random_obstacles(50, 30, density=0.3, seed=seed),
    "city": lambda seed: generate.city(70, 50, seed=seed),
}


def move_graph(grid) -> csr_array:
    w, h = grid.width, grid.height
    rows, cols, vals = [], [], []
    for (ax, ay), (bx, by), c in legal_steps(np.asarray(grid.costs), grid.diagonal.value):
        rows.append(ay * w + ax)
        cols.append(by * w + bx)
        vals.append(c)
    return csr_array((vals, (rows, cols)), shape=(h * w, h * w))


@pytest.mark.parametrize("kind", KINDS)
def test_same_seed_same_map_other_seed_other_map(kind):
    a, b, c = KINDS[kind](3), KINDS[kind](3), KINDS[kind](4)
    assert a.fingerprint == b.fingerprint != c.fingerprint
    assert a.is_uniform and 0 < a.passable.sum() < a.passable.size


@pytest.mark.parametrize("kind", GENERATED)
def test_scenario_lengths_are_optimal_against_scipy(kind):
    grid, scen = generated_grid(kind), generated_scen(kind)
    starts = [p.start[1] * grid.width + p.start[0] for p in scen]
    dist = dijkstra(move_graph(grid), indices=starts)
    for row, p in zip(dist, scen):
        want = row[p.goal[1] * grid.width + p.goal[0]]
        assert math.isclose(p.optimal, want, rel_tol=1e-12, abs_tol=1e-12), p
        assert p.bucket == int(p.optimal // generate.BUCKET_WIDTH) and p.optimal > 0
        assert (p.width, p.height) == (grid.width, grid.height) and p.map == f"{kind}.map"
    assert [p.bucket for p in scen] == sorted(p.bucket for p in scen)


def test_buckets_fill_up_to_per_bucket_and_cover_the_map():
    grid = generate.caves(40, 30, seed=2)
    scen = generate.benchmark_scenario(grid, per_bucket=3, seed=2)
    counts = np.bincount([p.bucket for p in scen])
    assert counts.max() == 3 and (counts > 0).all()
    longest = generate.benchmark_scenario(grid, per_bucket=1, problems=5, seed=2)
    assert len(longest) == 5
    # Every bucket up to the largest distance within the main island gets problems.
    far = max(p.optimal for p in scen)
    assert len(counts) == int(far // 4) + 1


@pytest.mark.parametrize("rule", ["never", "no_corner_cutting", "always"])
def test_scenarios_on_the_costliest_terrain_keep_exact_buckets(rule):
    """Lengths near 1e250 have buckets far past int64: each is floor(length / 4) exactly,
    the length scipy's Dijkstra gives on the move graph built from the written rules."""
    costs = np.array([[1.0, 1e250, 1.0, 2.0], [1.0, 1e250, 3.0, 1e249]])
    grid = Grid(costs, diagonal=rule)
    steps = list(legal_steps(costs, rule))
    graph = csr_array(([c for _, _, c in steps],
                       ([a[1] * 4 + a[0] for a, _, _ in steps],
                        [b[1] * 4 + b[0] for _, b, _ in steps])), shape=(8, 8))
    scen = generate.benchmark_scenario(grid, per_bucket=2, seed=1)
    assert len(scen) > 4 and max(p.optimal for p in scen) > 1e249
    for p in scen:
        want = dijkstra(graph, indices=p.start[1] * 4 + p.start[0])[p.goal[1] * 4 + p.goal[0]]
        assert math.isclose(p.optimal, want, rel_tol=1e-12), p
        assert type(p.bucket) is int and p.bucket == math.floor(p.optimal / 4)


def test_maze_is_perfect_with_corridors_of_the_given_width():
    grid = generate.maze(31, 31, seed=5)
    free = grid.passable
    # A perfect maze of 1-wide corridors is a tree under 4-connected moves.
    four = grid.with_options(diagonal="never")
    edges = move_graph(four).nnz // 2
    assert edges == free.sum() - 1
    assert connected_components(move_graph(four), directed=False)[0] == (~free).sum() + 1
    wide = generate.maze(40, 40, corridor=3, wall=2, seed=5)
    # Corridor cells come in 3 x 3 blocks on a pitch of 5.
    block = wide.passable[:3, :3]
    assert block.all() and not wide.passable[3:5, 3:5].any()


def test_rooms_are_all_joined_and_random_density_holds():
    grid = generate.rooms(120, 90, rooms=10, corridor=2, seed=9)
    assert len(np.unique(grid.components[grid.components >= 0])) == 1
    dense = generate.random_obstacles(200, 200, density=0.3, seed=1)
    assert abs((~dense.passable).mean() - 0.3) < 0.01
    open_ = generate.random_obstacles(20, 20, density=0.0)
    assert open_.passable.all()


def test_city_has_streets_round_it_and_blocks_inside():
    grid = generate.city(100, 80, street=3, park=0.0, courtyard=0.0, seed=4)
    assert grid.passable[:3].all() and grid.passable[:, :3].all()
    assert (~grid.passable).mean() > 0.4
    assert len(np.unique(grid.components[grid.components >= 0])) == 1


def test_save_benchmark_and_command_line(tmp_path, capsys):
    grid = generate.caves(50, 40, seed=1)
    map_path, scen_path = generate.save_benchmark(grid, tmp_path / "c.map", per_bucket=2)
    assert read_map(map_path).fingerprint == grid.fingerprint
    scen = read_scen(scen_path)
    assert scen.find_map() == map_path and scen.problems == \
        generate.benchmark_scenario(grid, per_bucket=2, map_name="c.map").problems
    out = tmp_path / "m.map"
    assert main(["generate", "maze", str(out), "--width", "33", "--height", "21",
                 "--corridor", "2", "--seed", "3"]) == 0
    assert str(out) in capsys.readouterr().out
    assert read_map(out).fingerprint == generate.maze(33, 21, corridor=2, seed=3).fingerprint
    assert main(["scen", str(out) + ".scen", "--quiet"]) == 0
    assert "mismatches       0" in capsys.readouterr().out
    assert main(["generate", "city", str(tmp_path / "only.map"), "--no-scen"]) == 0
    assert not (tmp_path / "only.map.scen").exists()


@pytest.mark.parametrize("call, match", [
    (lambda: generate.caves(0, 10), "width"),
    (lambda: generate.caves(10, 10**9), "height"),
    (lambda: generate.caves(10, True), "height"),
    (lambda: generate.caves(10, 10, fill=1.0), "fill"),
    (lambda: generate.caves(10, 10, seed=-1), "seed"),
    (lambda: generate.caves(10, 10, seed=1.5), "seed"),
    (lambda: generate.random_obstacles(10, 10, density=float("nan")), "density"),
    (lambda: generate.random_obstacles(10, 10, density="0.2"), "density"),
    (lambda: generate.maze(5, 5, corridor=9), "no corridor"),
    (lambda: generate.rooms(10, 10, room_size=(9, 3)), "room_size"),
    (lambda: generate.rooms(10, 10, room_size=(1, 2, 3)), "room_size"),
    (lambda: generate.rooms(10, 10, room_size=None), "room_size"),
    (lambda: generate.rooms(10, 10, rooms=10**30), "rooms"),
    (lambda: generate.city(50, 50, street=0), "street"),
    (lambda: generate.benchmark_scenario(np.ones((3, 3))), "Grid"),
    (lambda: generate.benchmark_scenario(generate.caves(8, 8), per_bucket=0), "per_bucket"),
    (lambda: generate.benchmark_scenario(generate.caves(8, 8), map_name="a b"), "map_name"),
    (lambda: generate.benchmark_scenario(generate.random_obstacles(3, 3, density=0.99)),
     "passable"),
])
def test_bad_arguments_are_clear_errors(call, match):
    with pytest.raises(InvalidGridError, match=match):
        call()
