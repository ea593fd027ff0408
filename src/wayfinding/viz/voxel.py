"""Pictures of voxel worlds (:class:`~wayfinding.voxel.grid.VoxelGrid`): an isometric PNG
and a self-contained HTML page with a small WebGL viewer, each with paths and boxes (octree
nodes, say) drawn over the voxels; flying agents (positions per frame) animate over both: an
isometric GIF (:func:`animate_voxels`) and the HTML page's ``agents``.

The PNG looks down the diagonal of the grid from above, the ``up`` axis up (``"y"`` by
default, as the generated and voxelized worlds; the Moving AI Warframe maps read well with
either): each blocked voxel shows its top face (lightest) and its two faces turned to the
viewer (darker, one per axis), tinted from dark at the bottom of the grid to light at the top.
It is drawn by depth-buffer splatting: voxels on one line of sight share the same hexagon on
the picture, so only the nearest blocked voxel of each line is kept; each of its faces left
open by its neighbours is sampled at 1.5 samples a pixel and every pixel keeps its nearest
sample (``numpy.maximum.at`` over a packed depth, face and height code).  The work therefore
grows with the picture's area, not the grid's volume, apart from one pass over the voxels to
find the open faces.  A grid too large for a voxel to get :data:`MIN_VOXEL_PX` pixels is
first merged into blocks of ``f x f x f`` voxels (a block is blocked when any voxel in it
is), ``f`` as small as makes the voxels that large.  Paths, boxes and the start and goal are
drawn on top, never hidden by voxels in front of them.

The HTML page draws the open faces of the blocked voxels (each face of a blocked voxel whose
neighbour across it is free or outside the grid), merged into blocks of ``f x f x f``
voxels with ``f`` the smallest power of two giving at most ``max_faces`` faces; the faces
travel as integers and the page builds the triangles.  It needs no network: the viewer is
inline JavaScript (drag to orbit, wheel to zoom), as :mod:`wayfinding.viz.navmesh3d`'s.

Paths are ``(n, 3)`` arrays or :class:`~wayfinding.results.PathResult`: integer rows are
cells, drawn through the voxels' centres; float rows are world points, placed with the
grid's ``origin`` and ``voxel_size`` (for a grid at the origin with voxels of size 1, cell
``(x, y, z)``'s centre is the point ``(x + 0.5, y + 0.5, z + 0.5)``).  Boxes are ``(m, 2,
3)`` arrays of cell corners: the lowest cell of each box and the first cell past it, so a
box of one voxel is ``[(x, y, z), (x + 1, y + 1, z + 1)]``.

>>> from wayfinding.voxel.grid import VoxelGrid
>>> g = VoxelGrid(np.ones((2, 2, 2), bool))
>>> render_voxels_png(g, size=64)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._io import atomic_write_bytes, atomic_write_text
from .._validate import count, positive_float
from ..errors import InvalidQueryError, brief
from ..results import PathResult
from ..voxel.grid import VoxelGrid
from ._webgl import agent_frames, frame_rows, page
from .raster import (
    GIF_PX,
    MARKER_FRACTION,
    MIN_GIF_ASPECT,
    TARGET_PX,
    _pillow,
    png_bytes,
    write_gif,
)

#: Smallest edge of a drawn voxel in the PNG, pixels; larger grids are merged into blocks.
MIN_VOXEL_PX = 2.0
#: Face samples per pixel along each edge of a face (enough to leave no hole in a face).
SAMPLES_PER_PX = 1.5
#: Most faces the HTML page holds before the grid is merged into blocks.
MAX_FACES = 150_000
#: Background, voxel tints (bottom and top of the grid), and the colours of paths (cycled),
#: boxes and endpoints, as RGB.
BACKGROUND = (32, 36, 43)
LOW, HIGH = (70, 84, 110), (226, 214, 186)
PATH_COLOURS = ((230, 57, 70), (42, 157, 143), (244, 162, 97), (131, 56, 236),
                (58, 134, 255), (255, 190, 11))
BOX_COLOUR = (120, 200, 255)
START_COLOUR, GOAL_COLOUR = (27, 158, 75), (214, 40, 200)
#: Brightness of the top face and of the faces turned to the viewer along the picture's
#: first and second horizontal axes.
SHADES = (1.0, 0.78, 0.6)
_C = math.sqrt(3.0) / 2.0
_AXES = {"x": 0, "y": 1, "z": 2}


def _as_grid(grid: object) -> VoxelGrid:
    if not isinstance(grid, VoxelGrid):
        raise InvalidQueryError(f"expected a VoxelGrid, not {type(grid).__name__}")
    return grid


def _up(up: str) -> int:
    if up not in _AXES:
        raise InvalidQueryError(f"up must be 'x', 'y' or 'z', got {brief(up)}")
    return _AXES[up]


def _frame(grid: VoxelGrid, up: str) -> tuple[np.ndarray, tuple[int, int, int]]:
    """The blocked voxels in the picture's frame ``[Z, Y, X]`` (Z up; the frame is a cyclic
    permutation of the grid's axes, so it keeps their handedness) and the axis order: the
    grid axes (0 = x, 1 = y, 2 = z) that become X, Y and Z."""
    u = _up(up)
    order = ((u + 1) % 3, (u + 2) % 3, u)
    blocked = np.transpose(grid.blocked, (2 - order[2], 2 - order[1], 2 - order[0]))
    return blocked, order


def merge_blocks(blocked: np.ndarray, f: int) -> np.ndarray:
    """``blocked`` (bool, 3D) merged into blocks of ``f`` voxels a side: a block is blocked
    when any voxel in it is (the last blocks along an axis may be partial)."""
    if f == 1:
        return blocked
    a, b, c = (-(-s // f) * f for s in blocked.shape)
    full = np.zeros((a, b, c), bool)
    full[:blocked.shape[0], :blocked.shape[1], :blocked.shape[2]] = blocked
    return full.reshape(a // f, f, b // f, f, c // f, f).any(axis=(1, 3, 5))


def _open_faces(b: np.ndarray) -> list[np.ndarray]:
    """For a bool array ``[Z, Y, X]``: masks of the blocked voxels whose +Z, +X and +Y
    neighbour is free or outside."""
    out = []
    for axis in (0, 2, 1):
        nxt = np.zeros_like(b)
        src = [slice(None)] * 3
        dst = [slice(None)] * 3
        src[axis], dst[axis] = slice(1, None), slice(None, -1)
        nxt[tuple(dst)] = b[tuple(src)]
        out.append(b & ~nxt)
    return out


def _polyline(value: Any, grid: VoxelGrid, name: str) -> np.ndarray:
    """A path as ``float64[n, 3]`` points in voxel units (cell ``c``'s centre at ``c + 0.5``)."""
    raw = value.path if isinstance(value, PathResult) else value
    try:
        a = np.asarray(raw)
    except (TypeError, ValueError):
        a = np.zeros((0, 0))
    if a.size == 0 and a.ndim >= 1:
        return np.zeros((0, 3))
    if a.ndim != 2 or a.shape[1] != 3 or a.dtype.kind not in "iuf":
        raise InvalidQueryError(f"{name} must be an (n, 3) array of cells or world points, "
                                f"got {brief(raw)}")
    if a.dtype.kind in "iu":
        return a.astype(np.float64) + 0.5
    pts = a.astype(np.float64)
    if not np.isfinite(pts).all():
        raise InvalidQueryError(f"{name} holds a point that is not finite")
    return (pts - np.asarray(grid.origin)) / grid.voxel_size


def _paths(paths: Any, grid: VoxelGrid) -> list[np.ndarray]:
    if paths is None:
        return []
    if isinstance(paths, PathResult) or (isinstance(paths, np.ndarray) and paths.ndim == 2):
        paths = [paths]
    if not isinstance(paths, Sequence | np.ndarray):
        raise InvalidQueryError(f"paths must be a list of paths, got {brief(paths)}")
    return [_polyline(p, grid, f"paths[{i}]") for i, p in enumerate(paths)]


def _boxes(boxes: Any) -> np.ndarray:
    if boxes is None:
        return np.zeros((0, 2, 3))
    try:
        a = np.asarray(boxes, dtype=np.float64)
    except (TypeError, ValueError):
        a = np.zeros((1, 1))
    if a.size == 0:
        return np.zeros((0, 2, 3))
    if a.ndim != 3 or a.shape[1:] != (2, 3) or not np.isfinite(a).all() \
            or (a[:, 1] <= a[:, 0]).any():
        raise InvalidQueryError(f"boxes must be an (m, 2, 3) array of lowest cells and the "
                                f"cells past them, got {brief(boxes)}")
    return a


def _point(value: ArrayLike | None, grid: VoxelGrid, name: str) -> np.ndarray | None:
    if value is None:
        return None
    return _polyline(np.asarray(value).reshape(1, -1), grid, name)[0]


def render_voxels_png(grid: VoxelGrid, *, paths: Any = None, start: ArrayLike | None = None,
                      goal: ArrayLike | None = None, boxes: ArrayLike | None = None,
                      up: str = "y", size: int = TARGET_PX) -> bytes:
    """The isometric picture of ``grid`` (see the module) as PNG bytes, at most ``size``
    pixels across (``size`` >= 32), with ``paths`` (one path or a list), ``boxes``
    (outlines) and ``start`` / ``goal`` (a cell or a world point each) drawn on top.
    Needs Pillow (``[viz]``)."""
    image, _, _ = _picture(grid, paths=paths, start=start, goal=goal, boxes=boxes, up=up,
                           size=size)
    return png_bytes(image)


def animate_voxels(picture_path: str | os.PathLike, grid: VoxelGrid, agents: ArrayLike, *,
                   colours: ArrayLike | None = None, paths: Any = None, up: str = "y",
                   fps: float = 10.0, size: int = GIF_PX,
                   radius: float | None = None) -> Path:
    """Write a GIF of ``agents`` (``(T, n, 3)`` world positions per frame, NaN rows for
    absent agents) flying through ``grid``, over its isometric picture (with ``paths``): each
    agent the outline of a ball of ``radius`` (world units; default 0.45 of a voxel) as the
    picture projects it, with a dark edge, coloured by ``colours`` (``(T, n, 3)`` or
    ``(n, 3)`` RGB 0..255; default white), the nearer drawn over the farther (agents are not
    hidden by voxels).  The GIF is ``size`` pixels wide, the picture centred on it and at
    least ``size`` * :data:`~wayfinding.viz.raster.MIN_GIF_ASPECT` tall.  Needs Pillow."""
    target = Path(picture_path)
    if target.suffix.lower() != ".gif":
        raise InvalidQueryError(f"animations are GIF files, not {str(target)!r}")
    fps = positive_float("fps", fps)
    radius = positive_float("radius", 0.45 * grid.voxel_size if radius is None and
                            isinstance(grid, VoxelGrid) else radius)
    pos, rgb = agent_frames(agents, colours)
    picture, project, order = _picture(grid, paths=paths, up=up, size=size)
    image_mod, draw_mod, _ = _pillow()
    width = max(size, picture.width)
    height = max(picture.height, math.ceil(width * MIN_GIF_ASPECT))
    dx, dy = (width - picture.width) // 2, (height - picture.height) // 2
    base = image_mod.new("RGB", (width, height), BACKGROUND)
    base.paste(picture, (dx, dy))
    voxel = (pos - np.asarray(grid.origin)) / grid.voxel_size
    frame_pos = voxel[..., list(order)]
    xy = project(frame_pos) + np.array([dx, dy])
    depth = frame_pos.sum(axis=-1)
    # the picture draws a voxel edge k pixels long along each axis, so a ball of radius rho
    # voxels projects to a disc of radius rho * k * sqrt(3/2)
    r = max(1.0, radius / grid.voxel_size * _scale(grid, up, size) * math.sqrt(1.5))
    images = []
    for t in range(len(pos)):
        img = base.copy()
        d = draw_mod.Draw(img)
        for i in np.argsort(np.nan_to_num(depth[t], nan=-np.inf), kind="stable").tolist():
            cx, cy = xy[t, i].tolist()
            if not (math.isfinite(cx) and math.isfinite(cy)):
                continue
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=tuple(int(c) for c in rgb[t, i]),
                      outline=(20, 20, 20))
        images.append(img.convert("P", palette=image_mod.ADAPTIVE))
    return write_gif(target, images, fps)


