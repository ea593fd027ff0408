"""The demo page's section on climbing: a generated climbing wall and its climb graph, a
climb from the ground through a clue link to the roof with its Bézier spline, two climbers
spread over different routes by soft reservations (each moved by the one climbing
processor, following its look-ahead), and a path on a moving platform before and after
the platform's rigid motion."""

from __future__ import annotations

import html
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..climbing import (
    ClimbFollower,
    ClimbingWall,
    ClimbPath,
    ClimbProcessor,
    ClimbReservations,
    ClimbSpline,
    EdgeKind,
    climbing_wall,
    find_climb_path,
)
from ..viz.climbing import save_climb

#: The demo's wall: its generator's options.
WALL: dict[str, Any] = {"bays": 6, "floors": 4, "seed": 2}
#: The extra cost of a reserved edge for another climber, metres.
PENALTY = 10.0
#: The platform's motion: a tilt about y (radians) and a shift (metres).
TILT, SHIFT = 0.35, (14.0, 0.0, 3.0)
#: The climbers' update, seconds.
DT = 0.1


def two_climbers(wall: ClimbingWall) -> tuple[list[ClimbPath], list[np.ndarray]]:
    """Two climbers from the ground to the roof: the first plans and reserves its route,
    the second plans round the reservation; each then climbs under a
    :class:`~wayfinding.climbing.ClimbFollower` and the :class:`ClimbProcessor`.  Their
    paths and their positions (``(T, 3)`` each, one row an update, until both arrive)."""
    graph = wall.graph()
    clues, roof = wall.clues(graph), wall.position("roof")
    reservations = ClimbReservations(penalty=PENALTY)
    paths: list[ClimbPath] = []
    for name in ("first", "second"):
        paths.append(find_climb_path(graph, clues, roof, reservations=reservations,
                                     agent=name))
        reservations.reserve(name, paths[-1].edges)
    tracks = []
    for name, path in zip(("first", "second"), paths):
        mover = ClimbProcessor(graph, int(path.nodes[1]))
        ai = ClimbFollower(graph, roof, reservations=reservations, agent=name)
        track = [path.points[0], mover.state.position]
        for _ in range(3000):
            track.append(mover.step(ai.stick(mover.state), DT).position)
            if np.linalg.norm(track[-1] - path.points[-1]) <= ai.arrive:
                break
        tracks.append(np.array(track))
    return paths, tracks


def platform() -> tuple[ClimbingWall, Any, ClimbPath, Any, ClimbPath, ClimbPath]:
    """A small climbing frame on a moving platform: the frame, its graph and a climb from
    its ground to its top; the graph and the path carried by the platform's motion, and
    the path planned afresh on the moved graph (the same climb)."""
    frame = climbing_wall(bays=2, floors=2, seed=4)
    graph = frame.graph()
    path = find_climb_path(graph, frame.clues(graph), frame.position("roof"))
    c, s = np.cos(TILT), np.sin(TILT)
    rotation = np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])
    moved = graph.transformed(rotation, SHIFT)
    start = int(path.nodes[1])
    carried = path.transformed(rotation, SHIFT)
    replanned = find_climb_path(moved, start, frame.position("roof"))
    return frame, graph, path, moved, carried, replanned


def climbing_section(out: Path) -> str:
    """Build the wall, plan and climb, draw the pictures into ``out``; return the HTML
    section."""
    esc = html.escape
    t0 = time.perf_counter()
    wall = climbing_wall(**WALL)
    graph = wall.graph()
    built = time.perf_counter() - t0
    clues = wall.clues(graph)
    path = find_climb_path(graph, clues, wall.position("roof"))
    spline = ClimbSpline(path.points)
    used = graph.edge_kinds[path.edges[path.edges >= 0]]
    kinds = {kind: int(np.count_nonzero(used == kind)) for kind in EdgeKind}
    figures = []
    name = save_climb(out / "climbing-wall.png", graph, blockers=wall.blockers, clues=clues,
                      paths=[path], splines=[spline],
                      title=f"ground to roof: {path.length:.1f} m").name
    figures.append((f"the wall's climb graph (ledges blue, pipes green, ladders brown, jumps "
                    f"orange, drops violet, blockers grey) and a climb from the ground through "
                    f"a clue link to the roof: {path.length:.1f} m, its spline "
                    f"{spline.length:.1f} m", name))
    paths, tracks = two_climbers(wall)
    middle = [t[len(t) // 2] for t in tracks]
    name = save_climb(out / "climbing-reservations.png", graph, blockers=wall.blockers,
                      clues=clues, paths=paths, characters=middle, links=False,
                      title="two climbers, soft reservations").name
    figures.append((f"two climbers: the first takes {paths[0].length:.1f} m (red), the second, "
                    f"{PENALTY:g} m dearer on every edge the first holds, climbs "
                    f"{paths[1].length:.1f} m beside it (green); their places halfway through "
                    f"the climb ({len(tracks[0])} and {len(tracks[1])} updates of {DT:g} s)",
                    name))
    frame, small, before, moved, carried, replanned = platform()
    name = save_climb(out / "climbing-platform-before.png", small, paths=[before],
                      blockers=frame.blockers, title="platform at rest").name
    figures.append((f"a climbing frame on a platform at rest: a climb of {before.length:.1f} m",
                    name))
    name = save_climb(out / "climbing-platform-after.png", moved, paths=[carried],
                      title=f"platform tilted {np.degrees(TILT):.0f} degrees and moved").name
    gap = float(np.abs(carried.points[1:] - replanned.points).max())
    figures.append((f"the same platform tilted {np.degrees(TILT):.0f} degrees and moved: the "
                    f"path carried with it equals the path planned on the moved graph "
                    f"(largest difference {gap:.1e} m)", name))
    rows = (f"<tr><td>{len(wall.elements)}</td><td>{graph.num_nodes}</td>"
            f"<td>{len(graph.edges)}</td><td>{graph.num_links}</td><td>{len(clues)}</td>"
            f"<td>{built * 1e3:.0f}</td><td>{len(path.edges)}</td>"
            f"<td>{kinds[EdgeKind.CLIMB]} / {kinds[EdgeKind.JUMP]} / {kinds[EdgeKind.DROP]}</td>"
            f"<td>{path.length:.2f}</td></tr>")
    figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>{esc(cap)}"
                   "</figcaption></figure>" for cap, src in figures)
    return f"""<h2>Climbing</h2>
<p>A generated building face ({WALL['bays']} bays by {WALL['floors']} floors, seed
{WALL['seed']}): ledges that meet or leave a gap to jump, pipes crossing them, ladders
from the ground, window sills a jump above, air conditioners and balconies that block some
jumps and drops. The climb graph merges the nodes where elements touch and adds jump and
drop links from each element's ends and centre within the character's reach and line of
sight; clue links join the ground to the feet of pipes and ladders. Climbers are moved by
one processor from a stick input: an AI's stick is the look-ahead on its path's spline,
a player's is the controller's, and both run the same state machine.
<table><tr><th>elements</th><th>nodes</th><th>edges</th><th>jump/drop links</th>
<th>clue links</th><th>build ms</th><th>steps</th><th>climb / jump / drop</th>
<th>length m</th></tr>{rows}</table>{figs}
"""
