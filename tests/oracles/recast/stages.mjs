// Recast stage oracle: runs the real Recast (WASM build in @recast-navigation/core)
// one low-level call at a time, in the order of RecastDemo's Sample_SoloMesh, and
// writes what every stage produced.
//
//   node stages.mjs INPUT.json OUTPUT.json [--counts-only]
//   node stages.mjs --obj LEVEL.obj --defaults OUTPUT.json [--counts-only] [--partition P]
//   node stages.mjs --obj LEVEL.obj --settings SETTINGS.json OUTPUT.json
//
// See README.md for the input and output formats.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as R from '@recast-navigation/core';
import { readObj, demoDefaults } from './obj_to_input.mjs';

const PKG_VERSION = JSON.parse(
  readFileSync(new URL('./node_modules/@recast-navigation/core/package.json', import.meta.url), 'utf8'),
).version;

const USAGE = `usage:
  node stages.mjs INPUT.json OUTPUT.json [--counts-only]
  node stages.mjs --obj LEVEL.obj (--defaults | --settings SETTINGS.json) OUTPUT.json [--counts-only] [--partition watershed|monotone|layers]
options:
  --counts-only   write counts and timings only, no stage arrays
  --repeat N      build N times in one process (extra runs are counts-only); adds "ms_min",
                  the fastest time of each stage over the N runs (WASM warmed up)`;

function parseArgs(argv) {
  const a = { positional: [], countsOnly: false, obj: null, defaults: false, settings: null, partition: null, repeat: 1 };
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i];
    if (t === '--counts-only') a.countsOnly = true;
    else if (t === '--defaults') a.defaults = true;
    else if (t === '--obj') a.obj = argv[++i];
    else if (t === '--settings') a.settings = argv[++i];
    else if (t === '--partition') a.partition = argv[++i];
    else if (t === '--repeat') a.repeat = Math.max(1, parseInt(argv[++i], 10) || 1);
    else if (t === '-h' || t === '--help') { console.log(USAGE); process.exit(0); }
    else if (t.startsWith('--')) throw new Error(`unknown option ${t}\n${USAGE}`);
    else a.positional.push(t);
  }
  return a;
}

const REQUIRED = [
  'cs', 'ch', 'walkable_slope_angle', 'walkable_height', 'walkable_climb', 'walkable_radius',
  'max_edge_len', 'max_simplification_error', 'min_region_area', 'merge_region_area',
  'max_verts_per_poly', 'detail_sample_dist', 'detail_sample_max_error',
];

function resolveSettings(s) {
  const missing = REQUIRED.filter((k) => s[k] === undefined);
  if (missing.length) throw new Error(`settings missing: ${missing.join(', ')}`);
  const out = {
    partition: 'watershed',
    filter_low_hanging_obstacles: true,
    filter_ledge_spans: true,
    filter_walkable_low_height_spans: true,
    border_size: 0,
    tile_size: 0,
    ...s,
  };
  if (!['watershed', 'monotone', 'layers'].includes(out.partition)) {
    throw new Error(`partition must be watershed, monotone or layers, not ${out.partition}`);
  }
  for (const k of ['walkable_height', 'walkable_climb', 'walkable_radius', 'max_edge_len',
    'min_region_area', 'merge_region_area', 'max_verts_per_poly', 'border_size', 'tile_size']) {
    if (!Number.isInteger(out[k])) throw new Error(`setting ${k} must be an integer (voxels), got ${out[k]}`);
  }
  return out;
}

// ---- reading Recast's structures back (through the WebIDL accessors) ----

function readHeightfield(hf, withAreasOnly) {
  const raw = hf.raw;
  const w = raw.width, h = raw.height;
  const columns = [];
  const areas = [];
  let count = 0, walkable = 0;
  for (let z = 0; z < h; z++) {
    for (let x = 0; x < w; x++) {
      let s = raw.get_spans(x + z * w);
      if (R.Raw.isNull(s)) continue;
      const list = [];
      while (!R.Raw.isNull(s)) {
        const area = s.area;
        count++;
        if (area !== 0) walkable++;
        if (withAreasOnly) areas.push(area);
        else list.push([s.smin, s.smax, area]);
        s = s.next;
      }
      if (!withAreasOnly) columns.push([x, z, list]);
    }
  }
  return { count, walkable, columns, areas };
}

