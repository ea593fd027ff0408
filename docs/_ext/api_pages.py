"""Writes the API reference's sources: one page per public module of wayfinding.

The public modules are the package, every module found by walking it whose dotted name has no
part starting with ``_`` and that declares ``__all__``, the base modules that declare none
(their own classes and functions are their public names), and any module an ``__all__``
names. Each object is documented once, on the page of the module that declares it most
closely (the longest module name that ``obj.__module__`` starts with); the other pages that
export it list it with a link there. Pages go to ``docs/api/generated`` (not kept in git),
rewritten only when their text changes so that Sphinx rebuilds only what changed.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Modules without ``__all__`` whose own classes and functions are public.
BASE_MODULES = ("wayfinding.errors", "wayfinding.results", "wayfinding.sliced",
                "wayfinding.progress")


@dataclass
class ApiModule:
    """One page of the reference: a module and the names it exports."""

    name: str
    module: types.ModuleType
    names: list[str] = field(default_factory=list)

    def member(self, name: str) -> Any:
        return getattr(self.module, name)


def _own_names(module: types.ModuleType) -> list[str]:
    return sorted(k for k, v in vars(module).items()
                  if not k.startswith("_") and (inspect.isclass(v) or inspect.isfunction(v))
                  and getattr(v, "__module__", None) == module.__name__)


def public_modules(package: str = "wayfinding") -> list[ApiModule]:
    """The reference's modules in dotted-name order, each with its public names."""
    root = importlib.import_module(package)
    found: dict[str, ApiModule] = {package: ApiModule(package, root, list(root.__all__))}
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "__all__"):
            found[info.name] = ApiModule(info.name, module, list(module.__all__))
    for name in BASE_MODULES:
        module = importlib.import_module(name)
        found.setdefault(name, ApiModule(name, module, _own_names(module)))
    pending = list(found.values())
    while pending:
        api = pending.pop()
        for name in api.names:
            value = api.member(name)
            if isinstance(value, types.ModuleType) and value.__name__ not in found:
                names = list(getattr(value, "__all__", _own_names(value)))
                found[value.__name__] = ApiModule(value.__name__, value, names)
                pending.append(found[value.__name__])
    return [found[name] for name in sorted(found)]


def public_names(modules: list[ApiModule]) -> list[str]:
    """Every public name as ``module.name``."""
    return [f"{api.name}.{name}" for api in modules for name in api.names]


def _home(value: Any, exporters: list[str]) -> str:
    """The module whose page documents ``value``, among the modules that export it."""
    declared = getattr(value, "__module__", None) or ""
    inside = [m for m in exporters if declared == m or declared.startswith(m + ".")]
    return max(inside, key=len) if inside else exporters[0]


def homes(modules: list[ApiModule]) -> dict[int, str]:
    """For each exported object (by id), the module whose page documents it."""
    exporters: dict[int, list[str]] = {}
    values: dict[int, Any] = {}
    for api in modules:
        for name in api.names:
            value = api.member(name)
            if isinstance(value, types.ModuleType) or _kind(value) == "data":
                continue
            exporters.setdefault(id(value), []).append(api.name)
            values[id(value)] = value
    return {key: _home(values[key], where) for key, where in exporters.items()}


def _kind(value: Any) -> str:
    if inspect.isclass(value):
        return "exceptions" if issubclass(value, BaseException) else "classes"
    if callable(value):
        return "functions"
    return "data"


_HEADINGS = {"modules": "Modules", "classes": "Classes", "exceptions": "Exceptions",
             "functions": "Functions", "data": "Constants", "elsewhere": "Also exported here"}


def _summary(module: types.ModuleType) -> str:
    doc = inspect.getdoc(module) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def _data_docs() -> dict[tuple[str, str], str]:
    """The ``#:`` comments of module-level names in every wayfinding module, by (module,
    name); none where Sphinx, which reads them, is not installed (the pages are then
    written for the tests alone)."""
    try:
        from sphinx.pycode import ModuleAnalyzer
    except ImportError:
        return {}

    root = importlib.import_module("wayfinding")
    out: dict[tuple[str, str], str] = {}
    for info in pkgutil.walk_packages(root.__path__, "wayfinding."):
        if info.name.endswith("__main__"):  # reading it would run the command line
            continue
        try:
            docs = ModuleAnalyzer.for_module(info.name).find_attr_docs()
        except Exception:  # compiled modules have no source to read comments from
            continue
        for (scope, name), lines in docs.items():
            if scope == "":
                out[(info.name, name)] = " ".join(line.strip() for line in lines).strip()
    return out


