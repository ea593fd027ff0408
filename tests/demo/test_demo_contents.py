"""The demo page's table of contents: one link per section, in order, each to a heading that
exists."""

from __future__ import annotations

from html.parser import HTMLParser

from wayfinding.demo.page import with_contents


class Outline(HTMLParser):
    """The ids of the page's ``<h2>`` headings and the links of its contents."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[str | None] = []
        self.links: list[str] = []
        self.ids: list[str] = []
        self._in_nav = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "h2":
            self.headings.append(a.get("id"))
        if tag == "nav" and a.get("class") == "contents":
            self._in_nav = True
        if tag == "a" and self._in_nav:
            self.links.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "nav":
            self._in_nav = False


def outline(page: str) -> Outline:
    parser = Outline()
    parser.feed(page)
    return parser


PAGE = """<!doctype html><html><body><h1>demo</h1><p>intro</p>
<h2>The longest problem</h2><p>x</p>
<h2>Diagonal rules on <code>rooms(seed=5)</code>, (1, 1) → (70, 62)</h2>
<h2>Crowds</h2><h3>not a section</h3><h2>Crowds</h2>
</body></html>"""


def test_every_section_gets_one_link_to_its_heading():
    o = outline(with_contents(PAGE))
    assert len(o.headings) == 4 and None not in o.headings
    assert o.links == [f"#{h}" for h in o.headings]
    assert len(set(o.ids)) == len(o.ids)                  # anchors are unique
    assert all(link[1:] in o.ids for link in o.links)


def test_the_contents_come_after_the_title_and_name_the_sections():
    page = with_contents(PAGE)
    assert page.index("</h1>") < page.index('<nav class="contents"') < page.index("<h2")
    nav = page[page.index("<nav"):page.index("</nav>")]
    assert ">Diagonal rules on rooms(seed=5), (1, 1) → (70, 62)</a>" in nav
    assert "not a section" not in nav


def test_a_heading_with_an_id_keeps_it():
    o = outline(with_contents('<h1>t</h1><h2 id="mine">A</h2><h2>B</h2>'))
    assert o.links == ["#mine", "#b"]
