"""The gallery: every example script runs on its own and writes its pictures, each starts
with the title and sentence sphinx-gallery shows, the committed README strip has the agreed
names and sizes, and the gallery's scraper moves exactly the pictures a code block wrote."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCRIPTS = sorted(EXAMPLES.glob("plot_*.py"))
STRIP = ROOT / "docs" / "img" / "gallery"
STRIP_NAMES = ("grid-search.png", "navmesh.png", "flow-field.png", "crowd.gif")
PICTURES = (".png", ".gif", ".svg")
#: The example run in the default suite (the rest run under ``-m slow``).
FAST_EXAMPLE = "plot_grid_search.py"


def _gallery() -> ModuleType:
    """docs/_gallery.py, loaded from its path (docs/ is not a package)."""
    spec = importlib.util.spec_from_file_location("_gallery_under_test",
                                                  ROOT / "docs" / "_gallery.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(script: Path, folder: Path) -> list[str]:
    """Run ``script`` with ``folder`` as its working folder; the pictures it wrote."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(script)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{script.name} failed:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), f"{script.name} printed nothing"
    return sorted(p.name for p in folder.iterdir() if p.suffix.lower() in PICTURES)


def test_there_is_an_example_per_demo_section():
    names = {p.stem for p in SCRIPTS}
    for needed in ("plot_grid_search", "plot_grid_methods", "plot_any_angle", "plot_worlds",
                   "plot_navmesh", "plot_clearance", "plot_navmesh3d", "plot_voxel",
                   "plot_flow_field", "plot_integration_field", "plot_lanes",
                   "plot_crowd_circle", "plot_crowd_bottleneck", "plot_dstar_lite",
                   "plot_crowd_navigation", "plot_hierarchy", "plot_diagonal_rules",
                   "plot_car_parking", "plot_traffic_routes", "plot_climbing",
                   "plot_corner_turn", "plot_footstep_crowd", "plot_constraints"):
        assert needed in names
    assert (EXAMPLES / "GALLERY_HEADER.rst").is_file()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_example_starts_with_a_title_and_a_sentence(script):
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")), clean=True)
    assert doc, f"{script.name} has no docstring"
    title, underline, blank, sentence, *_ = doc.splitlines() + ["", "", ""]
    assert title.strip() and set(underline) == {"="} and len(underline) == len(title), \
        f"{script.name}: the docstring must open with a title underlined by '='"
    assert not blank.strip() and sentence.strip(), f"{script.name}: no sentence after the title"


def test_fast_example_writes_pictures(tmp_path):
    pytest.importorskip("PIL", reason="the examples write PNG files (Pillow, [viz])")
    written = _run(EXAMPLES / FAST_EXAMPLE, tmp_path)
    assert written == ["cave-astar.png", "cave-dijkstra.png", "cave-distances.png"]


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_every_example_writes_pictures(script, tmp_path):
    pytest.importorskip("PIL", reason="the examples write PNG and GIF files (Pillow, [viz])")
    pytest.importorskip("shapely", reason="the navmesh examples need shapely ([geometry])")
    written = _run(script, tmp_path)
    assert written, f"{script.name} wrote no picture"
    for name in written:
        assert (tmp_path / name).stat().st_size > 0


def test_committed_strip_has_its_names_sizes_and_one_height():
    Image = pytest.importorskip("PIL.Image", reason="reading the strip needs Pillow")
    heights = set()
    for name in STRIP_NAMES:
        path = STRIP / name
        assert path.is_file(), f"{path} is missing (python examples/make_strip.py)"
        assert path.stat().st_size <= 150 * 1024, f"{name} is over 150 KB"
        with Image.open(path) as image:
            assert image.format == ("GIF" if name.endswith(".gif") else "PNG")
            heights.add(image.height)
            if name.endswith(".gif"):
                assert image.n_frames > 1, "the crowd picture is an animation"
    assert heights == {240}


@pytest.mark.slow
def test_make_strip_draws_the_four_pictures(tmp_path):
    pytest.importorskip("PIL", reason="the strip is PNG and GIF (Pillow, [viz])")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, str(EXAMPLES / "make_strip.py"), str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(STRIP_NAMES)


# ---------------------------------------------------------------- the scraper


