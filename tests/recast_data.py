"""The Recast test level and what Recast makes of it, read in place from
``$WAYFINDING_RECAST`` or ``../shared/data/recast``; and Recast itself as a live oracle (the
npm WASM build, run by ``tests/oracles/recast/stages.mjs`` under node).

Where the data is absent, tests that need it skip with a reason naming where it is expected;
under ``CI=true`` its absence fails them instead.  The oracle is installed by
``make test-all``; where node or the package is missing, tests that need it skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wayfinding.navmesh3d import BuildSettings, Level
from wayfinding.navmesh3d.meshes import Contour, ContourSet, PolyMesh

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = ROOT.parent / "shared" / "data" / "recast"
ORACLE = ROOT / "tests" / "oracles" / "recast"


def require_recast() -> Path:
    """The Recast data folder; skips the test where it is absent (fails it under CI=true)."""
    env = os.environ.get("WAYFINDING_RECAST")
    for candidate in ([Path(env)] if env else []) + [EXPECTED]:
        if (candidate / "nav_test.obj").is_file():
            return candidate
    reason = f"Recast test data not found: expected at {EXPECTED} or in $WAYFINDING_RECAST"
    if os.environ.get("CI") == "true":
        pytest.fail(reason + " (CI=true: the data must be there)", pytrace=False)
    pytest.skip(reason)


def nav_test() -> Level:
    return Level.read(require_recast() / "nav_test.obj")


def oracle_settings(settings: BuildSettings) -> dict[str, Any]:
    """``settings`` as the oracle's rcConfig fields (voxel values)."""
    v = settings.voxels()
    return {"cs": settings.cell_size, "ch": settings.cell_height,
            "walkable_slope_angle": settings.agent_max_slope,
            "walkable_height": v.walkable_height, "walkable_climb": v.walkable_climb,
            "walkable_radius": v.walkable_radius, "max_edge_len": v.max_edge_len,
            "max_simplification_error": settings.edge_max_error,
            "min_region_area": v.min_region_area, "merge_region_area": v.merge_region_area,
            "max_verts_per_poly": settings.verts_per_poly,
            "detail_sample_dist": v.detail_sample_dist,
            "detail_sample_max_error": v.detail_sample_max_error,
            "partition": settings.partition,
            "filter_low_hanging_obstacles": settings.filter_low_hanging_obstacles,
            "filter_ledge_spans": settings.filter_ledge_spans,
            "filter_walkable_low_height_spans": settings.filter_walkable_low_height_spans}


def _run_oracle(script: str, data: dict[str, Any], *options: str) -> dict[str, Any]:
    """The output of ``node tests/oracles/recast/SCRIPT`` on ``data``; skips where node or
    the oracle is not installed."""
    node = shutil.which("node")
    if node is None or not (ORACLE / "node_modules").is_dir():
        pytest.skip("the Recast oracle is not installed: node and `npm ci` in "
                    f"{ORACLE} (make test-all does it)")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(data))
        subprocess.run([node, str(ORACLE / script), str(src), str(out), *options], check=True,
                       capture_output=True, timeout=600)
        result: dict[str, Any] = json.loads(out.read_text())
    return result


def _level_input(level: Level) -> dict[str, Any]:
    """The oracles' input fields for ``level``: its soup, areas and convex volumes."""
    return {"vertices": level.vertices.tolist(), "triangles": level.triangles.tolist(),
            "areas": level.areas.tolist(),
            "volumes": [{"polygon": [list(p) for p in v.polygon], "ymin": v.ymin,
                         "ymax": v.ymax, "area": v.area} for v in level.volumes]}


def recast(level: Level, settings: BuildSettings, *, counts_only: bool = False,
           **box: Any) -> dict[str, Any]:
    """What Recast builds from ``level`` with ``settings``, stage by stage (see
    tests/oracles/recast/README.md); ``box``: the oracle's grid fields (``border_size``,
    ``tile_size``, ``bmin``, ``bmax``) for one tile.  Skips where node or the oracle is not
    installed."""
    data = {**_level_input(level), "settings": oracle_settings(settings) | box}
    return _run_oracle("stages.mjs", data, *(["--counts-only"] if counts_only else []))


def detour(level: Level, settings: BuildSettings, *, tile_size: int = 0,
           **queries: Any) -> dict[str, Any]:
    """Detour's answers (tests/oracles/recast/queries.mjs) on ``level`` built with
    ``settings``, whole or in tiles of ``tile_size`` cells, to ``queries``: the script's
    input fields (points, paths, raycasts, circles, links...); polygons as [tile x, tile z,
    index], or -1."""
    st = oracle_settings(settings)
    st["agent_max_climb"] = settings.agent_max_climb
    st["tile_size"] = tile_size
    data = {**_level_input(level), "settings": st, "points": [], "paths": [], **queries}
    return _run_oracle("queries.mjs", data)


def contours_of(data: dict[str, Any], regions: Any) -> ContourSet:
    """Recast's contours (from :func:`recast`) as a ContourSet over ``regions``' grid."""
    chf = regions.chf
    border = data["contours"]["border_size"]
    pad = np.float32(border) * np.float32(chf.cell_size)     # as the contour set is placed
    bmin, bmax = chf.bmin.copy(), chf.bmax.copy()
    bmin[[0, 2]] += pad
    bmax[[0, 2]] -= pad
    conts = tuple(Contour(verts=np.array(c["verts"], np.int32).reshape(-1, 4),
                          raw=np.array(c["rverts"], np.int32).reshape(-1, 4),
                          reg=c["reg"], area=c["area"]) for c in data["contours"]["conts"])
    return ContourSet(contours=conts, bmin=bmin, bmax=bmax, cell_size=chf.cell_size,
                      cell_height=chf.cell_height, width=chf.width - 2 * border,
                      depth=chf.depth - 2 * border, border=border,
                      max_error=data["contours"]["max_error"])


def polymesh_of(data: dict[str, Any]) -> PolyMesh:
    """Recast's polygon mesh (from :func:`recast`) as a PolyMesh."""
    p = data["polymesh"]
    return PolyMesh(verts=np.array(p["verts"], np.uint16).reshape(-1, 3),
                    polys=np.array(p["polys"], np.uint16).reshape(-1, 2 * p["nvp"]),
                    regs=np.array(p["regs"], np.uint16), areas=np.array(p["areas"], np.uint8),
                    flags=np.array(p["flags"], np.uint16), nvp=p["nvp"],
                    bmin=np.array(p["bmin"], np.float32), bmax=np.array(p["bmax"], np.float32),
                    cell_size=p["cs"], cell_height=p["ch"], border=p["border_size"],
                    max_edge_error=p["max_edge_error"])
