"""Tiled exit tables built as a Dask task graph (the ``[dask]`` extra).

Each level's near tables (one per goal tile) and centre tables (one per centre) are computed
in batched tasks by the same pieces :meth:`CSRExitTables.build` runs one after another; tile
and component assignment, the upper graphs and the top table are computed on the caller.  The
arrays equal the serial build's, array by array.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from .._validate import count
from ..graph.exit_tables import MAX_CENTRES, CSRExitTables, Runner, _check_build
from .dask_cluster import _batched, _client


def build_exit_tables_dask(graph: Any, *, tile_size: float, levels: int = 2,
                           max_centres: int = MAX_CENTRES, client: Any = None,
                           batch: int = 16, progress: bool | None = None) -> CSRExitTables:
    """:meth:`CSRExitTables.build` (same ``graph``, ``tile_size``, ``levels`` and
    ``max_centres``, same checks and errors) as a Dask task graph: per level, one task
    computes the near tables of ``batch`` (>= 1) goal tiles, another the tables of ``batch``
    centres; what a stage reads (the level's graph, its reverse and its tiles) is sent to
    the workers once.

    ``client``: a ``distributed.Client``; None starts a 2-worker ``LocalCluster`` for the
    call.  ``progress``: a bar over each stage's tasks on stderr (when it is a terminal;
    False: none).  A centre task holds a few arrays of the level's node count per centre.
    """
    tile_size, levels = _check_build(graph, tile_size, levels)
    batch = count("batch", batch)
    with _client(client) as c:
        run: Runner = partial(_run, c, batch, progress)
        return CSRExitTables._build(graph, tile_size=tile_size, levels=levels,
                                    max_centres=max_centres, run=run)


def _run(client: Any, batch: int, progress: bool | None, piece: Callable[[Any, Any], Any],
         context: Any, items: list[Any], label: str) -> list[Any]:
    return _batched(client, piece, context, items, batch, label, progress)


__all__ = ["build_exit_tables_dask"]
