"""The WebGL page both 3D viewers write (:mod:`.navmesh3d` and :mod:`.voxel`): one canvas,
a shader program of coloured points, lines and triangles, an orbit camera (drag to orbit,
wheel to zoom) and agents played frame by frame.  A viewer brings its data and the scene
script that uploads it and defines ``centre``, ``radius`` and ``draw()``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InvalidQueryError, brief

#: Fragment shader: the vertex colour, opaque.
OPAQUE = "precision mediump float; varying vec3 k;\n  void main() { gl_FragColor = vec4(k, 1.0); }"
#: Fragment shader: the vertex colour with the alpha of uniform ``a``.
TRANSLUCENT = ("precision mediump float; varying vec3 k; uniform float a;\n"
               "  void main() { gl_FragColor = vec4(k, a); }")


def agent_frames(agents: ArrayLike, colours: ArrayLike | None
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Positions ``(T, n, 3)`` and colours ``(T, n, 3)`` (RGB 0..255, default white) as
    floats, checked."""
    try:
        pos = np.asarray(agents, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"agents must be (T, n, 3) positions, got "
                                f"{brief(agents)}") from None
    if pos.ndim != 3 or pos.shape[2] != 3:
        raise InvalidQueryError(f"agents must be (T, n, 3) positions, got shape {pos.shape}")
    if colours is None:
        return pos, np.full(pos.shape, 255.0)
    try:
        rgb = np.asarray(colours, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"colours {brief(colours)} must be RGB numbers 0..255") \
            from None
    good = np.isfinite(rgb) & (rgb >= 0) & (rgb <= 255)
    if not good.all():
        raise InvalidQueryError(f"colours must be finite RGB values 0..255, got "
                                f"{float(rgb[~good].ravel()[0]):g}")
    if rgb.shape == (pos.shape[1], 3):
        rgb = np.broadcast_to(rgb, pos.shape)
    if rgb.shape != pos.shape:
        raise InvalidQueryError(f"colours must be (T, n, 3) or (n, 3) like agents "
                                f"{pos.shape}, got {rgb.shape}")
    return pos, rgb


def frame_rows(pos: NDArray[np.float64], rgb: NDArray[np.float64]) -> list[list[float]]:
    """Per frame, the present agents (finite positions) as flat ``x, y, z, r, g, b`` rows,
    colours 0..1, rounded to 3 decimals."""
    frames = []
    for t in range(len(pos)):
        ok = np.isfinite(pos[t]).all(axis=1)
        rows = np.concatenate([pos[t][ok], rgb[t][ok] / 255.0], axis=1)
        frames.append([round(x, 3) for x in rows.ravel().tolist()])
    return frames


def page(title: str, data: dict[str, Any], scene: str, fragment: str = OPAQUE) -> str:
    """The self-contained HTML page: ``data`` as the script's ``DATA`` (it must hold
    ``agents``, frames of :func:`frame_rows`, and ``ms`` per frame), ``scene`` the viewer's
    script, ``fragment`` its fragment shader."""
    safe = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (_TOP.replace("__TITLE__", safe) + json.dumps(data, separators=(",", ":"))
            + _SHADERS.replace("__FRAGMENT__", fragment) + scene + _CAMERA)


_TOP = """<!doctype html>
<html><head><meta charset="utf-8"><title>__TITLE__</title>
<style>html,body{margin:0;height:100%;background:#20242b;color:#ddd;font:13px sans-serif}
canvas{width:100%;height:100%;display:block}#help{position:absolute;left:10px;top:8px}</style>
</head><body><div id="help">__TITLE__ &mdash; drag to orbit, wheel to zoom</div>
<canvas id="view"></canvas>
<script>
const DATA = """

_SHADERS = """;
const canvas = document.getElementById("view");
const gl = canvas.getContext("webgl");
const vs = `attribute vec3 p; attribute vec3 c; uniform mat4 m; uniform float s;
  varying vec3 k;
  void main() { gl_Position = m * vec4(p, 1.0); gl_PointSize = s; k = c; }`;
const fs = `__FRAGMENT__`;
function shader(type, src) {
  const s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s); return s;
}
const prog = gl.createProgram();
gl.attachShader(prog, shader(gl.VERTEX_SHADER, vs));
gl.attachShader(prog, shader(gl.FRAGMENT_SHADER, fs));
gl.linkProgram(prog); gl.useProgram(prog);
"""

_CAMERA = """let yaw = 0.8, pitch = 0.7, dist = radius * 1.6;
function matrix() {
  const aspect = canvas.width / canvas.height, f = 1 / Math.tan(0.5);
  const near = radius / 100, far = radius * 20;
  const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
  const eye = [centre[0] + dist * cp * sy, centre[1] + dist * sp, centre[2] + dist * cp * cy];
  const zf = [eye[0] - centre[0], eye[1] - centre[1], eye[2] - centre[2]];
  const zl = Math.hypot(...zf); const z = zf.map(v => v / zl);
  let x = [z[2], 0, -z[0]]; const xl = Math.hypot(...x) || 1; x = x.map(v => v / xl);
  const y = [z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const view = [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
                -dot(x, eye), -dot(y, eye), -dot(z, eye), 1];
  const proj = [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1,
                0, 0, 2 * far * near / (near - far), 0];
  const out = new Array(16).fill(0);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) for (let k = 0; k < 4; k++)
    out[j * 4 + i] += proj[k * 4 + i] * view[j * 4 + k];
  return out;
}
let frame = 0;
const agentBuffer = gl.createBuffer();
if (DATA.agents.length)
  setInterval(() => { frame = (frame + 1) % DATA.agents.length; draw(); }, DATA.ms);
let drag = null;
canvas.onmousedown = e => { drag = [e.clientX, e.clientY]; };
window.onmouseup = () => { drag = null; };
window.onmousemove = e => {
  if (!drag) return;
  yaw -= (e.clientX - drag[0]) * 0.01;
  pitch = Math.max(-1.5, Math.min(1.5, pitch + (e.clientY - drag[1]) * 0.01));
  drag = [e.clientX, e.clientY]; draw();
};
canvas.onwheel = e => { e.preventDefault(); dist *= Math.exp(e.deltaY * 0.001); draw(); };
window.onresize = draw;
draw();
</script></body></html>
"""
