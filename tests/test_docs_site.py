"""The documentation site: its API reference names every public name, every quickstart page
runs doctests, the command-line page covers the real parser, and (slow) the whole site builds
with warnings as errors."""

from __future__ import annotations

import argparse
import doctest
import importlib
import importlib.util
import inspect
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import wayfinding

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FAMILIES = ("grids", "graphs", "navmesh", "navmesh3d", "anyangle", "dynamic", "fields",
            "crowds", "voxels", "vehicles", "planning", "constraints")


def _extension(name: str) -> types.ModuleType:
    """A module of docs/_ext, imported from its file."""
    spec = importlib.util.spec_from_file_location(f"_docs_ext_{name}", DOCS / "_ext" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


def exported() -> dict[str, list[str]]:
    """Every public module's ``__all__``, walked here independently of the page generator:
    the package and each module without a leading underscore in its dotted name."""
    out = {"wayfinding": list(wayfinding.__all__)}
    for info in pkgutil.walk_packages(wayfinding.__path__, "wayfinding."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "__all__"):
            out[info.name] = list(module.__all__)
    return out


def _resolve(dotted: str) -> Any:
    """The object a dotted name names, attribute by attribute from the package (importing a
    submodule only where no attribute has the name, as ``wayfinding.cli.main`` is the
    function the package exports, not the module)."""
    parts = dotted.split(".")
    value: Any = importlib.import_module(parts[0])
    for i, attr in enumerate(parts[1:], start=1):
        if not hasattr(value, attr):
            importlib.import_module(".".join(parts[:i + 1]))
        value = getattr(value, attr)
    return value


def _documented(pages: dict[str, str]) -> list[str]:
    """The names listed under an autosummary with ``:toctree:`` (those get their own page)."""
    out = []
    for text in pages.values():
        for block in re.findall(r"\.\. autosummary::\n((?:   .*\n|\n)+)", text + "\n"):
            if ":toctree:" in block:
                out += [line.strip() for line in block.splitlines()
                        if line.strip() and not line.strip().startswith(":")]
    return out


@pytest.fixture(scope="module")
def api_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("api")
    _extension("api_pages").write_pages(out)
    return {p.stem: p.read_text(encoding="utf-8") for p in out.glob("*.rst")}


def test_every_public_name_is_in_the_api_reference(api_pages: dict[str, str]) -> None:
    documented = {id(_resolve(name)) for name in _documented(api_pages)}
    missing = []
    for module, names in exported().items():
        assert module in api_pages, f"no API page for {module}"
        page = api_pages[module]
        for name in names:
            value = getattr(importlib.import_module(module), name)
            if isinstance(value, types.ModuleType):
                if value.__name__ not in api_pages:
                    missing.append(f"{module}.{name} (no page for {value.__name__})")
            elif not re.search(rf"[\s.]{re.escape(name)}\b", page):
                missing.append(f"{module}.{name} (not on its module's page)")
            elif (inspect.isclass(value) or callable(value)) and id(value) not in documented:
                missing.append(f"{module}.{name} (described on no page)")
    assert missing == []
    modules = api_pages["modules"]
    assert all(f"   {module}\n" in modules for module in exported())


def test_base_modules_have_pages(api_pages: dict[str, str]) -> None:
    for name in ("wayfinding.errors", "wayfinding.results", "wayfinding.sliced"):
        module = importlib.import_module(name)
        own = [k for k, v in vars(module).items() if not k.startswith("_")
               and inspect.isclass(v) and v.__module__ == name]
        assert own and all(f"{name}.{k}" in api_pages[name] for k in own)


def test_an_object_is_described_once(api_pages: dict[str, str]) -> None:
    names = _documented(api_pages)
    ids = [id(_resolve(name)) for name in names]
    assert len(ids) == len(set(ids))
    # the package's Grid is described on wayfinding.grid's page and linked from the package's
    assert "wayfinding.grid.Grid" in names and "wayfinding.Grid" not in names
    assert "wayfinding.grid.Grid" in api_pages["wayfinding"]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_quickstart_page_runs_doctests(family: str) -> None:
    text = (DOCS / "quickstart" / f"{family}.md").read_text(encoding="utf-8")
    examples = doctest.DocTestParser().get_examples(text)
    assert len(examples) >= 5
    assert any(example.want for example in examples), "no example shows its output"


def _slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_tour_sends_each_heading_onward() -> None:
    """The README links into docs/tour.md's headings; each section links to a quickstart
    page (and heading) that exists."""
    tour = (DOCS / "tour.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", tour, flags=re.M)[1:]
    assert len(sections) >= 10
    for section in sections:
        links = re.findall(r"\]\((quickstart/[^)#]+)(?:#([^)]+))?\)", section)
        assert links, f"section {section.splitlines()[0]!r} links nowhere"
        for page, anchor in links:
            text = (DOCS / page).read_text(encoding="utf-8")
            if anchor:
                headings = re.findall(r"^#{1,6} (.+)$", text, flags=re.M)
                assert anchor in {_slug(h) for h in headings}, f"{page}#{anchor}"


def _walk(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> list[str]:
    out = [" ".join(("wayfinding", *words))]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                out += _walk(child, (*words, name))
    return out


def test_cli_page_lists_every_command() -> None:
    from wayfinding.cli.main import build_parser

    cli = _extension("cli_reference")
    titles = [command.title for command in cli.commands(build_parser())]
    assert titles == _walk(build_parser())
    assert {"wayfinding navmesh3d raycast", "wayfinding field scene"} <= set(titles)
    assert "```{wayfinding-cli}" in (DOCS / "cli.md").read_text(encoding="utf-8")


def test_cli_arguments_are_those_of_help() -> None:
    from wayfinding.cli.main import build_parser

    cli = _extension("cli_reference")
    for command in cli.commands(build_parser()):
        help_text = command.parser.format_help()
        for invocation, _ in cli.arguments(command.parser):
            first = invocation.split(",")[0].split()[0]
            assert first in help_text, (command.title, invocation)


@pytest.mark.slow
def test_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    if importlib.util.find_spec("sphinx") is None:
        pytest.skip("sphinx is not installed (pip install 'wayfinding[docs]')")
    html = tmp_path / "html"
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b",
                          "html", "-d", str(tmp_path / "doctrees"), str(DOCS), str(html)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-5000:]
    cli_page = (html / "cli.html").read_text(encoding="utf-8")
    from wayfinding.cli.main import build_parser

    assert all(title in cli_page for title in _walk(build_parser()))
    assert (html / "api" / "generated" / "wayfinding.grid.Grid.html").is_file()
    assert all((html / "quickstart" / f"{family}.html").is_file() for family in FAMILIES)