def _scale(grid: VoxelGrid, up: str, size: int) -> float:
    """Pixels per voxel edge of the picture of ``grid`` at ``size``."""
    blocked_shape = _frame(grid, up)[0].shape
    nz, ny, nx = blocked_shape
    return (size - 12) / max((nx + ny) * _C, (nx + ny) / 2 + nz)


def _picture(grid: VoxelGrid, *, paths: Any = None, start: ArrayLike | None = None,
             goal: ArrayLike | None = None, boxes: ArrayLike | None = None, up: str = "y",
             size: int = TARGET_PX) -> tuple[Any, Any, tuple[int, int, int]]:
    """The isometric picture (a Pillow image), the projection from the picture's frame
    (voxel units) to pixels, and the frame's axis order."""
    grid = _as_grid(grid)
    size = count("size", size, min=32, max=16384)
    routes = _paths(paths, grid)
    cubes = _boxes(boxes)
    ends = [(_point(start, grid, "start"), START_COLOUR), (_point(goal, grid, "goal"),
                                                           GOAL_COLOUR)]
    image_mod, draw_mod, _ = _pillow()
    blocked, order = _frame(grid, up)
    nz, ny, nx = blocked.shape
    margin = 6
    k = (size - 2 * margin) / max((nx + ny) * _C, (nx + ny) / 2 + nz)
    width = int(math.ceil((nx + ny) * _C * k)) + 2 * margin
    height = int(math.ceil(((nx + ny) / 2 + nz) * k)) + 2 * margin
    ox, oy = margin + ny * _C * k, margin + nz * k

    def project(p: np.ndarray) -> np.ndarray:
        """Points ``(..., 3)`` in the picture's frame (X, Y, Z up), voxel units -> pixels."""
        return np.stack([(p[..., 0] - p[..., 1]) * _C * k + ox,
                         ((p[..., 0] + p[..., 1]) / 2 - p[..., 2]) * k + oy], axis=-1)

    f = max(1, math.ceil(MIN_VOXEL_PX / k))
    b = merge_blocks(blocked, f)
    pixels = np.empty((height, width, 3), np.uint8)
    pixels[:] = BACKGROUND
    code = _splat(b, f, k, project, width, height)
    drawn = code >= 0
    if drawn.any():
        bz = b.shape[0]
        c = code[drawn]
        zc = c % bz
        face = 2 - (c // bz) % 3
        t = ((zc + 0.5) / bz)[:, None]
        tint = np.asarray(LOW) * (1 - t) + np.asarray(HIGH) * t
        shade = np.asarray(SHADES)[face][:, None]
        pixels.reshape(-1, 3)[drawn] = np.clip(tint * shade, 0, 255).astype(np.uint8)
    image = image_mod.fromarray(pixels, "RGB")
    draw = draw_mod.Draw(image)
    line = max(2, round(k * 0.35))
    if len(cubes):
        corners = np.array([(i, j, m) for i in (0, 1) for j in (0, 1) for m in (0, 1)])
        edges = [(a, q) for a in range(8) for q in range(a + 1, 8)
                 if np.abs(corners[a] - corners[q]).sum() == 1]
        lo, hi = cubes[:, 0][:, list(order)], cubes[:, 1][:, list(order)]
        pts = project(lo[:, None, :] + corners[None] * (hi - lo)[:, None, :])
        for box in pts.tolist():
            for a, q in edges:
                draw.line([tuple(box[a]), tuple(box[q])], fill=BOX_COLOUR, width=1)
    for i, route in enumerate(routes):
        if not len(route):
            continue
        xy = [tuple(p) for p in project(route[:, list(order)]).tolist()]
        colour = PATH_COLOURS[i % len(PATH_COLOURS)]
        if len(xy) > 1:
            draw.line(xy, fill=(20, 20, 20), width=line + 2, joint="curve")
            draw.line(xy, fill=colour, width=line, joint="curve")
        r = line + 1
        draw.ellipse((xy[0][0] - r, xy[0][1] - r, xy[0][0] + r, xy[0][1] + r), fill=colour)
    radius = max(4.0, 0.8 * k, MARKER_FRACTION * max(width, height))
    edge = max(1, round(radius / 5))
    for point, colour in ends:
        if point is not None:
            cx, cy = project(point[list(order)]).tolist()
            outer = radius + edge
            draw.ellipse((cx - outer, cy - outer, cx + outer, cy + outer), fill=(20, 20, 20))
            draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=colour,
                         outline=(255, 255, 255), width=edge)
    return image, project, order




