"""Where the Moving AI data lives, for the tests."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = ROOT / "tests" / "data" / "movingai"


def full_movingai() -> Path | None:
    """The complete Moving AI set: $WAYFINDING_MOVINGAI or ../shared/data/movingai."""
    env = os.environ.get("WAYFINDING_MOVINGAI")
    for candidate in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "data" / "movingai"]:
        if (candidate / "scenarios").is_dir():
            return candidate
    return None


def prebuilt_index(map_path: Path, kind: str) -> Path | None:
    """``$WAYFINDING_INDEX_DIR/<map>.<kind>.npz`` when it exists: an index built beforehand
    (``wayfinding index build``), for the exhaustive run on maps where building takes hours."""
    folder = os.environ.get("WAYFINDING_INDEX_DIR")
    path = Path(folder) / f"{map_path.stem}.{kind}.npz" if folder else None
    return path if path is not None and path.is_file() else None
