// The wayfinding playground: draws worlds, sends them to the playground API and animates the
// answers.  Every path, mesh, field and crowd step is computed by the library on the server.
"use strict";

(function () {
  const API = "/playground/api/";
  const css = getComputedStyle(document.documentElement);
  const colour = (name) => css.getPropertyValue("--" + name).trim();

  // The state the page shows, readable by tests.
  const state = window.playground = {
    ready: false, pending: 0, errors: [], view: "grid",
    grid: { runs: 0, result: null, frame: 0, width: 48, height: 32, cell: 16 },
    navmesh: { runs: 0, result: null, width: 40, height: 25, scale: 20 },
    flow: { runs: 0, result: null, width: 40, height: 25, cell: 20 },
    crowd: { runs: 0, frames: null, frame: 0, agents: [], width: 30, height: 20, scale: 25 },
  };

  function setStatus(text, isError) {
    const el = document.getElementById("status");
    el.textContent = text;
    el.className = isError ? "error" : "";
  }

  // POST ``body`` to the API route ``route``; the JSON answer, or null after a 4xx (shown).
  async function post(route, body) {
    state.pending += 1;
    try {
      const response = await fetch(API + route, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await response.json();
      if (!response.ok) {
        state.errors.push(data);
        setStatus(route + ": " + data.error + ": " + data.detail, true);
        return null;
      }
      setStatus(route + ": done");
      return data;
    } finally {
      state.pending -= 1;
    }
  }

  // One request at a time per view: a change while one runs sends the latest state after it.
  function debounced(run) {
    let running = false, again = false;
    return async function go() {
      if (running) { again = true; return; }
      running = true;
      try { await run(); } finally { running = false; }
      if (again) { again = false; go(); }
    };
  }

  // Canvas position of a pointer event, in canvas pixels.
  function canvasPoint(canvas, event) {
    const r = canvas.getBoundingClientRect();
    return [(event.clientX - r.left) * canvas.width / r.width,
            (event.clientY - r.top) * canvas.height / r.height];
  }

  function dot(ctx, x, y, radius, fill) {
    ctx.beginPath();
    ctx.arc(x, y, radius, 0, 2 * Math.PI);
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = "#fff";
    ctx.stroke();
  }

  function polyline(ctx, points, sx, sy, offset, width, stroke) {
    if (!points || points.length < 2) return;
    ctx.beginPath();
    points.forEach(([x, y], i) => {
      const px = (x + offset) * sx, py = (y + offset) * sy;
      if (i === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
    });
    ctx.lineWidth = width;
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    ctx.strokeStyle = stroke;
    ctx.stroke();
  }

  const fmt = (v, digits) => (v === null || v === undefined ? "–" : Number(v).toFixed(digits));
  const ms = (seconds) => (seconds * 1000).toFixed(2) + " ms";

  // ---------------------------------------------------------------- cell worlds (grid, flow)
  // A painted grid: ``cells`` one character per cell ('#' wall, '.' free, '2'..'9' weight).
  function cellWorld(view, canvas, onChange, markers) {
    const g = state[view];
    g.cells = new Array(g.width * g.height).fill(".");
    let drag = null;
    const cellAt = (event) => {
      const [px, py] = canvasPoint(canvas, event);
      return [Math.min(g.width - 1, Math.max(0, Math.floor(px / g.cell))),
              Math.min(g.height - 1, Math.max(0, Math.floor(py / g.cell)))];
    };
    const paint = ([x, y], brush) => {
      if (markers.some((m) => g[m][0] === x && g[m][1] === y)) return;
      const value = brush.kind === "wall" ? "#" : brush.kind === "weight" ? String(brush.weight) : ".";
      g.cells[y * g.width + x] = value;
    };
    canvas.addEventListener("pointerdown", (event) => {
      const at = cellAt(event);
      const marker = markers.find((m) => g[m][0] === at[0] && g[m][1] === at[1]);
      const brush = g.brush(event);
      canvas.setPointerCapture(event.pointerId);
      if (marker) drag = { marker };
      else if (brush.kind === "start" || brush.kind === "goal") {
        if (g.cells[at[1] * g.width + at[0]] !== "#") { g[brush.kind] = at; onChange(); }
        return;
      } else { drag = { brush }; paint(at, brush); onChange(true); }
    });
    canvas.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const at = cellAt(event);
      if (drag.marker) {
        if (g.cells[at[1] * g.width + at[0]] !== "#") { g[drag.marker] = at; onChange(true); }
      } else { paint(at, drag.brush); onChange(true); }
    });
    const end = () => { if (drag) { drag = null; onChange(); } };
    canvas.addEventListener("pointerup", end);
    canvas.addEventListener("pointercancel", end);
  }

  function drawCells(ctx, g) {
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
    for (let y = 0; y < g.height; y++) {
      for (let x = 0; x < g.width; x++) {
        const c = g.cells[y * g.width + x];
        if (c === "#") ctx.fillStyle = colour("wall");
        else if (c !== "." && c !== "1") {
          ctx.fillStyle = `rgba(183, 121, 31, ${0.15 + 0.08 * Number(c)})`;
        } else continue;
        ctx.fillRect(x * g.cell, y * g.cell, g.cell, g.cell);
      }
    }
  }

  function gridLines(ctx, g) {
    ctx.strokeStyle = "rgba(0, 0, 0, 0.06)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let x = 0; x <= g.width; x++) { ctx.moveTo(x * g.cell + 0.5, 0); ctx.lineTo(x * g.cell + 0.5, g.height * g.cell); }
    for (let y = 0; y <= g.height; y++) { ctx.moveTo(0, y * g.cell + 0.5); ctx.lineTo(g.width * g.cell, y * g.cell + 0.5); }
    ctx.stroke();
  }

  // ---------------------------------------------------------------- grid search
  function gridView() {
    const g = state.grid;
    const canvas = document.getElementById("grid-canvas");
    const ctx = canvas.getContext("2d");
    const $ = (id) => document.getElementById(id);
    g.start = [3, 16];
    g.goal = [44, 16];
    let timer = null;

    g.brush = (event) => {
      if (event.altKey) return { kind: "erase" };
      if (event.shiftKey) return { kind: "weight", weight: Number($("grid-weight").value) };
      return { kind: $("grid-brush").value, weight: Number($("grid-weight").value) };
    };

    const slices = () => (g.result ? g.result.slices.length : 0);

    function draw() {
      drawCells(ctx, g);
      const r = g.result, n = slices(), k = g.frame;
      if (r && k > 0) {
        const counts = r.slices[k - 1];
        const shown = r.expanded_nodes ? Math.min(counts.expanded, r.expanded_nodes.length) : 0;
        ctx.globalAlpha = 0.75;               // weighted cells show through
        ctx.fillStyle = colour("expanded");
        for (let i = 0; i < shown; i++) {
          const [x, y] = r.expanded_nodes[i];
          ctx.fillRect(x * g.cell + 1, y * g.cell + 1, g.cell - 2, g.cell - 2);
        }
        if (k === n && r.open_nodes) {
          ctx.fillStyle = colour("open");
          for (const [x, y] of r.open_nodes) ctx.fillRect(x * g.cell + 1, y * g.cell + 1, g.cell - 2, g.cell - 2);
        }
        ctx.globalAlpha = 1;
        if (k === n && r.found) {
          polyline(ctx, r.path, g.cell, g.cell, r.polyline ? 0 : 0.5, 3, colour("path"));
        }
      }
      gridLines(ctx, g);
      dot(ctx, (g.start[0] + 0.5) * g.cell, (g.start[1] + 0.5) * g.cell, g.cell * 0.42, colour("start"));
      dot(ctx, (g.goal[0] + 0.5) * g.cell, (g.goal[1] + 0.5) * g.cell, g.cell * 0.42, colour("goal"));
      const counts = r && k > 0 ? r.slices[k - 1] : { expanded: 0, generated: 0, elapsed: 0 };
      $("grid-slice-count").textContent = `${k} / ${n}`;
      $("grid-expanded").textContent = counts.expanded;
      $("grid-generated").textContent = counts.generated;
      const done = r && k === n;
      $("grid-cost").textContent = done ? (r.found ? fmt(r.cost, 3) : "no path") : "–";
      $("grid-length").textContent = done && r.found ? r.path.length : "–";
      $("grid-time").textContent = r && k > 0 ? ms(counts.elapsed + (done ? r.build_time : 0)) : "–";
    }

    function stop() { if (timer !== null) { clearInterval(timer); timer = null; } }

    // Disable the methods the library refuses on this grid; true when the chosen one runs.
    function methodsFor() {
      const diagonal = $("grid-diagonal").value;
      const weighted = g.cells.some((c) => c !== "." && c !== "#" && c !== "1");
      for (const option of $("grid-method").options) {
        const m = state.methodInfo[option.value];
        option.disabled = !m.diagonals.includes(diagonal) || (weighted && !m.weighted);
        option.title = m.description + (option.disabled ? " (not on this grid: "
          + (m.diagonals.includes(diagonal) ? "needs uniform costs" : "takes " + m.diagonals.join(", ")) + ")" : "");
      }
      const chosen = $("grid-method").selectedOptions[0];
      if (chosen.disabled) setStatus(chosen.value + " does not run on this grid: " + chosen.title, true);
      return !chosen.disabled;
    }

    const run = debounced(async () => {
      if (!state.methodInfo) return;      // the method list is still loading
      if (!methodsFor()) { stop(); g.result = null; g.frame = 0; draw(); return; }
      const body = {
        width: g.width, height: g.height, cells: g.cells.join(""), start: g.start, goal: g.goal,
        method: $("grid-method").value, diagonal: $("grid-diagonal").value,
        slice: Math.max(1, Number($("grid-slice").value) || 1),
      };
      const result = await post("grid", body);
      if (result) {
        stop();
        g.result = result;
        g.frame = result.slices.length;
        g.runs += 1;
      }
      draw();
    });

    cellWorld("grid", canvas, (moving) => { if (moving) { g.result = null; g.frame = 0; draw(); } else run(); },
              ["start", "goal"]);
    $("grid-method").addEventListener("change", run);
    $("grid-diagonal").addEventListener("change", run);
    $("grid-slice").addEventListener("change", run);
    $("grid-weight").addEventListener("input", () => { $("grid-weight-value").textContent = $("grid-weight").value; });
    $("grid-play").addEventListener("click", () => {
      stop();
      if (!g.result) return;
      g.frame = 0;
      draw();
      timer = setInterval(() => {
        if (g.frame >= slices()) { stop(); return; }
        g.frame += 1;
        draw();
      }, 60);
    });
    $("grid-step").addEventListener("click", () => { stop(); if (g.frame < slices()) { g.frame += 1; draw(); } });
    $("grid-reset").addEventListener("click", () => { stop(); g.frame = 0; draw(); });
    $("grid-clear").addEventListener("click", () => { g.cells.fill("."); run(); });

    // A starting map: two walls with gaps and a weighted marsh.
    for (let y = 4; y < 28; y++) { if (y !== 8) g.cells[y * g.width + 16] = "#"; }
    for (let y = 0; y < 24; y++) { if (y !== 20) g.cells[y * g.width + 30] = "#"; }
    for (let y = 10; y < 24; y++) for (let x = 20; x < 26; x++) g.cells[y * g.width + x] = "6";
    draw();
    return run;
  }

  // ---------------------------------------------------------------- navmesh
  function navmeshView() {
    const n = state.navmesh;
    const canvas = document.getElementById("nav-canvas");
    const ctx = canvas.getContext("2d");
    const $ = (id) => document.getElementById(id);
    const s = n.scale;
    n.obstacles = [
      [[8, 4], [14, 4], [14, 16], [8, 16]],
      [[20, 9], [26, 6], [29, 13], [23, 21]],
      [[32, 14], [37, 14], [37, 22], [32, 22]],
    ];
    n.draft = [];
    n.start = [3, 12];
    n.goal = [37, 4];
    let drag = null;

    function draw() {
      ctx.fillStyle = "#eef1f4";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      const r = n.result;
      const poly = (points) => {
        ctx.beginPath();
        points.forEach(([x, y], i) => (i ? ctx.lineTo(x * s, y * s) : ctx.moveTo(x * s, y * s)));
        ctx.closePath();
      };
      if (r) {
        const corridor = new Set(r.corridor);
        r.polygons.forEach((p, i) => {
          poly(p);
          ctx.fillStyle = corridor.has(i) ? colour("corridor") : colour("mesh");
          ctx.fill();
          ctx.strokeStyle = "#93a8bd";
          ctx.lineWidth = 1;
          ctx.stroke();
        });
        ctx.strokeStyle = colour("portal");
        ctx.lineWidth = 2;
        for (const [[ax, ay], [bx, by]] of r.portals) {
          ctx.beginPath(); ctx.moveTo(ax * s, ay * s); ctx.lineTo(bx * s, by * s); ctx.stroke();
        }
      }
      for (const o of n.obstacles) {
        poly(o);
        ctx.fillStyle = "#4b5563";
        ctx.fill();
        for (const [x, y] of o) { ctx.fillStyle = "#111827"; ctx.fillRect(x * s - 3, y * s - 3, 6, 6); }
      }
      if (n.draft.length) {
        polyline(ctx, n.draft, s, s, 0, 2, "#111827");
        for (const [x, y] of n.draft) dot(ctx, x * s, y * s, 4, "#111827");
      }
      if (r && r.found) polyline(ctx, r.path, s, s, 0, 3, colour("path"));
      dot(ctx, n.start[0] * s, n.start[1] * s, 7, colour("start"));
      dot(ctx, n.goal[0] * s, n.goal[1] * s, 7, colour("goal"));
      $("nav-obstacles").textContent = n.obstacles.length;
      $("nav-polygons").textContent = r ? r.polygons.length : 0;
      $("nav-corridor").textContent = r ? r.corridor.length : 0;
      $("nav-cost").textContent = r ? (r.found ? fmt(r.cost, 3) : "no path") : "–";
      $("nav-corners").textContent = r && r.found ? r.path.length : "–";
      $("nav-time").textContent = r ? ms(r.build_time) : "–";
    }

    const run = debounced(async () => {
      const result = await post("navmesh", {
        width: n.width, height: n.height, obstacles: n.obstacles, radius: Number($("nav-radius").value),
        start: n.start, goal: n.goal,
      });
      if (result) { n.result = result; n.runs += 1; }
      draw();
    });

    const worldAt = (event) => {
      const [px, py] = canvasPoint(canvas, event);
      // kept off the edge: an obstacle touching it would not leave a valid walkable area
      return [Math.min(n.width - 0.1, Math.max(0.1, px / s)), Math.min(n.height - 0.1, Math.max(0.1, py / s))];
    };
    const near = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]) * s < 9;
    canvas.addEventListener("pointerdown", (event) => {
      const at = worldAt(event);
      canvas.setPointerCapture(event.pointerId);
      if (near(at, n.start)) { drag = { marker: "start" }; return; }
      if (near(at, n.goal)) { drag = { marker: "goal" }; return; }
      for (const o of n.obstacles) {
        const k = o.findIndex((v) => near(at, v));
        if (k >= 0) { drag = { obstacle: o, k }; return; }
      }
      if (n.draft.length >= 3 && near(at, n.draft[0])) { closeDraft(); return; }
      n.draft.push(at.map((v) => Math.round(v * 10) / 10));
      draw();
    });
    canvas.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const at = worldAt(event);
      if (drag.marker) n[drag.marker] = at; else drag.obstacle[drag.k] = at;
      draw();
      run();
    });
    const end = () => { if (drag) { drag = null; run(); } };
    canvas.addEventListener("pointerup", end);
    canvas.addEventListener("pointercancel", end);

    function closeDraft() {
      if (n.draft.length >= 3) { n.obstacles.push(n.draft); run(); }
      n.draft = [];
      draw();
    }
    $("nav-close").addEventListener("click", closeDraft);
    $("nav-cancel").addEventListener("click", () => { n.draft = []; draw(); });
    $("nav-clear").addEventListener("click", () => { n.obstacles = []; n.draft = []; run(); });
    $("nav-radius").addEventListener("input", () => { $("nav-radius-value").textContent = $("nav-radius").value; run(); });
    draw();
    return run;
  }

  // ---------------------------------------------------------------- flow field
  function flowView() {
    const f = state.flow;
    const canvas = document.getElementById("flow-canvas");
    const ctx = canvas.getContext("2d");
    const $ = (id) => document.getElementById(id);
    f.goal = [34, 6];
    f.brush = (event) => ({ kind: event.altKey ? "erase" : "wall" });
    const ramp = ["#fff7bc", "#fec44f", "#ec7014", "#993404", "#4a1486"];
    const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const stops = ramp.map(rgb);
    const heat = (t) => {
      const u = Math.min(0.9999, Math.max(0, t)) * (stops.length - 1), i = Math.floor(u), w = u - i;
      const c = stops[i].map((v, j) => Math.round(v + (stops[i + 1][j] - v) * w));
      return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
    };

    function draw() {
      drawCells(ctx, f);
      const r = f.result;
      let reachable = 0, max = 0;
      if (r) {
        for (const row of r.field) for (const v of row) if (v !== null) { reachable += 1; max = Math.max(max, v); }
        if ($("flow-heat").checked) {
          r.field.forEach((row, y) => row.forEach((v, x) => {
            if (v === null) return;
            ctx.fillStyle = heat(max > 0 ? v / max : 0);
            ctx.fillRect(x * f.cell, y * f.cell, f.cell, f.cell);
          }));
        }
        if ($("flow-arrows").checked) {
          ctx.strokeStyle = "#1f2933";
          ctx.fillStyle = "#1f2933";
          ctx.lineWidth = 1.2;
          const h = f.cell * 0.36;
          r.vectors.forEach((row, y) => row.forEach(([dx, dy], x) => {
            if (dx === 0 && dy === 0) return;
            const cx = (x + 0.5) * f.cell, cy = (y + 0.5) * f.cell;
            const tx = cx + dx * h, ty = cy + dy * h;
            ctx.beginPath(); ctx.moveTo(cx - dx * h, cy - dy * h); ctx.lineTo(tx, ty); ctx.stroke();
            ctx.beginPath();
            ctx.moveTo(tx, ty);
            ctx.lineTo(tx - dx * 4 - dy * 3, ty - dy * 4 + dx * 3);
            ctx.lineTo(tx - dx * 4 + dy * 3, ty - dy * 4 - dx * 3);
            ctx.closePath();
            ctx.fill();
          }));
        }
      }
      gridLines(ctx, f);
      dot(ctx, (f.goal[0] + 0.5) * f.cell, (f.goal[1] + 0.5) * f.cell, f.cell * 0.42, colour("goal"));
      $("flow-reachable").textContent = reachable;
      $("flow-max").textContent = r ? fmt(max, 2) : "–";
      $("flow-ramp-max").textContent = r ? fmt(max, 1) : "max";
      $("flow-time").textContent = r ? ms(r.elapsed) : "–";
    }

    const run = debounced(async () => {
      const result = await post("flow", {
        width: f.width, height: f.height, cells: f.cells.join(""), goal: f.goal, method: $("flow-method").value,
      });
      if (result) { f.result = result; f.runs += 1; }
      draw();
    });
    cellWorld("flow", canvas, (moving) => { if (moving) draw(); else run(); }, ["goal"]);
    for (let x = 6; x < 30; x++) f.cells[12 * f.width + x] = "#";
    for (let y = 2; y < 20; y++) f.cells[y * f.width + 24] = y === 9 ? "." : "#";
    $("flow-method").addEventListener("change", run);
    $("flow-arrows").addEventListener("change", draw);
    $("flow-heat").addEventListener("change", draw);
    $("flow-clear").addEventListener("click", () => { f.cells.fill("."); run(); });
    draw();
    return run;
  }

  // ---------------------------------------------------------------- crowd
  function crowdView() {
    const c = state.crowd;
    const canvas = document.getElementById("crowd-canvas");
    const ctx = canvas.getContext("2d");
    const $ = (id) => document.getElementById(id);
    const s = c.scale;
    // Four blocks round a crossroads.
    c.obstacles = [[[2, 1], [8, 1], [8, 4], [2, 4]], [[22, 1], [28, 1], [28, 4], [22, 4]],
                   [[2, 16], [8, 16], [8, 19], [2, 19]], [[22, 16], [28, 16], [28, 19], [22, 19]]];
    let timer = null;

    function positions() {
      return c.frames && c.frame > 0 ? c.frames[c.frame - 1] : c.agents.map((a) => a.position);
    }

    function draw() {
      ctx.fillStyle = "#f4f6f8";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.fillStyle = "#4b5563";
      for (const o of c.obstacles) {
        ctx.beginPath();
        o.forEach(([x, y], i) => (i ? ctx.lineTo(x * s, y * s) : ctx.moveTo(x * s, y * s)));
        ctx.closePath();
        ctx.fill();
      }
      ctx.strokeStyle = colour("goal");
      ctx.lineWidth = 1.5;
      for (const a of c.agents) {
        const [gx, gy] = a.goal;
        ctx.beginPath();
        ctx.moveTo(gx * s - 3, gy * s - 3); ctx.lineTo(gx * s + 3, gy * s + 3);
        ctx.moveTo(gx * s + 3, gy * s - 3); ctx.lineTo(gx * s - 3, gy * s + 3);
        ctx.stroke();
      }
      positions().forEach(([x, y], i) => {
        ctx.beginPath();
        ctx.arc(x * s, y * s, c.agents[i].radius * s, 0, 2 * Math.PI);
        ctx.fillStyle = c.agents[i].group ? colour("agent-b") : colour("agent-a");
        ctx.fill();
      });
      const total = c.frames ? c.frames.length : 0;
      $("crowd-agents").textContent = c.agents.length;
      $("crowd-frame").textContent = `${c.frame} / ${total}`;
      $("crowd-seconds").textContent = (c.frame * (c.dt || 0)).toFixed(1) + " s";
      $("crowd-time").textContent = c.elapsed === undefined ? "–" : ms(c.elapsed);
    }

    function stop() { if (timer !== null) { clearInterval(timer); timer = null; } }

    function spawn(agents) {
      stop();
      c.agents = agents;
      c.frames = null;
      c.frame = 0;
      c.elapsed = undefined;
      draw();
    }

    const count = () => Math.max(1, Math.min(100, Number($("crowd-count").value) || 1));
    $("crowd-crossing").addEventListener("click", () => {
      const k = count(), agents = [];
      for (let i = 0; i < k; i++) {
        const row = 5.5 + (9 * (i + 0.5)) / k, column = 10.5 + (9 * (i + 0.5)) / k, jitter = (i % 2) * 0.8;
        agents.push({ position: [0.8 + jitter, row], goal: [29.2 - jitter, row], radius: 0.3, group: 0 });
        agents.push({ position: [column, 0.8 + jitter], goal: [column, 19.2 - jitter], radius: 0.3, group: 1 });
      }
      spawn(agents);
    });
    $("crowd-circle").addEventListener("click", () => {
      const k = 2 * count(), agents = [];
      for (let i = 0; i < k; i++) {
        // a little off a perfect circle: symmetric agents would stand still in the middle
        const a = (2 * Math.PI * (i + 0.15 * Math.sin(1.7 * i))) / k, cx = 15, cy = 10, r = 8.5 + 0.3 * Math.sin(2.3 * i);
        agents.push({ position: [cx + r * Math.cos(a), cy + r * Math.sin(a)],
                      goal: [cx - r * Math.cos(a), cy - r * Math.sin(a)], radius: 0.3, group: i % 2 });
      }
      spawn(agents);
    });
    $("crowd-stop").addEventListener("click", stop);
    $("crowd-play").addEventListener("click", async () => {
      stop();
      if (!c.agents.length) return;
      const result = await post("crowd", {
        width: c.width, height: c.height, obstacles: c.obstacles, frames: 300, dt: 0.1,
        agents: c.agents.map((a) => ({ position: a.position, goal: a.goal, radius: a.radius })),
      });
      if (!result) return;
      c.frames = result.frames;
      c.dt = result.dt;
      c.elapsed = result.elapsed;
      c.frame = 0;
      c.runs += 1;
      timer = setInterval(() => {
        if (c.frame >= c.frames.length) { stop(); return; }
        c.frame += 1;
        draw();
      }, 33);
    });
    draw();
  }

  // ---------------------------------------------------------------- tabs and start-up
  async function start() {
    const runGrid = gridView();
    const runNav = navmeshView();
    const runFlow = flowView();
    crowdView();
    const shown = { grid: true };
    const runs = { navmesh: runNav, flow: runFlow };
    document.querySelectorAll("#tabs button").forEach((button) => {
      button.addEventListener("click", () => {
        const view = button.dataset.view;
        state.view = view;
        document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b === button));
        document.querySelectorAll(".view").forEach((v) => v.classList.toggle("active", v.id === "view-" + view));
        if (!shown[view] && runs[view]) { shown[view] = true; runs[view](); }
      });
    });
    const response = await fetch(API + "methods");
    const info = await response.json();
    state.methods = info.methods.map((m) => m.name);
    state.methodInfo = Object.fromEntries(info.methods.map((m) => [m.name, m]));
    const select = document.getElementById("grid-method");
    for (const m of info.methods) {
      const option = document.createElement("option");
      option.value = m.name;
      option.textContent = m.name + (m.sliced ? "" : " (whole)");
      option.title = m.description;
      select.appendChild(option);
    }
    const diagonal = document.getElementById("grid-diagonal");
    for (const d of info.diagonals) {
      const option = document.createElement("option");
      option.value = option.textContent = d;
      diagonal.appendChild(option);
    }
    diagonal.value = "no_corner_cutting";
    await runGrid();
    state.ready = true;
  }

  start();
})();