def _splat(b: np.ndarray, f: int, k: float, project: Any, width: int,
           height: int) -> np.ndarray:
    """Per pixel (flat), the code ``(depth * 3 + 2 - face) * nz + z`` of the nearest face
    sample of the blocked voxels ``b`` (blocks of ``f`` voxels), or -1: ``face`` 0 is the top,
    1 and 2 the sides, so that the top wins where a pixel falls on an edge."""
    code = np.full(width * height, -1, np.int64)
    top, side_x, side_y = _open_faces(b)
    seen = top | side_x | side_y
    z, y, x = np.nonzero(seen)
    if not len(z):
        return code
    bz, by, bx = b.shape
    # Voxels on a line of sight (X - Z, Y - Z) share their hexagon: keep the nearest.
    line = (x - z + bz) * (by + bz + 1) + (y - z + bz)
    order = np.lexsort((-z, line))
    keep = order[np.r_[True, line[order][1:] != line[order][:-1]]]
    z, y, x = z[keep], y[keep], x[keep]
    depth = x + y + z
    e = k * f
    m = int(math.ceil(SAMPLES_PER_PX * e)) + 1
    s = (np.arange(m) + 0.5) / m
    ua, ub = (g.ravel() for g in np.meshgrid(s, s))
    one = np.ones_like(ua)
    # Each face: its mask and sample points in a unit voxel (X, Y, Z).
    faces = ((top, np.stack([ua, ub, one], 1)), (side_x, np.stack([one, ua, ub], 1)),
             (side_y, np.stack([ua, one, ub], 1)))
    base = np.stack([x, y, z], 1).astype(np.float64) * f
    for rank, (mask, samples) in enumerate(faces):
        open_ = mask[z, y, x]
        if not open_.any():
            continue
        offsets = project(samples * f) - project(np.zeros(3))
        corner = project(base[open_])
        px = np.floor(corner[:, None, 0] + offsets[None, :, 0]).astype(np.int64)
        py = np.floor(corner[:, None, 1] + offsets[None, :, 1]).astype(np.int64)
        inside = (px >= 0) & (px < width) & (py >= 0) & (py < height)
        value = np.broadcast_to(((depth[open_] * 3 + (2 - rank)) * bz + z[open_])[:, None],
                                px.shape)
        np.maximum.at(code, (py * width + px)[inside], value[inside])
    return code


