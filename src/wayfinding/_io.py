"""File helpers shared by the readers and writers."""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any


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


def write_npz(path: str | os.PathLike, header: dict[str, Any], **arrays: Any) -> None:
    """Save ``arrays`` and a JSON ``header`` as one ``.npz`` file, atomically."""
    import numpy as np

    buf = io.BytesIO()
    np.savez(buf, __header__=np.array(json.dumps(header)), **arrays)
    atomic_write_bytes(path, buf.getvalue())


def read_npz(path: str | os.PathLike, fmt: str, version: int, what: str,
             error: type[Exception]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and arrays of a file written by :func:`write_npz` with ``header["format"]
    == fmt`` and ``header["version"] == version``; anything else raises ``error(reason,
    path)`` naming ``what`` the file should have held."""
    import numpy as np

    if not os.path.isfile(path):
        raise error("file not found", path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        header = json.loads(str(arrays.pop("__header__")))
    except (ValueError, OSError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise error(f"not a saved {what} ({exc})", path) from None
    if not isinstance(header, dict) or header.get("format") != fmt:
        raise error(f"not a saved {what}", path)
    if header.get("version") != version:
        raise error(f"{what} format version {header.get('version')} cannot be read (this "
                    f"version reads {version})", path)
    return header, arrays
