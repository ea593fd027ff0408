"""Navigation meshes: convex polygons over a walkable area, built from polygons (with holes)
or from a grid, for agents of a given radius, with Detour-like queries; and local
clearance triangulations, which serve agents of every radius."""

from .adaptive_domain import AdaptiveDomain
from .build import walkable_area
from .clearance import ClearanceMesh, ClearancePath
from .constraint_domains import (
    DenseMeshDomain,
    HybridDomain,
    TriangulationDomain,
    constraint_domain,
)
from .mesh import MAX_VERTS, NavMesh, OffMeshLink
from .polyanya import PolyanyaSearch
from .quality import MeshQuality, mesh_quality
from .query import NavMeshQuery, NavPaths
from .records import END, OFFMESH, START, NavPath, QueryFilter
from .worlds import obstacle_world

__all__ = [
    "AdaptiveDomain", "ClearanceMesh", "ClearancePath", "DenseMeshDomain", "END",
    "HybridDomain", "MAX_VERTS", "MeshQuality", "NavMesh", "NavMeshQuery", "NavPath",
    "NavPaths", "OFFMESH", "OffMeshLink", "PolyanyaSearch", "QueryFilter", "START",
    "TriangulationDomain", "constraint_domain", "mesh_quality", "obstacle_world",
    "walkable_area"
]
