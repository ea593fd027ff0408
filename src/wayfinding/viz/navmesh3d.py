"""Pictures of voxel navmeshes (:class:`~wayfinding.navmesh3d.NavMesh3D`): a top-down view
of the polygons coloured by region, lower polygons first so upper storeys cover them (SVG
with no dependency, PNG with Pillow), and a self-contained HTML page with a small WebGL
viewer of the detail triangles over the level's geometry (drag to orbit, wheel to zoom).
Agents walking the mesh (positions per frame, :class:`~wayfinding.crowd.Navigator3D`'s)
animate over both: a top-down GIF (:func:`animate_navmesh3d`) and the HTML page's
``agents``.

>>> from wayfinding.navmesh3d import build, generate
>>> svg = render_navmesh3d_svg(build(generate.floor()))
>>> svg.count('class="poly"')
1
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._io import atomic_write_bytes, atomic_write_text
from .._validate import count, positive_float
from ..errors import InvalidQueryError
from ..navmesh3d import Level, NavMesh3D, region_colours
from ._webgl import TRANSLUCENT, agent_frames, frame_rows, page
from .raster import GIF_PX, TARGET_PX, _pillow, gif_canvas, png_bytes, write_gif


def _flat(mesh: NavMesh3D) -> tuple[list[NDArray[np.float64]], NDArray[np.uint8]]:
    """Polygons (world x, y, z corners) and their RGBA colours, lowest first."""
    if not isinstance(mesh, NavMesh3D):
        raise InvalidQueryError(f"expected a NavMesh3D, not {type(mesh).__name__}")
    polys = mesh.polygons()
    regs = np.concatenate([t.polymesh.regs for t in mesh.tiles]) if mesh.tiles else \
        np.zeros(0, np.uint16)
    colours = region_colours(regs)
    order = np.argsort([p[:, 1].mean() for p in polys], kind="stable")
    return [polys[i] for i in order], colours[order]


def _frame(polys: list[NDArray[np.float64]]) -> tuple[float, float, float, float]:
    if not polys:
        return 0.0, 0.0, 1.0, 1.0
    pts = np.concatenate(polys)
    x0, z0 = pts[:, 0].min(), pts[:, 2].min()
    return float(x0), float(z0), float(pts[:, 0].max() - x0) or 1.0, \
        float(pts[:, 2].max() - z0) or 1.0


def render_navmesh3d_svg(mesh: NavMesh3D) -> str:
    """The mesh seen from above (x right, z down) as SVG text, one ``poly`` polygon per
    navmesh polygon, filled by region."""
    polys, colours = _flat(mesh)
    x0, z0, w, h = _frame(polys)
    pad = 0.02 * max(w, h)
    scale = TARGET_PX / max(w, h)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0 - pad:.4g} {z0 - pad:.4g} '
           f'{w + 2 * pad:.4g} {h + 2 * pad:.4g}" width="{(w + 2 * pad) * scale:.0f}" '
           f'height="{(h + 2 * pad) * scale:.0f}">',
           f'<rect x="{x0 - pad:.4g}" y="{z0 - pad:.4g}" width="{w + 2 * pad:.4g}" '
           f'height="{h + 2 * pad:.4g}" fill="#20242b"/>']
    stroke = 1.0 / scale
    for p, c in zip(polys, colours.tolist(), strict=True):
        pts = " ".join(f"{x:.4g},{z:.4g}" for x, z in p[:, [0, 2]].tolist())
        out.append(f'<polygon class="poly" points="{pts}" fill="rgb({c[0]},{c[1]},{c[2]})" '
                   f'stroke="#20242b" stroke-width="{stroke:.3g}"/>')
    out.append("</svg>")
    return "\n".join(out)


def render_navmesh3d_png(mesh: NavMesh3D) -> bytes:
    """The picture of :func:`render_navmesh3d_svg` as PNG bytes (needs Pillow, ``[viz]``)."""
    image_mod, draw_mod, _ = _pillow()
    polys, colours = _flat(mesh)
    x0, z0, w, h = _frame(polys)
    scale = TARGET_PX / max(w, h)
    size = (max(int(w * scale) + 8, 1), max(int(h * scale) + 8, 1))
    image = image_mod.new("RGB", size, (32, 36, 43))
    draw = draw_mod.Draw(image)
    for p, c in zip(polys, colours.tolist(), strict=True):
        pts = [((x - x0) * scale + 4, (z - z0) * scale + 4) for x, z in p[:, [0, 2]].tolist()]
        draw.polygon(pts, fill=tuple(c[:3]), outline=(32, 36, 43))
    return png_bytes(image)


def navmesh3d_html(mesh: NavMesh3D, *, level: Level | None = None,
                   title: str = "wayfinding navmesh", agents: ArrayLike | None = None,
                   colours: ArrayLike | None = None, fps: float = 10.0) -> str:
    """A self-contained HTML page showing the mesh's detail triangles (coloured by region)
    over the level's triangles (grey), in WebGL: drag to orbit, wheel to zoom.  With
    ``agents`` (``(T, n, 3)`` positions per frame, NaN rows for absent agents) they play
    in a loop at ``fps`` frames a second, as dots coloured by ``colours`` (``(T, n, 3)``
    or ``(n, 3)`` uint8; default white)."""
    verts, tris, owner = mesh.triangles()
    regs = np.concatenate([t.polymesh.regs for t in mesh.tiles]) if mesh.tiles else \
        np.zeros(0, np.uint16)
    by_region = region_colours(regs[owner]) if len(owner) else np.zeros((0, 4), np.uint8)
    nav = _triangle_soup(verts, tris, by_region, lift=0.05)
    geo: list[float] = []
    if level is not None:
        grey = np.tile(np.array([[110, 116, 128, 255]], np.uint8), (level.num_triangles, 1))
        geo = _triangle_soup(level.vertices, level.triangles, grey, lift=0.0)
    ms = 1000.0 / positive_float("fps", fps)
    frames = [] if agents is None else frame_rows(*agent_frames(agents, colours))
    return page(title, {"nav": nav, "level": geo, "agents": frames, "ms": ms}, _SCENE,
                TRANSLUCENT)


def animate_navmesh3d(picture_path: str | os.PathLike, mesh: NavMesh3D, agents: ArrayLike,
                      *, colours: ArrayLike | None = None, radius: float | None = None,
                      fps: float = 10.0, size: int = GIF_PX) -> Path:
    """Write a top-down GIF (x right, z down) of ``agents`` (``(T, n, 3)`` positions per
    frame, NaN rows for absent agents) walking ``mesh``: the polygons shaded by height,
    lower ones first, its off-mesh links as yellow lines, the agents as discs of
    ``radius`` (world units; default: the agent radius the mesh was built for) coloured by
    ``colours`` (``(T, n, 3)`` or ``(n, 3)`` uint8; default white), the higher drawn over
    the lower, with a dark outline; ``size`` pixels wide, the mesh filling it along its
    longer side (see :func:`~wayfinding.viz.raster.gif_canvas`).  Needs Pillow."""
    target = Path(picture_path)
    if target.suffix.lower() != ".gif":
        raise InvalidQueryError(f"animations are GIF files, not {str(target)!r}")
    size, fps = count("size", size, min=32), positive_float("fps", fps)
    polys, _ = _flat(mesh)
    radius = positive_float("radius", mesh.settings.agent_radius if radius is None
                            else radius)
    pos, rgb = agent_frames(agents, colours)
    image_mod, draw_mod, _ = _pillow()
    x0, z0, w, h = _frame(polys)
    width, height, scale, dx, dy = gif_canvas(w + 8 * max(w, h) / size,
                                              h + 8 * max(w, h) / size, size)
    x0, z0 = x0 - dx / scale, z0 - dy / scale       # the mesh centred, 4 px from the edges
    base = image_mod.new("RGB", (width, height), (32, 36, 43))
    draw = draw_mod.Draw(base)
    ys = [float(p[:, 1].mean()) for p in polys]
    lo, hi = (min(ys), max(ys)) if ys else (0.0, 1.0)
    for p, y in zip(polys, ys):
        shade = (y - lo) / (hi - lo) if hi > lo else 0.0
        fill = tuple(int(a + (b - a) * shade) for a, b in ((70, 150), (80, 150), (96, 170)))
        pts = [((x - x0) * scale + 4, (z - z0) * scale + 4) for x, z in p[:, [0, 2]].tolist()]
        draw.polygon(pts, fill=fill, outline=(32, 36, 43))
    for link in mesh.links:                        # off-mesh links: a line, dots at the ends
        (ax, _, az), (bx, _, bz) = link.start, link.end
        ends = [((ax - x0) * scale + 4, (az - z0) * scale + 4),
                ((bx - x0) * scale + 4, (bz - z0) * scale + 4)]
        draw.line(ends, fill=(240, 210, 60), width=2)
        for ex, ez in ends:
            draw.ellipse((ex - 3, ez - 3, ex + 3, ez + 3), fill=(240, 210, 60))
    images = []
    rr = max(1.0, radius * scale)
    for t in range(len(pos)):
        img = base.copy()
        d = draw_mod.Draw(img)
        for i in np.argsort(pos[t, :, 1], kind="stable").tolist():
            x, _, z = pos[t, i].tolist()
            if not (math.isfinite(x) and math.isfinite(z)):
                continue
            cx, cz = (x - x0) * scale + 4, (z - z0) * scale + 4
            d.ellipse((cx - rr, cz - rr, cx + rr, cz + rr),
                      fill=tuple(int(c) for c in rgb[t, i]), outline=(20, 20, 20))
        images.append(img.convert("P", palette=image_mod.ADAPTIVE))
    return write_gif(target, images, fps)


def save_navmesh3d(picture_path: str | os.PathLike, mesh: NavMesh3D, *,
                   level: Level | None = None) -> Path:
    """Write the picture the suffix asks for: ``.svg``, ``.png`` (top down) or ``.html``
    (the 3D viewer, over ``level`` if given)."""
    path = Path(picture_path)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        return atomic_write_text(path, render_navmesh3d_svg(mesh))
    if suffix == ".png":
        return atomic_write_bytes(path, render_navmesh3d_png(mesh))
    if suffix in (".html", ".htm"):
        return atomic_write_text(path, navmesh3d_html(mesh, level=level))
    raise InvalidQueryError(f"unknown picture format {suffix!r}: .svg, .png or .html")


def _triangle_soup(verts: NDArray[np.floating], tris: NDArray[np.integer],
                   colours: NDArray[np.uint8], *, lift: float) -> list[float]:
    """Per triangle corner: x, y, z, r, g, b (0..1), flattened, normals' shading baked in."""
    if not len(tris):
        return []
    v = verts.astype(np.float64)[tris]                   # (m, 3, 3)
    n = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    light = 0.55 + 0.45 * np.abs(n @ np.array([0.3, 0.9, 0.3]) / np.linalg.norm([.3, .9, .3]))
    rgb = colours[:, :3].astype(np.float64) / 255 * light[:, None]
    v[..., 1] += lift
    rows = np.concatenate([v, np.repeat(rgb[:, None, :], 3, axis=1)], axis=2)
    return [round(x, 4) for x in rows.ravel().tolist()]


