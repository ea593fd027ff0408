"""The README is the PyPI page: it opens with how to install, and every link and image in it
works away from the repository (absolute URLs to files that exist, or anchors on the page).
Its quick start is one copy-pasteable example per family, each followed by the text it
prints: every example runs here and must print that text (times aside), so the README
cannot drift. The tour it points to holds the long doctested examples."""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from wayfinding.cli import main as cli_main

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
# A time: a number before a unit of time, or the number ending a row whose label is a time.
_TIME = re.compile(r"\d[\d,]*(?:\.\d+)?(?= ?(?:µs|ms)\b)")
_TIME_ROW = re.compile(r"^(.*(?:µs/\w+| s)) +[\d.,]+$", re.M)

#: The families the quick start shows, one example each, in this order.
FAMILIES = ["Grids", "Fast optimal search", "Graphs and world graphs", "Navigation meshes",
            "3D navigation meshes", "Any-angle paths", "Dynamic search", "Fields", "Crowds",
            "Voxel worlds", "Vehicles and traversal",
            "Planning with the body", "Constraint-aware navigation", "The command line"]
#: The most lines of code an example may have.
MAX_LINES = 13
#: The pictures at the top of the README (docs/img/gallery), in order, and where they link.
STRIP = ["grid-search.png", "navmesh.png", "flow-field.png", "crowd.gif"]
SITE = "https://wayfinding-dev.github.io/wayfinding/"
GALLERY = SITE + "auto_examples/index.html"


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


def sections(text: str, level: int = 2) -> list[tuple[str, str]]:
    """The sections of ``text`` at heading ``level`` (2: ``## ``) in order, as (title, body)
    pairs; a line in a fenced code block is never a heading."""
    prefix = "#" * level + " "
    out: list[tuple[str, list[str]]] = []
    fence = ""
    for line in text.splitlines():
        marker = re.match(r"(```|~~~)", line)
        if marker and (not fence or line.strip() == fence):
            fence = "" if fence else marker.group(1)
        elif not fence and line.startswith(prefix):
            out.append((line[len(prefix):].strip(), []))
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


@dataclass(frozen=True)
class Block:
    """A fenced code block: the first word of its info string, its text, and the lines
    (1-based) of its opening and closing fences."""

    lang: str
    body: str
    first: int
    last: int


def fenced_blocks(text: str) -> list[Block]:
    """The fenced code blocks of ``text`` in order (an unclosed one runs to the end)."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        opening = re.match(r"(`{3,}|~{3,})[ \t]*([^\s`]*)", lines[i])
        if opening is None:
            i += 1
            continue
        fence = opening.group(1)
        end = i + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        out.append(Block(opening.group(2).lower(), "\n".join(lines[i + 1:end]), i + 1, end + 1))
        i = end + 1
    return out


@dataclass(frozen=True)
class Example:
    """A runnable example: the heading it is under, its language (``python``, or ``sh``
    for ``wayfinding`` command lines), its code, the text shown as what it prints (None if
    no ``text`` block follows it) and the line its code block opens on."""

    title: str
    lang: str
    code: str
    shown: str | None
    line: int


def examples(text: str) -> list[Example]:
    """The examples of ``text``: every ``python`` block, and every ``sh`` block that a
    ``text`` block follows; a ``text`` block right after one (nothing but blank lines
    between) is what it prints."""
    lines = text.splitlines()
    blocks = fenced_blocks(text)
    out = []
    for k, block in enumerate(blocks):
        after = blocks[k + 1] if k + 1 < len(blocks) else None
        adjacent = (after is not None and after.lang == "text"
                    and not "".join(lines[block.last:after.first - 1]).strip())
        if block.lang == "python" or (block.lang == "sh" and adjacent):
            inside = {n for b in blocks for n in range(b.first, b.last + 1)}
            titles = [m.group(1) for n, line in enumerate(lines[:block.first - 1], 1)
                      if n not in inside and (m := _HEADING.match(line))]
            out.append(Example(titles[-1] if titles else "", block.lang, block.body,
                               after.body if adjacent and after else None, block.first))
    return out


def run_example(example: Example) -> str:
    """What ``example`` prints, stdout and stderr together as a terminal shows them: python
    code run in a fresh namespace, or each line a ``wayfinding`` command line run through
    the command line's ``main`` (which must exit 0)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        if example.lang == "python":
            exec(compile(example.code, f"README.md:{example.line + 1}", "exec"),
                 {"__name__": "__main__"})
        else:
            for line in example.code.splitlines():
                words = shlex.split(line, comments=True)
                if not words:
                    continue
                if words[0] != "wayfinding":
                    raise ValueError(f"not a wayfinding command line: {line!r}")
                status: object
                try:
                    status = cli_main(words[1:])
                except SystemExit as exc:            # argparse refused the line
                    status = exc.code
                if status != 0:
                    raise AssertionError(f"{line!r} exited with status {status}")
    return out.getvalue()


def normalized(output: str) -> str:
    """``output`` with its times (a number before µs or ms, or ending a row whose label
    names a unit of time) replaced by ``<time>`` and trailing blanks dropped."""
    text = "\n".join(line.rstrip() for line in output.strip("\n").splitlines())
    return _TIME_ROW.sub(r"\1 <time>", _TIME.sub("<time>", text))


