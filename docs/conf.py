"""Sphinx configuration of the wayfinding documentation site (``make docs``)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import wayfinding

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS / "_ext"), str(DOCS)]

project = "wayfinding"
author = "the wayfinding authors"
copyright = "the wayfinding authors, MIT licence"
release = wayfinding.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "api_pages",
    "cli_reference",
]

# Text stays as written: "--help" is an option, not an en dash.
smartquotes = False

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
# tour.md is the repository's index of the quickstart pages (the README links to its headings);
# the site has its own index.
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "tour.md"]

html_theme = "furo"
html_title = f"wayfinding {release}"
html_static_path = ["_static"]
html_baseurl = "https://wayfinding-dev.github.io/wayfinding/"

myst_enable_extensions = ["attrs_inline", "colon_fence", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_member_order = "bysource"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True
napoleon_use_rtype = False

# The examples gallery: its settings and image scraper live in docs/_gallery.py, imported as
# the top-level module ``_gallery`` (the settings name its functions by that path).
if (DOCS / "_gallery.py").is_file():
    from _gallery import SPHINX_GALLERY_CONF

    extensions.append("sphinx_gallery.gen_gallery")
    sphinx_gallery_conf = SPHINX_GALLERY_CONF

# linkcheck: the site's own links are checked; this machine reaches no outside web site, so
# every external address is skipped (they are the project's GitHub pages, Moving AI and
# the papers and libraries the pages cite).
linkcheck_ignore = [r"https?://.*"]


def _class_signature(app: object, what: str, name: str, obj: object, options: object,
                     signature: str | None, return_annotation: str | None
                     ) -> tuple[str, str | None] | None:
    """Classes under the single-thread guard, whose ``__new__`` takes ``*args, **kwargs``,
    show the parameters of their ``__init__`` (annotations go to the description)."""
    if what != "class" or signature != "(*args, **kwargs)" or not callable(obj):
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    bare = [p.replace(annotation=p.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=bare, return_annotation=sig.empty)), return_annotation


def setup(app: object) -> None:
    app.connect("autodoc-process-signature", _class_signature)  # type: ignore[attr-defined]