#: The viewer's scene script (see :mod:`._webgl`).
_SCENE = """function upload(list) {
  const b = gl.createBuffer(); gl.bindBuffer(gl.ARRAY_BUFFER, b);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(list), gl.STATIC_DRAW);
  return {buffer: b, count: list.length / 6};
}
const layers = [upload(DATA.level), upload(DATA.nav)];
const all = DATA.nav.length ? DATA.nav : DATA.level;
let lo = [1e30, 1e30, 1e30], hi = [-1e30, -1e30, -1e30];
for (let i = 0; i < all.length; i += 6)
  for (let j = 0; j < 3; j++) {
    lo[j] = Math.min(lo[j], all[i + j]); hi[j] = Math.max(hi[j], all[i + j]);
  }
const centre = [0, 1, 2].map(j => (lo[j] + hi[j]) / 2);
let radius = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) || 1;
function draw() {
  canvas.width = canvas.clientWidth; canvas.height = canvas.clientHeight;
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(0.125, 0.141, 0.169, 1); gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  gl.enable(gl.DEPTH_TEST);
  gl.uniformMatrix4fv(gl.getUniformLocation(prog, "m"), false, matrix());
  const p = gl.getAttribLocation(prog, "p"), c = gl.getAttribLocation(prog, "c");
  gl.uniform1f(gl.getUniformLocation(prog, "s"), 1.0);
  layers.forEach((layer, i) => {
    if (!layer.count) return;
    gl.uniform1f(gl.getUniformLocation(prog, "a"), 1.0);
    gl.bindBuffer(gl.ARRAY_BUFFER, layer.buffer);
    gl.enableVertexAttribArray(p); gl.vertexAttribPointer(p, 3, gl.FLOAT, false, 24, 0);
    gl.enableVertexAttribArray(c); gl.vertexAttribPointer(c, 3, gl.FLOAT, false, 24, 12);
    gl.drawArrays(gl.TRIANGLES, 0, layer.count);
  });
  if (DATA.agents.length) {            // the agents of the current frame, lifted a little
    const rows = DATA.agents[frame].slice();
    for (let i = 1; i < rows.length; i += 6) rows[i] += 0.4;
    gl.uniform1f(gl.getUniformLocation(prog, "s"), Math.max(4, 2400 / dist));
    gl.bindBuffer(gl.ARRAY_BUFFER, agentBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(rows), gl.DYNAMIC_DRAW);
    gl.vertexAttribPointer(p, 3, gl.FLOAT, false, 24, 0);
    gl.vertexAttribPointer(c, 3, gl.FLOAT, false, 24, 12);
    gl.drawArrays(gl.POINTS, 0, rows.length / 6);
  }
}
"""