@pytest.fixture
def site(tmp_path):
    """A fake site: docs/ (sphinx's source folder) beside examples/ holding one example, an
    old picture and a text file, and the image paths sphinx-gallery would hand out."""
    scrapers = pytest.importorskip("sphinx_gallery.scrapers",
                                   reason="the scraper is sphinx-gallery's ([docs])")
    docs, examples = tmp_path / "docs", tmp_path / "examples"
    docs.mkdir()
    examples.mkdir()
    (examples / "plot_x.py").write_text("print(1)\n")
    (examples / "old.png").write_bytes(b"old picture")
    (examples / "notes.txt").write_text("not a picture")
    images = docs / "auto_examples" / "images"
    conf = {"src_dir": str(docs), "examples_dirs": "../examples"}
    block_vars = {"src_file": str(examples / "plot_x.py"),
                  "image_path_iterator": scrapers.ImagePathIterator(
                      str(images / "sphx_glr_plot_x_{0:03}.png"))}
    return _gallery(), conf, block_vars, examples, images


def test_scraper_moves_new_pictures_and_leaves_old_ones(site):
    gallery, conf, block_vars, examples, images = site
    gallery.remember_pictures(conf, "plot_x.py", "before")
    (examples / "b.png").write_bytes(b"png bytes")
    (examples / "a.gif").write_bytes(b"gif bytes")
    (examples / "more.txt").write_text("still not a picture")
    stamp = (examples / "old.png").stat().st_mtime_ns
    os.utime(examples / "b.png", ns=(stamp + 10**9, stamp + 10**9))    # b written first
    os.utime(examples / "a.gif", ns=(stamp + 2 * 10**9, stamp + 2 * 10**9))
    rst = gallery.scrape_pictures(None, block_vars, conf)
    # in the order written, each keeping its suffix, at the paths sphinx-gallery gave
    assert (images / "sphx_glr_plot_x_001.png").read_bytes() == b"png bytes"
    assert (images / "sphx_glr_plot_x_002.gif").read_bytes() == b"gif bytes"
    assert rst.index("sphx_glr_plot_x_001.png") < rst.index("sphx_glr_plot_x_002.gif")
    # each picture's alt text is the name the block gave it
    assert rst.index(":alt: b\n") < rst.index(":alt: a\n") and "old" not in rst
    assert sorted(p.name for p in examples.iterdir()) == ["more.txt", "notes.txt", "old.png",
                                                         "plot_x.py"]
    assert len(block_vars["image_path_iterator"]) == 2


def test_scraper_returns_nothing_for_a_block_that_drew_nothing(site):
    gallery, conf, block_vars, examples, images = site
    gallery.remember_pictures(conf, "plot_x.py", "before")
    assert gallery.scrape_pictures(None, block_vars, conf) == ""
    (examples / "c.svg").write_text("<svg/>")
    assert "sphx_glr_plot_x_001.svg" in gallery.scrape_pictures(None, block_vars, conf)
    assert gallery.scrape_pictures(None, block_vars, conf) == ""    # already moved
    assert not images.joinpath("sphx_glr_plot_x_002.png").exists()


def test_scraper_takes_an_old_picture_the_block_rewrote(site):
    gallery, conf, block_vars, examples, images = site
    gallery.remember_pictures(conf, "plot_x.py", "before")
    (examples / "old.png").write_bytes(b"the picture drawn again, longer")
    gallery.scrape_pictures(None, block_vars, conf)
    assert (images / "sphx_glr_plot_x_001.png").read_bytes() == \
        b"the picture drawn again, longer"
    assert not (examples / "old.png").exists()


def test_gallery_settings_name_importable_callables():
    gallery = _gallery()
    conf = gallery.SPHINX_GALLERY_CONF
    assert conf["examples_dirs"] == "../examples" and conf["gallery_dirs"] == "auto_examples"
    assert conf["filename_pattern"] == r"/plot_" and conf["download_all_examples"] is False
    # every script in examples/ is a page unless ignored: make_strip.py must be
    assert [p.name for p in EXAMPLES.glob("*.py")
            if re.search(conf["ignore_pattern"], p.name)] == ["make_strip.py"]
    for key in ("image_scrapers", "reset_modules"):
        (name,) = conf[key]
        module, attr = name.split(".")
        assert module == "_gallery" and callable(getattr(gallery, attr))
