// Detour query timings: builds a level as queries.mjs does (RecastDemo's Sample_SoloMesh, or
// Sample_TileMesh with "tile_size"), then times Detour's queries over the points given, each
// kind looped over all its queries `repeat` times in this process (the first loop warms the
// WASM up and is left out of the median).
//
//   node query_bench.mjs INPUT.json OUTPUT.json
//
// INPUT: as queries.mjs's (vertices, triangles, settings with "tile_size" and
// "agent_max_climb"), plus "half_extents" (default [2, 4, 2]), "repeat" (default 7), and
//   "points": [[x, y, z], ...]                 findNearestPoly;
//   "paths": [[sx, sy, sz, ex, ey, ez], ...]   findPath (the two polygons found first, not
//                                              timed), findPath + findStraightPath, and the
//                                              whole query: both findNearestPoly calls too;
//   "rays": [[sx, sy, sz, ex, ey, ez], ...]    raycast from the start's polygon (found first,
//                                              not timed), and with its findNearestPoly;
//   "links": [{"start": [x, y, z], "end": [x, y, z], "radius": r, "bidirectional": bool},
//             ...]                             off-mesh connections (area 0, flag 1) handed
//                                              to every tile, as queries.mjs does.
// Every call goes to the WASM module's bindings directly (query.raw), with buffers made once,
// so that what is timed is Detour and the binding's argument passing, not the wrapper's
// allocations.  The filter includes every flag; at most 2048 search nodes and 256 polygons
// per path, as RecastDemo.
// OUTPUT: {"us": {kind: median microseconds per query}, "us_min": {kind: fastest loop},
// "counts": {"polygons" (ground polygons: off-mesh connections left out), "tiles", "paths", "found" (paths with a full corridor),
// "straight_corners" (their corners, summed), "rays", "hits" (rays stopped by a wall)}}.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as R from '@recast-navigation/core';

import { buildNavMesh } from './queries.mjs';

const DT_PARTIAL = 1 << 6;

// Median and fastest microseconds per query of `loop` (which runs all n queries once).
function time(loop, n, repeat) {
  loop();
  const per = [];
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    loop();
    per.push((1000 * (performance.now() - t0)) / Math.max(n, 1));
  }
  per.sort((a, b) => a - b);
  return [per[per.length >> 1], per[0]];
}

async function main() {
  const [inPath, outPath] = process.argv.slice(2);
  if (!inPath || !outPath) throw new Error('usage: node query_bench.mjs INPUT.json OUTPUT.json');
  await R.init();
  const input = JSON.parse(readFileSync(inPath, 'utf8'));
  const navMesh = buildNavMesh(input);
  const query = new R.NavMeshQuery(navMesh, { maxNodes: 2048 });
  const q = query.raw;
  const M = R.Raw.Module;
  const filter = new R.QueryFilter();
  filter.includeFlags = 0xffff;
  filter.excludeFlags = 0;
  const fr = filter.raw;
  const ext = input.half_extents || [2, 4, 2];
  const repeat = input.repeat || 7;
  const refBuf = new R.Raw.UnsignedIntRef();
  const ptBuf = new R.Raw.Vec3();
  const overBuf = new R.Raw.BoolRef();
  const nearest = (p) => {
    q.findNearestPoly(p, ext, fr, refBuf, ptBuf, overBuf);
    return refBuf.value;
  };
  const us = {}, usMin = {};
  const record = (kind, [med, min]) => { us[kind] = med; usMin[kind] = min; };
  const counts = { tiles: 0, polygons: 0, found: 0, straight_corners: 0, hits: 0 };
  for (let i = 0; i < navMesh.getMaxTiles(); i++) {
    const h = navMesh.getTile(i).header();
    if (h) { counts.tiles += 1; counts.polygons += h.polyCount() - h.offMeshConCount(); }
  }

  const points = input.points || [];
  record('nearest', time(() => { for (const p of points) nearest(p); }, points.length, repeat));

  const paths = (input.paths || []).map((p) => {
    const s = p.slice(0, 3), e = p.slice(3, 6);
    return { s, e, a: nearest(s), b: nearest(e) };
  }).filter((p) => p.a && p.b);
  const polys = new R.UnsignedIntArray();
  const straight = new R.FloatArray(); straight.resize(256 * 3);
  const sflags = new R.UnsignedCharArray(); sflags.resize(256);
  const srefs = new R.UnsignedIntArray(); srefs.resize(256);
  const count = new R.Raw.IntRef();
  const findPath = (p) => {
    polys.resize(256);
    return q.findPath(p.a, p.b, p.s, p.e, fr, polys.raw, 256);
  };
  const straighten = (p) => q.findStraightPath(p.s, p.e, polys.raw, straight.raw, sflags.raw,
    srefs.raw, count, 256, 0);
  for (const p of paths) {
    const status = findPath(p);
    straighten(p);
    if (!(status & DT_PARTIAL)) {
      counts.found += 1;
      counts.straight_corners += count.value;
    }
  }
  const n = paths.length;
  record('find_path', time(() => { for (const p of paths) findPath(p); }, n, repeat));
  record('path_and_straight', time(() => {
    for (const p of paths) { findPath(p); straighten(p); }
  }, n, repeat));
  record('whole_path', time(() => {
    for (const p of paths) {
      p.a = nearest(p.s);
      p.b = nearest(p.e);
      findPath(p);
      straighten(p);
    }
  }, n, repeat));

  // dtRaycastHit: no buffer for the polygons crossed (Detour then keeps none)
  const rays = (input.rays || []).map((r) => ({ s: r.slice(0, 3), e: r.slice(3, 6),
    a: nearest(r.slice(0, 3)) })).filter((r) => r.a);
  const hit = new M.dtRaycastHit();
  const cast = (r) => q.raycast(r.a, r.s, r.e, fr, 0, hit, 0);
  for (const r of rays) {
    cast(r);
    if (hit.get_t() < 3.4e38) counts.hits += 1;
  }
  record('raycast', time(() => { for (const r of rays) cast(r); }, rays.length, repeat));
  record('whole_raycast', time(() => {
    for (const r of rays) { r.a = nearest(r.s); cast(r); }
  }, rays.length, repeat));
  counts.paths = n;
  counts.rays = rays.length;
  writeFileSync(outPath, JSON.stringify({ us, us_min: usMin, counts }));
}

main().catch((e) => { console.error(e.stack || e); process.exit(1); });
