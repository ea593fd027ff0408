"""The floors of the package: every import of a wayfinding module (at the top of a file or
inside a function) goes to the same floor or one below, and the subpackages import each
other without cycles."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import wayfinding

ROOT = Path(wayfinding.__file__).parent

#: Floor of each top-level part of the package, from the bottom up.  Within the worlds,
#: navmesh sits above grid and grid above graph.
FLOORS = {
    "base": ("geometry", "errors", "results", "sliced", "progress", "_io", "_index", "_saved",
             "_validate", "_scratch", "_deprecated", "_kernels", "_arrays", "constraints"),
    "graph": ("graph",),
    "grid": ("grid",),
    "navmesh": ("navmesh", "navmesh3d", "voxel"),
    "search": ("search", "paths"),
    "movement": ("fields", "crowd", "groups", "vehicles", "traffic", "climbing",
                 "planning"),
    "apps": ("cli", "demo", "bench", "viz", "serve", "__main__", "__init__"),
}
LEVEL = {part: i for i, parts in enumerate(FLOORS.values()) for part in parts}


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        out[".".join(("wayfinding", *rel.parts))] = path
    return out


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def _is_module(name: str) -> bool:
    return name in MODULES or f"{name}.__init__" in MODULES


def _imports(name: str, source: str, *, is_package: bool = False) -> set[str]:
    """The wayfinding modules ``name`` (whose code is ``source``) imports, wherever in the
    file: ``from .. import crowd`` and ``from wayfinding import viz`` import the module they
    name."""
    package = name if is_package else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("wayfinding")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.startswith("wayfinding"):
                found.add(target)
                found |= {f"{target}.{a.name}" for a in node.names
                          if _is_module(f"{target}.{a.name}")}
    return found


MODULES = _modules()
EDGES = {name: _imports(name, path.read_text(), is_package=path.name == "__init__.py")
         for name, path in MODULES.items()}


def test_every_part_has_a_floor():
    assert {_part(m) for m in MODULES} <= set(LEVEL)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down(name):
    here = LEVEL[_part(name)]
    upward = sorted(t for t in EDGES[name]
                    if t != "wayfinding" and LEVEL[_part(t)] > here)
    assert not upward, f"{name} imports from a floor above it: {upward}"


def test_no_cycles_between_parts():
    graph: dict[str, set[str]] = {}
    for name, targets in EDGES.items():
        for t in targets:
            if t != "wayfinding" and _part(t) != _part(name):
                graph.setdefault(_part(name), set()).add(_part(t))
    state: dict[str, int] = {}

    def visit(p: str, trail: list[str]) -> None:
        state[p] = 1
        for q in sorted(graph.get(p, ())):
            assert state.get(q) != 1, f"import cycle: {' -> '.join([*trail, p, q])}"
            if q not in state:
                visit(q, [*trail, p])
        state[p] = 2

    for p in sorted(graph):
        if p not in state:
            visit(p, [])


def test_the_checks_see_a_bad_import():
    assert _imports("wayfinding.grid.bad", "def f():\n    from ..crowd import Crowd\n") == {
        "wayfinding.crowd"}


def test_the_checks_see_a_module_imported_by_name_from_its_package():
    found = _imports("wayfinding.grid.bad", "from .. import crowd\nfrom wayfinding import viz")
    assert found == {"wayfinding", "wayfinding.crowd", "wayfinding.viz"}
    assert _imports("wayfinding.grid", "from . import jps, nothing", is_package=True) == {
        "wayfinding.grid", "wayfinding.grid.jps"}


def _late_imports(path: Path) -> list[int]:
    """Lines of the wayfinding imports inside functions of ``path``."""
    lines = []
    for fn in ast.walk(ast.parse(path.read_text())):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (
                        node.level or (node.module or "").startswith("wayfinding")):
                    lines.append(node.lineno)
                elif isinstance(node, ast.Import) and any(
                        a.name.startswith("wayfinding") for a in node.names):
                    lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("name", sorted(m for m in MODULES if _part(m) != "cli"))
def test_imports_sit_at_the_top(name):
    """Only the command line defers its imports (so that ``--help`` starts fast)."""
    assert not _late_imports(MODULES[name]), f"{name} imports inside a function"