def _data_doc(api: ApiModule, name: str, comments: dict[tuple[str, str], str]) -> str:
    """The comment of a module-level constant, from the module that defines it."""
    value = api.member(name)
    for (module, attr), text in sorted(comments.items(), key=lambda kv: kv[0] != (api.name, name)):
        if attr == name and text:
            defining = importlib.import_module(module)
            if getattr(defining, attr, None) is value:
                return text
    return ""


def _data_entry(api: ApiModule, name: str, comments: dict[tuple[str, str], str]) -> list[str]:
    value = api.member(name)
    lines = [f".. py:data:: {api.name}.{name}", f"   :type: {type(value).__qualname__}"]
    shown = repr(value)
    if len(shown) <= 70 and "\n" not in shown:
        lines.append(f"   :value: {shown}")
    text = _data_doc(api, name, comments)
    lines += ["", f"   {text}" if text else f"   A {type(value).__qualname__}.", ""]
    return lines


def module_page(api: ApiModule, home: dict[int, str], modules: dict[str, ApiModule],
                comments: dict[tuple[str, str], str]) -> str:
    """The reStructuredText source of one module's page."""
    title = f"``{api.name}``"
    lines = [title, "=" * len(title), "", f".. py:module:: {api.name}", "",
             _summary(api.module), "", ".. py:currentmodule:: None", ""]
    groups: dict[str, list[str]] = {key: [] for key in _HEADINGS}
    for name in sorted(api.names, key=str.lower):
        value = api.member(name)
        if isinstance(value, types.ModuleType):
            groups["modules"].append(value.__name__)
        elif _kind(value) == "data":
            groups["data"].append(name)
        elif home[id(value)] == api.name:
            groups[_kind(value)].append(f"{api.name}.{name}")
        else:
            groups["elsewhere"].append(f"{home[id(value)]}.{name}")
    for key, heading in _HEADINGS.items():
        entries = groups[key]
        if not entries:
            continue
        lines += [heading, "-" * len(heading), ""]
        if key == "modules":
            lines += [f"- :doc:`{m}` — {_summary(modules[m].module)}" for m in entries]
            lines.append("")
        elif key == "data":
            for name in entries:
                lines += _data_entry(api, name, comments)
        else:
            if key == "elsewhere":
                lines += ["Documented on the page of the module that declares them:", ""]
            lines += [".. autosummary::", "   :nosignatures:"]
            if key != "elsewhere":
                lines.append("   :toctree: .")
            lines += [""] + [f"   {entry}" for entry in entries] + [""]
    return "\n".join(lines)


def index_page(modules: list[ApiModule]) -> str:
    """The source of the generated list of module pages."""
    lines = ["Modules", "=======", "", ".. toctree::", "   :maxdepth: 1", ""]
    lines += [f"   {api.name}" for api in modules]
    return "\n".join(lines) + "\n"


def write_pages(out: Path) -> list[Path]:
    """Write every module page and the modules' index into ``out`` and remove the files
    there that are neither those pages nor the stubs autosummary writes for them; return the
    pages' paths."""
    modules = public_modules()
    home = homes(modules)
    by_name = {api.name: api for api in modules}
    comments = _data_docs()
    out.mkdir(parents=True, exist_ok=True)
    pages = {f"{api.name}.rst": module_page(api, home, by_name, comments) for api in modules}
    pages["modules.rst"] = index_page(modules)
    stubs = {f"{home[id(api.member(name))]}.{name}.rst" for api in modules for name in api.names
             if not isinstance(api.member(name), types.ModuleType)
             and _kind(api.member(name)) != "data" and home[id(api.member(name))] == api.name}
    for stale in sorted(set(p.name for p in out.glob("*.rst")) - set(pages) - stubs):
        (out / stale).unlink()  # a page or stub of a name no longer exported
    written = []
    for file, text in pages.items():
        path = out / file
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _on_config_inited(app: Any, config: Any) -> None:
    # before Sphinx looks for source files, and before autosummary writes its stubs
    write_pages(Path(app.srcdir) / "api" / "generated")


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _on_config_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