def voxels_html(grid: VoxelGrid, *, paths: Any = None, start: ArrayLike | None = None,
                goal: ArrayLike | None = None, boxes: ArrayLike | None = None,
                agents: ArrayLike | None = None, colours: ArrayLike | None = None,
                fps: float = 10.0, up: str = "y", max_faces: int = MAX_FACES,
                title: str = "wayfinding voxels") -> str:
    """A self-contained HTML page showing the open faces of the blocked voxels (see the
    module; at most ``max_faces`` of them), ``paths`` as lines, ``boxes`` as wire frames and
    ``start`` / ``goal`` as dots, in WebGL: drag to orbit, wheel to zoom.  With ``agents``
    (``(T, n, 3)`` world positions per frame, NaN rows for absent agents) they play in a loop
    at ``fps`` frames a second, as dots coloured by ``colours`` (``(T, n, 3)`` or ``(n, 3)``
    RGB 0..255; default white)."""
    grid = _as_grid(grid)
    max_faces = count("max_faces", max_faces, min=1)
    routes = _paths(paths, grid)
    cubes = _boxes(boxes)
    blocked, order = _frame(grid, up)
    f = 1
    while True:
        b = merge_blocks(blocked, f)
        faces = _all_open_faces(b)
        if len(faces) <= max_faces or max(b.shape) == 1:
            break
        f *= 2
    ms = 1000.0 / positive_float("fps", fps)
    frames: list[list[float]] = []
    if agents is not None:
        pos, rgb = agent_frames(agents, colours)
        frames = frame_rows(((pos - np.asarray(grid.origin)) / grid.voxel_size)[..., list(order)],
                            rgb)
    ends = [p[list(order)].tolist() for p in (_point(start, grid, "start"),
                                              _point(goal, grid, "goal")) if p is not None]
    data = {"size": [int(s) for s in blocked.shape[::-1]], "block": f,
            "faces": faces.ravel().tolist(),
            "paths": [[round(v, 4) for v in r[:, list(order)].ravel().tolist()]
                      for r in routes],
            "boxes": [round(v, 4) for v in cubes[:, :, list(order)].ravel().tolist()],
            "ends": ends, "agents": frames, "ms": ms}
    return page(title, data, _SCENE)


