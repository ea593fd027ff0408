"""The playground page in a real browser: headless Debian Chromium driven by Playwright
(``playground.mjs``) against a live uvicorn server on 127.0.0.1.  Clicks place the start and
goal, a drawn wall changes the path, every method in the dropdown runs to a path, the navmesh
view draws a funnel path that the radius changes, the flow view draws, the crowd plays; the
screenshots are not blank and differ between states; the page logs no errors.

Needs node, ``npm ci`` in tests/browser (``make test-all`` does it) and Chromium
(``/usr/bin/chromium``, Debian's ``chromium`` package); where one is absent the test skips,
and under ``CI=true`` it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from live_server import live_server

from wayfinding.grid.anyangle import ANY_ANGLE
from wayfinding.grid.generate import maze
from wayfinding.grid.methods import EXACT

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _require(ok: bool, reason: str) -> None:
    """Skip the test when ``ok`` is false (fail it under CI=true)."""
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (CI=true: it must be there)", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def server() -> Any:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        _require(False, "the [serve] extra (starlette, uvicorn) is not installed")
    from wayfinding.serve import create_app

    # the app `wayfinding serve` runs (with a world, to show the playground beside the service)
    with live_server(create_app({"maze": maze(24, 24, seed=3)})) as url:
        yield url


@pytest.fixture(scope="module")
def report(server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    node = shutil.which("node")
    _require(node is not None, "node is not installed")
    _require((HERE / "node_modules" / "playwright-core").is_dir(),
             f"playwright-core is not installed: `npm ci` in {HERE} (make test-all does it)")
    _require(Path(CHROMIUM).is_file(), f"Chromium is not installed at {CHROMIUM} "
             "(`apt-get install chromium`)")
    out = tmp_path_factory.mktemp("playground")
    done = subprocess.run([str(node), str(HERE / "playground.mjs"), server + "/", str(out),
                           CHROMIUM], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads((out / "report.json").read_text())
    assert result["ok"], result.get("failure")
    return result


def test_no_console_errors_page_errors_or_refused_requests(report: dict[str, Any]) -> None:
    assert [m for m in report["console"] if m["type"] in ("error", "warning")] == []
    assert report["pageErrors"] == []
    assert report["failedRequests"] == []
    assert report["apiErrors"] == []


def test_clicks_place_start_and_goal(report: dict[str, Any]) -> None:
    placed = report["steps"]["placed"]
    assert placed["start"] == [2, 2] and placed["goal"] == [40, 29] and placed["found"]
    assert report["steps"]["dragged"]["goal"] == [45, 3]


def test_shift_drag_draws_weights_and_alt_drag_erases(report: dict[str, Any]) -> None:
    weights = report["steps"]["weights"]
    assert weights["drawn"] == weights["before"] + 11 and weights["erased"] == weights["before"]
    assert weights["found"]


def test_a_drawn_wall_changes_the_path(report: dict[str, Any]) -> None:
    placed, walled = report["steps"]["placed"], report["steps"]["walled"]
    assert walled["found"]
    assert float(walled["cost"]) > float(placed["cost"])
    assert walled["length"] != placed["length"]


def test_every_method_runs_to_a_path(report: dict[str, Any], server: str) -> None:
    import httpx

    info = httpx.get(server + "/playground/api/methods").json()["methods"]
    steps = report["steps"]
    assert steps["disabledWeighted"] == [m["name"] for m in info if not m["weighted"]]
    assert steps["disabledUniform"] == []
    runs = steps["methods"]
    assert list(runs) == [m["name"] for m in info]
    best = runs["astar"]["cost_value"]
    for name, run in runs.items():
        assert run["found"] and run["method"] == name
        assert run["cost"] == f"{run['cost_value']:.3f}"
        if name in EXACT:
            assert run["cost_value"] == pytest.approx(best, rel=1e-12), name
        elif name not in ANY_ANGLE:
            assert run["cost_value"] >= best - 1e-9, name
    # the shortest any-angle path, and A*'s path pulled straight, are no longer than A*'s
    for name in ("any_angle", "astar_smoothed"):
        assert runs[name]["cost_value"] <= best + 1e-9


def test_play_step_and_reset_animate_the_slices(report: dict[str, Any]) -> None:
    steps = report["steps"]
    slices = steps["played"]["slice"].split(" / ")
    assert steps["reset"] == {"expanded": "0", "slice": f"0 / {slices[1]}"}
    assert steps["stepped"] == {"expanded": "16", "slice": f"2 / {slices[1]}"}
    playing = steps["playing"]
    assert playing["frame"] >= 6
    if playing["frame"] < int(slices[1]):        # a full slice of 8 per frame until the last
        assert playing["expanded"] == str(8 * playing["frame"])
    assert steps["midPlay"]["frame"] == 6 and steps["midPlay"]["expanded"] == "48"
    assert slices[0] == slices[1]
    assert steps["played"]["cost"] == steps["methods"]["astar"]["cost"]


def test_the_navmesh_view_shows_a_funnel_path_that_the_radius_changes(
        report: dict[str, Any]) -> None:
    steps = report["steps"]
    thin, thick = steps["navmesh"], steps["navmeshRadius"]
    assert thin["found"] and thick["found"] and thin["corners"] >= 3 and thin["portals"] > 0
    assert thin["path"] != thick["path"]
    assert float(thick["cost"]) > float(thin["cost"])
    added = steps["navmeshAdded"]
    assert added["obstacles"] == "4" and added["polygons"] != thick["polygons"]


def test_the_flow_and_crowd_views_draw_and_play(report: dict[str, Any]) -> None:
    steps = report["steps"]
    assert int(steps["flow"]["reachable"]) > 0 and float(steps["flow"]["farthest"]) > 0
    crowd = steps["crowd"]
    assert crowd["agents"] == "24" and int(crowd["frame"].split(" / ")[0]) >= 60
    moved = np.hypot(*(np.array(crowd["moved"]) - np.array(crowd["start"])).T)
    assert (moved > 1.0).all()
    circle = steps["circle"]
    crossed = np.hypot(*(np.array(circle["moved"]) - np.array(circle["start"])).T)
    assert np.median(crossed) > 12       # across the circle of radius about 8.5


def _pixels(path: str) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=np.float64)


SHOTS = ["placedShot", "walledShot", "navmeshShot", "navmeshRadiusShot", "crowdSpawnShot",
         ("midPlay", "shot"), ("played", "shot"), ("flow", "shot"), ("crowd", "shot")]
PAIRS = [("placedShot", "walledShot"), (("midPlay", "shot"), ("played", "shot")),
         ("navmeshShot", "navmeshRadiusShot"), ("crowdSpawnShot", ("crowd", "shot")),
         (("flow", "shot"), "navmeshShot")]


def _shot(report: dict[str, Any], key: Any) -> str:
    steps = report["steps"]
    return str(steps[key] if isinstance(key, str) else steps[key[0]][key[1]])


@pytest.mark.parametrize("key", SHOTS, ids=str)
def test_screenshots_are_not_blank(report: dict[str, Any], key: Any) -> None:
    pytest.importorskip("PIL", reason="Pillow (the [viz] extra) is not installed")
    pixels = _pixels(_shot(report, key))
    assert pixels.shape == (720, 1280, 3)
    assert pixels.std() > 20
    assert len(np.unique(pixels.reshape(-1, 3)[::97], axis=0)) > 10


@pytest.mark.parametrize("pair", PAIRS, ids=str)
def test_screenshots_differ_between_states(report: dict[str, Any], pair: Any) -> None:
    pytest.importorskip("PIL", reason="Pillow (the [viz] extra) is not installed")
    a, b = (_pixels(_shot(report, k)) for k in pair)
    changed = (np.abs(a - b).sum(axis=2) > 30).mean()
    assert changed > 0.002
