"""The saved-index format shared by grid and graph indexes.

An index keeps its data in ``arrays`` (name -> numpy array) and its JSON-serialisable build
``options``.  ``save`` writes a ``.npz`` holding the arrays and a JSON header with the kind,
the format version, the options, and a description and fingerprint of the world it was
built for; ``load`` checks all of them and refuses a file built for another world.

:func:`check_world` is the one check that an index (loaded, saved or in memory) or a
checkpoint belongs to the world it is used with.
"""

from __future__ import annotations

import io
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._io import NpzFile, atomic_write_bytes
from ._saved import integer, number
from .errors import FileFormatError, IndexFormatError, IndexMismatchError

MAGIC = "wayfinding-index"

#: Each family of indexes (grid, graph) by the type of world it is built for.
_FAMILIES: dict[type, type[Index]] = {}


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
        if "world_type" in vars(cls):
            _FAMILIES[cls.world_type] = cls

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

        The file is untrusted: before any array is decompressed, its header's fields must
        have their types, its options their ranges and its arrays the names and at most the
        sizes the kind allows for ``world`` (:meth:`_members`); then every array is checked
        (dtype, shape, values in range: :meth:`_restore`).  Raises :class:`IndexFormatError`
        naming the file and what is wrong for a file that is not a sound index of this kind
        and version, and :class:`IndexMismatchError` when it was built for another world.
        """
        try:
            with NpzFile(path, IndexFormatError, "wayfinding index") as f:
                header = _check_header(f.header())
                kind = header["kind"]
                if cls.kind and kind != cls.kind:
                    raise IndexFormatError(f"holds a {kind!r} index, not {cls.kind!r}")
                target = cls.kinds.get(kind)
                if target is None:
                    raise IndexFormatError(f"unknown {cls.world_name} index kind {kind!r}")
                if header["version"] != target.version:
                    raise IndexFormatError(
                        f"{kind} index format version {header['version']} cannot be read "
                        f"(this version reads {target.version}); rebuild it")
                if not isinstance(world, cls.world_type):
                    raise IndexMismatchError(
                        f"load needs the {cls.world_type.__name__} the index was built for, "
                        f"got {type(world).__name__}")
                saved = {k: header.get(k) for k in cls.describe_world(world)}
                check_world(f"the {kind} index", {**saved, "fingerprint": header["fingerprint"]},
                            world, path=path)
                options = header["options"]
                arrays = f.arrays(target._members(world, options))
            return target._restore(world, arrays, options, header["build_time"])
        except FileFormatError as exc:
            if isinstance(exc, IndexFormatError) and exc.path is not None:
                raise
            raise IndexFormatError(exc.reason, path) from None

    @classmethod
    @abstractmethod
    def _members(cls, world: Any, options: dict[str, Any]) -> dict[str, int]:
        """The arrays a saved index of this kind may hold for ``world`` and ``options``,
        each with the most bytes it may take (checked before decompressing); raises
        :class:`IndexFormatError` for options of the wrong type or range."""

    @classmethod
    def _restore(cls, world: Any, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> Index:
        """Rebuild the object from loaded arrays after checking every array the kernels
        read (see :mod:`wayfinding._saved`); raises :class:`IndexFormatError`."""
        return cls(world, arrays, options, build_time)


def check_world(what: str, built_for: Any, given: Any, *,
                path: str | os.PathLike | None = None, fix: str = "rebuild it") -> None:
    """Refuse ``what`` (``"the jps_plus index"``, ``"the goal-bound checkpoint"``...) built
    for the world ``built_for`` when it is used with the world ``given``.

    Each world is a :class:`~wayfinding.grid.Grid` or :class:`~wayfinding.graph.CSRGraph`
    (anything with a ``fingerprint``), or the fields a saved header holds for one
    (``fingerprint`` and its size: ``shape``, ``diagonal``, ``nodes``, ``edges``).  Unless
    both are the same object or have the same fingerprint, raises
    :class:`IndexMismatchError` naming both worlds (size, as their index family's
    ``describe_world`` gives it, and fingerprint), the file ``path`` if given, and ``fix``.
    """
    if built_for is given:
        return
    built, here = _world(built_for), _world(given)
    if built[1] is not None and built[1] == here[1]:
        return
    family = _family(given) or _family(built_for)
    noun = family.world_name if family is not None else Index.world_name
    where = f"{path}: " if path is not None else ""
    raise IndexMismatchError(
        f"{where}{what} was built for another {noun} ({_text(*built)}) than the one given "
        f"({_text(*here)}); {fix}")


def _family(world: Any) -> type[Index] | None:
    """The family of indexes built for worlds of ``world``'s type, if any."""
    for world_type, family in _FAMILIES.items():
        if isinstance(world, world_type):
            return family
    return None


def _world(world: Any) -> tuple[dict[str, Any], Any]:
    """The size fields and the fingerprint of a world or of a saved header's fields."""
    if isinstance(world, Mapping):
        return {k: world[k] for k in _WORLD_FIELDS if k in world}, world.get("fingerprint")
    family = _family(world)
    fields = family.describe_world(world) if family is not None else {}
    return fields, getattr(world, "fingerprint", None)


def _text(fields: dict[str, Any], fingerprint: Any) -> str:
    return ", ".join([*(f"{k} {v}" for k, v in fields.items()),
                      f"fingerprint {str(fingerprint)[:12]}"])


#: Header fields of a saved index and their types (``shape``, ``diagonal``, ``nodes`` and
#: ``edges`` describe the world and appear by family).
_HEADER_FIELDS: dict[str, tuple[type, ...]] = {
    "kind": (str,), "version": (int,), "fingerprint": (str,), "options": (dict,),
    "nbytes": (int,), "build_time": (int, float)}
_WORLD_FIELDS: dict[str, tuple[type, ...]] = {
    "shape": (list,), "diagonal": (str,), "nodes": (int,), "edges": (int,)}


def _check_header(header: dict[str, Any]) -> dict[str, Any]:
    """``header`` after checking the magic and the type of every field (a bool is no
    number); raises :class:`IndexFormatError`."""
    if header.get("format") != MAGIC:
        raise IndexFormatError("is not a wayfinding index (no index header)")
    for name, types in (_HEADER_FIELDS | _WORLD_FIELDS).items():
        if name not in header:
            if name in _WORLD_FIELDS:
                continue
            raise IndexFormatError(f"the index header lacks {name!r}")
        value = header[name]
        if isinstance(value, bool) or not isinstance(value, types):
            want = " or ".join(t.__name__ for t in types)
            raise IndexFormatError(f"the index header's {name} must be {want}, got "
                                   f"{value!r}")
    number(header["build_time"], "the index header's build_time")
    integer(header["nbytes"], "the index header's nbytes", 0)
    if "shape" in header:
        shape = header["shape"]
        if len(shape) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                      and v >= 1 for v in shape):
            raise IndexFormatError(f"the index header's shape {shape!r} must be two "
                                   "integers >= 1")
    for name in ("nodes", "edges"):
        if name in header:
            integer(header[name], f"the index header's {name}", 0)
    return header


def read_index_header(path: str | os.PathLike) -> dict[str, Any]:
    """The checked JSON header of a saved index, read without decompressing its arrays."""
    with NpzFile(path, IndexFormatError, "wayfinding index") as f:
        try:
            return _check_header(f.header())
        except FileFormatError as exc:
            raise IndexFormatError(exc.reason, path) from None