function readCompact(chf, haveDist) {
  const raw = chf.raw;
  const ncells = raw.width * raw.height;
  const n = raw.spanCount;
  const cells = new Array(ncells * 2);
  for (let i = 0; i < ncells; i++) {
    const c = raw.get_cells(i);
    cells[2 * i] = c.index;
    cells[2 * i + 1] = c.count;
  }
  const y = new Array(n), hh = new Array(n), reg = new Array(n), con = new Array(n), area = new Array(n);
  const dist = haveDist ? new Array(n) : null;
  for (let i = 0; i < n; i++) {
    const s = raw.get_spans(i);
    y[i] = s.y; hh[i] = s.h; reg[i] = s.reg; con[i] = s.con;
    area[i] = raw.get_areas(i);
    if (haveDist) dist[i] = raw.get_dist(i);
  }
  return { cells, spans: { y, h: hh, reg, area, dist, con } };
}

function readCompactAreas(chf) {
  const raw = chf.raw;
  const n = raw.spanCount;
  const area = new Array(n);
  for (let i = 0; i < n; i++) area[i] = raw.get_areas(i);
  return area;
}

function readContours(cset) {
  const raw = cset.raw;
  const conts = [];
  for (let c = 0; c < raw.nconts; c++) {
    const ct = raw.get_conts(c);
    const nv = ct.nverts, nr = ct.nrverts;
    const verts = new Array(nv * 4), rverts = new Array(nr * 4);
    for (let i = 0; i < nv * 4; i++) verts[i] = ct.get_verts(i);
    for (let i = 0; i < nr * 4; i++) rverts[i] = ct.get_rverts(i);
    conts.push({ reg: ct.reg, area: ct.area, nverts: nv, nrverts: nr, verts, rverts });
  }
  return conts;
}

function vec3(get) { return [get(0), get(1), get(2)]; }

function readPolyMesh(pm) {
  const raw = pm.raw;
  const nv = raw.nverts, np = raw.npolys, nvp = raw.nvp;
  const verts = new Array(nv * 3), polys = new Array(np * nvp * 2);
  const regs = new Array(np), areas = new Array(np), flags = new Array(np);
  for (let i = 0; i < nv * 3; i++) verts[i] = raw.get_verts(i);
  for (let i = 0; i < np * nvp * 2; i++) polys[i] = raw.get_polys(i);
  for (let i = 0; i < np; i++) {
    regs[i] = raw.get_regs(i); areas[i] = raw.get_areas(i); flags[i] = raw.get_flags(i);
  }
  return { verts, polys, regs, areas, flags };
}

function readDetail(dm) {
  const raw = dm.raw;
  const nm = raw.nmeshes, nv = raw.nverts, nt = raw.ntris;
  const meshes = new Array(nm * 4), verts = new Array(nv * 3), tris = new Array(nt * 4);
  for (let i = 0; i < nm * 4; i++) meshes[i] = raw.get_meshes(i);
  for (let i = 0; i < nv * 3; i++) verts[i] = raw.get_verts(i);
  for (let i = 0; i < nt * 4; i++) tris[i] = raw.get_tris(i);
  return { meshes, verts, tris };
}

// ---- the build ----

// Convex volumes, marked after erosion as RecastDemo marks them (rcMarkConvexPolyArea on
// each in turn); each call is timed as a stage when runStages passes its timer.
export function markVolumes(volumes, chf, ctx, stage = (name, fn) => fn()) {
  for (const v of volumes || []) {
    const pts = new R.FloatArray();
    pts.copy(v.polygon.flatMap(([x, z]) => [x, 0, z]));
    stage('mark_convex_poly_area', () => R.markConvexPolyArea(ctx, pts, v.polygon.length,
      v.ymin, v.ymax, v.area, chf));
    pts.destroy();
  }
}

