"""Voxel navigation meshes of 3D levels, built from triangle soup as Recast builds them:
the level rasterized into a solid heightfield, filtered, compacted and eroded by the agent,
partitioned into regions, traced into contours, cut into convex polygons and given the
height detail of the ground under them.  :func:`build` runs every stage, whole or in tiles;
each stage is also a function of its own, with a data type to inspect.

>>> mesh = build(generate.stairs())
>>> mesh.num_polygons > 0
True

>>> from wayfinding.navmesh3d import BuildSettings, compact, filter_spans, generate, rasterize
>>> s = BuildSettings()    # RecastDemo's defaults; the floor's outer ring is a ledge
>>> compact(filter_spans(rasterize(generate.floor(), s), s), s)
CompactHeightfield(33 x 33, 961 spans, 961 walkable)
"""

from . import generate
from .build import build
from .compact import CompactHeightfield, compact, erode, mark_volumes, median_filter
from .constrained import Mesh3DConstraintDomain
from .contours import build_contours
from .corridor import Corners3D, PathCorridor, polygon_map
from .detail import build_detail
from .heightfield import Heightfield, filter_spans, rasterize
from .level import WALKABLE, ConvexVolume, Level, LevelFormatError, read_obj
from .links import DROP, JUMP, ledge_links
from .meshes import Contour, ContourSet, DetailMesh, PolyMesh
from .navmesh import BuildReport, MeshTile, NavMesh3D, region_colours
from .obstacles import Box, Cylinder, OrientedBox, Prism
from .polymesh import build_polymesh
from .query import (
                    OFFMESH,
                    NavMesh3DQuery,
                    NavPath3D,
                    NavPaths3D,
                    NearbyPolygons3D,
                    RayHit3D,
                    RayHits3D,
                    SurfaceMove3D,
                    WallDistance3D,
                    with_flags,
)
from .regions import BORDER_REG, Regions, build_regions, distance_field
from .settings import BuildSettings, Voxels
from .tilecache import TileCache

__all__ = ["BORDER_REG", "Box", "BuildReport", "BuildSettings", "CompactHeightfield", "Contour",
           "ContourSet", "ConvexVolume", "Corners3D", "Cylinder", "DROP", "DetailMesh",
           "Heightfield", "JUMP", "Level", "LevelFormatError", "Mesh3DConstraintDomain",
           "MeshTile", "NavMesh3D", "NavMesh3DQuery", "NavPath3D", "NavPaths3D",
           "NearbyPolygons3D", "OFFMESH", "OrientedBox", "PathCorridor", "PolyMesh",
           "Prism", "RayHit3D", "RayHits3D", "Regions", "SurfaceMove3D", "TileCache",
           "Voxels", "WALKABLE", "WallDistance3D", "build", "build_contours",
           "build_detail", "build_polymesh", "build_regions", "compact", "distance_field",
           "erode", "filter_spans", "generate", "ledge_links", "mark_volumes",
           "median_filter", "polygon_map", "rasterize", "read_obj", "region_colours",
           "with_flags"]
