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
                        Grid.to_csr, _find),
    "csr_differential": (lambda c: CSRDifferentialHeuristic.build(c, pivots=3),
                         Grid.to_csr, _find),
    "csr_goal_bounds": (CSRGoalBounds.build, Grid.to_csr, _find),
    "csr_path_table": (CSRPathTable.build, Grid.to_csr, _find),
    "csr_zones": (lambda c: CSRZoneTable.build(c, zone_size=5.0), Grid.to_csr, _find),
    "csr_hierarchy": (lambda c: HierarchicalGraph.build(c, [_groups(c), lambda low: np.arange(
        low.num_nodes) // 3]), Grid.to_csr, hierarchical_path),
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


# ---------------------------------------------------------------- mutated files

#: Map sides of the worlds the mutation runs use, one world per entry (seed = position).
SIDES = (16, 24, 32, 40)

_ODD_INTS = (0, 1, -1, 2, 7, 255, 256, 32767, -32768, 65535, 2**31 - 1, -(2**31), 10**6)
_ODD_FLOATS = (np.nan, np.inf, -np.inf, -1.0, 0.0, 1e-300, 1e300, 0.5, 3.0)
_ODD_OPTIONS = (0, -1, 1, 2, 3, True, False, "1", 1.5, None, [], {}, [1, 2], 10**9, 5.0)


def mutate(original: Path, kind: str, world: Any, seed: int, out: Path) -> str:
    """Write to ``out`` a damaged copy of the saved index ``original`` (mutation ``seed``:
    truncated, bit-flipped, a crafted value, a crafted shape or dtype, or a crafted header
    or option) and describe it."""
    rng = np.random.default_rng(seed)
    data = original.read_bytes()
    how = int(rng.integers(6))
    if how == 0:
        cut = int(rng.integers(len(data)))
        out.write_bytes(data[:cut])
        return f"truncated at {cut} of {len(data)} bytes"
    if how == 1:
        raw = bytearray(data)
        flips = rng.integers(len(raw), size=int(rng.integers(1, 9)))
        for at in flips:
            raw[at] ^= 1 << int(rng.integers(8))
        out.write_bytes(bytes(raw))
        return f"bits flipped at {sorted(int(v) for v in flips)}"
    header, arrays = read_members(original)
    names = sorted(arrays)
    name = names[int(rng.integers(len(names)))]
    a = arrays[name].copy()
    if how in (2, 3) and a.size:
        # crafted values: a few entries set to odd or nearby values
        flat = a.reshape(-1)
        at = rng.integers(a.size, size=int(rng.integers(1, 4)))
        for i in at:
            if a.dtype.kind == "f":
                flat[i] = _ODD_FLOATS[int(rng.integers(len(_ODD_FLOATS)))] if rng.random() < .6 \
                    else flat[i] * rng.uniform(-2, 2)
            else:
                info = np.iinfo(a.dtype)
                v = _ODD_INTS[int(rng.integers(len(_ODD_INTS)))] if rng.random() < .5 \
                    else int(flat[i]) + int(rng.integers(-3, 4))
                flat[i] = min(max(v, info.min), info.max)
        arrays[name] = a
        write_index(out, header, arrays)
        return f"{name}[{sorted(int(v) for v in at)}] changed"
    if how in (2, 3, 4):
        # crafted shapes and dtypes
        choice = int(rng.integers(6))
        if choice == 0 and a.ndim:
            arrays[name] = a[:max(0, len(a) - int(rng.integers(1, 4)))]
        elif choice == 1 and a.ndim:
            arrays[name] = np.concatenate([a, a[:int(rng.integers(1, 4))]])
        elif choice == 2:
            arrays[name] = a.reshape(-1)
        elif choice == 3:
            arrays[name] = a.T.copy() if a.ndim > 1 else a[None]
        elif choice == 4:
            dt = (np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64, np.bool_)
            with np.errstate(invalid="ignore", over="ignore"):
                arrays[name] = a.astype(dt[int(rng.integers(len(dt)))])
        else:
            arrays[name] = np.zeros((0,) + a.shape[1:], dtype=a.dtype)
        write_index(out, header, arrays)
        return f"{name} reshaped to {arrays[name].dtype} {arrays[name].shape}"
    # crafted header fields and options
    options = header["options"]
    keys = ["version", "kind", "build_time", "fingerprint"] + [f"options.{k}" for k in options]
    key = keys[int(rng.integers(len(keys)))]
    value = _ODD_OPTIONS[int(rng.integers(len(_ODD_OPTIONS)))]
    if key.startswith("options."):
        options[key[8:]] = value
    elif rng.random() < 0.2:
        del header[key]
    else:
        header[key] = value if key != "kind" else list(KINDS)[int(rng.integers(len(KINDS)))]
    write_index(out, header, arrays)
    return f"header {key} = {value!r}"


def sound(world: Any, s: Any, g: Any, r: Any, best: float) -> str | None:
    """Why result ``r`` of a query from ``s`` to ``g`` is wrong, or None: a found path must
    join s to g by legal steps, cost what the result says and no less than ``best``."""
    if not r.found:
        return None if not np.isfinite(best) else "no path found where one exists"
    path = np.asarray(r.path)
    if isinstance(world, Grid):
        ends = tuple(int(v) for v in path[0]), tuple(int(v) for v in path[-1])
        cost = world.path_cost(path)
    else:
        ends = int(path[0]), int(path[-1])
        cost = 0.0
        for u, v in zip(path[:-1].tolist(), path[1:].tolist(), strict=True):
            w = [c for x, c in world.successors(u) if x == v]
            cost += min(w) if w else np.inf
    if ends != (s, g):
        return f"the path joins {ends}, not {(s, g)}"
    if not np.isfinite(cost) or abs(cost - r.cost) > 1e-6 * max(1.0, cost):
        return f"the path costs {cost}, the result says {r.cost}"
    if r.cost < best - 1e-6 * max(1.0, best):
        return f"cost {r.cost} below the optimum {best}"
    return None


def worker(kind: str, side: int, first: int, count: int, folder: str) -> None:
    """Load and query mutated files ``first..first + count - 1`` of ``kind`` on the world of
    side ``side``, printing ``FILE i`` before each and a JSON outcome after it (run in a
    subprocess: a crash leaves the ``FILE`` line of the file that caused it last)."""
    import sys

    from wayfinding import find_path
    from wayfinding.errors import WayfindingError

    build, world_of, query = KINDS[kind]
    world = world_of(random_grid(side, side))
    index = build(world)
    original = Path(folder) / f"{kind}-{side}.npz"
    index.save(original)
    todo = pairs(world, 4, seed=side)
    best = [(find_path(world, s, g) if isinstance(world, Grid) else world.find_path(s, g)).cost
            for s, g in todo]
    want = [(r.found, r.cost) for r in (query(index, s, g) for s, g in todo)]
    path = Path(folder) / f"mutated-{kind}-{side}.npz"
    for i in range(first, first + count):
        what = mutate(original, kind, world, 1000 * side + i, path)
        print(f"FILE {i} {what}", flush=True)
        outcome: dict[str, Any] = {"i": i}
        try:
            loaded = type(index).load(path, world)
            got = []
            for (s, g), b in zip(todo, best, strict=True):
                r = query(loaded, s, g)
                got.append((r.found, r.cost))
                why = sound(world, s, g, r, b)
                if why:
                    outcome["wrong"] = f"{s} -> {g}: {why}"
            outcome["same"] = all(a[0] == b[0] and (a[1] == b[1] or abs(a[1] - b[1]) <= 1e-9 * b[1])
                                  for a, b in zip(got, want, strict=True))
        except WayfindingError as exc:
            outcome["error"] = type(exc).__name__
        except BaseException as exc:  # anything else is a failure to report
            outcome["foreign"] = f"{type(exc).__name__}: {exc}"
        print("DONE " + json.dumps(outcome), flush=True)
    sys.stdout.flush()
