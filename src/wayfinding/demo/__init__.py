"""``wayfinding demo``: a page that solves and draws the library's generated maps, section by
section (``paths``, ``worlds``, ``navmesh``, ``navmesh3d``, ``voxel``, ``fields``,
``crowd``, ``vehicles``, ``traffic``, ``climbing``, ``planning``), on the maps of ``maps``,
with the pictures of ``pictures``; ``page`` puts it together."""

from .page import run_demo

__all__ = ["run_demo"]
