"""Levels: the triangle soup a voxel navmesh is built from (y up), with an area id per
triangle and the convex volumes that mark areas after voxelization.

Vertices are kept in single precision, the precision of the build.  Area ids run from 1 to
63 (:data:`WALKABLE`, the default); 0 marks a triangle that is never walked on.

>>> level = Level([[0, 0, 0], [4, 0, 0], [4, 0, 4], [0, 0, 4]], [[0, 2, 1], [0, 3, 2]])
>>> level.num_triangles, level.bounds[1].tolist()
(2, [4.0, 0.0, 4.0])
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._io import atomic_write_text, read_text
from .._validate import choice, count, finite_float
from ..errors import FileFormatError, InvalidGeometryError

#: The area id of plain walkable ground; ids 1..63 are walkable area types, 0 is none.
WALKABLE = 63


class LevelFormatError(FileFormatError):
    """A level file (OBJ, glTF) is unreadable or malformed."""


@dataclass(frozen=True)
class ConvexVolume:
    """A prism that gives ``area`` to the walkable voxels inside it after voxelization: a
    convex polygon of (x, z) points, between heights ``ymin`` and ``ymax`` (0 makes them
    unwalkable)."""

    polygon: tuple[tuple[float, float], ...]
    ymin: float
    ymax: float
    area: int

    def __init__(self, polygon: ArrayLike, ymin: float, ymax: float, *, area: int):
        try:
            pts = np.asarray(polygon, dtype=np.float64)
        except (TypeError, ValueError):
            pts = np.empty(0)
        if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 3:
            raise InvalidGeometryError(f"a volume's polygon must be 3 or more (x, z) points, "
                                       f"not an array of shape {pts.shape}")
        if not np.isfinite(pts).all():
            raise InvalidGeometryError("a volume's polygon has a non-finite coordinate")
        lo = finite_float("ymin", ymin, error=InvalidGeometryError)
        hi = finite_float("ymax", ymax, error=InvalidGeometryError)
        if not lo < hi:
            raise InvalidGeometryError(f"a volume needs ymin < ymax, not {lo} and {hi}")
        edges = np.roll(pts, -1, axis=0) - pts
        turns = edges[:, 0] * np.roll(edges[:, 1], -1) - edges[:, 1] * np.roll(edges[:, 0], -1)
        if not ((turns >= 0).all() or (turns <= 0).all()) or not turns.any():
            raise InvalidGeometryError("a volume's polygon must be convex and not flat")
        object.__setattr__(self, "polygon", tuple(map(tuple, pts.tolist())))
        object.__setattr__(self, "ymin", lo)
        object.__setattr__(self, "ymax", hi)
        object.__setattr__(self, "area", count("area", area, min=0, max=WALKABLE,
                                               error=InvalidGeometryError))


class Level:
    """Triangle soup to build a voxel navmesh from.

    ``vertices`` (n, 3) with y up; ``triangles`` (m, 3) vertex indices; ``areas`` an id per
    triangle (default :data:`WALKABLE` everywhere; the build still refuses slopes steeper
    than its limit); ``volumes`` :class:`ConvexVolume` marks.  Degenerate triangles (a
    repeated vertex or no area) are refused unless ``degenerate`` says to ``"drop"`` them or
    ``"keep"`` them (voxelized as solid but never walkable, as Recast does)."""

    def __init__(self, vertices: ArrayLike, triangles: ArrayLike, *,
                 areas: ArrayLike | None = None, volumes: tuple[ConvexVolume, ...] = (),
                 degenerate: Literal["error", "drop", "keep"] = "error"):
        choice("degenerate", degenerate, ("error", "drop", "keep"),
               error=InvalidGeometryError)
        v = _array("vertices", vertices, np.float64, 3)
        t = _array("triangles", triangles, np.int64, 3)
        if not len(t):
            raise InvalidGeometryError("the level has no triangles")
        if not np.isfinite(v).all():
            bad = int(np.flatnonzero(~np.isfinite(v).all(axis=1))[0])
            raise InvalidGeometryError(f"vertex {bad} has a non-finite coordinate: "
                                       f"{v[bad].tolist()}")
        if np.abs(v).max() > 1e7:
            raise InvalidGeometryError("a vertex lies more than 1e7 from the origin; single "
                                       "precision cannot voxelize it")
        if t.min() < 0 or t.max() >= len(v):
            bad = int(np.flatnonzero((t < 0).any(axis=1) | (t >= len(v)).any(axis=1))[0])
            raise InvalidGeometryError(f"triangle {bad} names vertices {t[bad].tolist()}, "
                                       f"outside 0..{len(v) - 1}")
        if areas is None:
            a = np.full(len(t), WALKABLE, dtype=np.uint8)
        else:
            raw = np.asarray(areas)
            if raw.shape != (len(t),) or not np.issubdtype(raw.dtype, np.integer):
                raise InvalidGeometryError(f"areas must be {len(t)} integers, one per "
                                           f"triangle, not {raw.dtype} of shape {raw.shape}")
            if raw.size and (raw.min() < 0 or raw.max() > WALKABLE):
                raise InvalidGeometryError(f"area ids run from 0 to {WALKABLE}")
            a = raw.astype(np.uint8)
        v32 = v.astype(np.float32)
        flat = _degenerate(v32, t)
        if flat.any() and degenerate != "keep":
            if degenerate == "error":
                first = int(np.flatnonzero(flat)[0])
                raise InvalidGeometryError(
                    f"{int(flat.sum())} degenerate triangles (a repeated vertex or no area), "
                    f"the first {first}: {t[first].tolist()}; pass degenerate='drop' to "
                    f"leave them out or 'keep' to voxelize them as Recast does")
            t, a = t[~flat], a[~flat]
            if not len(t):
                raise InvalidGeometryError("every triangle of the level is degenerate")
        try:
            volumes = tuple(volumes)
        except TypeError:
            raise InvalidGeometryError(f"volumes must be a sequence of ConvexVolume, not "
                                       f"{type(volumes).__name__}") from None
        for vol in volumes:
            if not isinstance(vol, ConvexVolume):
                raise InvalidGeometryError(f"volumes must be ConvexVolume, not "
                                           f"{type(vol).__name__}")
        self.vertices: NDArray[np.float32] = v32
        self.triangles: NDArray[np.int32] = t.astype(np.int32)
        self.areas: NDArray[np.uint8] = a
        self.volumes = tuple(volumes)
        for arr in (self.vertices, self.triangles, self.areas):
            arr.flags.writeable = False

    @property
    def num_triangles(self) -> int:
        return len(self.triangles)

    @property
    def bounds(self) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """The smallest and largest corner of the box around the level's vertices, every
        one of them whether a triangle names it or not (as Recast bounds its grid)."""
        return self.vertices.min(axis=0), self.vertices.max(axis=0)

    def __repr__(self) -> str:
        return (f"Level({len(self.vertices):,} vertices, {self.num_triangles:,} triangles, "
                f"{len(self.volumes)} volumes)")

    def to_obj(self, path: str | os.PathLike) -> None:
        """Write the level's vertices and triangles as an OBJ file (area ids and volumes,
        which OBJ cannot hold, are left out)."""
        lines = [f"v {x:.9g} {y:.9g} {z:.9g}" for x, y, z in self.vertices.tolist()]
        lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in self.triangles.tolist()]
        atomic_write_text(path, "\n".join(lines) + "\n")

    @classmethod
    def read(cls, path: str | os.PathLike, *, degenerate: Literal["error", "drop", "keep"]
             = "error") -> Level:
        """A level from an OBJ file (polygons split as fans from their first vertex) or,
        with the ``mesh`` extra (trimesh), a glTF/GLB file."""
        suffix = Path(path).suffix.lower()
        if suffix == ".obj":
            vertices, triangles = read_obj(path)
        elif suffix in (".gltf", ".glb"):
            vertices, triangles = _read_gltf(path)
        else:
            raise LevelFormatError(f"unknown level format {suffix!r}: .obj, .gltf or .glb",
                                   path)
        try:
            return cls(vertices, triangles, degenerate=degenerate)
        except InvalidGeometryError as exc:
            raise LevelFormatError(str(exc), path) from None


def _array(name: str, value: ArrayLike, dtype: Any, width: int) -> NDArray[Any]:
    try:
        arr = np.asarray(value)
        if arr.size == 0:
            arr = arr.reshape(0, width)
        if dtype is np.int64 and arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise InvalidGeometryError(f"{name} must be integers, not {arr.dtype}")
        arr = arr.astype(dtype)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InvalidGeometryError):
            raise
        raise InvalidGeometryError(f"{name} must be an (n, {width}) array: {exc}") from None
    if arr.ndim != 2 or arr.shape[1] != width:
        raise InvalidGeometryError(f"{name} must be an (n, {width}) array, not shape "
                                   f"{arr.shape}")
    return arr


def _degenerate(v: NDArray[np.float32], t: NDArray[np.int64]) -> NDArray[np.bool_]:
    repeated = (t[:, 0] == t[:, 1]) | (t[:, 1] == t[:, 2]) | (t[:, 0] == t[:, 2])
    normal = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    return repeated | ~normal.any(axis=1)


def read_obj(path: str | os.PathLike) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The vertices and triangles of an OBJ file: ``v`` and ``f`` lines (``f`` entries
    ``v``, ``v/vt``, ``v/vt/vn`` or ``v//vn``: 1-based, counting every vertex of the file,
    or negative, counting back from the last vertex read), polygons split as fans from
    their first vertex; other lines are ignored."""
    text = read_text(path, LevelFormatError)
    if text.startswith("\ufeff"):
        text = text[1:]
    vertices: list[list[float]] = []
    triangles: list[tuple[int, int, int]] = []
    ahead: list[tuple[int, str, int]] = []     # (line, entry, id) of vertices not yet read
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            try:
                vertices.append([float(x) for x in parts[1:4]])
            except ValueError:
                raise LevelFormatError(f"bad vertex {line.strip()!r}", path, number) from None
            if len(vertices[-1]) != 3:
                raise LevelFormatError("a vertex needs x, y and z", path, number)
        elif parts[0] == "f":
            if len(parts) < 4:
                raise LevelFormatError("a face needs three or more vertices", path, number)
            ids = []
            for entry in parts[1:]:
                try:
                    i = int(entry.split("/", 1)[0])
                except ValueError:
                    raise LevelFormatError(f"bad face entry {entry!r}", path, number) from None
                if i == 0:
                    raise LevelFormatError(f"face entry {entry!r}: vertices count from 1",
                                           path, number)
                if i < 0:
                    i += len(vertices)
                    if i < 0:
                        raise LevelFormatError(f"face entry {entry!r} names no vertex read "
                                               "so far", path, number)
                else:
                    i -= 1
                    if i >= len(vertices):
                        ahead.append((number, entry, i))
                ids.append(i)
            triangles.extend((ids[0], ids[k], ids[k + 1]) for k in range(1, len(ids) - 1))
    for number, entry, i in ahead:
        if i >= len(vertices):
            raise LevelFormatError(f"face entry {entry!r} names no vertex (the file has "
                                   f"{len(vertices)})", path, number)
    if not triangles:
        raise LevelFormatError("no faces", path)
    return np.array(vertices, dtype=np.float64), np.array(triangles, dtype=np.int64)


def _read_gltf(path: str | os.PathLike) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    try:
        import trimesh
    except ImportError:
        raise LevelFormatError("reading glTF needs trimesh: pip install 'wayfinding[mesh]'",
                               path) from None
    try:
        scene = trimesh.load_scene(os.fspath(path))
        mesh = scene.to_geometry()
    except Exception as exc:        # trimesh raises many kinds on a bad file
        raise LevelFormatError(f"unreadable glTF: {exc}", path) from None
    if not isinstance(mesh, trimesh.Trimesh):
        raise LevelFormatError("the glTF holds no triangles", path)
    return np.asarray(mesh.vertices, dtype=np.float64), np.asarray(mesh.faces, dtype=np.int64)
