"""Copy the 2D Moving AI maps and an evenly spread sample of each scenario file into
tests/data/movingai, so the default suite runs from a clone alone.

Usage: python tests/data/sample_scenarios.py SOURCE_DIR [PER_FILE]
"""

import shutil
import sys
from pathlib import Path

DEST = Path(__file__).parent / "movingai"


def main(source: Path, per_file: int = 125) -> None:
    for scen in sorted((source / "scenarios").glob("*/*.map.scen")):
        group = scen.parent.name
        lines = scen.read_text().splitlines()
        header, body = lines[0], [ln for ln in lines[1:] if ln.strip()]
        step = max(1, len(body) // per_file)
        sample = body[::step][:per_file]
        out = DEST / "scenarios" / group / scen.name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join([header, *sample]) + "\n")
        src_map = source / "maps" / group / scen.name.removesuffix(".scen")
        (DEST / "maps" / group).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src_map, DEST / "maps" / group / src_map.name)


if __name__ == "__main__":
    main(Path(sys.argv[1]), *(int(a) for a in sys.argv[2:]))