def _all_open_faces(b: np.ndarray) -> np.ndarray:
    """``int32[k, 4]`` rows ``(X, Y, Z, d)``: the faces of blocked voxels of ``b`` (``[Z, Y,
    X]``) whose neighbour across them is free or outside; ``d`` = 2 * axis + (1 if the face
    looks towards +axis), axis 0 = X, 1 = Y, 2 = Z."""
    rows = []
    for axis, arr_axis in ((0, 2), (1, 1), (2, 0)):
        for positive in (0, 1):
            nxt = np.zeros_like(b)
            src = [slice(None)] * 3
            dst = [slice(None)] * 3
            if positive:
                src[arr_axis], dst[arr_axis] = slice(1, None), slice(None, -1)
            else:
                src[arr_axis], dst[arr_axis] = slice(None, -1), slice(1, None)
            nxt[tuple(dst)] = b[tuple(src)]
            z, y, x = np.nonzero(b & ~nxt)
            rows.append(np.stack([x, y, z, np.full_like(x, 2 * axis + positive)], 1))
    return np.concatenate(rows).astype(np.int32) if rows else np.zeros((0, 4), np.int32)


def save_voxels(picture_path: str | os.PathLike, grid: VoxelGrid, **options: Any) -> Path:
    """Write the picture the suffix asks for: ``.png`` (:func:`render_voxels_png`) or
    ``.html`` (:func:`voxels_html`); ``options`` go to that function.  The file is written
    through a temporary file and a rename."""
    path = Path(picture_path)
    suffix = path.suffix.lower()
    if suffix == ".png":
        return atomic_write_bytes(path, render_voxels_png(grid, **options))
    if suffix in (".html", ".htm"):
        return atomic_write_text(path, voxels_html(grid, **options))
    raise InvalidQueryError(f"cannot tell the picture format of {str(path)!r} from its "
                            f"suffix {path.suffix or '(none)'!r}; use .png or .html")


