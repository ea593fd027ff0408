"""What the benchmark scripts share: where the Moving AI data is, the machine line, number
formats, Markdown tables and replacing one ``## section`` of BENCHMARKS.md."""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DATA_DIRS = ([Path(os.environ["WAYFINDING_MOVINGAI"])] if "WAYFINDING_MOVINGAI" in os.environ
             else []) + [REPO.parent / "shared" / "data" / "movingai"]


def run_node(node: str, script: Path, data: dict, *options: str) -> dict:
    """What ``node SCRIPT IN.json OUT.json OPTIONS`` writes for ``data`` (the Recast and
    Detour scripts of ``tests/oracles/recast``)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(data))
        subprocess.run([node, str(script), str(src), str(out), *options], check=True,
                       capture_output=True, timeout=3600)
        result: dict = json.loads(out.read_text())
    return result


def find_data_dir(given: str | None) -> Path:
    """``given`` (it must hold ``scenarios/``), else the first of :data:`DATA_DIRS` (
    ``$WAYFINDING_MOVINGAI``, ``../shared/data/movingai``) that does."""
    if given:
        path = Path(given)
        if not (path / "scenarios").is_dir():
            sys.exit(f"{path} has no scenarios/ folder; pass a Moving AI data folder")
        return path
    for path in DATA_DIRS:
        if (path / "scenarios").is_dir():
            return path
    sys.exit("no Moving AI data found (looked in: " + ", ".join(map(str, DATA_DIRS))
             + "); pass --data DIR")


def machine_line(extra: str = "") -> str:
    """CPU, cores, system, Python, numpy and wayfinding versions (then ``extra``)."""
    import wayfinding

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    text = (f"{cpu}, {os.cpu_count()} cores; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}; numpy {np.__version__}; "
            f"wayfinding {wayfinding.__version__}")
    return f"{text}; {extra}" if extra else text


def run_header(script: str, argv: list[str] | None, data: Path | None, seconds: float,
               extra: str = "", *, note: str = "") -> str:
    """The date, machine (then ``extra``) and command lines that open every section: the
    command's data folder (none for generated worlds), minutes and ``note``."""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = shlex.join(["python", f"benchmarks/{script}", *(sys.argv[1:] if argv is None
                                                          else argv)])
    about = "; ".join([f"data: `{data}`"] * (data is not None) + [f"{seconds / 60:.1f} min"]
                      + [note] * bool(note))
    return f"Date: {when}  \nMachine: {machine_line(extra)}  \nCommand: `{cmd}` ({about})"


def fmt_us(seconds: float) -> str:
    """Seconds as µs: no decimals from 100 µs up, one below; "–" when not finite."""
    v = seconds * 1e6
    if not math.isfinite(v):
        return "–"
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def fmt_x(x: float) -> str:
    """A speed-up ratio: two decimals below 10, none from 10 up; "–" when not finite."""
    return "–" if not math.isfinite(x) else (f"{x:.2f}×" if x < 10 else f"{x:,.0f}×")


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(out + ["| " + " | ".join(r) + " |" for r in rows])


def write_section(path: str | os.PathLike, section: str, body: str) -> None:
    """Write or replace the ``section`` heading and its text in ``path``, keeping the rest of
    the file; atomically (temporary file, then rename)."""
    path = Path(path)
    lines = (path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n").splitlines()
    block = [section, "", *body.rstrip().splitlines(), ""]
    start = next((i for i, ln in enumerate(lines) if ln.strip() == section), None)
    if start is None:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ["", *block]
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        lines[start:end] = block
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    tmp.replace(path)


def publish(body: str, out: str | os.PathLike | None, section: str) -> None:
    """Print the section's text and, with ``out``, write it into that Markdown file."""
    print(body)
    if out:
        write_section(out, section, body)
        print(f"wrote section '{section}' in {out}", file=sys.stderr)
