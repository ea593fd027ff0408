"""Saved indexes of every kind on small generated worlds, and crafted files made from them:
shared by the crafted-file tests (tests/test_index.py) and the slow mutation runs
(tests/test_index_mutations.py)."""

from __future__ import annotations

import io
import json
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wayfinding import Grid
from wayfinding.graph import CSRExitTables, CSRGraph, CSRPathTable
from wayfinding.graph.differential import CSRDifferentialHeuristic
from wayfinding.graph.goal_bounds import CSRGoalBounds
from wayfinding.graph.zone_tables import CSRZoneTable
from wayfinding.grid import DifferentialHeuristic, GoalBounds, HPAStar, JPSPlus, SubgoalGraph
from wayfinding.search.hierarchical import hierarchical_path
from wayfinding.search.hierarchy import HierarchicalGraph


def random_grid(seed: int, size: int = 20, blocked: float = 0.25) -> Grid:
    """A ``size`` x ``size`` uniform grid with about ``blocked`` of its cells walls."""
    rng = np.random.default_rng(seed)
    return Grid(rng.random((size, size)) >= blocked)


def _groups(graph: CSRGraph) -> np.ndarray:
    return (graph.coords[:, 1] // 4 * 8 + graph.coords[:, 0] // 4).astype(np.int64)


def _find(index: Any, s: int, g: int) -> Any:
    return index.find_path(s, g)


#: Each kind: (builds the index for a world, the world from a grid, the query).
KINDS: dict[str, tuple[Callable[[Any], Any], Callable[[Grid], Any], Callable[..., Any]]] = {
    "jps_plus": (JPSPlus.build, lambda g: g, _find),
    "goal_bounds": (lambda g: GoalBounds.build(g, workers=1, progress=False), lambda g: g,
                    _find),
    "subgoal": (lambda g: SubgoalGraph.build(g, levels=2), lambda g: g, _find),
    "differential": (lambda g: DifferentialHeuristic.build(g, pivots=3), lambda g: g, _find),
    "hpa": (lambda g: HPAStar.build(g, cluster_size=5, levels=2), lambda g: g, _find),
    "csr_exit_tables": (lambda c: CSRExitTables.build(c, tile_size=4.0, levels=3),
                        CSRGraph.from_grid, lambda ix, s, g: ix.route(s, g)),
    "csr_differential": (lambda c: CSRDifferentialHeuristic.build(c, pivots=3),
                         CSRGraph.from_grid, _find),
    "csr_goal_bounds": (CSRGoalBounds.build, CSRGraph.from_grid, _find),
    "csr_path_table": (CSRPathTable.build, CSRGraph.from_grid,
                       lambda ix, s, g: ix.path(s, g)),
    "csr_zones": (lambda c: CSRZoneTable.build(c, zone_size=5.0), CSRGraph.from_grid, _find),
    "csr_hierarchy": (lambda c: HierarchicalGraph.build(c, [_groups(c), lambda low: np.arange(
        low.num_nodes) // 3]), CSRGraph.from_grid, hierarchical_path),
}


def pairs(world: Any, count: int, seed: int) -> list[tuple[Any, Any]]:
    """``count`` start/goal pairs of passable cells (grids) or nodes with edges (graphs)."""
    rng = np.random.default_rng(seed)
    if isinstance(world, Grid):
        free = np.argwhere(world.passable)[:, ::-1]
        pick = rng.integers(len(free), size=(count, 2))
        return [(tuple(int(v) for v in free[a]), tuple(int(v) for v in free[b]))
                for a, b in pick]
    live = np.flatnonzero(np.diff(world.indptr))
    pick = rng.integers(len(live), size=(count, 2))
    return [(int(live[a]), int(live[b])) for a, b in pick]


def read_members(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and arrays of a file the tests saved (trusted: read with numpy)."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return json.loads(str(arrays.pop("__header__"))), arrays


def npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def write_zip(path: Path, members: list[tuple[str, bytes, int, int, int]]) -> Path:
    """A zip of ``(name, data as stored, uncompressed size, crc, method)`` members, written
    byte by byte so that sizes and data may disagree as a crafted file's do."""
    out, central = bytearray(), bytearray()
    for name, data, size, crc, method in members:
        raw, offset = name.encode(), len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(data),
                           size, len(raw), 0) + raw + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21,
                               crc, len(data), size, len(raw), 0, 0, 0, 0, 0, offset) + raw
    out += central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members),
                                 len(central), len(out), 0)
    path.write_bytes(bytes(out))
    return path


def stored(name: str, array: np.ndarray) -> tuple[str, bytes, int, int, int]:
    data = npy(array)
    return name + ".npy", data, len(data), zlib.crc32(data), 0


def write_index(path: Path, header: dict[str, Any], arrays: dict[str, np.ndarray],
                extra: list[tuple[str, bytes, int, int, int]] = ()) -> Path:
    """A saved index with this header and these arrays (and raw ``extra`` members)."""
    members = [stored("__header__", np.array(json.dumps(header)))]
    members += [stored(k, v) for k, v in arrays.items()]
    return write_zip(path, members + list(extra))


def zip_bomb(name: str, gigabytes: float = 1.5) -> tuple[str, bytes, int, int, int]:
    """A deflated member ``name``: the .npy of ``gigabytes`` GB of zeros (uint8) in about a
    thousandth of that.  Its CRC is not computed (reading it through would take seconds);
    a reader must refuse it from its declared size before decompressing."""
    size = int(gigabytes * 1e9)
    text = f"{{'descr': '|u1', 'fortran_order': False, 'shape': ({size},), }}"
    text += " " * (64 - (10 + len(text) + 1) % 64) + "\n"
    head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode()
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = 1 << 20
    first = comp.compress(head) + comp.flush(zlib.Z_FULL_FLUSH)
    zeros = comp.compress(bytes(block)) + comp.flush(zlib.Z_FULL_FLUSH)
    again = comp.compress(bytes(block)) + comp.flush(zlib.Z_FULL_FLUSH)
    assert zeros == again  # a full flush resets the stream: blocks repeat byte for byte
    count, rest = divmod(size, block)
    data = first + zeros * count + comp.compress(bytes(rest)) + comp.flush()
    return name + ".npy", data, len(head) + size, 0, 8
