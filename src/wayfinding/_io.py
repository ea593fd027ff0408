"""File helpers shared by the readers and writers."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename,
    so a failure never leaves a half-written file."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Text version of :func:`atomic_write_bytes` (UTF-8, ``\\n`` line ends)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def read_text(path: str | os.PathLike, error: type[Exception]) -> str:
    """Read a text file, raising ``error(reason, path)`` for missing, binary or non-UTF-8 files."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise error("file not found", p) from None
    except IsADirectoryError:
        raise error("is a directory, not a file", p) from None
    except OSError as exc:
        raise error(f"cannot be read ({exc.strerror})", p) from None
    if b"\x00" in data:
        raise error("is a binary file (contains NUL bytes), not text", p)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise error(f"is not UTF-8 text (byte 0x{data[exc.start]:02x})", p, line) from None
