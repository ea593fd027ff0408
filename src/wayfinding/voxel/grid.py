"""The dense voxel world: bit-packed occupancy, a world transform and the move rule.

Cells are ``(x, y, z)``; numpy arrays over the grid are indexed ``[z, y, x]``.  A move goes to
one of the 6, 18 or 26 neighbours (``connectivity``), costs the length of its step (1, √2 or
√3) and needs every voxel of the cube spanned by its two ends free: the rule of the Moving AI
3D benchmark, which forbids squeezing past an edge or a corner.
"""

from __future__ import annotations

import hashlib
import math
import os
from functools import cached_property
from typing import Any

import numpy as np

from .._io import read_npz, write_npz
from .._kernels import _voxels
from .._validate import flag, reals
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError, brief
from . import voxelize as _voxelize  # a module import: voxelize builds grids of this one

Cell3 = tuple[int, int, int]

#: The 26 steps ``(dx, dy, dz)``, straight ones first, then the 12 in a plane, then the 8
#: through a corner; the first 6 are the 6-neighbourhood, the first 18 the 18-neighbourhood.
MOVES = np.array(
    sorted(((dx, dy, dz) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dx, dy, dz) != (0, 0, 0)),
           key=lambda d: (abs(d[0]) + abs(d[1]) + abs(d[2]), d[2], d[1], d[0])),
    dtype=np.int64)
#: The cost of each step of :data:`MOVES`: 1, √2 or √3.
MOVE_COSTS = np.sqrt(np.abs(MOVES).sum(axis=1)).astype(np.float64)
CONNECTIVITIES = (6, 18, 26)
#: Every side of a voxel grid is below this.
MAX_SIDE = 1 << 20

_FORMAT = "wayfinding.voxelgrid"
_VERSION = 1


