"""The demo's section on planning with the body: the corner is turned by the clips the table
lists (their times adding up), the locomotion route is played onto the mark, the footstep
walkers keep apart, the deceleration fit's residuals are reported, and every picture is
written and named in the HTML."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest

from wayfinding.demo.planning import CORNER_GOAL, corner, pillar_hall, planning_section
from wayfinding.planning import default_clips

Image = pytest.importorskip("PIL.Image")


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    out = tmp_path_factory.mktemp("planning")
    return out, planning_section(out)


def test_the_corner_is_turned_by_the_clips_listed(section):
    _, page = section
    assert page.startswith("<h2>Planning with the body</h2>")
    rows = re.findall(r"<tr><td>(\d+)</td><td>(\w+)</td><td>([\d.]+)</td><td>([\d.]+)</td>"
                      r"</tr>", page)
    assert len(rows) >= 3
    clips = default_clips()
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    names = [r[1] for r in rows]
    assert names[0] in [c.name for c in clips.following("standing")]
    for a, b in zip(names, names[1:]):                  # each clip may follow the one before
        assert clips[b] in clips.successors(a)
    starts = np.array([float(r[2]) for r in rows])
    durations = np.array([clips[n].duration for n in names])
    assert np.allclose(starts, np.concatenate([[0], np.cumsum(durations)[:-1]]), atol=0.051)
    took = float(re.search(r"chose \d+ clips taking ([\d.]+) s", page).group(1))
    assert took == pytest.approx(durations.sum(), abs=0.051)
    rotation = sum(clips[n].rotation for n in names)    # the corner turns a quarter left
    assert abs(rotation - CORNER_GOAL[2]) <= math.radians(20) + 1e-9


def test_the_locomotion_route_hits_the_mark(section):
    _, page = section
    text = html.unescape(page)
    assert re.search(r"arrived, \d+ action-stacks, \d+ actions, ending\s+0\.0\d\d m from the "
                     r"goal — on the mark", text)


def test_the_walkers_keep_apart(section):
    _, page = section
    arrived, total = map(int, re.search(r"(\d+) of (\d+) arrived", page).groups())
    assert total == 4 and 1 <= arrived <= total
    gap = float(re.search(r"no two bodies came closer than (-?[\d.]+) m", page).group(1))
    assert gap >= 0


def test_the_fit_reports_its_residuals(section):
    _, page = section
    rms, largest = map(float, re.search(r"residuals rms ([\d.]+) m/s,\s+largest\s+([\d.]+) m/s",
                                        page).groups())
    assert 0 < rms <= largest


def test_the_pictures_are_written_and_linked(section):
    out, page = section
    figures = re.findall(r"<img src='([^']+)' alt='([^']+)'>", page)
    assert [name for name, _ in figures] == ["planning-corner.png", "planning-locomotion.png",
                                             "planning-footsteps.gif",
                                             "planning-deceleration.png"]
    for name, _ in figures:
        with Image.open(out / name) as im:
            assert im.format == ("GIF" if name.endswith(".gif") else "PNG")
            if im.format == "GIF":
                assert im.n_frames > 10
    assert sorted(p.name for p in out.iterdir()) == sorted(name for name, _ in figures)


def test_the_worlds_are_walkable_where_the_demo_goes():
    assert corner().locate((1.0, 1.5)) >= 0 and corner().locate(CORNER_GOAL[:2]) >= 0
    hall = pillar_hall()
    assert hall.locate((1.5, 1.5)) >= 0 and hall.locate((18.5, 10.5)) >= 0
    assert hall.locate((5.0, 4.0)) < 0                  # inside a pillar
