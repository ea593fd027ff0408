"""The gallery's sphinx-gallery configuration and its image scraper.

The examples in ``examples/`` draw with the library's own renderers (no matplotlib): each
writes PNG, GIF or SVG files into its working folder, which sphinx-gallery sets to the
example's own folder.  Before an example runs, :func:`remember_pictures` notes the picture
files already there; after each code block, :func:`scrape_pictures` moves the files that are
new or rewritten since then to the paths sphinx-gallery gives, in the order they were
written, and returns the reST that shows them, each with its original file name (without
the suffix) as alt text.  ``docs/conf.py`` imports :data:`SPHINX_GALLERY_CONF` (with
``docs/`` on ``sys.path``), so both functions are named by their module path and the
configuration stays picklable.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

#: Suffixes of the files the scraper collects (the 2D world renderers write SVG only).
PICTURE_SUFFIXES = (".png", ".gif", ".svg")

#: Per folder, the picture files seen there last: name -> (size, modification time in ns).
_seen: dict[Path, dict[str, tuple[int, int]]] = {}


def _pictures(folder: Path) -> dict[str, tuple[int, int]]:
    """The picture files directly in ``folder`` with their size and modification time."""
    found = {}
    for entry in os.scandir(folder):
        if entry.is_file() and Path(entry.name).suffix.lower() in PICTURE_SUFFIXES:
            st = entry.stat()
            found[entry.name] = (st.st_size, st.st_mtime_ns)
    return found


def remember_pictures(gallery_conf: dict[str, Any], fname: str | None,
                      when: str = "before") -> None:
    """Note the picture files already in the gallery's example folders (a ``reset_modules``
    hook, run before each example ``fname``): the scraper leaves them alone."""
    if when != "before":
        return
    dirs = gallery_conf.get("examples_dirs", ())
    for name in [dirs] if isinstance(dirs, str) else dirs:
        folder = (Path(gallery_conf.get("src_dir", ".")) / name).resolve()
        if folder.is_dir():
            _seen[folder] = _pictures(folder)


def new_pictures(folder: Path) -> list[Path]:
    """The picture files of ``folder`` that are new or changed since it was last looked at,
    in the order they were written (by modification time, then name); the folder's current
    files become the ones seen."""
    folder = folder.resolve()
    before = _seen.get(folder, {})
    now = _pictures(folder)
    _seen[folder] = now
    fresh = [name for name in now if before.get(name) != now[name]]
    return [folder / name for name in sorted(fresh, key=lambda n: (now[n][1], n))]


def scrape_pictures(block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any]) -> str:
    """A sphinx-gallery image scraper: move the pictures the code block just wrote into
    the example's working folder to the image paths sphinx-gallery gives (keeping each
    file's own suffix) and return the reST that shows them, with each picture's original
    file name, without its suffix, as alt text ("" when there are none)."""
    from sphinx_gallery.scrapers import figure_rst

    src_file = block_vars.get("src_file")
    folder = Path(src_file).parent if src_file else Path.cwd()
    moved: dict[str, str] = {}                     # new path -> the stem the block wrote
    paths = iter(block_vars["image_path_iterator"])
    for picture in new_pictures(folder):
        target = Path(next(paths)).with_suffix(picture.suffix.lower())
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(picture, target)
        moved[str(target)] = picture.stem
    # the moved files are gone from the folder: forget them
    _seen[folder.resolve()] = _pictures(folder)
    if not moved:
        return ""
    return _name_alt_texts(figure_rst(list(moved), gallery_conf["src_dir"]), moved)


def _name_alt_texts(rst: str, names: dict[str, str]) -> str:
    """Give each ``image-sg`` directive of ``rst`` the alt text ``names`` holds for its
    file (keyed by path; matched on the file's base name)."""
    by_base = {Path(path).name: name for path, name in names.items()}
    lines, alt = rst.splitlines(keepends=True), None
    for i, line in enumerate(lines):
        if "image-sg::" in line:
            alt = by_base.get(line.strip().rsplit("/", 1)[-1])
        elif alt is not None and line.lstrip().startswith(":alt:"):
            indent = line[:len(line) - len(line.lstrip())]
            lines[i] = f"{indent}:alt: {alt}\n"
            alt = None
    return "".join(lines)


#: The gallery's settings, read by ``docs/conf.py``.
SPHINX_GALLERY_CONF: dict[str, Any] = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    # examples/make_strip.py draws the README's pictures: not a gallery page
    "ignore_pattern": r"__init__\.py|^make_strip\.py$",
    "image_scrapers": ("_gallery.scrape_pictures",),
    "reset_modules": ("_gallery.remember_pictures",),
    "reset_modules_order": "before",
    "download_all_examples": False,
    "remove_config_comments": True,
    "write_computation_times": False,
    "within_subsection_order": "FileNameSortKey",
}
