"""The demo's crowd on two storeys, run small."""

import numpy as np

from wayfinding.demo.navmesh3d import ROUTES, crowd_scene
from wayfinding.navmesh3d import NavMesh3DQuery


def test_a_small_crowd_crosses_the_level():
    scene = crowd_scene(per_route=1, seconds=40.0)
    n = len(ROUTES)
    assert scene.positions.shape[1:] == (n, 3) and scene.states.shape == scene.positions.shape[:2]
    assert scene.arrived == n and (scene.states[-1] == "arrived").all()
    jumper = scene.routes.index("jump")
    assert (scene.states[:, jumper] == "on link").any()
    colours = scene.colours()
    assert colours.shape == scene.positions.shape and colours.dtype == np.uint8
    assert (colours[scene.states == "on link"] == (255, 230, 40)).all()
    assert scene.ms_per_frame > 0 and scene.seconds <= 40.0


def test_the_full_crowd_keeps_apart_and_on_the_ground():
    scene = crowd_scene()
    assert scene.arrived == len(scene.routes)
    p, states = scene.positions, scene.states
    q = NavMesh3DQuery(scene.mesh)
    worst = np.inf
    for t in range(len(p)):
        grounded = states[t] != "on link"
        d = np.hypot(p[t, :, None, 0] - p[t, None, :, 0], p[t, :, None, 2] - p[t, None, :, 2])
        same = (np.abs(p[t, :, None, 1] - p[t, None, :, 1]) < 2.0) & grounded[:, None] \
            & grounded[None, :] & ~np.eye(len(grounded), dtype=bool)
        if same.any():
            worst = min(worst, float(d[same].min()))
        if t % 10 == 0:
            _, ground = q.nearest_many(p[t, grounded], half_extents=(0.01, 0.3, 0.01))
            assert np.abs(ground[:, 1] - p[t, grounded, 1]).max() < 1e-3
    assert worst > 2 * 0.6 * 0.9                       # overlaps under a tenth of a width
    jumpers = [k for k, r in enumerate(scene.routes) if r == "jump"]
    assert all((states[:, k] == "on link").any() for k in jumpers)
