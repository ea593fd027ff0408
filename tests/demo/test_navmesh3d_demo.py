"""The demo's crowd on two storeys, run small."""

import numpy as np

from wayfinding.demo.navmesh3d import ROUTES, crowd_scene


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