export async function runStages(input, { countsOnly = false } = {}) {
  await R.init();
  const S = resolveSettings(input.settings || {});
  const nverts = input.vertices.length, ntris = input.triangles.length;
  const ms = {};
  let extractMs = 0;
  const out = {
    oracle: { package: '@recast-navigation/core', version: PKG_VERSION },
    input: { nverts, ntris, areas_given: Array.isArray(input.areas) },
  };
  // time one stage; throws if the Recast call reports failure
  const stage = (name, fn) => {
    const t0 = performance.now();
    const r = fn();
    ms[name] = (ms[name] || 0) + (performance.now() - t0);
    if (r === false) throw new Error(`Recast stage ${name} failed: ${JSON.stringify(ctx.logs)}`);
    return r;
  };
  const extract = (fn) => {
    if (countsOnly) return undefined;
    const t0 = performance.now();
    const r = fn();
    extractMs += performance.now() - t0;
    return r;
  };

  const ctx = new R.RecastBuildContext(false);
  ctx.raw.enableLog(true); // warnings and errors only; timers stay off

  const wallStart = performance.now();
  // inputs into WASM memory (float32 vertices, int32 triangles, uint8 areas)
  const verts = new R.FloatArray();
  const tris = new R.IntArray();
  const areas = new R.UnsignedCharArray();
  stage('upload_input', () => {
    verts.copy(input.vertices.flat());
    tris.copy(input.triangles.flat());
    if (Array.isArray(input.areas)) {
      if (input.areas.length !== ntris) throw new Error('areas must have one entry per triangle');
      areas.copy(input.areas);
    } else {
      areas.copy(new Uint8Array(ntris)); // zeroed, as RecastDemo does before marking
    }
  });

  // bounds and grid size (rcCalcBounds / rcCalcGridSize)
  let bmin, bmax, width, height;
  stage('calc_grid', () => {
    if (S.bmin && S.bmax) {
      bmin = S.bmin.map(Math.fround); bmax = S.bmax.map(Math.fround);
    } else {
      const b = R.calcBounds(verts, nverts);
      bmin = vec3((i) => b.get_bmin(i)); bmax = vec3((i) => b.get_bmax(i));
    }
    if (S.border_size > 0) {
      // as Sample_TileMesh: widen the box by the border on x and z
      const d = Math.fround(S.border_size * Math.fround(S.cs));
      bmin = [Math.fround(bmin[0] - d), bmin[1], Math.fround(bmin[2] - d)];
      bmax = [Math.fround(bmax[0] + d), bmax[1], Math.fround(bmax[2] + d)];
    }
    if (S.tile_size > 0) {
      width = height = S.tile_size + 2 * S.border_size;
    } else {
      const g = R.calcGridSize(bmin, bmax, S.cs);
      width = g.width; height = g.height;
    }
  });
  out.settings = { ...S, bmin, bmax, width, height };

  const hf = R.allocHeightfield();
  stage('create_heightfield', () => R.createHeightfield(ctx, hf, width, height, bmin, bmax, S.cs, S.ch));
  if (!Array.isArray(input.areas)) {
    stage('mark_walkable_triangles', () => {
      R.markWalkableTriangles(ctx, S.walkable_slope_angle, verts, nverts, tris, ntris, areas);
    });
  } else {
    // given areas keep their ids where the slope is walkable (rcClearUnwalkableTriangles)
    stage('mark_walkable_triangles', () => {
      R.clearUnwalkableTriangles(ctx, S.walkable_slope_angle, verts, nverts, tris, ntris, areas);
    });
  }
  // RecastDemo passes walkableClimb as the flag-merge threshold
  stage('rasterize_triangles', () => R.rasterizeTriangles(ctx, verts, nverts, tris, areas, ntris, hf, S.walkable_climb));
  const rasterAreas = extract(() => readHeightfield(hf, true).areas);
  if (S.filter_low_hanging_obstacles) {
    stage('filter_low_hanging_obstacles', () => R.filterLowHangingWalkableObstacles(ctx, S.walkable_climb, hf));
  }
  if (S.filter_ledge_spans) {
    stage('filter_ledge_spans', () => R.filterLedgeSpans(ctx, S.walkable_height, S.walkable_climb, hf));
  }
  if (S.filter_walkable_low_height_spans) {
    stage('filter_walkable_low_height_spans', () => R.filterWalkableLowHeightSpans(ctx, S.walkable_height, hf));
  }
  // count every span (rcGetHeightFieldSpanCount counts only walkable ones)
  // (walking the spans is timed as extraction, also with --counts-only)
  const t0 = performance.now();
  const hfRead = readHeightfield(hf, countsOnly);
  extractMs += performance.now() - t0;
  out.heightfield = {
    width: hf.raw.width, height: hf.raw.height,
    bmin: vec3((i) => hf.raw.get_bmin(i)), bmax: vec3((i) => hf.raw.get_bmax(i)),
    cs: hf.raw.cs, ch: hf.raw.ch,
    span_count: hfRead.count,
    walkable_span_count: hfRead.walkable,
  };
  if (!countsOnly) {
    out.heightfield.columns = hfRead.columns;
    out.heightfield.areas_after_rasterize = rasterAreas;
  }

  const chf = R.allocCompactHeightfield();
  stage('build_compact_heightfield', () => R.buildCompactHeightfield(ctx, S.walkable_height, S.walkable_climb, hf, chf));
  const areasBeforeErode = extract(() => readCompactAreas(chf));
  stage('erode_walkable_area', () => R.erodeWalkableArea(ctx, S.walkable_radius, chf));
  markVolumes(input.volumes, chf, ctx, stage);

  let haveDist = false;
  if (S.partition === 'watershed') {
    stage('build_distance_field', () => R.buildDistanceField(ctx, chf));
    haveDist = true;
    stage('build_regions', () => R.buildRegions(ctx, chf, S.border_size, S.min_region_area, S.merge_region_area));
  } else if (S.partition === 'monotone') {
    stage('build_regions', () => R.buildRegionsMonotone(ctx, chf, S.border_size, S.min_region_area, S.merge_region_area));
  } else {
    stage('build_regions', () => R.buildLayerRegions(ctx, chf, S.border_size, S.min_region_area));
  }
  const c = chf.raw;
  out.compact = {
    width: c.width, height: c.height, span_count: c.spanCount,
    walkable_height: c.walkableHeight, walkable_climb: c.walkableClimb, border_size: c.borderSize,
    max_distance: c.maxDistance, max_regions: c.maxRegions,
    bmin: vec3((i) => c.get_bmin(i)), bmax: vec3((i) => c.get_bmax(i)), cs: c.cs, ch: c.ch,
  };
  if (!countsOnly) {
    Object.assign(out.compact, extract(() => readCompact(chf, haveDist)));
    out.compact.spans.area_before_erode = areasBeforeErode;
  }

  const cset = R.allocContourSet();
  stage('build_contours', () => R.buildContours(ctx, chf, S.max_simplification_error, S.max_edge_len, cset,
    R.Recast.RC_CONTOUR_TESS_WALL_EDGES));
  out.contours = { nconts: cset.raw.nconts, border_size: cset.raw.borderSize, max_error: cset.raw.maxError };
  if (!countsOnly) out.contours.conts = extract(() => readContours(cset));

  const pmesh = R.allocPolyMesh();
  stage('build_poly_mesh', () => R.buildPolyMesh(ctx, cset, S.max_verts_per_poly, pmesh));
  const p = pmesh.raw;
  out.polymesh = {
    nverts: p.nverts, npolys: p.npolys, maxpolys: p.maxpolys, nvp: p.nvp,
    bmin: vec3((i) => p.get_bmin(i)), bmax: vec3((i) => p.get_bmax(i)), cs: p.cs, ch: p.ch,
    border_size: p.borderSize, max_edge_error: p.maxEdgeError,
  };
  if (!countsOnly) Object.assign(out.polymesh, extract(() => readPolyMesh(pmesh)));

  const dmesh = R.allocPolyMeshDetail();
  stage('build_poly_mesh_detail', () => R.buildPolyMeshDetail(ctx, pmesh, chf, S.detail_sample_dist,
    S.detail_sample_max_error, dmesh));
  const d = dmesh.raw;
  out.detail = { nmeshes: d.nmeshes, nverts: d.nverts, ntris: d.ntris };
  if (!countsOnly) Object.assign(out.detail, extract(() => readDetail(dmesh)));
  const wallMs = performance.now() - wallStart;

  out.counts = {
    heightfield_width: out.heightfield.width,
    heightfield_height: out.heightfield.height,
    heightfield_spans: out.heightfield.span_count,
    heightfield_walkable_spans: out.heightfield.walkable_span_count,
    compact_spans: out.compact.span_count,
    max_distance: out.compact.max_distance,
    max_regions: out.compact.max_regions,
    contours: out.contours.nconts,
    polymesh_nverts: out.polymesh.nverts,
    polymesh_npolys: out.polymesh.npolys,
    detail_nmeshes: out.detail.nmeshes,
    detail_nverts: out.detail.nverts,
    detail_ntris: out.detail.ntris,
  };
  const buildMs = Object.values(ms).reduce((a, b) => a + b, 0);
  out.ms = { ...ms, build_total: buildMs, extraction: extractMs, wall_total: wallMs };
  out.logs = ctx.logs;

  // give the WASM memory back
  R.freePolyMeshDetail(dmesh);
  R.freePolyMesh(pmesh);
  R.freeContourSet(cset);
  R.freeCompactHeightfield(chf);
  R.freeHeightfield(hf);
  verts.destroy(); tris.destroy(); areas.destroy();
  R.Raw.destroy(ctx.raw);
  return out;
}

