"""The .pyi stubs of the compiled kernels name exactly the public API of their modules: every
name a stub declares exists in the module (and on its classes), and every public name of the
module (and of its classes) is declared."""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import pkgutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from wayfinding import _kernels

KERNEL_DIR = Path(_kernels.__file__).parent
#: What Cython adds to every module or extension type: doctests of cdef functions, exported C
#: functions, pickling support.
CYTHON_INTERNALS = ("__test__", "__pyx_capi__", "__reduce_cython__", "__setstate_cython__")
COMPILED = sorted(
    info.name for info in pkgutil.iter_modules(_kernels.__path__)
    if any(Path(importlib.util.find_spec(f"wayfinding._kernels.{info.name}").origin).name
           .endswith(suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES))


def _stub(name: str) -> tuple[set[str], dict[str, set[str]]]:
    """Top-level names of a module's stub, and the member names of each class in it."""
    tree = ast.parse((KERNEL_DIR / f"{name}.pyi").read_text())
    names: set[str] = set()
    classes: dict[str, set[str]] = {}

    def declared(body: list[ast.stmt]) -> set[str]:
        out = set()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
        return out

    names = declared(tree.body)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = declared(node.body)
    return names, classes


def _public(module: types.ModuleType) -> set[str]:
    """Names the module defines itself (not imported ones) and does not mark private."""
    return {n for n, obj in vars(module).items() if not n.startswith("_")
            and not isinstance(obj, types.ModuleType)
            and getattr(obj, "__module__", module.__name__) == module.__name__}


def _members(cls: type) -> set[str]:
    return {n for n in vars(cls) if not n.startswith("_")}


def test_the_kernels_are_found():
    assert {"_jps", "_jps_plus", "_workspace", "_codes"} <= set(COMPILED)


@pytest.mark.parametrize("name", COMPILED)
def test_every_compiled_module_has_a_stub(name):
    assert (KERNEL_DIR / f"{name}.pyi").is_file()


@pytest.mark.parametrize("name", COMPILED)
def test_stub_names_match_the_module(name):
    module = importlib.import_module(f"wayfinding._kernels.{name}")
    names, classes = _stub(name)
    assert sorted(n for n in names if not hasattr(module, n)) == [], "declared, not defined"
    assert sorted(_public(module) - names) == [], "defined, not declared"
    for cls_name, members in classes.items():
        cls = getattr(module, cls_name)
        missing = sorted(m for m in members if not hasattr(cls, m))
        assert missing == [], f"{cls_name}: declared, not defined"
        assert sorted(_members(cls) - members) == [], f"{cls_name}: defined, not declared"


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="needs mypy")
def test_stub_signatures_match_the_module(tmp_path):
    """mypy's stubtest: parameter names, kinds and defaults, properties and attributes of
    every stub against the compiled module."""
    allow = tmp_path / "allow.txt"
    allow.write_text("".join(rf"wayfinding\._kernels\..*\.{n}" + "\n" for n in CYTHON_INTERNALS))
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\ncache_dir = {tmp_path / 'cache'}\n")
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", *(f"wayfinding._kernels.{n}" for n in COMPILED),
         "--allowlist", str(allow), "--mypy-config-file", str(config)],
        capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:]