class VoxelGrid:
    """A 3D voxel world: which voxels are blocked, where the grid sits in the world, and which
    moves its searches take.

    ``blocked``: a boolean array indexed ``[z, y, x]`` (true = solid).  It is kept bit-packed,
    64 voxels of a row to a word (:attr:`words`).  ``origin`` is the world position of the
    grid's minimum corner and ``voxel_size`` the edge of a voxel, in world units;
    ``connectivity`` is 6, 18 or 26 (the Moving AI 3D rule is 26).  The grid is immutable.

    >>> g = VoxelGrid(np.zeros((2, 3, 4), bool))
    >>> g.size, g.num_free
    ((4, 3, 2), 24)
    """

    def __init__(self, blocked: Any, *, origin: Any = (0.0, 0.0, 0.0), voxel_size: float = 1.0,
                 connectivity: int = 26):
        try:
            a = np.asarray(blocked)
        except (ValueError, TypeError):      # ragged nesting
            raise InvalidGridError(f"blocked must be a 3D array [z, y, x], got "
                                   f"{brief(blocked)}") from None
        if a.ndim != 3:
            raise InvalidGridError(f"blocked must be a 3D array [z, y, x], got shape {a.shape}")
        if a.dtype != bool:
            if a.dtype.kind not in "biu" or (a.size and not np.isin(a, (0, 1)).all()):
                raise InvalidGridError(
                    f"blocked must hold booleans (or 0/1), got dtype {a.dtype}")
            a = a.astype(bool)
        if min(a.shape) < 1:
            raise InvalidGridError(f"a voxel grid needs at least one voxel, got shape {a.shape}")
        if max(a.shape) >= MAX_SIDE:
            raise InvalidGridError(f"a voxel grid side must be below 2**20, got {a.shape}")
        self._shape = (int(a.shape[0]), int(a.shape[1]), int(a.shape[2]))
        self._words = _pack(a)
        self._words.flags.writeable = False
        self._set_options(origin, voxel_size, connectivity)

    def _set_options(self, origin: Any, voxel_size: Any, connectivity: Any) -> None:
        self._origin = _vector(origin, "origin")
        size = float(voxel_size) if isinstance(voxel_size, (int, float, np.integer, np.floating)) \
            and not isinstance(voxel_size, bool) else float("nan")
        if not np.isfinite(size) or size <= 0:
            raise InvalidGridError(f"voxel_size must be a positive number, got "
                                   f"{brief(voxel_size)}")
        self._far = tuple(o + size * n for o, n in zip(self._origin, self.size, strict=True))
        if not all(math.isfinite(v) for v in self._far):
            raise InvalidGridError(f"a grid of {self.size} voxels of {size:g} from origin "
                                   f"{self._origin} reaches beyond the largest float")
        self._voxel_size = size
        if connectivity not in CONNECTIVITIES:
            raise InvalidGridError(f"connectivity must be 6, 18 or 26, got "
                                   f"{brief(connectivity)}")
        self._connectivity = int(connectivity)

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_array(cls, blocked: Any, **options: Any) -> VoxelGrid:
        """The grid of a boolean array ``[z, y, x]`` (true = blocked)."""
        return cls(blocked, **options)

    @classmethod
    def from_cells(cls, size: Any, cells: Any, **options: Any) -> VoxelGrid:
        """A grid of ``size = (nx, ny, nz)`` voxels whose blocked ones are the ``(n, 3)``
        cells ``(x, y, z)``."""
        nx, ny, nz = _size(size)
        try:
            c = np.asarray(cells)
        except (ValueError, TypeError):      # rows of different lengths
            c = np.zeros((1, 1), dtype=object)
        if c.size and (c.dtype.kind not in "iu" or c.ndim != 2 or c.shape[1] != 3):
            raise InvalidGridError(f"cells must be an (n, 3) array of integers (x, y, z), got "
                                   f"{brief(cells)}")
        c = c.reshape(-1, 3).astype(np.int64)
        bad = ((c < 0) | (c >= (nx, ny, nz))).any(axis=1)
        if bad.any():
            raise InvalidGridError(f"blocked cell {tuple(int(v) for v in c[bad][0])} is "
                                   f"outside a grid of size {(nx, ny, nz)}")
        a = np.zeros((nz, ny, nx), bool)
        a[c[:, 2], c[:, 1], c[:, 0]] = True
        return cls(a, **options)

    @classmethod
    def from_mesh(cls, vertices: Any, triangles: Any, *, voxel_size: float,
                  **options: Any) -> VoxelGrid:
        """The grid of the voxels a triangle mesh touches (filled inside with
        ``solid=True``): see :func:`wayfinding.voxel.voxelize.voxelize` for ``bounds``,
        ``origin``, ``solid``, ``connectivity`` and the axes."""
        return _voxelize.voxelize(vertices, triangles, voxel_size=voxel_size, **options)

    def with_options(self, **options: Any) -> VoxelGrid:
        """The same voxels with other ``origin``, ``voxel_size`` or ``connectivity``."""
        kw = {"origin": self._origin, "voxel_size": self._voxel_size,
              "connectivity": self._connectivity}
        unknown = set(options) - set(kw)
        if unknown:
            raise TypeError(f"unknown option(s) {sorted(unknown)}; known: {sorted(kw)}")
        kw.update(options)
        out = VoxelGrid.__new__(VoxelGrid)
        out._shape, out._words = self._shape, self._words
        out._set_options(kw["origin"], kw["voxel_size"], kw["connectivity"])
        return out

    # ---------------------------------------------------------------- properties
    @property
    def shape(self) -> tuple[int, int, int]:
        """``(nz, ny, nx)``: the shape of arrays over the grid."""
        return self._shape

    @property
    def size(self) -> tuple[int, int, int]:
        """``(nx, ny, nz)``: voxels along each axis."""
        nz, ny, nx = self._shape
        return nx, ny, nz

    @property
    def num_voxels(self) -> int:
        nz, ny, nx = self._shape
        return nz * ny * nx

    @cached_property
    def num_free(self) -> int:
        """How many voxels are free."""
        return self.num_voxels - int(np.unpackbits(self._words.view(np.uint8)).sum())

    @property
    def words(self) -> np.ndarray:
        """The occupancy, bit-packed: ``uint64[nz, ny, ceil(nx / 64)]``, bit ``x % 64`` of
        word ``x // 64`` set where voxel ``(x, y, z)`` is blocked (padding bits clear)."""
        return self._words

    @property
    def origin(self) -> tuple[float, float, float]:
        return self._origin

    @property
    def voxel_size(self) -> float:
        return self._voxel_size

    @property
    def connectivity(self) -> int:
        return self._connectivity

    @property
    def moves(self) -> np.ndarray:
        """The steps ``(dx, dy, dz)`` this grid's searches take (a prefix of :data:`MOVES`)."""
        return MOVES[: self._connectivity]

    @property
    def blocked(self) -> np.ndarray:
        """A read-only boolean array ``[z, y, x]``, true where a voxel is blocked."""
        return self._blocked

    @cached_property
    def _blocked(self) -> np.ndarray:
        nz, ny, nx = self._shape
        bits = np.unpackbits(self._words.view(np.uint8), axis=2, bitorder="little")
        a = bits[:, :, :nx].astype(bool)
        a.flags.writeable = False
        return a

    @cached_property
    def padded(self) -> np.ndarray:
        """``uint8[nz + 2, ny + 2, nx + 2]``: 1 where a voxel is free, with a blocked border of
        one voxel, the array the compiled searches read (voxel ``(x, y, z)`` at
        ``[z + 1, y + 1, x + 1]``)."""
        nz, ny, nx = self._shape
        out = np.zeros((nz + 2, ny + 2, nx + 2), np.uint8)
        out[1:-1, 1:-1, 1:-1] = ~self._blocked
        out.flags.writeable = False
        return out

    @cached_property
    def fingerprint(self) -> str:
        """A hash of the voxels, the transform and the connectivity; indexes built for one
        grid refuse another."""
        h = hashlib.sha256()
        h.update(np.array(self._shape, np.int64).tobytes())
        h.update(self._words.tobytes())
        h.update(np.array(self._origin + (self._voxel_size,), np.float64).tobytes())
        h.update(bytes([self._connectivity]))
        return h.hexdigest()[:32]

    def __repr__(self) -> str:
        nx, ny, nz = self.size
        return (f"VoxelGrid({nx} x {ny} x {nz}, {self.num_free} free, "
                f"{self._connectivity}-connected)")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VoxelGrid) and self.fingerprint == other.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    # ---------------------------------------------------------------- cells
    def in_bounds(self, cell: Any) -> bool:
        """Whether ``cell`` (three integers ``(x, y, z)``) lies inside the grid."""
        return self._inside(_as_cell(cell, "cell"))

    def _inside(self, cell: Cell3) -> bool:
        x, y, z = cell
        nx, ny, nz = self.size
        return 0 <= x < nx and 0 <= y < ny and 0 <= z < nz

    def is_free(self, cell: Any) -> bool:
        """Whether ``cell`` is inside the grid and free."""
        x, y, z = _as_cell(cell, "cell")
        return self._inside((x, y, z)) and not self._bit(x, y, z)

    def _bit(self, x: int, y: int, z: int) -> bool:
        return bool((int(self._words[z, y, x >> 6]) >> (x & 63)) & 1)

    def cell(self, value: Any, *, name: str = "cell", free: bool = False) -> Cell3:
        """``value`` as an ``(x, y, z)`` tuple inside the grid (and free, with ``free``);
        raises :class:`InvalidQueryError` naming ``name`` otherwise."""
        if free is not False and free is not True:
            free = flag("free", free)
        c = _as_cell(value, name)
        if not self._inside(c):
            raise InvalidQueryError(f"{name} {c} is outside the grid of size {self.size}")
        if free and self._bit(*c):
            raise InvalidQueryError(f"{name} {c} is blocked")
        return c

    def cells(self, values: Any, *, name: str = "cells", free: bool = False) -> np.ndarray:
        """``values`` as an ``int64[n, 3]`` array of cells inside the grid (and free, with
        ``free``); raises :class:`InvalidQueryError` naming the first bad row."""
        if free is not False and free is not True:
            free = flag("free", free)
        if not isinstance(values, np.ndarray):
            reals(name, values)             # no bools among the integers, no ragged rows
        a = np.asarray(values)
        if a.ndim != 2 or a.shape[1] != 3 or (a.size and a.dtype.kind not in "iu"):
            if a.size == 0 and a.ndim >= 1:
                return np.zeros((0, 3), np.int64)
            raise InvalidQueryError(f"{name} must be an (n, 3) array of integer cells, got "
                                    f"shape {a.shape} and dtype {a.dtype}")
        a = a.astype(np.int64)
        nx, ny, nz = self.size
        out = ((a < 0) | (a >= (nx, ny, nz))).any(axis=1)
        if out.any():
            i = int(np.argmax(out))
            raise InvalidQueryError(f"{name}[{i}] = {tuple(int(v) for v in a[i])} is outside "
                                    f"the grid of size {self.size}")
        if free:
            hit = self._blocked[a[:, 2], a[:, 1], a[:, 0]]
            if hit.any():
                i = int(np.argmax(hit))
                raise InvalidQueryError(f"{name}[{i}] = {tuple(int(v) for v in a[i])} is "
                                        f"blocked")
        return a

    def index(self, cell: Any) -> int:
        """The flat index ``x + nx * (y + ny * z)`` of ``cell``."""
        x, y, z = self.cell(cell)
        nx, ny, _ = self.size
        return x + nx * (y + ny * z)

    # ---------------------------------------------------------------- moves
    def can_move(self, cell: Any, step: Any) -> bool:
        """Whether the move from ``cell`` by ``step = (dx, dy, dz)`` is allowed: a step of
        this grid's connectivity whose cube of voxels is all free."""
        x, y, z = _as_cell(cell, "cell")
        dx, dy, dz = _as_cell(step, "step")
        if max(abs(dx), abs(dy), abs(dz)) != 1 or abs(dx) + abs(dy) + abs(dz) > {
                6: 1, 18: 2, 26: 3}[self._connectivity]:
            return False
        for cz in {z, z + dz}:
            for cy in {y, y + dy}:
                for cx in {x, x + dx}:
                    if not self.is_free((cx, cy, cz)):
                        return False
        return True

    def neighbours(self, cell: Any) -> list[tuple[Cell3, float]]:
        """The cells one allowed move from ``cell`` and the cost of each move, in the order of
        :data:`MOVES`."""
        x, y, z = self.cell(cell)
        return [((x + int(d[0]), y + int(d[1]), z + int(d[2])), float(c))
                for d, c in zip(self.moves, MOVE_COSTS, strict=False)
                if self.can_move((x, y, z), d)]

    def successors(self, node: Cell3) -> list[tuple[Cell3, float]]:
        """:meth:`neighbours`, for the generic searches of :mod:`wayfinding.search`."""
        return self.neighbours(node)

    def heuristic(self, node: Cell3, goal: Cell3) -> float:
        """The exact cost of the cheapest move sequence between two cells in an empty grid of
        this connectivity (admissible and consistent)."""
        return float(_octile3(np.abs(np.subtract(goal, node), dtype=np.float64),
                              self._connectivity))

    def path_cost(self, path: Any) -> float:
        """The summed move costs of a path of cells; raises if a move is not allowed."""
        p = self.cells(path, name="path")
        total = 0.0
        for i in range(1, len(p)):
            d = p[i] - p[i - 1]
            if not self.can_move(p[i - 1], d):
                raise InvalidQueryError(f"path step {i}: {tuple(p[i - 1])} -> {tuple(p[i])} "
                                        f"is not an allowed move")
            total += float(np.sqrt(np.abs(d).sum()))
        return total

    # ---------------------------------------------------------------- components
    def components(self) -> np.ndarray:
        """The connected components of the free voxels: a read-only ``int32[nz, ny, nx]``
        array of labels ``0 .. k - 1`` (numbered in the order of each component's first voxel
        in C order), -1 on blocked voxels.  Computed once, then cached.

        Two free voxels share a label when a sequence of this grid's moves joins them.  The
        labels are the same for 6, 18 and 26 neighbours: a move of any connectivity needs its
        whole cube of voxels free, and the voxels of a free cube are joined by straight moves.
        """
        return self._components

    @cached_property
    def _components(self) -> np.ndarray:
        if self.num_voxels >= 2**31 - 1:
            raise InvalidGridError(f"components need fewer than 2**31 voxels, the grid has "
                                   f"{self.num_voxels}")
        out = np.empty(self._shape, np.int32)
        _voxels.components(self.padded, out)
        out.flags.writeable = False
        return out

    @property
    def num_components(self) -> int:
        """How many connected components the free voxels form."""
        return int(self._components.max(initial=-1)) + 1

    def connected(self, a: Any, b: Any) -> bool:
        """Whether a path of moves joins cells ``a`` and ``b`` (false if either is blocked);
        raises :class:`InvalidQueryError` for a cell outside the grid."""
        xa, ya, za = self.cell(a, name="a")
        xb, yb, zb = self.cell(b, name="b")
        labels = self._components
        la = int(labels[za, ya, xa])
        return la >= 0 and la == int(labels[zb, yb, xb])

    # ---------------------------------------------------------------- world
    def world_to_cell(self, point: Any) -> Cell3:
        """The voxel holding world ``point`` (raises if outside the grid)."""
        p = _vector(point, "point")
        with np.errstate(over="ignore"):        # far points: inf, outside
            c = np.floor((np.asarray(p) - self._origin) / self._voxel_size)
        if not ((c >= 0) & (c < self.size)).all():
            raise InvalidQueryError(f"point {p} is outside the grid, which covers "
                                    f"{self._origin} to {self._far}")
        return int(c[0]), int(c[1]), int(c[2])

    def cell_to_world(self, cell: Any) -> tuple[float, float, float]:
        """The world position of the centre of ``cell``."""
        x, y, z = _as_cell(cell, "cell")
        s, o = self._voxel_size, self._origin
        return (o[0] + (x + 0.5) * s, o[1] + (y + 0.5) * s, o[2] + (z + 0.5) * s)

    def cells_to_world(self, cells: Any) -> np.ndarray:
        """World centres (``float64[n, 3]``) of an ``(n, 3)`` array of cells."""
        c = np.asarray(cells, dtype=np.float64).reshape(-1, 3)
        return np.asarray(self._origin) + (c + 0.5) * self._voxel_size

    # ---------------------------------------------------------------- files
    def save(self, path: str | os.PathLike) -> None:
        """Save the grid as a versioned ``.npz`` (atomically)."""
        write_npz(path, {"format": _FORMAT, "version": _VERSION, "shape": list(self._shape),
                         "origin": list(self._origin), "voxel_size": self._voxel_size,
                         "connectivity": self._connectivity, "fingerprint": self.fingerprint},
                  words=self._words)

    @classmethod
    def load(cls, path: str | os.PathLike) -> VoxelGrid:
        """A grid written by :meth:`save`; raises :class:`IndexFormatError` for anything
        else, a damaged file or one whose voxels do not match its fingerprint."""
        header, arrays = read_npz(path, _FORMAT, _VERSION, "voxel grid", IndexFormatError,
                                  members=["words"])
        try:
            nz, ny, nx = (int(v) for v in header["shape"])
            words = arrays["words"]
            if words.dtype != np.uint64 or words.shape != (nz, ny, (nx + 63) // 64):
                raise ValueError(f"words of shape {words.shape} and dtype {words.dtype} do "
                                 f"not fit shape {(nz, ny, nx)}")
            blocked = np.unpackbits(words.view(np.uint8), axis=2,
                                    bitorder="little")[:, :, :nx].astype(bool)
            grid = cls(blocked, origin=header["origin"], voxel_size=header["voxel_size"],
                       connectivity=header["connectivity"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IndexFormatError(f"malformed voxel grid: {exc}", path) from None
        if grid.fingerprint != header.get("fingerprint"):
            raise IndexFormatError("the voxels do not match the file's fingerprint "
                                   "(damaged file)", path)
        return grid


def _require_grid(grid: Any, what: str) -> VoxelGrid:
    """``grid`` if it is a :class:`VoxelGrid`; raises :class:`InvalidQueryError` saying
    ``what`` needs one otherwise."""
    if not isinstance(grid, VoxelGrid):
        raise InvalidQueryError(f"{what} needs a VoxelGrid, got {type(grid).__name__}")
    return grid


def octile3(d: np.ndarray, *, connectivity: int = 26) -> np.ndarray:
    """The cost of the cheapest move sequence covering absolute offsets ``d[..., 3]`` in an
    empty grid of ``connectivity`` 6, 18 or 26; raises :class:`InvalidQueryError` for
    another connectivity, or offsets that are not numbers >= 0 along a last axis of 3."""
    if connectivity not in CONNECTIVITIES or isinstance(connectivity, bool):
        raise InvalidQueryError(f"connectivity must be 6, 18 or 26, got {brief(connectivity)}")
    a = reals("d", d)
    if a.ndim < 1 or a.shape[-1] != 3 or not (a >= 0).all():
        raise InvalidQueryError(f"d {brief(d)} must hold absolute offsets (numbers >= 0) "
                                "along a last axis of 3")
    return _octile3(a, connectivity)


def _octile3(d: np.ndarray, connectivity: int) -> np.ndarray:
    """:func:`octile3` of checked float64 offsets."""
    s = np.sort(d, axis=-1)
    lo, mid, hi = s[..., 0], s[..., 1], s[..., 2]
    if connectivity == 6:
        return lo + mid + hi
    if connectivity == 18:
        # As many two-axis steps as the largest axis leaves pairs for, then straight ones.
        total = lo + mid + hi
        return np.where(hi >= lo + mid, np.sqrt(2) * (lo + mid) + (hi - lo - mid),
                        np.sqrt(2) * np.floor(total / 2) + total % 2)
    return (np.sqrt(3) - np.sqrt(2)) * lo + (np.sqrt(2) - 1) * mid + hi


def _pack(a: np.ndarray) -> np.ndarray:
    nz, ny, nx = a.shape
    nw = (nx + 63) // 64
    bits = np.zeros((nz, ny, nw * 64), np.uint8)
    bits[:, :, :nx] = a
    return np.ascontiguousarray(np.packbits(bits, axis=2, bitorder="little").view(np.uint64))


def _as_cell(value: Any, name: str) -> Cell3:
    if isinstance(value, (tuple, list)) and any(isinstance(v, (bool, np.bool_)) for v in value):
        raise InvalidQueryError(f"{name} {brief(value)} must be three integers (x, y, z), not "
                                "bools")
    try:
        a = np.asarray(value)
        if a.shape != (3,) or a.dtype.kind not in "iu":
            raise ValueError
        return int(a[0]), int(a[1]), int(a[2])
    except (ValueError, TypeError):
        raise InvalidQueryError(f"{name} must be three integers (x, y, z), got "
                                f"{brief(value)}") from None


def _vector(value: Any, name: str) -> tuple[float, float, float]:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (ValueError, TypeError):
        a = np.zeros(0)
    if a.shape != (3,) or not np.isfinite(a).all():
        raise InvalidGridError(f"{name} must be three finite numbers, got {brief(value)}")
    return float(a[0]), float(a[1]), float(a[2])


def _size(size: Any) -> tuple[int, int, int]:
    try:
        reals("size", size)                 # no bools among the integers
        a = np.asarray(size)
        if a.shape != (3,) or a.dtype.kind not in "iu" or (a < 1).any():
            raise ValueError
    except (ValueError, TypeError):
        raise InvalidGridError(f"size must be three positive integers (nx, ny, nz), got "
                               f"{brief(size)}") from None
    return int(a[0]), int(a[1]), int(a[2])
