"""A path service over HTTP: an ASGI app (Starlette) that loads grid, 2D and 3D navmesh
and voxel worlds once and answers path, distance-map, flow-field and crowd queries as JSON
or, for arrays, raw little-endian bytes (the ``[serve]`` extra).

>>> from wayfinding.serve import create_app, Limits    # doctest: +SKIP
>>> limits = Limits(max_expansions=100_000, max_seconds=2.0)    # doctest: +SKIP
>>> app = create_app({"arena": "arena.map", "sky": "sky.3dmap"}, limits=limits)  # doctest: +SKIP
"""

from .app import SLICED_METHODS, WHOLE_METHODS, Limits, create_app, openapi_schema
from .playground import playground_routes

__all__ = ["SLICED_METHODS", "WHOLE_METHODS", "Limits", "create_app", "openapi_schema",
           "playground_routes"]
