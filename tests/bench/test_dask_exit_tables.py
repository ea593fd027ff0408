"""Tiled exit tables built as a Dask task graph equal the serial build array by array
(2-worker LocalCluster, threads only)."""

from __future__ import annotations

import numpy as np
import pytest
from terminal import Terminal

pytest.importorskip("distributed", reason="the [dask] extra (dask[distributed]) is absent")


from wayfinding.bench.dask_exit_tables import build_exit_tables_dask  # noqa: E402
from wayfinding.errors import InvalidGridError, InvalidQueryError  # noqa: E402
from wayfinding.graph.csr import CSRGraph  # noqa: E402
from wayfinding.graph.exit_tables import CSRExitTables  # noqa: E402
from wayfinding.grid import generate  # noqa: E402


def geometric_graph(seed, n=90, one_way=0.3):
    """Nodes at random points joined within 2.5 units, some edges one-way."""
    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2)) * 12
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    s, t = np.nonzero((d < 2.5) & (d > 0))
    keep = s < t
    s, t = s[keep], t[keep]
    back = rng.random(len(s)) >= one_way
    src = np.concatenate([s, t[back]])
    dst = np.concatenate([t, s[back]])
    return CSRGraph.from_edges(n, src, dst, d[src, dst] + 0.01, coords=xy)


def assert_same_tables(built, serial):
    assert isinstance(built, CSRExitTables)
    assert built.options == serial.options
    assert sorted(built.arrays) == sorted(serial.arrays)
    for name, want in serial.arrays.items():
        got = built.arrays[name]
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize(("graph", "tile_size", "levels"), [
    (geometric_graph(1), 2.0, 2),
    (geometric_graph(2), 1.5, 3),
    (generate.caves(20, 16, fill=0.35, seed=2).to_csr(), 4.0, 3),
], ids=["geometric", "geometric-3-levels", "cave-grid"])
def test_exit_tables_equal_serial_build(dask_client, graph, tile_size, levels):
    serial = CSRExitTables.build(graph, tile_size=tile_size, levels=levels)
    built = build_exit_tables_dask(graph, tile_size=tile_size, levels=levels, client=dask_client,
                                   batch=3, progress=False)
    assert_same_tables(built, serial)
    a, b = 0, graph.num_nodes - 1
    assert built.find_path(a, b).cost == serial.find_path(a, b).cost


def test_exit_tables_bad_input(dask_client):
    g = geometric_graph(3, n=20)
    with pytest.raises(ValueError, match="batch"):
        build_exit_tables_dask(g, tile_size=2.0, client=dask_client, batch=0)
    with pytest.raises(InvalidGridError, match="CSRGraph"):
        build_exit_tables_dask(np.ones((3, 3)), tile_size=2.0, client=dask_client)
    with pytest.raises(InvalidQueryError, match="tile_size"):
        build_exit_tables_dask(g, tile_size=-1.0, client=dask_client)
    with pytest.raises(InvalidQueryError, match="distributed.Client"):
        build_exit_tables_dask(g, tile_size=2.0, client=object())
    with pytest.raises(InvalidQueryError, match="max_centres"):
        build_exit_tables_dask(g, tile_size=0.5, max_centres=2, client=dask_client, progress=False)


def test_exit_tables_progress_bars(dask_client, monkeypatch):
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    build_exit_tables_dask(geometric_graph(4, n=30), tile_size=2.0, levels=3, client=dask_client,
                           batch=4)
    for stage in ("exit tables level 0 near tables [", "exit tables level 1 centre tables ["):
        assert stage in err.getvalue()
