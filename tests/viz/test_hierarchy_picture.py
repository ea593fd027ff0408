"""The HPA* hierarchy picture: every layer present, counted against the index."""

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.grid.hpa import HPAStar
from wayfinding.viz.hierarchy import render_hierarchy_svg

GRID = Grid.from_ascii("""
............
..#.....#...
..#..####...
............
.....#......
.....#......""")


@pytest.mark.parametrize("level", [1, 2])
def test_layers_match_the_index(level):
    hpa = HPAStar.build(GRID, cluster_size=3, levels=2, group=2)
    r = hpa.find_path((0, 0), (11, 5))
    svg = render_hierarchy_svg(hpa, level=level, path=r, start=(0, 0), goal=(11, 5))
    ip = hpa.arrays[f"indptr{level}"]
    edges = int(np.diff(ip).sum()) // 2  # both directions stored, drawn once
    assert svg.count("<line ") == edges
    assert svg.count('class="transition"') == int((hpa.arrays["node_level"] >= level).sum())
    side = 3 * 2 ** (level - 1)
    assert svg.count("V6") == len(range(side, 12, side))  # vertical cluster borders
    # the path and the discs come after the hierarchy layers
    assert svg.index('class="borders"') < svg.index('class="path"') < svg.index('class="goal"')
    assert svg.rstrip().endswith("</svg>")


def test_bad_arguments():
    hpa = HPAStar.build(GRID, cluster_size=3)
    with pytest.raises(InvalidQueryError, match="level 2 must be an integer in 1..1"):
        render_hierarchy_svg(hpa, level=2)
    with pytest.raises(InvalidQueryError, match="needs an HPAStar"):
        render_hierarchy_svg(GRID)
