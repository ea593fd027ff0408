"""The saved-index format shared by grid and graph indexes.

An index keeps its data in ``arrays`` (name -> numpy array) and its JSON-serialisable build
``options``.  ``save`` writes a ``.npz`` holding the arrays and a JSON header with the kind,
the format version, the options, and a description and fingerprint of the world it was
built for; ``load`` checks all of them and refuses a file built for another world.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from ._io import atomic_write_bytes
from .errors import IndexFormatError, IndexMismatchError

MAGIC = "wayfinding-index"


class Index(ABC):
    """Base of the preprocessed indexes.

    A family (grid or graph indexes) sets ``kinds`` (its registry), ``world_type`` and
    ``world_name`` and implements :meth:`describe_world`; each kind sets ``kind`` and
    ``version`` and may override :meth:`_restore` to check or derive state after loading.
    """

    kind: ClassVar[str] = ""
    version: ClassVar[int] = 1
    kinds: ClassVar[dict[str, type[Index]]] = {}
    world_type: ClassVar[type] = object
    world_name: ClassVar[str] = "world"

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        if cls.kind:
            cls.kinds[cls.kind] = cls

    def __init__(self, world: Any, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        self.world = world
        self.arrays = arrays
        self.options = options
        self.build_time = float(build_time)

    @staticmethod
    @abstractmethod
    def describe_world(world: Any) -> dict[str, Any]:
        """Size fields of the header (``shape``, ``nodes``...) for ``world``."""

    @property
    def nbytes(self) -> int:
        """Bytes held by the index's arrays."""
        return int(sum(a.nbytes for a in self.arrays.values()))

    def info(self) -> dict[str, Any]:
        """Kind, version, the world's size and fingerprint, options, memory and build time."""
        return {"kind": self.kind, "version": self.version, **self.describe_world(self.world),
                "fingerprint": self.world.fingerprint, "options": self.options,
                "nbytes": self.nbytes, "build_time": self.build_time}

    def __repr__(self) -> str:
        size = ", ".join(f"{k} {v}" for k, v in self.describe_world(self.world).items())
        return (f"{type(self).__name__}({size}, {self.nbytes / 1e6:.2f} MB, built in "
                f"{self.build_time:.3g} s)")

    def save(self, path: str | os.PathLike) -> None:
        """Write the index to ``path`` (``.npz``), atomically."""
        buf = io.BytesIO()
        header = json.dumps({"format": MAGIC, **self.info()})
        np.savez(buf, __header__=np.array(header), **self.arrays)
        atomic_write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | os.PathLike, world: Any) -> Index:
        """Read an index saved by :meth:`save` for ``world``.

        Raises :class:`IndexFormatError` for a file that is not an index of this kind and
        version, and :class:`IndexMismatchError` when it was built for another world.
        """
        header, arrays = read_index_file(path)
        kind = header.get("kind")
        if cls.kind and kind != cls.kind:
            raise IndexFormatError(f"holds a {kind!r} index, not {cls.kind!r}", path)
        target = cls.kinds.get(kind)
        if target is None:
            raise IndexFormatError(f"unknown {cls.world_name} index kind {kind!r}", path)
        if header.get("version") != target.version:
            raise IndexFormatError(
                f"{kind} index format version {header.get('version')} cannot be read "
                f"(this version reads {target.version}); rebuild it", path)
        if not isinstance(world, cls.world_type):
            raise IndexMismatchError(f"load needs the {cls.world_type.__name__} the index was "
                                     f"built for, got {type(world).__name__}")
        if header.get("fingerprint") != world.fingerprint:
            saved = {k: header.get(k) for k in cls.describe_world(world)}
            raise IndexMismatchError(
                f"{path}: the {kind} index was built for another {cls.world_name} "
                f"({_text(saved)}, fingerprint {str(header.get('fingerprint'))[:12]}) than the "
                f"one given ({_text(cls.describe_world(world))}, fingerprint "
                f"{world.fingerprint[:12]}); rebuild it")
        try:
            return target._restore(world, arrays, header.get("options", {}),
                                   header.get("build_time", 0.0))
        except IndexFormatError as exc:
            raise IndexFormatError(exc.reason, path) from None

    @classmethod
    def _restore(cls, world: Any, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> Index:
        """Rebuild the object from loaded arrays; subclasses may check or derive more."""
        return cls(world, arrays, options, build_time)


def _text(fields: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in fields.items())


def read_index_file(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The JSON header and the arrays of a saved index."""
    if not os.path.exists(path):
        raise IndexFormatError("file not found", path)
    if os.path.isdir(path):
        raise IndexFormatError("is a directory, not a file", path)
    if not zipfile.is_zipfile(path):
        raise IndexFormatError("is not a wayfinding index (not an .npz archive)", path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise IndexFormatError(f"is not a wayfinding index ({exc})", path) from None
    raw = arrays.pop("__header__", None)
    try:
        header = json.loads(str(raw)) if raw is not None else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("format") != MAGIC:
        raise IndexFormatError("is not a wayfinding index (no index header)", path)
    return header, arrays
