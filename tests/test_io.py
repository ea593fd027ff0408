"""The atomic writer: modes follow the umask (an existing file keeps its own), data and the
rename reach the disk (fsync), and temporary files of interrupted saves are cleaned up."""

import os
import subprocess
import sys

import numpy as np
import pytest

import wayfinding as wf
from wayfinding import _io
from wayfinding.grid.goal_bounds import GoalBounds

posix = pytest.mark.skipif(os.name != "posix", reason="POSIX modes, umask and pids")


@pytest.fixture
def umask():
    """Set the process umask for one test (restored afterwards)."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


def _mode(path) -> int:
    return os.stat(path).st_mode & 0o777


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@posix
@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_new_file_mode_follows_the_umask(tmp_path, umask, mask):
    umask(mask)
    target = _io.atomic_write_bytes(tmp_path / "out.bin", b"data")
    assert _mode(target) == 0o666 & ~mask
    assert target.read_bytes() == b"data"


@posix
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664])
def test_existing_file_keeps_its_mode(tmp_path, umask, mode):
    umask(0o077)
    target = tmp_path / "out.txt"
    target.write_text("old")
    os.chmod(target, mode)
    _io.atomic_write_text(target, "new")
    assert _mode(target) == mode and target.read_text() == "new"


@posix
@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_goal_bound_checkpoints_follow_the_umask(tmp_path, umask, mask):
    umask(mask)
    grid = wf.Grid(np.ones((4, 5), dtype=bool))
    path = tmp_path / "gb.ckpt"
    GoalBounds.build(grid, workers=1, progress=False, checkpoint=path)
    assert _mode(path) == 0o666 & ~mask


def test_fsync_before_the_rename_and_of_the_folder_after(tmp_path, monkeypatch):
    events = []
    fsync, replace = os.fsync, os.replace

    def spy_fsync(fd):
        events.append(("fsync", os.path.isdir(f"/proc/self/fd/{fd}")
                       if os.path.exists("/proc/self/fd") else None))
        fsync(fd)

    def spy_replace(a, b):
        events.append(("replace", None))
        replace(a, b)

    monkeypatch.setattr(os, "fsync", spy_fsync)
    monkeypatch.setattr(os, "replace", spy_replace)
    _io.atomic_write_bytes(tmp_path / "out.bin", b"x" * 100)
    kinds = [e[0] for e in events]
    assert kinds[:2] == ["fsync", "replace"], events      # the file's data, then the rename
    if os.name == "posix":
        assert kinds == ["fsync", "replace", "fsync"], events   # then the folder
        if events[0][1] is not None:
            assert events[0][1] is False and events[2][1] is True


@posix
def test_stale_temporary_files_of_dead_writers_are_removed(tmp_path):
    dead, alive = _dead_pid(), os.getpid()
    stale = tmp_path / f".out.bin.{dead}.0a1b2c3d.tmp"      # a save killed mid-write
    live = tmp_path / f".out.bin.{alive}.4e5f6a7b.tmp"      # a save under way
    other_target = tmp_path / f".out.bin.5.{dead}.0a1b2c3d.tmp"   # of ``out.bin.5``
    unrelated = [tmp_path / ".out.bin.swp", tmp_path / f".out.bin.{dead}.tmp",
                 tmp_path / f".other.{dead}.0a1b2c3d.tmp", other_target]
    for p in [stale, live, *unrelated]:
        p.write_bytes(b"partial")
    _io.atomic_write_bytes(tmp_path / "out.bin", b"done")
    assert not stale.exists()
    assert live.exists() and all(p.exists() for p in unrelated)
    assert (tmp_path / "out.bin").read_bytes() == b"done"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["out.bin", live.name, *(p.name for p in unrelated)])


@posix
def test_temporary_file_names_carry_the_writer_pid(tmp_path, monkeypatch):
    seen = []
    replace = os.replace

    def spy(a, b):
        seen.append(os.path.basename(a))
        replace(a, b)

    monkeypatch.setattr(os, "replace", spy)
    _io.atomic_write_bytes(tmp_path / "out.bin", b"x")
    (name,) = seen
    assert name.startswith(f".out.bin.{os.getpid()}.") and name.endswith(".tmp")


def test_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def boom(a, b):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="No space"):
        _io.atomic_write_bytes(tmp_path / "out.bin", b"x")
    assert list(tmp_path.iterdir()) == []
