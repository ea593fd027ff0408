from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

FAILED: int
FOUND: int
PARTIAL: int
RUN_FAILED: int
RUN_FOUND: int
RUN_RUNNING: int

@disjoint_base
class DetourMesh:
    nvp: int
    num_polys: int
    num_tiles: int
    num_links: int
    num_nodes: int
    tiles_laid_out: int
    tiles_joined: int
    def __init__(
        self,
        tiles: list[tuple[Any, ...]],
        nvp: int,
        cs: float,
        ch: float,
        climb: float,
        orig: Sequence[float],
        tile_w: float,
        tile_d: float,
        links: tuple[NDArray[Any], ...] | None = None,
    ) -> None: ...
    def with_tiles(
        self,
        reuse: NDArray[Any],
        tiles: list[tuple[Any, ...]],
        links: tuple[NDArray[Any], ...] | None = None,
    ) -> DetourMesh: ...
    def polygon_flags_areas(self) -> tuple[NDArray[np.uint16], NDArray[np.uint8]]: ...
    def unconnected_links(self) -> NDArray[np.int32]: ...
    def link_ends(self) -> tuple[NDArray[np.int32], NDArray[np.float32]]: ...
    def set_areas(self, polys: NDArray[np.int32], areas: NDArray[np.uint8]) -> None: ...
    def links(
        self,
    ) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]: ...
    def vertices(self) -> NDArray[np.float32]: ...

_PathOutcome = tuple[
    int,
    int,
    tuple[float, float, float],
    int,
    tuple[float, float, float],
    NDArray[np.int32],
    NDArray[np.float64],
    NDArray[np.uint8],
    NDArray[np.int32],
    float,
    NDArray[np.int32],
]

@disjoint_base
class PathRun:
    status: int
    @property
    def stale(self) -> bool: ...
    @property
    def counters(self) -> tuple[int, int]: ...
    def advance(self, max_expansions: int = -1, max_seconds: float = ...) -> int: ...
    def result(self) -> _PathOutcome | None: ...

@disjoint_base
class PathSearch:
    mesh: DetourMesh
    expanded: int
    generated: int
    def __init__(self, mesh: DetourMesh) -> None: ...
    def nearest(
        self,
        x: float,
        y: float,
        z: float,
        hx: float,
        hy: float,
        hz: float,
        allowed: NDArray[np.uint8],
    ) -> tuple[int, float, float, float]: ...
    def nearest_many(
        self, points: NDArray[np.float64], extents: Sequence[float], allowed: NDArray[np.uint8]
    ) -> tuple[NDArray[np.int32], NDArray[np.float64]]: ...
    def find_path(
        self,
        start: Sequence[float],
        goal: Sequence[float],
        extents: Sequence[float],
        allowed: NDArray[np.uint8],
        area_cost: NDArray[np.float32],
        partial: bool,
        crossings: int = ...,
    ) -> _PathOutcome: ...
    def start_path(
        self,
        start: Sequence[float],
        goal: Sequence[float],
        extents: Sequence[float],
        allowed: NDArray[np.uint8],
        area_cost: NDArray[np.float32],
        partial: bool,
        crossings: int = ...,
    ) -> PathRun: ...
    def find_paths(
        self,
        starts: NDArray[np.float64],
        goals: NDArray[np.float64],
        extents: Sequence[float],
        allowed: NDArray[np.uint8],
        area_cost: NDArray[np.float32],
        partial: bool,
        crossings: int = ...,
    ) -> tuple[
        NDArray[np.int8],
        NDArray[np.float64],
        NDArray[np.int64],
        NDArray[np.int32],
        NDArray[np.int64],
        NDArray[np.float64],
        NDArray[np.uint8],
    ]: ...
    def raycast(
        self,
        start: int,
        sx: float,
        sy: float,
        sz: float,
        ex: float,
        ey: float,
        ez: float,
        allowed: NDArray[np.uint8],
    ) -> tuple[
        float,
        tuple[float, float, float],
        tuple[float, float, float],
        int,
        NDArray[np.int32],
    ]: ...
    def raycast_many(
        self,
        starts: NDArray[np.float64],
        ends: NDArray[np.float64],
        extents: Sequence[float],
        allowed: NDArray[np.uint8],
    ) -> tuple[
        NDArray[np.int32],
        NDArray[np.float64],
        NDArray[np.float64],
        NDArray[np.float64],
        NDArray[np.int64],
        NDArray[np.int32],
    ]: ...
    def move_along_surface(
        self,
        start: int,
        sx: float,
        sy: float,
        sz: float,
        ex: float,
        ey: float,
        ez: float,
        allowed: NDArray[np.uint8],
    ) -> tuple[float, float, float, NDArray[np.int32]]: ...
    def height(self, poly: int, x: float, y: float, z: float) -> float | None: ...
    def distance_to_wall(
        self,
        start: int,
        cx: float,
        cy: float,
        cz: float,
        radius: float,
        allowed: NDArray[np.uint8],
    ) -> tuple[int, float, float, float, float, float, float, float]: ...
    def polygons_in_box(
        self,
        cx: float,
        cy: float,
        cz: float,
        hx: float,
        hy: float,
        hz: float,
        allowed: NDArray[np.uint8],
    ) -> NDArray[np.int32]: ...
    def wall_segments(self, poly: int, allowed: NDArray[np.uint8]) -> NDArray[np.float32]: ...
    def polygons_around(
        self,
        start: int,
        shape: NDArray[np.float32],
        cx: float,
        cy: float,
        cz: float,
        radius: float,
        allowed: NDArray[np.uint8],
        area_cost: NDArray[np.float32],
    ) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float32]]: ...
    def local_neighbourhood(
        self, start: int, cx: float, cy: float, cz: float, radius: float, allowed: NDArray[np.uint8]
    ) -> tuple[NDArray[np.int32], NDArray[np.int32]]: ...
    def reachable(
        self, start: int, cx: float, cz: float, radius: float, allowed: NDArray[np.uint8]
    ) -> NDArray[np.int32]: ...
