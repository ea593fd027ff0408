"""The demo's traffic section: its pictures, its tables, and the notes' worked examples
(Fig 20.4: path costs 5 and 11; Fig 20.5: speeds 50, 30, 70, 70) as the library computes
them; the traffic pictures refuse bad input."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest

from wayfinding.demo.traffic import fig_20_4, fig_20_5, traffic_section
from wayfinding.errors import InvalidQueryError
from wayfinding.traffic import (
    CarField,
    OptimisedPath,
    RoadNetwork,
    Trajectory,
    describe,
    driver,
    road_grid,
)
from wayfinding.viz.raster import rgb
from wayfinding.viz.traffic import (
    LATTICE_COLOURS,
    animate_car_field,
    save_lattice,
    save_road_routes,
)

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
    assert pictures == ["traffic-route-cautious.png", "traffic-route-reckless.png",
                        "traffic-lattice.png", "traffic-field.gif"]
    for name in pictures:
        assert Image.open(tmp_path / name).size[0] > 100
    assert Image.open(tmp_path / "traffic-field.gif").n_frames == 25
    # The reckless driver's route runs mostly on highways, the cautious one's on none.
    shares = re.findall(r"<tr><td>(cautious|reckless)</td>(?:<td>[^<]*</td>){3}<td>(\d+)%",
                        section)
    assert dict(shares)["cautious"] == "0" and int(dict(shares)["reckless"]) > 50
    # The personalities and the lattice's costs are the library's.
    assert f"<li>cautious: {html.escape(describe(driver('cautious')))}</li>" in section
    assert ("the oncoming lane +2, a node within 3 of another car's predicted position at "
            "the time the vehicle gets there +10") in " ".join(section.split())
    # The best lattice path swerves into the oncoming lane past the parked car at x = 50
    # (set 4) and back, braking before it.
    best = re.search(r"<tr><td>1</td><td>([\d.]+)</td><td>([\d ]+)</td><td>([\d. ]+)</td>",
                     section)
    assert best is not None
    lanes, speeds = best[2].split(), [float(v) for v in best[3].split()]
    assert lanes[4] == "1" and lanes.count("1") == 1
    assert speeds[5] < speeds[4] < speeds[3] == speeds[0]
    # The optimiser's drive from the lattice's paths is drawn and scored against its seed.
    scores = re.search(r"drive from path (\d) and its speeds \(score ([\d.]+) "
                       r"against the seed's ([\d.]+)", html.unescape(section))
    assert scores is not None and float(scores[2]) <= float(scores[3])
    for notes, library in (("5", "5"), ("11", "11"), ("50 30 70 70", "50 30 70 70")):
        assert f"<td>{notes}</td><td>{library}</td>" in section


def _lattice_picture(target, **change):
    """save_lattice on a two-lane lattice of three sets, with ``change`` to its options."""
    xs = np.array([0.0, 10.0, 20.0, 30.0])
    positions = np.stack([np.stack([xs, np.zeros(4)], 1), np.stack([xs, np.full(4, 3.5)], 1)],
                         axis=1)
    options = {"paths": [positions[:, 0]], "nodes": np.zeros((3, 2)), "start_lane": 0,
               "labels": ["driving", "oncoming"], "speeds": np.full(4, 5.0), **change}
    return save_lattice(target, positions, **options)


def test_lattice_picture_draws_an_optimised_drive(tmp_path):
    xs = np.linspace(0.0, 30.0, 7)
    drive = OptimisedPath(times=np.arange(7.0), points=np.stack([xs, xs / 10], 1),
                          headings=np.zeros(7), speeds=np.full(7, 5.0), cost=1.0, seed=0,
                          iterations=0, trace=np.ones(1), collisions=0, seed_costs=np.ones(1),
                          final_costs=np.ones(1))
    green = np.array(rgb(LATTICE_COLOURS["optimised"]))
    counts = []
    for name, change in (("plain.png", {}), ("drive.png", {"optimised": drive})):
        pixels = np.asarray(Image.open(_lattice_picture(tmp_path / name, **change))
                            .convert("RGB"))
        counts.append(int((pixels == green).all(axis=2).sum()))
    assert counts[0] == 0 and counts[1] > 100


def positions_of_a_path():
    return np.zeros((4, 2))


def test_pictures_refuse_bad_input(tmp_path):
    net = road_grid(2, 2)
    field = CarField([Trajectory([[0.0, 0.0]], [0.0])], radius=1.0)
    lane = net.lanes[0].points
    assert _lattice_picture(tmp_path / "ok.png").exists()
    refused = [
        (lambda: save_road_routes(tmp_path / "r.svg", net), "PNG"),
        (lambda: save_road_routes(tmp_path / "r.png", net, routes=[[0]], labels=[]),
         "0 labels for 1 routes"),
        (lambda: save_road_routes(tmp_path / "r.png", net, routes=[[99]]), "lanes 99"),
        (lambda: save_road_routes(tmp_path / "r.png", RoadNetwork()), "RoadNetwork with lanes"),
        (lambda: _lattice_picture(tmp_path / "l.png", nodes=np.zeros((2, 2))), "nodes of shape"),
        (lambda: _lattice_picture(tmp_path / "l.png", labels=["driving"]), "1 labels for 2"),
        (lambda: _lattice_picture(tmp_path / "l.png", start_lane=2), "start_lane 2"),
        (lambda: _lattice_picture(tmp_path / "l.png", paths=[[[0.0, np.nan]]]), "paths"),
        (lambda: _lattice_picture(tmp_path / "l.png", speeds=np.ones(3)), "speeds of shape"),
        (lambda: _lattice_picture(tmp_path / "l.png", optimised=positions_of_a_path()),
         "must be an OptimisedPath"),
        (lambda: _lattice_picture(tmp_path / "l.png", cars=field, times=[1.0]), "1 times"),
        (lambda: animate_car_field(tmp_path / "f.png", field, lanes=[lane], times=[0.0]),
         "GIF"),
        (lambda: animate_car_field(tmp_path / "f.gif", field, lanes=[], times=[0.0]),
         "polylines"),
        (lambda: animate_car_field(tmp_path / "f.gif", field, lanes=[lane], times=[]),
         "times"),
        (lambda: animate_car_field(tmp_path / "f.gif", field, lanes=[lane], times=[0.0],
                                   resolution=0), "resolution"),
        (lambda: animate_car_field(tmp_path / "f.gif", field, lanes=[lane], times=[0.0],
                                   resolution=1e-4), "field samples would need"),
        (lambda: animate_car_field(tmp_path / "f.gif", field, lanes=[[[0.0, np.inf]]],
                                   times=[0.0]), "finite (n, 2) polylines"),
        (lambda: animate_car_field(tmp_path / "f.gif", field, lanes=[lane], times=[0.0],
                                   vehicle=lane), "Trajectory"),
    ]
    for call, message in refused:
        with pytest.raises(InvalidQueryError, match=re.escape(message)):
            call()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.png"]


@pytest.mark.parametrize("bad", [math.nan, -1.0, -math.inf])
def test_lattice_picture_refuses_node_costs_below_zero_or_nan(tmp_path, bad):
    nodes = np.zeros((3, 2))
    nodes[1, 1] = bad
    with pytest.raises(InvalidQueryError, match=re.escape(f"node cost {bad!r} at set 1, "
                                                          "lane 1")):
        _lattice_picture(tmp_path / "l.png", nodes=nodes)
    assert not (tmp_path / "l.png").exists()


def test_lattice_picture_crosses_unusable_nodes(tmp_path):
    nodes = np.zeros((3, 2))
    nodes[1, 1] = math.inf
    assert _lattice_picture(tmp_path / "l.png", nodes=nodes).exists()
