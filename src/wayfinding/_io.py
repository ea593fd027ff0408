"""File helpers shared by the readers and writers."""

from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import struct
import tokenize
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename,
    so a failure never leaves a half-written file.

    The data is flushed to disk (``fsync``) before the rename, and the folder after it.  A
    new file gets the mode ``0o666`` less the umask; an existing one keeps its mode.  The
    temporary file is ``.<name>.<writer pid>.<8 hex digits>.tmp``: a save killed mid-write
    leaves one behind, and the next save to the same file removes those whose writer process
    is gone (POSIX; a live writer's are kept).
    """
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", str(path))
    _remove_stale_temporaries(target)
    try:
        fd, tmp = _create_temporary(target)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o777)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _sync_folder(target.parent)
    return target


def _temporary_pattern(target: Path) -> re.Pattern[str]:
    """Names of the temporary files of saves to ``target``; group 1 is the writer's pid."""
    return re.compile(rf"\.{re.escape(target.name)}\.(\d+)\.[0-9a-f]{{8}}\.tmp")


def _create_temporary(target: Path) -> tuple[int, str]:
    """A new, empty temporary file for a save to ``target`` (created with mode 0o666, which
    the umask reduces as for any new file), open for writing: ``(fd, path)``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = str(target.parent / f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(target))


def _remove_stale_temporaries(target: Path) -> None:
    """Remove the temporary files that saves to ``target`` left behind when their writer
    process died mid-write (POSIX, where a pid can be checked)."""
    if os.name != "posix":
        return
    pattern = _temporary_pattern(target)
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        m = pattern.fullmatch(name)
        if m is not None and not _process_alive(int(m.group(1))):
            try:
                os.unlink(target.parent / name)
            except OSError:
                pass


def _process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (POSIX; one of another user counts as alive)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename in it) to disk, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


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


def write_npz(path: str | os.PathLike, header: dict[str, Any], **arrays: ArrayLike) -> None:
    """Save ``arrays`` and a JSON ``header`` as one ``.npz`` file, atomically."""
    import numpy as np

    buf = io.BytesIO()
    np.savez(buf, __header__=np.array(json.dumps(header)), **arrays)
    atomic_write_bytes(path, buf.getvalue())


def read_npz(path: str | os.PathLike, fmt: str, version: int, what: str,
             error: type[Exception], members: Iterable[str] | None = None
             ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and arrays of a file written by :func:`write_npz` with ``header["format"]
    == fmt`` and ``header["version"] == version``; anything else raises ``error(reason,
    path)`` naming ``what`` the file should have held.  ``members``: the array names the file
    may hold (others are refused); the zip is read as :class:`NpzFile` reads it."""
    with NpzFile(path, error, f"saved {what}") as f:
        header = f.header()
        if header.get("format") != fmt:
            raise error(f"not a saved {what} (no {what} header)", path)
        v = header.get("version")
        if isinstance(v, bool) or not isinstance(v, int):
            raise error(f"{what} format version {v!r} must be an integer", path)
        if v != version:
            raise error(f"{what} format version {v} cannot be read (this version reads "
                        f"{version})", path)
        return header, f.arrays(None if members is None else dict.fromkeys(members))


#: Most bytes the JSON header of a saved file may take.
MAX_HEADER_BYTES = 1 << 24

#: Without a size limit per array, an array may take at most this many times the bytes it
#: takes in the zip (plus 1 MB): files are written uncompressed, so only a crafted file can
#: come near it.
MAX_RATIO = 64

#: What zipfile and numpy's .npy header parser raise on damaged input (RuntimeError covers
#: zipfile's refusal of an unsupported compression method, a subclass of it).
_CAUGHT = (OSError, EOFError, ValueError, KeyError, IndexError, TypeError, OverflowError,
           RuntimeError, SyntaxError, tokenize.TokenError,
           zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, struct.error)


class NpzFile:
    """A saved ``.npz`` (a zip of ``.npy`` arrays and a JSON ``__header__``) read from an
    untrusted file, member by member.

    Opening checks the zip's directory: only ``.npy`` members, each once, stored or deflated,
    not encrypted.  :meth:`header` reads the JSON header alone (no array is decompressed).
    :meth:`arrays` first reads every member's ``.npy`` header (a few bytes) and checks the
    dtype (plain numbers or booleans), the size the zip declares against the size the shape
    and dtype give, and both against the caller's limit per member, before decompressing
    anything; a zip bomb is refused from its directory.  Every failure raises
    ``error(reason, path)``.  Use as a context manager.
    """

    def __init__(self, path: str | os.PathLike, error: type[Exception], what: str):
        self.path, self.error, self.what = path, error, what
        if not os.path.exists(path):
            raise error("file not found", path)
        if os.path.isdir(path):
            raise error("is a directory, not a file", path)
        try:
            self._zip = zipfile.ZipFile(path)
        except _CAUGHT as exc:
            raise error(f"is not a {what} (not an .npz archive: {exc})", path) from None
        try:
            self._infos = self._directory()
        except BaseException:
            self._zip.close()
            raise

    def __enter__(self) -> NpzFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._zip.close()

    def _fail(self, reason: str) -> Exception:
        return self.error(reason, self.path)

    def _directory(self) -> dict[str, zipfile.ZipInfo]:
        infos: dict[str, zipfile.ZipInfo] = {}
        for info in self._zip.infolist():
            name = info.filename
            if not name.endswith(".npy") or name.startswith("/") or "\\" in name:
                raise self._fail(f"holds {name!r}, not an .npy array")
            if name[:-4] in infos:
                raise self._fail(f"holds {name!r} twice")
            if info.flag_bits & 1:
                raise self._fail(f"member {name!r} is encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise self._fail(f"member {name!r} uses zip compression method "
                                 f"{info.compress_type} (only stored or deflated are read)")
            infos[name[:-4]] = info
        return infos

    @property
    def names(self) -> list[str]:
        """The arrays' names (without ``.npy``), the header included."""
        return list(self._infos)

    def _open(self, name: str
              ) -> tuple[zipfile.ZipExtFile, np.dtype, tuple[int, ...], bool, int]:
        """The open member, its dtype, shape, Fortran order and data size in bytes."""
        import numpy as np

        info = self._infos[name]
        fp = None
        try:
            fp = cast(zipfile.ZipExtFile, self._zip.open(info))  # a member opened to read
            major, minor = np.lib.format.read_magic(fp)
            if (major, minor) == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
            elif (major, minor) == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
            else:
                raise ValueError(f".npy format version {major}.{minor} is not read")
            if dtype.hasobject or dtype.names is not None or dtype.subdtype is not None \
                    or dtype.kind not in "biufU":
                raise ValueError(f"dtype {dtype} is not a plain number type")
            nbytes = math.prod(shape) * dtype.itemsize
            if info.file_size != fp.tell() + nbytes:
                raise ValueError(f"the zip declares {info.file_size} bytes but its .npy "
                                 f"header gives {fp.tell() + nbytes}")
        except _CAUGHT as exc:
            if fp is not None:
                fp.close()
            raise self._fail(f"array {name!r} is unreadable ({exc})") from None
        return fp, dtype, shape, fortran, nbytes

    def _read(self, name: str) -> np.ndarray:
        import numpy as np

        fp, dtype, shape, fortran, nbytes = self._open(name)
        with fp:
            try:
                buf = bytearray(nbytes)
                if fp.readinto(buf) != nbytes or fp.read(1):
                    raise ValueError("its data is truncated or too long")
            except _CAUGHT as exc:
                raise self._fail(f"array {name!r} is unreadable ({exc})") from None
        return np.frombuffer(buf, dtype=dtype).reshape(shape, order="F" if fortran else "C")

    def header(self) -> dict[str, Any]:
        """The JSON header (a dict), read alone."""
        if "__header__" not in self._infos:
            raise self._fail(f"is not a {self.what} (no header)")
        if self._infos["__header__"].file_size > MAX_HEADER_BYTES:
            raise self._fail(f"its header is larger than {MAX_HEADER_BYTES} bytes")
        raw = self._read("__header__")
        try:
            if raw.dtype.kind != "U" or raw.shape != ():
                raise ValueError(f"a {raw.dtype} array of shape {raw.shape}")
            header = json.loads(str(raw))
        except (ValueError, RecursionError) as exc:
            raise self._fail(f"is not a {self.what} (unreadable header: {exc})") from None
        if not isinstance(header, dict):
            raise self._fail(f"is not a {self.what} (the header is not a JSON object)")
        return header

    def arrays(self, limits: Mapping[str, int | None] | None = None) -> dict[str, np.ndarray]:
        """Every array but the header.  ``limits``: the names the file may hold, each with
        the most bytes its data may take (None: :data:`MAX_RATIO` times its stored size);
        None accepts any name.  Sizes are checked from the zip directory and the ``.npy``
        headers before any data is decompressed."""
        names = [k for k in self._infos if k != "__header__"]
        for name in names:
            if limits is not None and name not in limits:
                known = ", ".join(sorted(limits)) or "none"
                raise self._fail(f"holds an array {name!r} this {self.what} does not have "
                                 f"(known: {known})")
            limit = None if limits is None else limits[name]
            fp, dtype, shape, _, nbytes = self._open(name)
            fp.close()
            if limit is None:
                limit = MAX_RATIO * self._infos[name].compress_size + (1 << 20)
            if nbytes > limit:
                raise self._fail(f"array {name!r} ({dtype} of shape {shape}, {nbytes} bytes) "
                                 f"is larger than this {self.what} allows ({limit} bytes)")
        return {name: self._read(name) for name in names}
