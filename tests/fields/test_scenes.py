"""The continuum-crowd scenes of the paper (lane formation, congestion, maze): every unit
arrives, none on top of another, jams spread over the gaps, lanes arrive early."""

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.fields.scenes import SCENES, scene, simulate_scene


@pytest.mark.parametrize("name", SCENES)
def test_the_papers_scenes(name):
    units = {"lanes": 30, "congestion": 90, "maze": 20}[name]
    run = simulate_scene(scene(name, units=units), seconds=120.0)
    assert run.completion == 1.0
    assert run.closest > 0.2          # pushed apart, never on top of each other
    if name == "congestion":
        # Units spread over more than one gap as the nearest one jams.
        used = []
        for track in np.moveaxis(run.positions, 1, 0):
            track = track[~np.isnan(track[:, 0])]
            cross = np.flatnonzero((track[:-1, 0] >= 30) & (track[1:, 0] < 30))
            used.append(int(track[cross[0], 1] // 13) if len(cross) else -1)
        counts = np.bincount(np.array(used) + 1, minlength=4)[1:]
        assert (counts > 5).sum() >= 2
    if name == "lanes":
        assert run.arrival_time(0.9) < 60.0


def test_numpy_scalars_are_taken_and_bad_numbers_refused():
    want = simulate_scene(scene("lanes", units=4), seconds=2.0, dt=0.1, max_accel=6.0)
    got = simulate_scene(scene("lanes", units=4), seconds=np.float32(2.0), dt=np.float64(0.1),
                         max_speed=np.float32(1.5), max_accel=np.int64(6),
                         radius=np.float64(0.35), arrive=np.float32(1.5))
    np.testing.assert_allclose(got.positions, want.positions, equal_nan=True)
    for name, bad in [("seconds", 0), ("dt", np.nan), ("max_accel", -1.0), ("radius", True),
                      ("arrive", "1")]:
        with pytest.raises(InvalidQueryError, match=name):
            simulate_scene(scene("lanes", units=4), **{name: bad})


def test_acceleration_is_the_old_name_of_max_accel():
    want = simulate_scene(scene("lanes", units=4), seconds=2.0, max_accel=3.0)
    with pytest.warns(DeprecationWarning, match=r"simulate_scene\(acceleration=\.\.\.\) is "
                      r"deprecated; use max_accel=\.\.\."):
        got = simulate_scene(scene("lanes", units=4), seconds=2.0, acceleration=3.0)
    np.testing.assert_array_equal(got.positions, want.positions)


@pytest.mark.parametrize(("option", "bad"), [("seed", "x"), ("seed", -1), ("units", 2.0),
                                             ("units", 0)])
def test_scene_options_are_checked(option, bad):
    with pytest.raises(InvalidQueryError, match=option):
        scene("lanes", **{option: bad})
    assert np.array_equal(scene("lanes", units=np.int64(3), seed=np.int64(2)).groups[0].positions,
                          scene("lanes", units=3, seed=2).groups[0].positions)
