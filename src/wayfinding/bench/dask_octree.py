"""Sparse voxel octrees built as a Dask task graph (the ``[dask]`` extra).

The leaves' masks are read in tasks over z-slabs of leaves, each sent only its slab of the
grid's bit-packed words; the layers above are found on the caller; then, layer by layer from
the root down, tasks over ranges of nodes find the neighbour links, each layer sent to the
workers once with the links of the layer above.  Every array equals
:meth:`SparseVoxelOctree.build`'s.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._kernels import _svo
from .._validate import count
from ..errors import InvalidGridError
from ..voxel.grid import VoxelGrid
from ..voxel.octree import SparseVoxelOctree, _leaf_dims, _top_layer, _tree
from .dask_cluster import _client, _in_order


def _leaf_slab(words: np.ndarray, nx: int, ny: int, nz: int,
               shape: tuple[int, int, int]) -> np.ndarray:
    """The masks ``[lz, ly, lx]`` of a slab of ``shape[0]`` z-layers of leaves, from the
    words of its voxel rows (``nz`` of them; rows past the grid count as blocked)."""
    out = np.empty(shape, np.uint64)
    _svo.leaf_masks(words, nx, ny, nz, 0, shape[0], out)
    return out


def _link_rows(codes: np.ndarray, parents: np.ndarray, above: np.ndarray, layer: int,
               side: int, lo: int, hi: int) -> np.ndarray:
    """The neighbour links ``(hi - lo, 6)`` of nodes ``lo..hi-1`` of one layer (``codes``
    its Morton codes, ``parents`` each node's index in the layer above or -1, ``above`` that
    layer's links)."""
    rows = np.empty((len(above) + hi - lo, 6), np.uint32)
    rows[:len(above)] = above
    _svo.neighbour_links(codes, parents, rows, layer, side, len(above) - lo, lo, hi)
    return rows[len(above):]


def build_octree_dask(grid: VoxelGrid, *, client: Any = None, batch: int = 1 << 16,
                      progress: bool | None = None) -> SparseVoxelOctree:
    """:meth:`SparseVoxelOctree.build` as a Dask task graph: tasks read the leaves' masks
    (whole z-layers of leaves, about ``batch`` leaves a task) and find the neighbour links
    of ``batch`` (>= 1) nodes each; the caller joins them into arrays equal to the serial
    build's (same errors for grids too large).

    ``client``: a ``distributed.Client``; None starts a 2-worker ``LocalCluster`` for the
    call.  ``progress``: a bar over each stage's tasks on stderr (when it is a terminal;
    False: none).  Memory on the caller: the octree; per link task, one more copy of the
    layer above's links.
    """
    if not isinstance(grid, VoxelGrid):
        raise InvalidGridError(f"build needs a VoxelGrid, got {type(grid).__name__}")
    top = _top_layer(grid)
    batch = count("batch", batch)
    t0 = time.perf_counter()
    nx, ny, nz = grid.size
    dims = _leaf_dims(grid)
    depth = max(1, batch // (dims[1] * dims[2]))
    words = np.ascontiguousarray(grid.words)
    with _client(client) as c:
        futures = [c.submit(_leaf_slab, words[4 * a:4 * (a + depth)], nx, ny,
                            min(nz, 4 * (a + depth)) - 4 * a,
                            (min(depth, dims[0] - a), dims[1], dims[2]), pure=False)
                   for a in range(0, dims[0], depth)]
        slabs = _in_order(futures, "octree leaves", progress)
        arrays = _tree(np.concatenate(slabs) if slabs else np.empty(dims, np.uint64), top)
        start = arrays["layer_start"]
        parent = arrays.pop("_parent_idx").astype(np.int64)
        neigh = arrays["neighbours"]
        for layer in range(top, -1, -1):
            a, b = int(start[layer]), int(start[layer + 1])
            up = int(start[layer + 1])
            above = neigh[up:int(start[layer + 2])] if layer < top else neigh[:0]
            parents = np.where(parent[a:b] >= 0, parent[a:b] - up, -1)
            remote = c.scatter([np.ascontiguousarray(arrays["codes"][a:b]), parents,
                                np.ascontiguousarray(above)], broadcast=False, hash=False)
            futures = [c.submit(_link_rows, *remote, layer, 1 << (top - layer), lo,
                                min(lo + batch, b - a), pure=False)
                       for lo in range(0, b - a, batch)]
            for lo, rows in zip(range(0, b - a, batch),
                                _in_order(futures, f"octree links (layer {layer})", progress)):
                neigh[a + lo:a + lo + len(rows)] = rows
    return SparseVoxelOctree(grid, arrays, {}, time.perf_counter() - t0)


__all__ = ["build_octree_dask"]
