"""The demo's vehicles section: the car parks with a reverse and turns round in the narrow
street, every length is at least its Reeds–Shepp bound, the pictures are written and named
in the HTML, and the pedestrians cross without touching a carriage."""

from __future__ import annotations

import re

import numpy as np
import pytest

from wayfinding.demo.vehicles import (
    CAR,
    MANOEUVRES,
    narrow_street,
    parking_street,
    vehicles_section,
)

Image = pytest.importorskip("PIL.Image")


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    out = tmp_path_factory.mktemp("vehicles")
    return out, vehicles_section(out)


def _rows(page: str) -> dict[str, list[str]]:
    """The manoeuvre table's cells by manoeuvre."""
    rows = re.findall(r"<tr><td>(.*?)</td></tr>", page)
    return {cells[0]: cells[1:] for cells in (r.split("</td><td>") for r in rows)}


def test_the_section_reports_every_manoeuvre(section):
    _, page = section
    assert page.startswith("<h2>Vehicles</h2>")
    rows = _rows(page)
    assert list(rows) == [name for name, *_ in MANOEUVRES]
    for status, length, _, rs, by_rs, *_ in rows.values():
        if status == "found":
            assert float(length) >= float(rs) - 0.01 and float(by_rs) >= 0.999
    for name in ("parallel parking", "U-turn in a narrow street"):
        status, _, cusps, *_ = rows[name]
        assert status == "found" and int(cusps) >= 1        # each needs a reverse
    assert rows["across generated rooms"][0] == "found"
    assert rows["parallel parking, forward only"][0] != "found"


def test_the_pictures_are_written_and_linked(section):
    out, page = section
    figures = re.findall(r"<img src='([^']+)' alt='([^']+)'>", page)
    assert len(figures) == 4 and figures[-1][0].endswith(".gif")
    for name, caption in figures:
        with Image.open(out / name) as im:
            assert im.format == ("GIF" if name.endswith(".gif") else "PNG")
            if im.format == "GIF":
                assert im.n_frames > 10
            elif caption.startswith(("parallel parking", "U-turn")):
                pixels = np.asarray(im.convert("RGB"))
                assert (pixels == (0xd7, 0x26, 0x3d)).all(axis=2).any()    # a reverse drawn
    assert sorted(p.name for p in out.iterdir()) == sorted(name for name, _ in figures)


def test_the_crossing_keeps_clear_of_the_carriages(section):
    _, page = section
    arrived, total = map(int, re.search(r"(\d+) of (\d+) pedestrians arrived", page).groups())
    assert arrived == total == 4
    gap = float(re.search(r"least gap to a carriage (-?[\d.]+) m", page).group(1))
    assert gap >= 0


@pytest.mark.parametrize("street", [parking_street, narrow_street])
def test_the_streets_are_narrower_than_a_forward_turn(street):
    grid = street()
    across = grid.passable[:, grid.width // 2].sum() * grid.cell_size
    assert across < 2 * CAR["turning_radius"] + CAR["width"]
