"""The demo's traffic section: its pictures, its tables, and the notes' worked examples
(Fig 20.4: path costs 5 and 11; Fig 20.5: speeds 50, 30, 70, 70) as the library computes
them."""

from __future__ import annotations

import math
import re

import pytest

from wayfinding.demo.traffic import fig_20_4, fig_20_5, traffic_section

Image = pytest.importorskip("PIL.Image")


def test_worked_examples_give_the_notes_numbers():
    costs = fig_20_4()
    assert costs[(0, 0, 0, 0)] == 5.0 and costs[(1, 1, 1, 1)] == 11.0
    assert min(costs.values()) == 5.0 and len(costs) == 16
    speeds = fig_20_5()
    assert speeds[1:].tolist() == [50.0, 30.0, 70.0, 70.0]
    assert speeds[0] == pytest.approx(math.hypot(50.0, 40.0))


def test_section_draws_and_tabulates_traffic(tmp_path):
    section = traffic_section(tmp_path)
    assert section.startswith("<h2>Traffic</h2>")
    pictures = re.findall(r"<img src='([^']+)'", section)
    assert pictures == ["traffic-route-civilian.png", "traffic-route-racer.png",
                        "traffic-lattice.png", "traffic-field.gif"]
    for name in pictures:
        assert Image.open(tmp_path / name).size[0] > 100
    assert Image.open(tmp_path / "traffic-field.gif").n_frames == 25
    # The racer's route runs mostly on highways, the civilian's on none.
    shares = re.findall(r"<tr><td>(civilian|racer)</td>(?:<td>[^<]*</td>){3}<td>(\d+)%",
                        section)
    assert dict(shares)["civilian"] == "0" and int(dict(shares)["racer"]) > 50
    # The best lattice path swerves into the oncoming lane past the parked car at x = 50
    # (set 4) and back, braking before it.
    best = re.search(r"<tr><td>1</td><td>([\d.]+)</td><td>([\d ]+)</td><td>([\d. ]+)</td>",
                     section)
    assert best is not None
    lanes, speeds = best[2].split(), [float(v) for v in best[3].split()]
    assert lanes[4] == "1" and lanes.count("1") == 1
    assert speeds[5] < speeds[4] < speeds[3] == speeds[0]
    for notes, library in (("5", "5"), ("11", "11"), ("50 30 70 70", "50 30 70 70")):
        assert f"<td>{notes}</td><td>{library}</td>" in section
