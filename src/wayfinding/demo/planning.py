"""The demo page's section on planning with the body: a character turning a corner by its
animation clips (the clips chosen drawn along the root path), a locomotion plan played to the
mark along a navigation-mesh corridor, a crowd of footstep-planned walkers (GIF) and a
deceleration model fitted to a simulated character controller, with its residuals."""

from __future__ import annotations

import html
import itertools
import math
from pathlib import Path

import numpy as np

from .._io import atomic_write_bytes
from ..navmesh import NavMesh
from ..planning import (
    FootstepPlan,
    LocomotionExecutor,
    LocomotionPlanner,
    MoveStatus,
    SimulatedController,
    default_clips,
    fit_motion_model,
    hits_mark,
    locomotion_path,
    plan_crowd,
    plan_movement,
)
from ..planning.locomotion_plan import Action
from ..viz.planning import (
    animate_footsteps,
    render_deceleration_png,
    render_locomotion_png,
    render_movement_png,
)

#: The corner: an L-shaped corridor 3 m wide (metres), and the turn's start and goal poses.
CORNER = [(0.0, 0.0), (12.0, 0.0), (12.0, 12.0), (9.0, 12.0), (9.0, 3.0), (0.0, 3.0)]
CORNER_START, CORNER_GOAL = (1.0, 1.5, 0.0), (10.5, 10.5, math.pi / 2)
#: The walkers: two passing head on, two crossing their lane; every pair meets near (2, 0).
CROWD_STARTS = [(0.0, 0.0), (4.0, 0.2), (2.0, -1.8), (2.2, 2.2)]
CROWD_GOALS = [(4.0, 0.0), (0.0, 0.2), (2.0, 2.4), (2.2, -1.8)]
#: The executor's update (s) and the locomotion route's ends on :func:`pillar_hall`.
DT = 0.05
ROUTE = ((1.5, 1.5), (18.5, 10.5))


def corner() -> NavMesh:
    """The L-shaped corridor of :data:`CORNER` as a navigation mesh."""
    return NavMesh.build(outline=CORNER)


def pillar_hall() -> NavMesh:
    """A hall 20 m x 12 m with four 2 m pillars, meshed for a character of radius 0.3 m."""
    holes = [[(x, y), (x + 2, y), (x + 2, y + 2), (x, y + 2)]
             for x, y in ((4, 3), (9, 6), (13, 2), (15, 8))]
    return NavMesh.build(outline=[(0, 0), (20, 0), (20, 12), (0, 12)], holes=holes,
                         radius=0.3)


def least_gap(a: FootstepPlan, b: FootstepPlan) -> float:
    """The least distance (m) between the five circles of two characters, sampled every
    10 ms until both stand (negative: they overlap)."""
    t = np.arange(0.0, max(a.times[-1], b.times[-1]) + 0.5, 0.01)
    ca, cb = a.body(t), b.body(t)
    gap = np.linalg.norm(ca[:, :, None] - cb[:, None], axis=-1) \
        - a.model.radii[:, None] - b.model.radii[None]
    return float(gap.min())


def _figure(caption: str, src: str) -> str:
    esc = html.escape
    return (f"<figure><img src='{esc(src)}' alt='{esc(caption)}'><figcaption>{esc(caption)}"
            "</figcaption></figure>")


