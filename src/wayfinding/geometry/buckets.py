"""Uniform buckets over axis-aligned boxes, the spatial index the compiled point and
neighbour queries read."""

from __future__ import annotations

import numpy as np

from .._arrays import concatenated_ranges

#: A bucket index: ``(ptr, members, ox, oy, cell, nx, ny)`` (see :func:`box_buckets`).
Buckets = tuple[np.ndarray, np.ndarray, float, float, float, int, int]


def box_buckets(lo: np.ndarray, hi: np.ndarray, cell: float) -> Buckets:
    """Buckets ``cell`` wide over the boxes ``lo``–``hi`` (``(m, 2)`` each), each box listed
    in every bucket its box overlaps; the buckets double in width while the boxes would fill
    more than 16 each on average (long diagonal ones).  Returns ``(ptr, members, ox, oy,
    cell, nx, ny)``: the boxes of bucket ``(x, y)`` are ``members[ptr[k]:ptr[k + 1]]``,
    ``k = y * nx + x``, in increasing order; ``(ox, oy)`` is the grid's corner."""
    m = len(lo)
    origin = lo.min(axis=0) if m else np.zeros(2)
    span = (hi.max(axis=0) - origin) if m else np.ones(2)
    cell = max(float(cell), 1e-9)
    while True:
        c0 = np.floor((lo - origin) / cell).astype(np.int64)
        c1 = np.floor((hi - origin) / cell).astype(np.int64)
        counts = (c1[:, 0] - c0[:, 0] + 1) * (c1[:, 1] - c0[:, 1] + 1)
        if counts.sum() <= 16 * m or cell >= span.max():
            break
        cell *= 2
    nx, ny = (np.floor(span / cell).astype(np.int64) + 1).tolist()
    owner = np.repeat(np.arange(m), counts)
    local = concatenated_ranges(0, counts)
    w = (c1[:, 0] - c0[:, 0] + 1)[owner]
    key = (c0[owner, 1] + local // w) * nx + c0[owner, 0] + local % w
    order = np.lexsort((owner, key))
    ptr = np.zeros(nx * ny + 1, dtype=np.int64)
    np.cumsum(np.bincount(key, minlength=nx * ny), out=ptr[1:])
    return (ptr, owner[order].astype(np.int32), float(origin[0]), float(origin[1]), cell,
            int(nx), int(ny))
