"""The continuum-crowd scenes of the paper (lane formation, congestion, maze): every unit
arrives, none on top of another, jams spread over the gaps, lanes arrive early."""

import numpy as np
import pytest

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
