"""The README is the PyPI page: it opens with how to install, and every link and image in it
works away from the repository (absolute URLs to files that exist, or anchors on the page).
The tour it points to holds the long doctested examples."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TOUR = ROOT / "docs" / "tour.md"
BLOB = "https://github.com/wayfinding-dev/wayfinding/blob/main/"
RAW = "https://raw.githubusercontent.com/wayfinding-dev/wayfinding/main/"

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
_INLINE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*<?([^\s>]+)>?(?:[ \t].*)?$", re.M)
_USE = re.compile(r"\]\[([^\]]*)\]")
_HTML = re.compile(r"""<(?:img|a|source)\b[^>]*?\b(?:src|href|srcset)\s*=\s*["']([^"']+)""", re.I)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans, where brackets are not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def link_targets(text: str) -> list[str]:
    """Targets of the Markdown links and images (inline, reference and HTML) in ``text``."""
    body = prose(text)
    return [m.group(m.lastindex or 0) for pattern in (_INLINE, _REFERENCE, _HTML)
            for m in pattern.finditer(body)]


def undefined_references(text: str) -> list[str]:
    """Labels of reference links (``[text][label]``) in ``text`` that no definition gives: they
    would show as bracketed text, not links."""
    body = prose(text)
    defined = {m.group(1).lower() for m in _REFERENCE.finditer(body)}
    return [label for label in _USE.findall(body) if label.lower() not in defined]


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of ``text``: lower case, punctuation
    dropped, spaces to hyphens, repeats numbered ``-1``, ``-2``, ..."""
    seen: dict[str, int] = {}
    out = set()
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def sections(text: str) -> list[tuple[str, str]]:
    """The ``## `` sections of ``text`` in order, as (title, body) pairs; a line in a fenced
    code block is never a heading."""
    out: list[tuple[str, list[str]]] = []
    fence = ""
    for line in text.splitlines():
        marker = re.match(r"(```|~~~)", line)
        if marker and (not fence or line.strip() == fence):
            fence = "" if fence else marker.group(1)
        elif not fence and line.startswith("## "):
            out.append((line[3:].strip(), []))
            continue
        if out:
            out[-1][1].append(line)
    return [(title, "\n".join(body)) for title, body in out]


def unresolved(target: str, page: str) -> str | None:
    """Why ``target``, a link in ``page`` (README text), fails away from the repository, or
    None when it resolves: an anchor of the page, an image on raw.githubusercontent or a
    file (and heading) in the repository, or any other absolute http(s) URL."""
    if target.startswith("#"):
        return None if target[1:] in anchors(page) else f"no heading for anchor {target}"
    if not re.match(r"https?://", target):
        return f"relative link {target}"
    for base in (BLOB, RAW):
        if target.startswith(base):
            path, _, anchor = target[len(base):].partition("#")
            if not (ROOT / path).is_file():
                return f"{target}: no file {path} in the repository"
            if anchor and anchor not in anchors((ROOT / path).read_text(encoding="utf-8")):
                return f"{target}: no heading for #{anchor} in {path}"
    return None


@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_first_section_is_install(readme: str) -> None:
    titles = [title for title, _ in sections(readme)]
    assert titles[:2] == ["Install", "Quick start"]
    assert "pip install wayfinding\n" in sections(readme)[0][1]


def test_every_link_works_away_from_the_repository(readme: str) -> None:
    targets = link_targets(readme)
    assert targets, "the README links to nothing: the link parser is broken"
    problems = [p for p in (unresolved(t, readme) for t in targets) if p is not None]
    assert problems == []
    assert undefined_references(readme) == []


def test_quick_start_links_into_the_tour(readme: str) -> None:
    tour_links = [t for t in link_targets(readme) if t.startswith(BLOB + "docs/tour.md#")]
    assert len(tour_links) >= 10


def test_tour_holds_doctests() -> None:
    text = TOUR.read_text(encoding="utf-8")
    examples = doctest.DocTestParser().get_examples(text)
    assert len(examples) >= 100
    assert "](docs/" not in text, "links in docs/ are relative to docs/"


@pytest.mark.parametrize(("text", "found"), [
    ("see [the data](DATA.md) and ![pic](img/a.png)", ["DATA.md", "img/a.png"]),
    ('[ref]: docs/x.md "title"\n<img src="y.png">', ["docs/x.md", "y.png"]),
    ("[a]: https://x.org/a\n[b]: https://x.org/b 'b'\n[c]: <c.md>\n",
     ["https://x.org/a", "https://x.org/b", "c.md"]),
    ("`[not](a_link.md)` and\n```\n[nor](this.md)\n```\n", []),
])
def test_link_targets(text: str, found: list[str]) -> None:
    assert sorted(link_targets(text)) == sorted(found)


@pytest.mark.parametrize(("target", "bad"), [
    ("#install", False),
    ("#no-such-heading", True),
    ("BENCHMARKS.md", True),
    ("docs/img/cave-astar.png", True),
    (BLOB + "BENCHMARKS.md", False),
    (BLOB + "NO_SUCH_FILE.md", True),
    (BLOB + "docs/tour.md#grids", False),
    (BLOB + "docs/tour.md#no-such-part", True),
    (RAW + "docs/img/cave-astar.png", False),
    (RAW + "docs/img/missing.png", True),
    ("https://example.org/anything", False),
])
def test_unresolved(target: str, bad: bool) -> None:
    page = "# Title\n\n## Install\n\ntext\n"
    assert (unresolved(target, page) is not None) == bad


def test_undefined_references() -> None:
    text = "[one][a], [two][b] and [three][A]\n\n[a]: https://x.org/a\n"
    assert undefined_references(text) == ["b"]


def test_sections_skip_code() -> None:
    text = "# T\n\n```sh\n## not a heading\n```\n## One\nbody\n## Two\n"
    assert sections(text) == [("One", "body"), ("Two", "")]


def test_anchors_follow_github() -> None:
    text = ("# A `tour`\n## 3D navigation meshes\n"
            "## Maps, files and the CLI\n## Maps, files and the CLI\n")
    assert anchors(text) == {"a-tour", "3d-navigation-meshes", "maps-files-and-the-cli",
                             "maps-files-and-the-cli-1"}
