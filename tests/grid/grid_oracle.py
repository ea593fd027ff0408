"""An independent reference for grid searches: the move graph built cell by cell in plain
Python from the written rules, solved with scipy.sparse.csgraph."""

import math

import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra

SQRT2 = math.sqrt(2.0)


def legal_steps(costs: np.ndarray, rule: str):
    """Yield (a, b, cost) for every legal step, written straight from the rules."""
    h, w = costs.shape

    def free(x, y):
        return 0 <= x < w and 0 <= y < h and math.isfinite(costs[y, x])

    for y in range(h):
        for x in range(w):
            if not free(x, y):
                continue
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    if (dx, dy) == (0, 0) or not free(x + dx, y + dy):
                        continue
                    if dx and dy:
                        sides = free(x + dx, y) + free(x, y + dy)
                        if rule == "never":
                            continue
                        if rule == "no_corner_cutting" and sides < 2:
                            continue
                        if rule == "allow_one_blocked" and sides < 1:
                            continue
                    base = SQRT2 if dx and dy else 1.0
                    yield (x, y), (x + dx, y + dy), \
                        base * (costs[y, x] + costs[y + dy, x + dx]) / 2


def oracle_costs(costs: np.ndarray, rule: str, start, unit: bool = False) -> np.ndarray:
    """(H, W) cheapest costs from start (inf unreachable); ``unit`` counts steps instead."""
    h, w = costs.shape
    rows, cols, vals = [], [], []
    for (ax, ay), (bx, by), c in legal_steps(costs, rule):
        rows.append(ay * w + ax)
        cols.append(by * w + bx)
        vals.append(1.0 if unit else c)
    m = csr_array((vals, (rows, cols)), shape=(h * w, h * w))
    d = dijkstra(m, indices=start[1] * w + start[0])
    return d.reshape(h, w)
