"""The data of the last stages of a voxel navmesh build, as Recast lays it out: the
contours traced round the regions, the polygon mesh made from them, and the detail mesh
that gives each polygon the height of the ground under it.

Coordinates in contours and the polygon mesh are voxels (x and z in cells of ``cell_size``
from ``bmin``, y in cell heights from ``bmin[1]``); the detail mesh is in world units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: The null index of the polygon mesh (an unused vertex slot or a side with no neighbour).
MESH_NULL_IDX = 0xFFFF
#: Flag of a contour vertex on a tile's border (in the fourth column of ``verts``).
BORDER_VERTEX = 0x10000
#: Flag of a contour vertex where the area changes.
AREA_BORDER = 0x20000
#: The bits of a contour vertex's fourth column that hold the region beyond its edge.
CONTOUR_REG_MASK = 0xFFFF


@dataclass(frozen=True, eq=False)
class Contour:
    """One region's outline: ``verts`` (n, 4) simplified, ``raw`` (m, 4) as traced; each row
    x, y, z and the region beyond the edge that starts there (with the flags above)."""

    verts: NDArray[np.int32]
    raw: NDArray[np.int32]
    reg: int
    area: int


@dataclass(frozen=True, eq=False)
class ContourSet:
    """The contours of every region (Recast's ``rcContourSet``)."""

    contours: tuple[Contour, ...]
    bmin: NDArray[np.float32]
    bmax: NDArray[np.float32]
    cell_size: float
    cell_height: float
    width: int
    depth: int
    border: int
    max_error: float

    def __len__(self) -> int:
        return len(self.contours)

    def __repr__(self) -> str:
        return f"ContourSet({len(self.contours)} contours)"


@dataclass(frozen=True, eq=False)
class PolyMesh:
    """Convex polygons of up to ``nvp`` vertices (Recast's ``rcPolyMesh``): ``verts`` (n, 3)
    in voxels; ``polys`` (npolys, 2 * nvp): the vertex indices (padded with
    :data:`MESH_NULL_IDX`), then per side the neighbour polygon, or MESH_NULL_IDX, or for a
    side on a tile border 0x8000 | the side (0: x-, 1: z+, 2: x+, 3: z-); ``regs``,
    ``areas`` and ``flags`` per polygon."""

    verts: NDArray[np.uint16]
    polys: NDArray[np.uint16]
    regs: NDArray[np.uint16]
    areas: NDArray[np.uint8]
    flags: NDArray[np.uint16]
    nvp: int
    bmin: NDArray[np.float32]
    bmax: NDArray[np.float32]
    cell_size: float
    cell_height: float
    border: int
    max_edge_error: float

    @property
    def num_polys(self) -> int:
        return len(self.polys)

    @property
    def num_verts(self) -> int:
        return len(self.verts)

    def __repr__(self) -> str:
        return f"PolyMesh({self.num_verts} vertices, {self.num_polys} polygons)"


@dataclass(frozen=True, eq=False)
class DetailMesh:
    """Triangles per polygon giving the height detail (Recast's ``rcPolyMeshDetail``):
    ``meshes`` (npolys, 4): first vertex, vertex count, first triangle, triangle count;
    ``verts`` (n, 3) in world units; ``tris`` (m, 4): three vertex indices within the
    polygon's own vertices and the edge flags."""

    meshes: NDArray[np.uint32]
    verts: NDArray[np.float32]
    tris: NDArray[np.uint8]

    @property
    def num_verts(self) -> int:
        return len(self.verts)

    @property
    def num_tris(self) -> int:
        return len(self.tris)

    def __repr__(self) -> str:
        return f"DetailMesh({self.num_verts} vertices, {self.num_tris} triangles)"
