"""Sparse voxel octrees for flight (Brewer, *Warframe*): layers of nodes in Morton order over
a :class:`~wayfinding.voxel.grid.VoxelGrid`, point location, A* over octree nodes and paths
refined to voxel moves.

Layout
------
The octree covers a cube of ``4 << R`` voxels (``R`` = :attr:`SparseVoxelOctree.top_layer`,
the smallest value >= 1 that covers the grid) from the grid's minimum corner; voxels of the
cube outside the grid count as blocked (the padding is never a path).  Layer ``l`` holds nodes
of edge ``4 << l`` voxels; layer ``R`` is the root.  Each layer's nodes are sorted by the
Morton code of their position in that layer (x in bit 0, y in bit 1, z in bit 2), and a node
either has exactly 8 children (contiguous, child ``k`` at ``first_child + k`` with ``k`` the
Morton code of its octant) or none.  A childless node is all free space, or all blocked.

Layer 0 holds the leaves, 4 x 4 x 4 voxels each, whose voxels are a ``uint64`` mask
(:attr:`SparseVoxelOctree.leaves`): bit ``morton(x, y, z)`` (``x, y, z`` in 0..3 inside the
leaf, see :func:`morton_encode`) is set where the voxel is blocked.  An empty leaf (mask 0) is
open space and kept; a full leaf (all 64 bits) is closed and never expanded.  As in the
chapter, every layer-1 node holding a blocked voxel is split into 8 leaves, except one whose
512 voxels are all blocked: it stays a childless blocked node (a choice of this library: the
solid inside of a level then costs no leaves, and neither does the padding).

Links are 32 bits: ``layer << 28 | index << 6 | sub`` (:func:`pack_link`): 4 bits of layer,
22 of index in the layer, 6 of voxel inside a leaf.  All ones (:data:`LINK_NULL`) is no node;
it cannot name a real node, since a tree has at most 16 layers and its top layer one node.
Every node has a parent link, a first-child link and 6 face-neighbour links (-x, +x, -y, +y,
-z, +z): the node of its layer across that face, or if there is none the link of its parent
across that face (so a link goes to the same layer or a coarser one, and to a coarser one only
when that node has no children); null only at the root's boundary.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._index import Index, check_world
from .._kernels import _svo
from .._scratch import PerThread
from .._validate import count, flag
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError, brief
from ..progress import progress as progress_bar
from ..results import PathResult, SearchStats, Status, _fields_equal
from .grid import VoxelGrid
from .smoothing import smooth_checked
from .voxelize import voxelize

#: The null link: no node (the root's parent, a face on the root's boundary).
LINK_NULL = 0xFFFFFFFF
#: In :attr:`SparseVoxelOctree.child`: a childless node whose voxels are all blocked.
LINK_SOLID = 0xFFFFFFFE
#: The mask of a leaf whose 64 voxels are all blocked.
FULL_LEAF = 0xFFFFFFFFFFFFFFFF
MAX_LAYERS = 16
MAX_INDEX = (1 << 22) - 1

_FREE, _SOLID, _MIXED = 0, 1, 2


# --------------------------------------------------------------------------- codes and links
def morton_encode(coords: Any, *, bits: int = 21) -> np.ndarray:
    """The Morton (Z-order) codes of integer points ``coords[..., k]`` (k = 2 or 3 axes):
    bit ``i`` of axis ``a`` goes to bit ``k * i + a`` (x lowest), ``bits`` bits per axis.

    >>> int(morton_encode([0, 3])), int(morton_encode([3, 3, 3]))
    (10, 63)
    """
    c = np.asarray(coords)
    if c.ndim < 1 or c.shape[-1] not in (2, 3) or (c.size and c.dtype.kind not in "iu"):
        raise InvalidQueryError(f"coords must be integer points of 2 or 3 axes, got shape "
                                f"{c.shape} and dtype {c.dtype}")
    k = c.shape[-1]
    bits = count("bits", bits, min=1, max=64 // k)
    if c.size and (c.min() < 0 or c.max() >= 1 << bits):
        raise InvalidQueryError(f"coords must be in 0..{(1 << bits) - 1}, got "
                                f"{int(c.min())}..{int(c.max())}")
    c = c.astype(np.uint64)
    out = np.zeros(c.shape[:-1], np.uint64)
    for i in range(bits):
        for a in range(k):
            out |= ((c[..., a] >> np.uint64(i)) & np.uint64(1)) << np.uint64(k * i + a)
    return out


def morton_decode(codes: Any, *, dims: int = 3, bits: int = 21) -> np.ndarray:
    """The points (``int64[..., dims]``, x first) of Morton codes; the inverse of
    :func:`morton_encode`.

    >>> morton_decode(10, dims=2).tolist()
    [0, 3]
    """
    if dims not in (2, 3) or isinstance(dims, bool):
        raise InvalidQueryError(f"dims must be 2 or 3, got {brief(dims)}")
    bits = count("bits", bits, min=1, max=64 // dims)
    c = np.asarray(codes)
    if c.size and c.dtype.kind not in "iu":
        raise InvalidQueryError(f"codes must be integers, got dtype {c.dtype}")
    if c.size and (c.min() < 0 or int(c.max()) >> (dims * bits)):
        raise InvalidQueryError(f"codes must be in 0..{(1 << dims * bits) - 1} ({bits} bits "
                                f"of {dims} axes), got {int(c.min())}..{int(c.max())}")
    c = c.astype(np.uint64)
    out = np.zeros(c.shape + (dims,), np.uint64)
    for i in range(bits):
        for a in range(dims):
            out[..., a] |= ((c >> np.uint64(dims * i + a)) & np.uint64(1)) << np.uint64(i)
    return out.astype(np.int64)


def morton_parent(code: int) -> int:
    """The Morton code of the parent of a 3D node: ``code >> 3`` (``code``: an integer
    >= 0)."""
    return count("code", code, min=0) >> 3


def pack_link(layer: int, index: int, sub: int) -> int:
    """The 32-bit link ``layer << 28 | index << 6 | sub``; raises
    :class:`~wayfinding.errors.InvalidQueryError` for a layer outside 0..15, an index outside
    0..4,194,303 or a sub-voxel outside 0..63.

    >>> unpack_link(pack_link(15, 4_194_303, 63))
    (15, 4194303, 63)
    """
    for name, value, hi in (("layer", layer, MAX_LAYERS - 1), ("index", index, MAX_INDEX),
                            ("sub", sub, 63)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                or not 0 <= value <= hi:
            raise InvalidQueryError(f"link {name} must be an integer in 0..{hi}, got "
                                    f"{brief(value)}")
    return (int(layer) << 28) | (int(index) << 6) | int(sub)


def unpack_link(link: int) -> tuple[int, int, int]:
    """``(layer, index, sub)`` of a link made by :func:`pack_link`."""
    if isinstance(link, bool) or not isinstance(link, (int, np.integer)) \
            or not 0 <= link <= LINK_NULL:
        raise InvalidQueryError(f"a link is a 32-bit unsigned integer, got {brief(link)}")
    v = int(link)
    return v >> 28, (v >> 6) & MAX_INDEX, v & 63


# --------------------------------------------------------------------------- variants
@dataclass(frozen=True, slots=True, kw_only=True)
class SVOVariant:
    """Costs and estimate of the octree A* (the chapter's tweaks; none keeps paths optimal).

    ``weight`` (>= 1) multiplies the estimate h (greedy weighting). ``unit_cost`` (>= 0, voxel
    units): when positive, every node entered costs this much whatever its size, instead of
    the distance between node points. ``g_compensation`` and ``h_compensation`` (in [0, 1)):
    node-size compensation; a step into a node of edge ``2**k`` voxels costs ``1 - c_g * k /
    (layers + 1)`` times its length, and the node's estimate is scaled by ``1 - c_h * k /
    (layers + 1)``, so large nodes are cheap and small ones dear. ``face_centres``: a node's
    point is the centre of the face it was entered by, else its centre; the start and goal
    points are their voxels' centres. The estimate is the Euclidean distance from a node's
    point to the goal's.
    """

    weight: float = 1.0
    unit_cost: float = 0.0
    g_compensation: float = 0.0
    h_compensation: float = 0.0
    face_centres: bool = False

    def __post_init__(self) -> None:
        for name, lo, hi in (("weight", 1.0, math.inf), ("unit_cost", 0.0, math.inf),
                             ("g_compensation", 0.0, 1.0), ("h_compensation", 0.0, 1.0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                    or not lo <= v < hi or (name == "weight" and v < 1):
                raise InvalidQueryError(f"{name} must be a finite number in [{lo}, {hi}), "
                                        f"got {brief(v)}")
        object.__setattr__(self, "face_centres", flag("face_centres", self.face_centres))


#: The named variants: ``plain`` (A* with Euclidean distances between node centres as costs
#: and estimate), ``face`` (distances between the centres of the faces crossed), ``greedy``
#: (face centres, h weighted 2), ``size`` (greedy and node-size compensation), ``unit``
#: (``size`` with a unit cost of 1 voxel a node).  ``default`` is ``greedy``, chosen by
#: measurement on 1,000 problems each of the Moving AI Warframe maps A1 and Simple (median
#: time per query with smoothing; mean voxel-path length / optimum; mean expansions):
#: greedy 197 us, 1.077, 118 on A1 and 72 us, 1.058, 102 on Simple; size 172 us, 1.100, 69
#: and 73 us, 1.078, 97; unit 169 us, 1.106, 60 and 72 us, 1.116, 92; face 5.3 ms, 1.062,
#: 35,115 and 97 us, 1.105, 247; plain 7.1 ms, 1.057, 47,843 and 108 us, 1.088, 386.
#: Size compensation and unit costs expand fewer nodes, as in the chapter, but the query
#: time is then mostly refinement and smoothing, and their paths are longer.
SVO_VARIANTS: dict[str, SVOVariant] = {
    "plain": SVOVariant(),
    "face": SVOVariant(face_centres=True),
    "greedy": SVOVariant(weight=2.0, face_centres=True),
    "size": SVOVariant(weight=2.0, g_compensation=0.5, h_compensation=0.25, face_centres=True),
    "unit": SVOVariant(weight=2.0, unit_cost=1.0, g_compensation=0.5, h_compensation=0.25,
                       face_centres=True),
}
SVO_VARIANTS["default"] = SVO_VARIANTS["greedy"]


@dataclass(slots=True, kw_only=True)
class OctreePathResult(PathResult):
    """A :class:`~wayfinding.results.PathResult` of the octree search.

    ``path``: the voxel path, ``int64[n, 3]`` cells ``(x, y, z)``, each step a move of the
    grid (its connectivity and cube rule); ``cost``: its summed move costs (voxel units).
    ``nodes``: ``uint32[m]`` links of the search nodes passed (see the module).
    ``smoothed``: ``float64[k, 3]`` world points of the smoothed flight path (empty unless
    asked for and found), checked to stay in free space; ``smoothed_length``: its length in
    world units (``inf`` when absent). ``per_layer``: ``int64[layers]`` nodes expanded per
    layer (layer 0 counts leaves and their voxels).
    """

    nodes: Any = None
    smoothed: Any = None
    smoothed_length: float = math.inf
    per_layer: Any = None

    __eq__ = _fields_equal


# --------------------------------------------------------------------------- the octree
class SparseVoxelOctree(Index):
    """A sparse voxel octree over a voxel grid (see the module for its layout).

    Build with :meth:`build`; :meth:`find_path` searches it; :meth:`save`/:meth:`load`
    keep it in a versioned ``.npz`` that records the grid's fingerprint.  Arrays (all nodes of
    all layers, layer 0 first, node ``i`` of layer ``l`` at ``layer_start[l] + i``): ``codes``
    ``uint64`` Morton codes in the layer, ``parent`` and ``child`` ``uint32`` links (first
    child; :data:`LINK_NULL` for a free childless node, :data:`LINK_SOLID` for a blocked
    one), ``neighbours`` ``uint32[n, 6]`` links, ``leaves`` ``uint64`` masks of the layer-0
    nodes, ``layer_start`` ``int64[layers + 1]``.
    """

    kind = "svo"
    version = 1
    kinds: ClassVar[dict[str, type[Index]]] = {}
    world_type = VoxelGrid
    world_name = "voxel grid"

    def __init__(self, world: Any, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        super().__init__(world, arrays, options, build_time)
        start = arrays["layer_start"]
        codes = arrays["codes"]
        self._layer = np.repeat(np.arange(len(start) - 1, dtype=np.uint8), np.diff(start))
        cells = np.empty((len(codes), 3), np.int64)
        _svo.morton_decode3(codes, cells)
        self._lo = np.ascontiguousarray((cells << (self._layer.astype(np.int64) + 2)[:, None])
                                        .astype(np.int32))
        for a in arrays.values():
            a.flags.writeable = False
        self._local: PerThread[_svo.SvoQuery] = PerThread()

    @staticmethod
    def describe_world(world: Any) -> dict[str, Any]:
        return {"voxels": list(world.size), "connectivity": world.connectivity}

    # ------------------------------------------------------------------ build
    @classmethod
    def build(cls, grid: VoxelGrid, *, workers: int | None = None,
              progress: bool = False) -> SparseVoxelOctree:
        """Build the octree of ``grid``.

        The leaves' masks are read from the bit-packed grid, and the neighbour links of each
        layer found, by compiled code that releases the GIL, in ``workers`` threads (default:
        the machine's CPU count) over slabs of leaves and ranges of nodes; ``progress`` draws a
        bar on stderr.  Raises :class:`~wayfinding.errors.InvalidGridError` when the tree would
        need more than 16 layers or more than 4,194,304 nodes in a layer (the 22 bits of a
        link's index).
        """
        progress = flag("progress", progress)
        if not isinstance(grid, VoxelGrid):
            raise InvalidGridError(f"build needs a VoxelGrid, got {type(grid).__name__}")
        nthreads = _workers(workers)
        t0 = time.perf_counter()
        top = _top_layer(grid)
        nx, ny, nz = grid.size
        dims = _leaf_dims(grid)
        masks = np.empty(dims, np.uint64)
        words = np.ascontiguousarray(grid.words)
        slabs = [(a, min(a + 4, dims[0])) for a in range(0, dims[0], 4)]
        steps = len(slabs) + top

        def leaf_slab(ab: tuple[int, int]) -> None:
            _svo.leaf_masks(words, nx, ny, nz, ab[0], ab[1], masks)

        with ThreadPoolExecutor(nthreads) as pool:
            bar = progress_bar(iter(range(steps)), steps, label="octree", enabled=progress)
            for _ in pool.map(leaf_slab, slabs):
                next(bar, None)
            arrays = _tree(masks, top)
            _links(arrays, top, pool, nthreads, lambda: next(bar, None))
            for _ in bar:
                pass
        return cls(grid, arrays, {}, time.perf_counter() - t0)

    @classmethod
    def from_mesh(cls, vertices: Any, triangles: Any, *, voxel_size: float,
                  workers: int | None = None, progress: bool = False,
                  **voxelize_options: Any) -> SparseVoxelOctree:
        """The octree of the grid :func:`wayfinding.voxel.voxelize.voxelize` makes of a
        triangle mesh (``voxelize_options``: ``bounds``, ``origin``, ``solid``,
        ``connectivity``)."""
        grid = voxelize(vertices, triangles, voxel_size=voxel_size, **voxelize_options)
        return cls.build(grid, workers=workers, progress=progress)

    # ------------------------------------------------------------------ properties
    @property
    def grid(self) -> VoxelGrid:
        """The voxel grid the octree was built for."""
        return self.world

    @property
    def top_layer(self) -> int:
        """The root's layer ``R``: the tree has layers ``0 .. R`` and spans ``4 << R``
        voxels along each axis."""
        return len(self.arrays["layer_start"]) - 2

    @property
    def num_layers(self) -> int:
        return len(self.arrays["layer_start"]) - 1

    def layer_nodes(self, layer: int) -> int:
        """How many nodes layer ``layer`` holds."""
        s = self.arrays["layer_start"]
        if not 0 <= layer < len(s) - 1:
            raise InvalidQueryError(f"layer must be in 0..{len(s) - 2}, got {brief(layer)}")
        return int(s[layer + 1] - s[layer])

    @property
    def codes(self) -> np.ndarray:
        return self.arrays["codes"]

    @property
    def parent(self) -> np.ndarray:
        return self.arrays["parent"]

    @property
    def child(self) -> np.ndarray:
        return self.arrays["child"]

    @property
    def neighbours(self) -> np.ndarray:
        return self.arrays["neighbours"]

    @property
    def leaves(self) -> np.ndarray:
        return self.arrays["leaves"]

    @property
    def layer_start(self) -> np.ndarray:
        return self.arrays["layer_start"]

    def node(self, link: int) -> int:
        """The global node index (into :attr:`codes`, :attr:`child`...) of a link."""
        layer, index, _ = unpack_link(link)
        if not 0 <= layer < self.num_layers or index >= self.layer_nodes(layer):
            raise InvalidQueryError(f"link {brief(link)} names no node of this octree")
        return int(self.layer_start[layer]) + index

    def node_box(self, link: int) -> tuple[tuple[int, int, int], int]:
        """``((x, y, z), edge)``: the minimum voxel and edge (in voxels) of the node of a link,
        or of its voxel when it names one in a leaf that is not empty."""
        g = self.node(link)
        layer, index, sub = unpack_link(link)
        lo = tuple(int(v) for v in self._lo[g])
        if layer == 0 and int(self.leaves[index]) != 0:
            d = morton_decode(sub)
            return (lo[0] + int(d[0]), lo[1] + int(d[1]), lo[2] + int(d[2])), 1
        return (lo[0], lo[1], lo[2]), 4 << layer

    # ------------------------------------------------------------------ memory
    def memory(self) -> dict[str, Any]:
        """Bytes of the octree beside the dense grid's: ``arrays`` (name -> bytes), ``total``,
        ``nodes`` per layer, ``dense_bits`` (the grid bit-packed, one bit a voxel),
        ``dense_bytes`` (one byte a voxel), and the ratios ``total / dense_*``."""
        total = self.nbytes
        bits = int(self.grid.words.nbytes)
        dense = int(self.grid.num_voxels)
        return {"arrays": {k: int(a.nbytes) for k, a in self.arrays.items()}, "total": total,
                "nodes": [self.layer_nodes(i) for i in range(self.num_layers)],
                "dense_bits": bits, "dense_bytes": dense,
                "ratio_bits": total / bits, "ratio_bytes": total / dense}

    # ------------------------------------------------------------------ queries
    def _query(self) -> _svo.SvoQuery:
        q = self._local.mine()
        if q is None:
            a = self.arrays
            q = self._local.keep(_svo.SvoQuery(a["child"], a["neighbours"], a["leaves"],
                                               a["layer_start"], self._lo, self._layer))
        return q

    def locate(self, cell: Any) -> int:
        """The link of the childless node holding free voxel ``cell`` ``(x, y, z)``, or of
        its voxel in a leaf (sub-voxel index set); raises
        :class:`~wayfinding.errors.InvalidQueryError` for a cell outside the grid or blocked.
        """
        c = self.grid.cell(cell, name="cell", free=True)
        out = np.empty(1, np.uint32)
        self._query().locate(np.array([c], np.int64), out)
        return int(out[0])

    def locate_point(self, point: Any) -> int:
        """:meth:`locate` of the voxel holding world ``point``."""
        return self.locate(self.grid.world_to_cell(point))

    def find_path(self, start: Any, goal: Any, *, variant: str | SVOVariant = "default",
                  smooth: bool = True, max_expanded: int | None = None) -> OctreePathResult:
        """A* over the octree's nodes from voxel ``start`` to voxel ``goal`` (``(x, y, z)``,
        free), then the path refined to voxel moves and, with ``smooth``, smoothed.

        ``variant``: a name of :data:`SVO_VARIANTS` or an :class:`SVOVariant`.  The search moves
        between nodes across shared faces; a subdivided node entered is replaced by its 4
        children on the face entered (reached from the node it was entered from), a partly
        blocked leaf by its free voxels on that face, whose neighbours are the voxels beside
        them, across a leaf's face the voxel of the neighbouring leaf or the coarser node.
        Ties on f pop the deeper (larger g) node first.  The path is not optimal in general.

        The voxel path walks inside each node (all free) to the voxel of its exit face nearest
        the current voxel, then steps across; then, between the corners of greedy
        line-of-sight string pulling, it takes the straightest walk of moves where all of them
        are allowed (never longer).  Every step is a move of the grid.  With
        ``smooth``, :func:`~wayfinding.voxel.smoothing.smooth_flight_path` gives
        ``smoothed``.  ``max_expanded``: stop with :attr:`Status.OUT_OF_BUDGET` after so many
        expansions.  An unreachable goal gives ``found`` false (:attr:`Status.FAILED`) after
        the search has expanded every node it can reach.

        The search reads only the octree; the tightening and the smoothing read the grid's
        :attr:`~wayfinding.voxel.grid.VoxelGrid.padded` array (a byte a voxel, made once per
        grid and shared with its other compiled searches).  Each thread has its own search
        scratch, so one octree serves queries on many threads.
        """
        smooth = flag("smooth", smooth)
        t0 = time.perf_counter()
        grid = self.world
        sx, sy, sz = grid.cell(start, name="start", free=True)
        gx, gy, gz = grid.cell(goal, name="goal", free=True)
        v = _variant(variant)
        budget = -1
        if max_expanded is not None:
            if isinstance(max_expanded, bool) or not isinstance(max_expanded, (int, np.integer)) \
                    or max_expanded < 0:
                raise InvalidQueryError(f"max_expanded must be an integer >= 0, got "
                                        f"{brief(max_expanded)}")
            budget = int(max_expanded)
        status, voxels, nodes, expanded, generated, per = self._query().find_path(
            sx, sy, sz, gx, gy, gz, weight=v.weight, unit=v.unit_cost, kg=v.g_compensation,
            kh=v.h_compensation, face=v.face_centres, connectivity=grid.connectivity,
            max_expanded=budget)
        if status < 0:
            raise MemoryError("the octree search ran out of memory")
        found = status == 1
        cost = math.inf
        smoothed = np.empty((0, 3), np.float64)
        length = math.inf
        if found:
            voxels = _svo.tighten(grid.padded, voxels, grid.connectivity)
            steps = np.abs(np.diff(voxels, axis=0)).sum(axis=1)
            cost = float(np.sqrt(steps).sum())
            if smooth:
                smoothed = smooth_checked(grid, voxels)
                length = float(np.linalg.norm(np.diff(smoothed, axis=0), axis=1).sum())
        stats = SearchStats(expanded=int(expanded), generated=int(generated),
                            elapsed=time.perf_counter() - t0)
        return OctreePathResult(
            voxels, cost, found, stats=stats, algorithm="svo",
            status=Status.FOUND if found else (Status.OUT_OF_BUDGET if status == 2
                                                 else Status.FAILED),
            nodes=nodes, smoothed=smoothed, smoothed_length=length, per_layer=per)

    # ------------------------------------------------------------------ files
    @classmethod
    def load(cls, path: str | os.PathLike, world: Any) -> SparseVoxelOctree:
        """An octree saved by :meth:`save` for ``world`` (the same voxel grid); raises
        :class:`~wayfinding.errors.IndexFormatError` for a damaged or foreign file and
        :class:`~wayfinding.errors.IndexMismatchError` for another grid."""
        out = super().load(path, world)
        assert isinstance(out, SparseVoxelOctree)
        return out

    @classmethod
    def _members(cls, world: Any, options: dict[str, Any]) -> dict[str, int]:
        if options:
            raise IndexFormatError(f"an octree has no build options, got {sorted(options)}")
        n = MAX_LAYERS * (MAX_INDEX + 1)
        return {"codes": 8 * n, "parent": 4 * n, "child": 4 * n, "neighbours": 24 * n,
                "leaves": 8 * (MAX_INDEX + 1), "layer_start": 8 * (MAX_LAYERS + 1)}

    @classmethod
    def _restore(cls, world: Any, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> SparseVoxelOctree:
        _check_arrays(world, arrays)
        return cls(world, arrays, options, build_time)

    def check(self, grid: VoxelGrid) -> None:
        """Raise :class:`~wayfinding.errors.IndexMismatchError` unless the octree was built
        for ``grid``."""
        check_world("the octree", self.world, grid)


# --------------------------------------------------------------------------- build helpers
def _workers(workers: Any) -> int:
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise InvalidQueryError(f"workers must be an integer >= 1, got {brief(workers)}")
    return int(workers)


def _top_layer(grid: VoxelGrid) -> int:
    """The root's layer of the octree of ``grid``; raises :class:`InvalidGridError` when
    the tree would need more than :data:`MAX_LAYERS` layers."""
    top = max(1, math.ceil(math.log2(max(1, math.ceil(max(grid.size) / 4)))))
    if top >= MAX_LAYERS:
        raise InvalidGridError(f"a grid of size {grid.size} needs {top + 1} octree layers; "
                               f"at most {MAX_LAYERS} fit a link")
    return top


def _leaf_dims(grid: VoxelGrid) -> tuple[int, int, int]:
    """Leaves along z, y and x (the shape of the leaves' mask array)."""
    nx, ny, nz = grid.size
    return -(-nz // 4), -(-ny // 4), -(-nx // 4)


def _tree(masks: np.ndarray, top: int) -> dict[str, np.ndarray]:
    """The nodes of every layer over the leaves' ``masks`` (``[lz, ly, lx]``), by
    :func:`_layers`; neighbour links still to fill (:func:`_links`)."""
    status = [np.where(masks == 0, _FREE, np.where(masks == np.uint64(FULL_LEAF), _SOLID,
                                                   _MIXED)).astype(np.uint8)]
    for _ in range(top):
        status.append(_coarser(status[-1]))
    return _layers(status, masks, top)


def _coarser(s: np.ndarray) -> np.ndarray:
    """The states of the next layer up: free where all 8 children are free, blocked where
    all are blocked, else mixed; positions beyond the array count as blocked."""
    nz, ny, nx = s.shape
    p = np.full((nz + nz % 2, ny + ny % 2, nx + nx % 2), _SOLID, np.uint8)
    p[:nz, :ny, :nx] = s
    b = p.reshape(p.shape[0] // 2, 2, p.shape[1] // 2, 2, p.shape[2] // 2, 2)
    lo = b.min(axis=(1, 3, 5))
    hi = b.max(axis=(1, 3, 5))
    return np.where(hi == _FREE, _FREE, np.where(lo == hi, lo, _MIXED)).astype(np.uint8)


def _decode(codes: np.ndarray) -> np.ndarray:
    out = np.empty((len(codes), 3), np.int64)
    _svo.morton_decode3(np.ascontiguousarray(codes, np.uint64), out)
    return out


def _lookup(a: np.ndarray, cells: np.ndarray, outside: Any) -> np.ndarray:
    """``a[z, y, x]`` of ``cells`` (x, y, z), ``outside`` where a cell is beyond ``a``."""
    nz, ny, nx = a.shape
    inside = (cells[:, 0] < nx) & (cells[:, 1] < ny) & (cells[:, 2] < nz)
    out = np.full(len(cells), outside, a.dtype)
    c = cells[inside]
    out[inside] = a[c[:, 2], c[:, 1], c[:, 0]]
    return out


def _layers(status: list[np.ndarray], masks: np.ndarray, top: int) -> dict[str, np.ndarray]:
    """Nodes of every layer, top down: codes, child and parent links; the leaves' masks."""
    codes: list[np.ndarray] = [np.zeros(0, np.uint64)] * (top + 1)
    child: list[np.ndarray] = [np.zeros(0, np.uint32)] * (top + 1)
    parent_idx: list[np.ndarray] = [np.zeros(0, np.int64)] * (top + 1)
    codes[top] = np.zeros(1, np.uint64)
    parent_idx[top] = np.full(1, -1, np.int64)
    for layer in range(top, 0, -1):
        st = _lookup(status[layer], _decode(codes[layer]), _SOLID)
        mixed = np.flatnonzero(st == _MIXED)
        n = len(mixed)
        if 8 * n > MAX_INDEX + 1:
            raise InvalidGridError(f"layer {layer - 1} of the octree would hold {8 * n} nodes; "
                                   f"a link indexes at most {MAX_INDEX + 1}")
        ch = np.where(st == _FREE, np.uint32(LINK_NULL), np.uint32(LINK_SOLID)).astype(np.uint32)
        ch[mixed] = ((layer - 1) << 28) | (np.arange(n, dtype=np.uint32) << 9)
        child[layer] = ch
        codes[layer - 1] = ((codes[layer][mixed][:, None] << np.uint64(3))
                            | np.arange(8, dtype=np.uint64)).ravel()
        parent_idx[layer - 1] = np.repeat(mixed.astype(np.int64), 8)
    leaves = _lookup(masks, _decode(codes[0]), np.uint64(FULL_LEAF))
    child[0] = np.full(len(codes[0]), LINK_NULL, np.uint32)
    counts = [len(c) for c in codes]
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    parent = np.concatenate([
        np.where(parent_idx[layer] < 0, np.uint32(LINK_NULL),
                 (np.uint32(layer + 1) << np.uint32(28))
                 | (parent_idx[layer].astype(np.uint32) << np.uint32(6))).astype(np.uint32)
        for layer in range(top + 1)])
    return {"codes": np.concatenate(codes), "parent": parent,
            "child": np.concatenate(child),
            "neighbours": np.full((int(start[-1]), 6), LINK_NULL, np.uint32),
            "leaves": np.ascontiguousarray(leaves, np.uint64), "layer_start": start,
            "_parent_idx": np.concatenate([
                np.where(parent_idx[layer] < 0, -1, parent_idx[layer] + start[layer + 1]
                         if layer < top else -1) for layer in range(top + 1)])}


def _links(arrays: dict[str, np.ndarray], top: int, pool: ThreadPoolExecutor, nthreads: int,
           tick: Callable[[], Any]) -> None:
    """Fill the neighbour links layer by layer, top down, each layer in chunks on the pool."""
    start = arrays["layer_start"]
    parent_global = arrays.pop("_parent_idx").astype(np.int64)
    neigh = arrays["neighbours"]
    codes = arrays["codes"]
    for layer in range(top, -1, -1):
        a, b = int(start[layer]), int(start[layer + 1])
        lc = np.ascontiguousarray(codes[a:b])
        lp = np.ascontiguousarray(parent_global[a:b])
        n = b - a
        step = max(4096, -(-n // (4 * nthreads)))

        def chunk(lo: int, lc: np.ndarray = lc, lp: np.ndarray = lp, layer: int = layer,
                  a: int = a, n: int = n, step: int = step) -> None:
            _svo.neighbour_links(lc, lp, neigh, layer, 1 << (top - layer), a, lo,
                                 min(lo + step, n))

        list(pool.map(chunk, range(0, n, step)))
        tick()


def _variant(variant: Any) -> SVOVariant:
    if isinstance(variant, SVOVariant):
        return variant
    if isinstance(variant, str) and variant in SVO_VARIANTS:
        return SVO_VARIANTS[variant]
    raise InvalidQueryError(f"variant must be one of {sorted(SVO_VARIANTS)} or an SVOVariant, got "
                            f"{brief(variant)}")


def _check_arrays(world: VoxelGrid, a: dict[str, np.ndarray]) -> None:
    """Check a loaded octree's arrays for everything the kernels read unchecked."""
    want = {"codes": np.uint64, "parent": np.uint32, "child": np.uint32,
            "neighbours": np.uint32, "leaves": np.uint64, "layer_start": np.int64}
    for name, dtype in want.items():
        if name not in a or a[name].dtype != dtype:
            raise IndexFormatError(f"the octree array {name!r} is missing or not {dtype.__name__}")
        a[name] = np.ascontiguousarray(a[name])
    start = a["layer_start"]
    nx, ny, nz = world.size
    top = max(1, math.ceil(math.log2(max(1, math.ceil(max(nx, ny, nz) / 4)))))
    n = len(a["codes"])
    if start.ndim != 1 or len(start) != top + 2 or start[0] != 0 or start[-1] != n \
            or (np.diff(start) < 0).any() or start[-1] - start[-2] != 1:
        raise IndexFormatError(f"the octree's layer_start {start.tolist()} does not fit the "
                               f"grid and its {n} nodes")
    counts = np.diff(start)
    if counts.max() > MAX_INDEX + 1:
        raise IndexFormatError("an octree layer holds more nodes than a link can index")
    for name in ("parent", "child"):
        if a[name].shape != (n,):
            raise IndexFormatError(f"the octree array {name!r} has shape {a[name].shape}, not "
                                   f"({n},)")
    if a["neighbours"].shape != (n, 6) or a["leaves"].shape != (int(counts[0]),):
        raise IndexFormatError("the octree's neighbours or leaves do not fit its nodes")
    layer = np.repeat(np.arange(top + 1), counts)

    def valid(links: np.ndarray, layers: np.ndarray, nodes: int = 1) -> np.ndarray:
        lay = (links >> np.uint32(28)).astype(np.int64)
        idx = ((links >> np.uint32(6)) & np.uint32(MAX_INDEX)).astype(np.int64)
        ok = (lay <= top) & ((links & np.uint32(63)) == 0)
        ok &= idx + nodes <= counts[np.minimum(lay, top)]
        return ok & (lay == layers)

    ch = a["child"]
    real = (ch != np.uint32(LINK_NULL)) & (ch != np.uint32(LINK_SOLID))
    if (real & (layer == 0)).any() or not valid(ch[real], layer[real] - 1, 8).all():
        raise IndexFormatError("the octree holds a child link out of range")
    nb = a["neighbours"]
    nreal = nb != np.uint32(LINK_NULL)
    lay = (nb >> np.uint32(28)).astype(np.int64)
    if not valid(nb[nreal], lay[nreal]).all() or (lay[nreal] < np.repeat(layer, 6).reshape(
            n, 6)[nreal]).any():
        raise IndexFormatError("the octree holds a neighbour link out of range")
    side = np.left_shift(1, top - layer)
    codes = a["codes"]
    cells = _decode(codes)
    if (cells >= side[:, None]).any() or codes[-1] != 0:
        raise IndexFormatError("the octree holds a node code outside its layer")
    # each child's code extends its parent's by its octant, and its parent link names it
    first = start[layer[real] - 1] + ((ch[real] >> np.uint32(6)) & np.uint32(MAX_INDEX))
    kids = first[:, None] + np.arange(8)
    if not (codes[kids] == (codes[real][:, None] << np.uint64(3))
            | np.arange(8, dtype=np.uint64)).all():
        raise IndexFormatError("the octree holds a child whose code is not its parent's")
    below = np.zeros(n, bool)
    below[kids.ravel()] = True
    if not below[:n - 1].all() or len(kids.ravel()) != n - 1:
        raise IndexFormatError("the octree holds nodes that are no one's children")
