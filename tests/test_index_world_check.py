"""One check that an index or checkpoint belongs to the world it is used with
(``wayfinding._index.check_world``): every place that refuses another world names both
worlds, by size and fingerprint, in the same words."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding._index import check_world
from wayfinding.errors import IndexMismatchError
from wayfinding.graph.differential import CSRDifferentialHeuristic
from wayfinding.grid import DifferentialHeuristic, GoalBounds, Grid, GridSearch, JPSPlus
from wayfinding.grid.methods import make_solver

GRID = Grid(np.ones((6, 8), dtype=bool))
OTHER = Grid.from_ascii("""
........
........
...##...
........
........
........""")


def both_named(message: str, built: object, given: object) -> bool:
    return (built.fingerprint[:12] in message and given.fingerprint[:12] in message
            and "another map" in message and "than the one given" in message)


def test_the_same_world_or_an_equal_one_passes():
    check_world("the index", GRID, GRID)
    check_world("the index", Grid(np.ones((6, 8), dtype=bool)), GRID)
    check_world("the index", {"shape": [6, 8], "fingerprint": GRID.fingerprint}, GRID)


def test_another_world_is_refused_naming_both():
    with pytest.raises(IndexMismatchError) as info:
        check_world("the jps_plus index", GRID, OTHER)
    message = str(info.value)
    assert both_named(message, GRID, OTHER)
    assert "shape [6, 8], diagonal no_corner_cutting" in message
    assert message.endswith("; rebuild it")


def test_saved_fields_a_path_and_a_fix_go_into_the_message():
    header = {"shape": [3, 3], "fingerprint": "f" * 64, "format": "x"}
    with pytest.raises(IndexMismatchError,
                       match=r"^saved\.ckpt: the checkpoint was built for another map "
                             r"\(shape \[3, 3\], fingerprint f{12}\) than the one given "
                             r"\(shape \[6, 8\], .*; delete it$"):
        check_world("the checkpoint", header, GRID, path="saved.ckpt", fix="delete it")
    with pytest.raises(IndexMismatchError, match="fingerprint None"):
        check_world("the checkpoint", {"shape": [6, 8]}, GRID)


def test_graphs_are_named_by_nodes_and_edges():
    a, b = GRID.to_csr(), OTHER.to_csr()
    with pytest.raises(IndexMismatchError, match=rf"another graph \(nodes {a.num_nodes}, "
                                                 rf"edges {a.num_edges}, fingerprint"):
        check_world("the index", a, b)
    dh = CSRDifferentialHeuristic.build(a, pivots=1)
    with pytest.raises(IndexMismatchError) as info:
        b.find_path(0, 5, differential=dh)
    assert a.fingerprint[:12] in str(info.value) and b.fingerprint[:12] in str(info.value)


def test_grid_searches_name_both_maps():
    dh = DifferentialHeuristic.build(GRID, pivots=1)
    with pytest.raises(IndexMismatchError) as info:
        GridSearch(OTHER).find_path((0, 0), (7, 5), differential=dh)
    assert both_named(str(info.value), GRID, OTHER)
    gb = GoalBounds.build(GRID, workers=1, progress=False)
    with pytest.raises(IndexMismatchError) as info:
        GridSearch(OTHER).find_path((0, 0), (7, 5), bounds=gb)
    assert both_named(str(info.value), GRID, OTHER)
    with pytest.raises(IndexMismatchError) as info:
        JPSPlus.build(OTHER).find_path((0, 0), (7, 5), bounds=gb)
    assert both_named(str(info.value), GRID, OTHER)


def test_the_method_table_names_both_maps():
    with pytest.raises(IndexMismatchError) as info:
        make_solver(OTHER, "jps_plus", indexes=[JPSPlus.build(GRID)])
    assert both_named(str(info.value), GRID, OTHER)


def test_loading_and_checkpoints_name_both_maps(tmp_path):
    path = tmp_path / "jps.npz"
    JPSPlus.build(GRID).save(path)
    with pytest.raises(IndexMismatchError) as info:
        JPSPlus.load(path, OTHER)
    assert both_named(str(info.value), GRID, OTHER) and str(path) in str(info.value)
    checkpoint = tmp_path / "bounds.ckpt"
    GoalBounds.build(GRID, workers=1, progress=False, checkpoint=checkpoint)
    with pytest.raises(IndexMismatchError) as info:
        GoalBounds.build(OTHER, workers=1, progress=False, checkpoint=checkpoint)
    message = str(info.value)
    assert both_named(message, GRID, OTHER) and message.startswith(str(checkpoint))
    assert message.endswith("delete it or use another path")