function printSummary(out) {
  const c = out.counts;
  const n = (x) => x.toLocaleString('en-US');
  console.log(`@recast-navigation/core ${out.oracle.version}, partition ${out.settings.partition}`);
  console.log(`heightfield grid    ${c.heightfield_width} x ${c.heightfield_height}, ${n(c.heightfield_spans)} spans (${n(c.heightfield_walkable_spans)} walkable)`);
  console.log(`compact spans       ${n(c.compact_spans)}, max distance ${c.max_distance}`);
  console.log(`regions             ${c.max_regions}  (chf.maxRegions)`);
  console.log(`contours            ${c.contours}`);
  console.log(`polygon mesh        ${c.polymesh_nverts} vertices, ${c.polymesh_npolys} polygons`);
  console.log(`detail mesh         ${c.detail_nverts} vertices, ${c.detail_ntris} triangles (${c.detail_nmeshes} sub-meshes)`);
  console.log('stage ms:');
  const mins = out.ms_min || {};
  console.log(`  ${'stage'.padEnd(34)} ${'run 1'.padStart(9)}${out.ms_min ? `  min of ${mins.runs}`.padStart(13) : ''}`);
  for (const [k, v] of Object.entries(out.ms)) {
    const m = mins[k] !== undefined ? mins[k].toFixed(3).padStart(13) : '';
    console.log(`  ${k.padEnd(34)} ${v.toFixed(3).padStart(9)}${out.ms_min ? m : ''}`);
  }
  for (const l of out.logs) console.log(`log[${l.category}] ${l.msg}`);
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  let input, outPath;
  if (a.obj) {
    if (a.positional.length !== 1) throw new Error(USAGE);
    outPath = a.positional[0];
    let settings;
    if (a.settings) settings = JSON.parse(readFileSync(a.settings, 'utf8'));
    else if (a.defaults) settings = demoDefaults();
    else throw new Error(`--obj needs --defaults or --settings\n${USAGE}`);
    input = { ...readObj(a.obj), settings };
  } else {
    if (a.positional.length !== 2) throw new Error(USAGE);
    input = JSON.parse(readFileSync(a.positional[0], 'utf8'));
    outPath = a.positional[1];
  }
  if (a.partition) input.settings = { ...input.settings, partition: a.partition };
  const out = await runStages(input, { countsOnly: a.countsOnly });
  if (a.repeat > 1) {
    const min = { ...out.ms };
    for (let r = 1; r < a.repeat; r++) {
      const again = await runStages(input, { countsOnly: true });
      if (JSON.stringify(again.counts) !== JSON.stringify(out.counts)) throw new Error('counts differ between runs');
      for (const [k, v] of Object.entries(again.ms)) if (k !== 'extraction') min[k] = Math.min(min[k], v);
    }
    delete min.extraction;
    out.ms_min = { runs: a.repeat, ...min };
  }
  writeFileSync(outPath, JSON.stringify(out));
  printSummary(out);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => { console.error(e.stack || e); process.exit(1); });
}
