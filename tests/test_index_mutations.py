"""Thousands of damaged saved indexes of every kind (truncated, bit-flipped, crafted values,
shapes, dtypes, header fields and options), each loaded and queried in a subprocess so that a
crash fails the test naming the file instead of killing pytest: every file gives a library
error or sound answers (a legal path from start to goal costing what the result says and no
less than the optimum; the same answers as the original index for the kinds whose loading
checks every value against the map: JPS+, differential heuristics, path tables).  Goal
bounds and zone tables may prune every path (no path found) when a crafted value stays in
range: only a rebuild could tell."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from index_files import KINDS, SIDES, mutate, random_grid

#: Mutated files per world (one world per side in SIDES).
PER_WORLD = 500

#: Kinds whose loading leaves no room for a different answer.
EXACT = {"jps_plus", "differential", "csr_differential", "csr_path_table"}

#: Kinds that prune by boxes or zone bounds, which only a rebuild could check: a file whose
#: values stay in range may still prune every path (no path found), never give a wrong one.
PRUNING = {"goal_bounds", "csr_goal_bounds", "csr_zones"}

TESTS = Path(__file__).parent


def _run(kind: str, side: int, first: int, count: int, folder: Path
         ) -> tuple[list[dict], int | None, str, int]:
    """Outcomes of files first.. until the worker ends; the file it died on (or None), what
    it was and the return code."""
    code = (f"import sys; sys.path.insert(0, {str(TESTS)!r}); import index_files; "
            f"index_files.worker({kind!r}, {side}, {first}, {count}, {str(folder)!r})")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    outcomes, last, what = [], None, ""
    for line in proc.stdout.splitlines():
        if line.startswith("FILE "):
            last, what = int(line.split()[1]), line
        elif line.startswith("DONE "):
            outcomes.append(json.loads(line[5:]))
            last = None
    if proc.returncode == 0:
        return outcomes, None, "", 0
    return outcomes, last, what or proc.stderr[-2000:], proc.returncode


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_damaged_files_give_library_errors_or_sound_answers(kind, tmp_path):
    crashes, foreign, wrong, differ = [], [], [], []
    tally: Counter[str] = Counter()
    for side in SIDES:
        first, end = 0, PER_WORLD
        while first < end:
            outcomes, died, what, code = _run(kind, side, first, end - first, tmp_path)
            for o in outcomes:
                if "foreign" in o:
                    foreign.append((side, o))
                    tally["other exception"] += 1
                elif "error" in o:
                    tally["library error"] += 1
                elif o.get("same"):
                    tally["loaded, same answers"] += 1
                else:
                    differ.append((side, o))
                    tally["loaded, other answers"] += 1
                if "wrong" in o and not (kind in PRUNING and o["wrong"].endswith(
                        "no path found where one exists")):
                    wrong.append((side, o))
            if died is None and code:
                crashes.append((side, f"worker failed (code {code}): {what}"))
                break
            if died is not None:
                # keep the file that killed the worker for the report, then go on after it
                keep = tmp_path / f"crash-{kind}-{side}-{died}.npz"
                original = tmp_path / f"{kind}-{side}.npz"
                world = KINDS[kind][1](random_grid(side, side))
                mutate(original, kind, world, 1000 * side + died, keep)
                crashes.append((side, f"code {code} on {keep}: {what}"))
                tally["crash"] += 1
                first = died + 1
            else:
                first = end
    print(f"\n{kind}: {sum(tally.values())} files: {dict(tally)}")
    assert not crashes, crashes[:5]
    assert not foreign, foreign[:5]
    assert not wrong, wrong[:5]
    if kind in EXACT:
        assert not differ, differ[:5]
