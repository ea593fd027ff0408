"""One name, one thing: no public function or class name is defined in two public modules of
the package (deprecated names, whose docstring starts with "Deprecated name", excepted)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import defaultdict

import wayfinding


def _public_modules() -> list:
    """Every public module of the package; one that needs a missing optional extra is left
    out."""
    out = [wayfinding]
    for info in pkgutil.walk_packages(wayfinding.__path__, "wayfinding."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        try:
            out.append(importlib.import_module(info.name))
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] == "wayfinding":
                raise
    return out


def _is_deprecated(obj: object) -> bool:
    return (inspect.getdoc(obj) or "").startswith("Deprecated name")


def definitions() -> dict[str, list[str]]:
    """Public function and class names, each with the modules that define it."""
    where: dict[str, list[str]] = defaultdict(list)
    for module in _public_modules():
        for name, obj in vars(module).items():
            if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if obj.__module__ == module.__name__ and not _is_deprecated(obj):
                where[name].append(module.__name__)
    return where


def test_walk_sees_the_package():
    where = definitions()
    assert where["find_path"] == ["wayfinding.search"]
    assert "wayfinding.grid.search" in where["GridSearch"]
    assert len(where) > 200


def test_no_public_name_is_defined_twice():
    twice = {name: modules for name, modules in definitions().items() if len(modules) > 1}
    assert twice == {}
