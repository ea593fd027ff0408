"""Loading a served world: :func:`open_world` recognises its kind from an object or from a
file's suffix (a saved ``.npz`` from the format its header names)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._io import NpzFile
from ..errors import FileFormatError, InvalidQueryError
from ..grid.grid import Grid
from ..grid.movingai import read_map
from ..navmesh import ClearanceMesh, NavMesh
from ..navmesh3d import Level, NavMesh3D, build
from ..voxel import VoxelGrid, read_3dmap
from .grids import GridWorld
from .limits import Limits
from .meshes import Mesh3DWorld, MeshWorld
from .voxels import VoxelWorld
from .worlds import World

#: The file suffixes :func:`open_world` reads, and what each holds.
SUFFIXES = {".map": "a Moving AI grid map", ".3dmap": "a Moving AI 3D voxel map",
            ".npz": "a saved NavMesh, ClearanceMesh, NavMesh3D or VoxelGrid",
            ".obj": "a 3D level", ".gltf": "a 3D level", ".glb": "a 3D level"}


def open_world(name: str, world: Any, limits: Limits) -> World:
    """``world`` (an object, or a file path recognised by its suffix: :data:`SUFFIXES`)
    loaded as a :class:`World` named ``name``; a 3D :class:`Level` is built into its
    :class:`NavMesh3D` with the default :class:`~wayfinding.navmesh3d.BuildSettings`."""
    if isinstance(world, (str, os.PathLike)):
        world = _read(world)
    if isinstance(world, Level):
        world = build(world)
    if isinstance(world, Grid):
        return GridWorld(name, world, limits)
    if isinstance(world, (NavMesh, ClearanceMesh)):
        return MeshWorld(name, world)
    if isinstance(world, NavMesh3D):
        return Mesh3DWorld(name, world)
    if isinstance(world, VoxelGrid):
        return VoxelWorld(name, world, limits)
    raise InvalidQueryError(
        f"world {name!r} must be a Grid, NavMesh, ClearanceMesh, NavMesh3D, Level or "
        f"VoxelGrid, or the path of a file ({', '.join(SUFFIXES)}), got {type(world).__name__}")


def _read(path: str | os.PathLike[str]) -> Any:
    """The world a file holds, by its suffix (a saved ``.npz`` by the format its header
    names)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".map":
        return read_map(path)
    if suffix == ".3dmap":
        return read_3dmap(path)
    if suffix in (".obj", ".gltf", ".glb"):
        return Level.read(path)
    if suffix == ".npz":
        with NpzFile(path, FileFormatError, "saved world") as f:
            fmt = f.header().get("format")
        readers = {"wayfinding-navmesh": NavMesh.load,
                   "wayfinding-clearance-mesh": ClearanceMesh.load,
                   "wayfinding.navmesh3d": NavMesh3D.load, "wayfinding.voxelgrid": VoxelGrid.load}
        if fmt not in readers:
            raise FileFormatError(f"holds {fmt!r}, not a saved world ({SUFFIXES['.npz']})", path)
        return readers[fmt](path)
    raise InvalidQueryError(f"{path}: unknown world file suffix {suffix!r}; give "
                            + "; ".join(f"{k} ({v})" for k, v in SUFFIXES.items()))
