"""Navigation meshes: convex polygons over a walkable area, built from polygons (with holes)
or from a grid, for agents of a given radius."""

from .build import walkable_area
from .mesh import MAX_VERTS, NavMesh

__all__ = ["MAX_VERTS", "NavMesh", "walkable_area"]
