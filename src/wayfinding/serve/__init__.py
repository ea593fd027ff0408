"""A path service over HTTP: an ASGI app (Starlette) that loads grid worlds once and
answers path and distance-map queries as JSON (the ``[serve]`` extra).

>>> from wayfinding.serve import create_app, Limits    # doctest: +SKIP
>>> limits = Limits(max_expansions=100_000)                     # doctest: +SKIP
>>> app = create_app({"arena": "arena.map"}, limits=limits)     # doctest: +SKIP
"""

from .app import SLICED_METHODS, WHOLE_METHODS, Limits, create_app, openapi_schema

__all__ = ["SLICED_METHODS", "WHOLE_METHODS", "Limits", "create_app", "openapi_schema"]
