"""The generated climbing wall: seeded, climbable from the ground to the roof, with touching
elements, jumps, blockers that matter and clue links; bad sizes refused."""

import numpy as np
import pytest

from wayfinding.climbing import (
    Capabilities,
    ClimbingWall,
    EdgeKind,
    ElementKind,
    climbing_wall,
    find_climb_path,
)
from wayfinding.errors import InvalidQueryError


def test_the_same_seed_gives_the_same_wall():
    a, b = climbing_wall(seed=5), climbing_wall(seed=5)
    assert a.names == b.names and all(x == y for x, y in zip(a.elements, b.elements))
    assert a.blockers == b.blockers
    c = climbing_wall(seed=6)
    assert c.names != a.names or any(x != y for x, y in zip(a.elements, c.elements))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("bays, floors", [(6, 4), (3, 2), (8, 6)])
def test_every_clue_leads_to_the_roof(seed, bays, floors):
    wall = climbing_wall(bays=bays, floors=floors, seed=seed)
    g = wall.graph()
    clues = wall.clues(g)
    assert clues and all(c.end == "foot" for c in clues)
    for c in clues:
        p = find_climb_path(g, c, wall.position("roof"))
        assert p.found and p.points[-1, 2] == pytest.approx(wall.height)
    best = find_climb_path(g, clues, wall.position("roof"))
    assert best.cost == min(find_climb_path(g, c, wall.position("roof")).cost for c in clues)


def test_the_wall_has_touching_elements_jumps_and_blockers_that_matter():
    wall = climbing_wall(seed=2)
    g = wall.graph()
    kinds = {e.kind for e in wall.elements}
    assert kinds == set(ElementKind)
    # a pipe crossing a ledge shares a node: some node has climb edges on two elements
    owners: dict[int, set[int]] = {}
    for i, rows in enumerate(g.stops):
        for n in rows[:, 1].astype(int):
            owners.setdefault(int(n), set()).add(i)
    assert max(len(s) for s in owners.values()) >= 2
    assert (g.edge_kinds == EdgeKind.JUMP).any() and (g.edge_kinds == EdgeKind.DROP).any()
    assert len(wall.blockers.boxes)
    open_wall = ClimbingWall(wall.elements, wall.names, type(wall.blockers)(), wall.ground,
                             wall.width, wall.height)
    assert open_wall.graph().num_links > g.num_links
    # every element lies on the wall plane, inside its width and height
    pts = np.concatenate([e.points for e in wall.elements])
    assert (pts[:, 1] == 0).all() and pts[:, 0].min() >= 0 and pts[:, 0].max() <= wall.width
    assert pts[:, 2].max() == wall.height


def test_capabilities_shape_the_walls_graph():
    wall = climbing_wall(seed=1)
    no_pipes = wall.graph(capabilities=Capabilities(kinds={ElementKind.LEDGE,
                                                            ElementKind.LADDER}))
    pipes = [i for i, e in enumerate(wall.elements) if e.kind is ElementKind.PIPE]
    assert all(len(no_pipes.stops[i]) == 0 for i in pipes)
    assert not find_climb_path(no_pipes, wall.clues(no_pipes), wall.position("roof")).found


def test_positions_by_name():
    wall = climbing_wall(seed=0)
    roof = wall.position("roof")
    assert wall.names[roof.element] == "roof" and roof.distance == wall.width / 2
    assert wall.position("roof", distance=1.5).distance == 1.5
    with pytest.raises(InvalidQueryError, match="no element 'chimney'"):
        wall.position("chimney")


@pytest.mark.parametrize("options", [{"bays": 1}, {"floors": 0}, {"seed": -1},
                                     {"bays": 2.5}, {"floors": 99}])
def test_bad_sizes_are_refused(options):
    with pytest.raises(InvalidQueryError):
        climbing_wall(**options)
