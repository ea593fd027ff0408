"""Packaging: the metadata a PyPI user expects, extras that are used, the release matrix, and
the checks `make dist` makes of the sdist and the wheel (tools/dist.py)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import io
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import wayfinding

ROOT = Path(__file__).resolve().parent.parent
#: The installed distribution's metadata (what PyPI shows).
METADATA = importlib.metadata.metadata("wayfinding")
#: The import name of each requirement of the user-facing extras.
IMPORTS = {"shapely": "shapely", "pillow": "PIL", "trimesh": "trimesh", "dask": "distributed",
           "starlette": "starlette", "uvicorn": "uvicorn"}
USER_EXTRAS = {"geometry", "viz", "mesh", "dask", "serve"}


def _dist_tool():
    if not (ROOT / "src").is_dir():
        pytest.skip("tools/dist.py reads the kernel list from src/ (absent beside a wheel)")
    spec = importlib.util.spec_from_file_location("dist_tool", ROOT / "tools" / "dist.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!;\[ ]", requirement, maxsplit=1)[0].lower()


def test_classifiers_name_every_supported_python_and_platform():
    classifiers = set(METADATA.get_all("Classifier") or [])
    assert METADATA["Requires-Python"] == ">=3.10"
    for minor in (10, 11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    for system in ("POSIX :: Linux", "MacOS", "Microsoft :: Windows"):
        assert f"Operating System :: {system}" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert any(c.startswith("Topic :: Games") for c in classifiers)
    assert METADATA["License-Expression"] == "MIT" and METADATA["Keywords"]
    urls = {u.split(",")[0] for u in METADATA.get_all("Project-URL") or []}
    assert {"Homepage", "Documentation", "Source", "Issues", "Changelog"} <= urls


def test_user_extras_install_only_what_the_package_imports():
    package = Path(wayfinding.__file__).parent
    source = "\n".join(p.read_text() for p in package.rglob("*.py"))
    extras: dict[str, list[str]] = {}
    for requirement in METADATA.get_all("Requires-Dist") or []:
        found = re.search(r'extra == "([^"]+)"', requirement)
        if found:
            extras.setdefault(found.group(1), []).append(requirement)
    assert USER_EXTRAS <= set(extras)
    for extra in USER_EXTRAS:
        for requirement in extras[extra]:
            module = IMPORTS[_requirement_name(requirement)]
            assert re.search(rf"^\s*(import|from) {module}\b", source, re.M), (extra, module)
    expected = USER_EXTRAS | {"test", "bench", "docs", "dist"}
    assert set(extras) == expected, "an extra that nothing uses"


def test_build_requirements_pin_cython_to_a_range():
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("no pyproject.toml beside the tests")
    text = (ROOT / "pyproject.toml").read_text()
    requires = re.search(r"^\[build-system\]\nrequires = \[(.*)\]$", text, re.M)
    assert requires is not None
    cython = re.search(r'"Cython>=([0-9.]+),<([0-9.]+)"', requires.group(1))
    assert cython is not None, requires.group(1)


@pytest.mark.parametrize("platform, archs", [("linux", ("x86_64", "aarch64")),
                                             ("macos", ("x86_64", "arm64")),
                                             ("windows", ("amd64",))])
def test_release_matrix_builds_cpython_310_to_313(platform, archs):
    pytest.importorskip("cibuildwheel", reason="cibuildwheel runs on Python >= 3.11")
    out = subprocess.run([sys.executable, "-m", "cibuildwheel", "--print-build-identifiers",
                          "--platform", platform], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    for minor in (10, 11, 12, 13):
        for arch in archs:
            assert any(i.startswith(f"cp3{minor}-") and i.endswith(arch) for i in out), (
                f"cp3{minor} {arch}", out)
    assert not any(i.startswith(("cp39-", "cp314-", "pp")) or "musllinux" in i for i in out)


def _zip(files: dict[str, bytes], path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def _good_wheel_files(tool) -> dict[str, bytes]:
    files = {"wayfinding/__init__.py": b"", "wayfinding/py.typed": b""}
    for name in tool.kernel_names():
        files[f"wayfinding/_kernels/{name}.cpython-311-x86_64-linux-gnu.so"] = b"\x7fELF"
        files[f"wayfinding/_kernels/{name}.pyi"] = b""
    return files


def test_wheel_check_accepts_a_complete_wheel_and_refuses_sources_or_missing_kernels(tmp_path):
    tool = _dist_tool()
    files = _good_wheel_files(tool)
    tool.check_wheel(_zip(files, tmp_path / "good.whl"))
    with pytest.raises(SystemExit, match="ships sources"):
        tool.check_wheel(_zip({**files, "wayfinding/_kernels/_jps.c": b""}, tmp_path / "c.whl"))
    first = next(n for n in files if n.endswith(".so"))
    with pytest.raises(SystemExit, match="lacks kernels"):
        tool.check_wheel(_zip({n: d for n, d in files.items() if n != first},
                              tmp_path / "missing.whl"))


def _tar(names: list[str], path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name in names:
            info = tarfile.TarInfo(f"wayfinding-0.1.0/{name}")
            tar.addfile(info, io.BytesIO(b""))
    return path


def test_sdist_check_wants_the_whole_suite_and_no_generated_files(tmp_path):
    tool = _dist_tool()
    names = [f"src/wayfinding/_kernels/{k}.pyx" for k in tool.kernel_names()]
    names += [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
              if "node_modules" not in p.parts]
    names += ["pyproject.toml", "setup.py", "README.md", "LICENSE", "MANIFEST.in"]
    tool.check_sdist(_tar(names, tmp_path / "good.tar.gz"))
    with pytest.raises(SystemExit, match="generated or built"):
        tool.check_sdist(_tar([*names, "src/wayfinding/_kernels/_jps.c"], tmp_path / "c.tar.gz"))
    with pytest.raises(SystemExit, match="lacks"):
        tool.check_sdist(_tar([n for n in names if n != "tests/conftest.py"],
                              tmp_path / "short.tar.gz"))
