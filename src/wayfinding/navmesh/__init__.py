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
from .query import NavMeshQuery, NavPaths
from .records import END, OFFMESH, START, NavPath, QueryFilter

__all__ = [
    "AdaptiveDomain", "ClearanceMesh", "ClearancePath", "DenseMeshDomain", "END",
    "HybridDomain", "MAX_VERTS", "NavMesh", "NavMeshQuery", "NavPath", "NavPaths", "OFFMESH",
    "OffMeshLink", "PolyanyaSearch", "QueryFilter", "START", "TriangulationDomain",
    "constraint_domain", "walkable_area"
]