README_EXAMPLES = examples(README.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_top_says_what_it_is_and_shows_pictures(readme: str) -> None:
    top = readme.split("\n## ", 1)[0]
    paragraphs = [p for p in top.split("\n\n") if p.strip()]
    assert paragraphs[0] == "# wayfinding"
    assert "\n" not in paragraphs[1].strip(), "what it is, in one line"
    links = re.findall(r"<a\b[^>]*\bhref=\"([^\"]+)\"[^>]*>\s*(<img\b[^>]*>)\s*</a>", top)
    sources = [m.group(1) for _, img in links if (m := re.search(r'\bsrc="([^"]+)"', img))]
    assert sources == [RAW + "docs/img/gallery/" + name for name in STRIP]
    assert {href for href, _ in links} == {GALLERY}
    for _, img in links:
        alt = re.search(r'\balt="([^"]*)"', img)
        assert alt is not None and len(alt.group(1).split()) >= 4, f"no alt text in {img}"
    assert SITE in top and "make docs" in top


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
    quick = dict(sections(readme))["Quick start"]
    tour = (BLOB + "docs/tour.md#", BLOB + "docs/quickstart/")
    defined = {m.group(1).lower(): m.group(2) for m in _REFERENCE.finditer(prose(readme))}
    titles = [title for title, body in sections(quick, level=3)
              if not any(t.startswith(tour) for t in link_targets(body) + [
                  defined.get(label.lower(), "") for label in _USE.findall(prose(body))])]
    assert titles == [], "these quick-start sections link to no page of the tour"


def test_quick_start_shows_every_family(readme: str) -> None:
    quick = dict(sections(readme))["Quick start"]
    assert [title for title, _ in sections(quick, level=3)] == FAMILIES
    for title, body in sections(quick, level=3):
        found = examples(body)
        assert len(found) == 1, f"{title}: {len(found)} examples, not 1"


def test_examples_are_short_and_show_their_output(readme: str) -> None:
    assert len(README_EXAMPLES) == len(FAMILIES)
    for example in README_EXAMPLES:
        assert example.shown, f"{example.title}: no text block after it says what it prints"
        lines = [line for line in example.code.splitlines() if line.strip()]
        assert len(lines) <= MAX_LINES, f"{example.title}: {len(lines)} lines"


def test_readme_has_no_doctests(readme: str) -> None:
    assert ">>>" not in readme, "the quick start is copy-pasteable code, not doctests"


@pytest.mark.parametrize("example", README_EXAMPLES, ids=[e.title for e in README_EXAMPLES])
def test_example_prints_what_the_readme_shows(example: Example, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)                      # the command line writes its files here
    assert normalized(run_example(example)) == normalized(example.shown or "")


def tour_pages() -> list[Path]:
    """The tour and the pages in docs/ it links to (its sections may lead on to them)."""
    text = TOUR.read_text(encoding="utf-8")
    pages = [TOUR]
    for target in link_targets(text):
        path = (TOUR.parent / target.partition("#")[0]).resolve()
        if path.suffix == ".md" and path.is_file() and path not in pages:
            pages.append(path)
    return pages


def test_tour_holds_doctests() -> None:
    found = [doctest.DocTestParser().get_examples(page.read_text(encoding="utf-8"))
             for page in tour_pages()]
    assert sum(map(len, found)) >= 100
    assert "](docs/" not in TOUR.read_text(encoding="utf-8"), "links in docs/ are relative to docs/"


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


def test_examples_pair_code_with_output() -> None:
    text = ("# T\n\n## One\n\n```python\nprint(1)\n# not a heading\n```\n\n```text\n1\n```\n"
            "\n```sh\npip install x\n```\n\n### Two\n\n```python\nprint(2)\n```\n\nprose\n\n"
            "```text\n2\n```\n\n```sh\nwayfinding --version\n```\n```text\nv\n```\n")
    assert examples(text) == [Example("One", "python", "print(1)\n# not a heading", "1", 5),
                              Example("Two", "python", "print(2)", None, 20),
                              Example("Two", "sh", "wayfinding --version", "v", 30)]


def test_run_example_captures_python_and_the_command_line(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = "import sys\nprint('out')\nprint('err', file=sys.stderr)\nname = __name__\nprint(name)"
    assert run_example(Example("", "python", code, None, 1)) == "out\nerr\n__main__\n"
    shell = "# a comment\nwayfinding generate maze m.map --width 9 --height 9 --seed 1\n"
    assert run_example(Example("", "sh", shell, None, 1)).startswith("m.map: 9x9, ")
    assert (tmp_path / "m.map").is_file()
    with pytest.raises(ValueError, match="not a wayfinding command line"):
        run_example(Example("", "sh", "ls -l", None, 1))
    with pytest.raises(AssertionError, match="exited with status 2"):
        run_example(Example("", "sh", "wayfinding path no.map --from 0,0 --to 1,1", None, 1))


@pytest.mark.parametrize(("output", "expected"), [
    ("cost 5, 3 steps, 2 expanded, 121 µs\n", "cost 5, 3 steps, 2 expanded, <time> µs"),
    ("NavMesh3D(1 tiles, built in 1.0 ms)", "NavMesh3D(1 tiles, built in <time> ms)"),
    ("median µs/query  5.8\npreprocessing s  0.00\nindex MB         0.08\nmean expanded    15.1",
     "median µs/query <time>\npreprocessing s <time>\nindex MB         0.08\n"
     "mean expanded    15.1"),
    ("21 steps  \n1,234 cells\n\n", "21 steps\n1,234 cells"),
])
def test_normalized(output: str, expected: str) -> None:
    assert normalized(output) == expected