#: The viewer's scene script (see :mod:`._webgl`).
_SCENE = """// The picture's frame (X, Y, Z up) shown with GL's y up: (X, Z, -Y).
const gx = (x, y, z) => [x, z, -y];
function upload(list, mode) {
  const b = gl.createBuffer(); gl.bindBuffer(gl.ARRAY_BUFFER, b);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(list), gl.STATIC_DRAW);
  return {buffer: b, count: list.length / 6, mode: mode};
}
const F = DATA.block, NZ = DATA.size[2];
const shade = [0.62, 0.62, 0.78, 0.78, 0.5, 1.0];
const low = [0.27, 0.33, 0.43], high = [0.89, 0.84, 0.73];
const tris = [];
for (let i = 0; i < DATA.faces.length; i += 4) {
  const x = DATA.faces[i] * F, y = DATA.faces[i + 1] * F, z = DATA.faces[i + 2] * F;
  const d = DATA.faces[i + 3], axis = d >> 1, pos = d & 1;
  const u = (axis + 1) % 3, v = (axis + 2) % 3;
  const corner = [x, y, z]; corner[axis] += pos * F;
  const quad = [[0, 0], [1, 0], [1, 1], [0, 0], [1, 1], [0, 1]].map(([a, b]) => {
    const q = corner.slice(); q[u] += a * F; q[v] += b * F; return q;
  });
  const t = Math.min(1, (z + F / 2) / NZ);
  const col = [0, 1, 2].map(j => (low[j] * (1 - t) + high[j] * t) * shade[d]);
  for (const q of quad) tris.push(...gx(q[0], q[1], q[2]), ...col);
}
const lines = [];
DATA.paths.forEach((path, n) => {
  const colours = [[0.9, 0.22, 0.27], [0.16, 0.62, 0.56], [0.96, 0.64, 0.38],
                   [0.51, 0.22, 0.93], [0.23, 0.53, 1.0], [1.0, 0.75, 0.04]];
  const col = colours[n % colours.length];
  for (let i = 3; i < path.length; i += 3) {
    lines.push(...gx(path[i - 3], path[i - 2], path[i - 1]), ...col);
    lines.push(...gx(path[i], path[i + 1], path[i + 2]), ...col);
  }
});
for (let i = 0; i < DATA.boxes.length; i += 6) {
  const lo = DATA.boxes.slice(i, i + 3), hi = DATA.boxes.slice(i + 3, i + 6);
  for (let a = 0; a < 8; a++) for (let j = 0; j < 3; j++) {
    if (a & (1 << j)) continue;
    const b = a | (1 << j);
    const pa = [0, 1, 2].map(q => (a & (1 << q)) ? hi[q] : lo[q]);
    const pb = [0, 1, 2].map(q => (b & (1 << q)) ? hi[q] : lo[q]);
    lines.push(...gx(...pa), 0.47, 0.78, 1.0, ...gx(...pb), 0.47, 0.78, 1.0);
  }
}
const dots = [];
DATA.ends.forEach((p, i) => dots.push(...gx(...p), ...(i ? [0.84, 0.16, 0.78]
                                                            : [0.11, 0.62, 0.29])));
const layers = [upload(tris, gl.TRIANGLES), upload(lines, gl.LINES), upload(dots, gl.POINTS)];
const lo = gx(0, DATA.size[1], 0), hi = gx(DATA.size[0], 0, DATA.size[2]);
const centre = [0, 1, 2].map(j => (lo[j] + hi[j]) / 2);
let radius = Math.max(...[0, 1, 2].map(j => Math.abs(hi[j] - lo[j]))) || 1;
function draw() {
  canvas.width = canvas.clientWidth; canvas.height = canvas.clientHeight;
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(0.125, 0.141, 0.169, 1); gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  gl.enable(gl.DEPTH_TEST);
  gl.uniformMatrix4fv(gl.getUniformLocation(prog, "m"), false, matrix());
  gl.uniform1f(gl.getUniformLocation(prog, "s"), 9.0);
  const p = gl.getAttribLocation(prog, "p"), c = gl.getAttribLocation(prog, "c");
  layers.forEach((layer, i) => {
    if (!layer.count) return;
    if (i) gl.disable(gl.DEPTH_TEST);           // paths, boxes and ends over the voxels
    gl.bindBuffer(gl.ARRAY_BUFFER, layer.buffer);
    gl.enableVertexAttribArray(p); gl.vertexAttribPointer(p, 3, gl.FLOAT, false, 24, 0);
    gl.enableVertexAttribArray(c); gl.vertexAttribPointer(c, 3, gl.FLOAT, false, 24, 12);
    gl.drawArrays(layer.mode, 0, layer.count);
  });
  if (DATA.agents.length) {              // the agents of the current frame
    const rows = DATA.agents[frame], pts = [];
    for (let i = 0; i < rows.length; i += 6)
      pts.push(...gx(rows[i], rows[i + 1], rows[i + 2]), rows[i + 3], rows[i + 4], rows[i + 5]);
    gl.uniform1f(gl.getUniformLocation(prog, "s"), Math.max(4, 2400 / dist));
    gl.bindBuffer(gl.ARRAY_BUFFER, agentBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(pts), gl.DYNAMIC_DRAW);
    gl.vertexAttribPointer(p, 3, gl.FLOAT, false, 24, 0);
    gl.vertexAttribPointer(c, 3, gl.FLOAT, false, 24, 12);
    gl.drawArrays(gl.POINTS, 0, pts.length / 6);
  }
}
"""