def planning_section(out: Path) -> str:
    """Plan the corner turn, play the locomotion route, plan the crowd and fit the motion
    model, write their pictures into ``out``; return the HTML section."""
    esc = html.escape
    clips = default_clips()
    mesh = corner()
    turn = plan_movement(mesh, clips, CORNER_START, CORNER_GOAL, position_tolerance=0.4,
                         heading_tolerance=math.radians(20), radius=0.3)
    atomic_write_bytes(out / "planning-corner.png", render_movement_png(
        mesh, turn, clips, goal=CORNER_GOAL, position_tolerance=0.4,
        title="turning a corner by clips"))
    rows = "".join(f"<tr><td>{k + 1}</td><td>{esc(name)}</td><td>{turn.times[k]:.1f}</td>"
                   f"<td>{clips[name].duration:.1f}</td></tr>"
                   for k, name in enumerate(turn.clips))

    hall = pillar_hall()
    route = locomotion_path(hall, *ROUTE)
    raw = hall.find_path(*ROUTE).path
    p0, p1 = route.points[0], route.points[1]
    pose = (float(p0[0]), float(p0[1]), math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    walker = LocomotionExecutor(LocomotionPlanner(clips), "standing", pose)
    walker.request(route)
    played: list[Action] = []
    track = [walker.pose[:2]]
    status, steps = walker.status, 0
    while steps < 4000 and status not in (MoveStatus.ARRIVED, MoveStatus.FAILED):
        status = walker.update(DT)
        steps += 1
        if walker.action is not None and (not played or walker.action is not played[-1]):
            played.append(walker.action)
        track.append(walker.pose[:2])
    end = walker.pose
    hit = status is MoveStatus.ARRIVED and hits_mark(end, ROUTE[1])
    miss = math.dist(end[:2], ROUTE[1])
    atomic_write_bytes(out / "planning-locomotion.png", render_locomotion_png(
        hall, route, actions=played, raw=raw, track=np.array(track),
        title="locomotion along a corridor"))

    crowd = plan_crowd(CROWD_STARTS, CROWD_GOALS, max_expansions=1500)
    arrived = sum(p.found for p in crowd)
    gap = min(least_gap(a, b) for a, b in itertools.combinations(crowd, 2))
    animate_footsteps(out / "planning-footsteps.gif", crowd, frames=60)

    fit = fit_motion_model(SimulatedController(), rough_min_speed=1.0, rough_max_speed=4.0)
    assert fit.model is not None and fit.deceleration is not None
    a, b, c = fit.deceleration.coefficients.tolist()
    atomic_write_bytes(out / "planning-deceleration.png", render_deceleration_png(
        fit, title="speed lost against distance"))

    figures = "".join(_figure(cap, src) for cap, src in (
        (f"the corner turned in {len(turn.clips)} clips, {turn.time:.1f} s",
         "planning-corner.png"),
        (f"locomotion: {len(played)} actions, {walker.plans} action-stacks, "
         f"{miss:.3f} m from the mark", "planning-locomotion.png"),
        (f"footstep crowd: {arrived} of {len(crowd)} walkers arrived, least gap "
         f"{gap:.3f} m", "planning-footsteps.gif"),
        (f"deceleration fit: rms residual {fit.deceleration.rms:.3f} m/s",
         "planning-deceleration.png")))
    return f"""<h2>Planning with the body</h2>
<p>A character that moves by animation clips (the library's biped catalogue: standing,
walking at 1.4 m/s and running at 4 m/s, with starts, stops, turns on the spot and arcs)
turns the corner of an L-shaped corridor 3 m wide, from standing at the bottom left to within
0.4 m of a point up the other arm, facing up within 20&deg;, its root at least 0.3 m from the
walls. A* over root poses and animation states, with the mesh distance over the fastest
clip's speed as its heuristic, chose {len(turn.clips)} clips taking {turn.time:.1f} s (cost
{turn.cost:.1f}, {turn.length:.1f} m of root path, {turn.stats.expanded} expansions); each
clip's root path is drawn in its colour and named at its start.
<table><tr><th>#</th><th>clip</th><th>starts at s</th><th>s</th></tr>{rows}</table>
<p>Along the corridor a navigation mesh finds through a hall of four pillars (tinted), its
straight path (grey) is
post-processed into points the clips can play ({len(route.points)} points,
{int(route.stops.sum())} fail-safe stops), and an executor plays the action-stacks planned
with {walker.planner.look_ahead} segments of look-ahead in {DT:g} s updates:
{status.value}, {walker.plans} action-stacks, {len(played)} actions, ending
{miss:.3f} m from the goal &mdash; {'' if hit else 'not '}on the mark (0.1 m).
<p>{len(crowd)} walkers plan footsteps in turn over an inverted-pendulum model, each avoiding
the five circles (torso, shoulders, feet) of those before it in space and time:
{arrived} of {len(crowd)} arrived, and no two bodies came closer than {gap:.3f} m. Left
footprints are blue and right ones red; each appears when its foot lands.
<p>A deceleration model &Delta;v(d) = a d&sup2; + b d + c &radic;d fitted to a simulated
character controller's slow-downs, never above the losses measured: a = {a:.3f},
b = {b:.3f}, c = {c:.3f}; residuals rms {fit.deceleration.rms:.3f} m/s, largest
{fit.deceleration.max_error:.3f} m/s over {len(fit.deceleration.residuals)} losses
(speed range {fit.model.min_speed:g}&ndash;{fit.model.max_speed:g} m/s).
{figures}
"""
