"""``NavMeshQuery.find_path(method=...)``: the default A* route and the exact Polyanya search
behind one call, against the exact visibility paths."""

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import NavMesh, NavMeshQuery, PolyanyaSearch, QueryFilter
from wayfinding.navmesh.exact import VisibilityMap

OUTLINE = [(0, 0), (20, 0), (20, 10), (0, 10)]
HOLES = [[(5, 0.5), (6, 0.5), (6, 8), (5, 8)], [(12, 2), (13, 2), (13, 9.5), (12, 9.5)]]


@pytest.fixture(scope="module")
def two_walls():
    return NavMesh.build(outline=OUTLINE, holes=HOLES)


def test_polyanya_method_gives_the_exact_length(two_walls):
    q = NavMeshQuery(two_walls)
    rng = np.random.default_rng(5)
    pts = rng.uniform((0.2, 0.2), (19.8, 9.8), size=(40, 2))
    visibility = VisibilityMap(outline=OUTLINE, holes=HOLES)
    checked = 0
    for a, b in zip(pts[:20], pts[20:], strict=True):
        if two_walls.locate(a) < 0 or two_walls.locate(b) < 0:
            continue
        exact = q.find_path(a, b, method="polyanya")
        assert exact.algorithm == "polyanya" and exact.found
        assert exact.cost == pytest.approx(PolyanyaSearch(two_walls).find_path(a, b).cost)
        assert exact.cost == pytest.approx(visibility.find_path(a, b).cost, rel=1e-9)
        assert exact.cost <= q.find_path(a, b).cost + 1e-9
        assert two_walls.find_path(a, b, method="polyanya").cost == pytest.approx(exact.cost)
        checked += 1
    assert checked >= 10


def test_unknown_method_and_costed_filter_are_refused(two_walls):
    q = NavMeshQuery(two_walls)
    with pytest.raises(InvalidQueryError, match="'dijkstra' must be 'astar' or 'polyanya'"):
        q.find_path((1, 1), (19, 9), method="dijkstra")
    with pytest.raises(InvalidQueryError, match="costs other than 1"):
        q.find_path((1, 1), (19, 9), method="polyanya", filter=QueryFilter(costs={0: 2.0}))
    assert q.find_path((1, 1), (19, 9)).found         # the query is still usable
