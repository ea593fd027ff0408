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
