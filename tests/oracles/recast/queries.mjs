// Detour query oracle: builds a level as RecastDemo's Sample_SoloMesh or Sample_TileMesh
// does (the same calls as stages.mjs), makes its Detour navmesh (BV tree on, walkable
// polygons flagged 1 and given area 0, as the demo does), then answers nearest-polygon and
// path queries with Detour.
//
//   node queries.mjs INPUT.json OUTPUT.json
//
// INPUT: as stages.mjs's (vertices, triangles, areas, volumes, settings in voxels, with
// "agent_max_climb" in world units and "tile_size" (0: whole) in cells),
// plus "points": [[x, y, z], ...] for findNearestPoly, "paths": [[sx, sy, sz, ex, ey, ez,
// include, exclude], ...] for findNearestPoly at both ends + findPath + findStraightPath (as
// RecastDemo's TestCase: the path from the points given), and "half_extents" (default
// [2, 4, 2]), "area_costs" ({area: cost} for the path filter; then walkable areas keep
// their ids, 63), "straight_options" (findStraightPath's options: 1 area crossings, 2 all).
// OUTPUT: {"nearest": [[poly, x, y, z, over], ...], "paths": [{"start": poly,
// "end": poly, "nstart": [x, y, z], "nend": [x, y, z], "status": n, "polys": [...],
// "straight": [[x, y, z], ...], "flags": [...], "refs": [...]}], "tiles": [[x, z, polygons],
// ...], "us": {...}} where a polygon
// is [tile x, tile z, index in the tile] (-1: none).
//
// Surface queries (each from the polygon findNearestPoly gives the first point, with the
// filter of every flag; "start" is -1 and the rest empty when there is none):
//   "raycasts": [[sx, sy, sz, ex, ey, ez], ...] -> "raycasts": [{"start", "t", "normal":
//     [x, y, z], "edge", "polys": [...]}] (t null for FLT_MAX: the end reached);
//   "moves": [[sx, sy, sz, ex, ey, ez], ...] -> "moves": [{"start", "pos": [x, y, z],
//     "visited": [...], "height": h on the last polygon visited or null}] (moveAlongSurface
//     then getPolyHeight);
//   "boxes": [[cx, cy, cz, hx, hy, hz], ...] -> "boxes": [[poly, ...], ...] (queryPolygons,
//     up to 4096);
//   "heights": [[poly, x, y, z], ...] (poly as [tile x, tile z, index]) -> "heights": [h or
//     null, ...] (getPolyHeight).
//   "circles": [[cx, cy, cz, radius], ...] -> "circles": [{"start", "polys": [...],
//     "parents": [...], "costs": [...]}] (findPolysAroundCircle, every flag).
// "us" then also holds the mean microseconds per raycast, move and box query.
//
// Off-mesh connections: "links": [{"start": [x, y, z], "end": [x, y, z], "radius": r,
// "bidirectional": bool, "area": a (default 0), "flags": f (default 1)}, ...], handed to every
// tile's dtNavMeshCreateParams (Detour keeps in each tile those whose start lies in it); their
// polygons come out as [tile x, tile z, index], after the tile's ground polygons.
//
// `buildNavMesh(input)` is exported for the benchmark scripts (query_bench.mjs,
// crowd_bench.mjs); the queries run only when this file is the script node runs.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import * as R from '@recast-navigation/core';
import { markVolumes } from './stages.mjs';

const v3 = (p) => ({ x: p[0], y: p[1], z: p[2] });

function settingsOf(input) {
  return {
    partition: 'watershed', filter_low_hanging_obstacles: true, filter_ledge_spans: true,
    filter_walkable_low_height_spans: true, tile_size: 0, ...input.settings,
  };
}

// The polygon and detail meshes of one box (the whole level, or one tile with its border),
// flagged as the demo flags them; null when the box holds no polygon.
function buildBox(S, mesh, input, bmin, bmax, width, height, border, links) {
  const { ctx, verts, nverts, tris, ntris } = mesh;
  const areas = new R.UnsignedCharArray();
  const ok = (r, what) => { if (r === false) throw new Error(`${what} failed`); };
  const hf = R.allocHeightfield();
  ok(R.createHeightfield(ctx, hf, width, height, bmin, bmax, S.cs, S.ch), 'heightfield');
  if (Array.isArray(input.areas)) {
    areas.copy(input.areas);
    R.clearUnwalkableTriangles(ctx, S.walkable_slope_angle, verts, nverts, tris, ntris, areas);
  } else {
    areas.copy(new Uint8Array(ntris));
    R.markWalkableTriangles(ctx, S.walkable_slope_angle, verts, nverts, tris, ntris, areas);
  }
  ok(R.rasterizeTriangles(ctx, verts, nverts, tris, areas, ntris, hf, S.walkable_climb), 'rasterize');
  if (S.filter_low_hanging_obstacles) R.filterLowHangingWalkableObstacles(ctx, S.walkable_climb, hf);
  if (S.filter_ledge_spans) R.filterLedgeSpans(ctx, S.walkable_height, S.walkable_climb, hf);
  if (S.filter_walkable_low_height_spans) R.filterWalkableLowHeightSpans(ctx, S.walkable_height, hf);
  const chf = R.allocCompactHeightfield();
  ok(R.buildCompactHeightfield(ctx, S.walkable_height, S.walkable_climb, hf, chf), 'compact');
  ok(R.erodeWalkableArea(ctx, S.walkable_radius, chf), 'erode');
  markVolumes(input.volumes, chf, ctx);
  if (S.partition === 'watershed') {
    R.buildDistanceField(ctx, chf);
    ok(R.buildRegions(ctx, chf, border, S.min_region_area, S.merge_region_area), 'regions');
  } else if (S.partition === 'monotone') {
    ok(R.buildRegionsMonotone(ctx, chf, border, S.min_region_area, S.merge_region_area), 'regions');
  } else {
    ok(R.buildLayerRegions(ctx, chf, border, S.min_region_area), 'regions');
  }
  const cset = R.allocContourSet();
  ok(R.buildContours(ctx, chf, S.max_simplification_error, S.max_edge_len, cset,
    R.Recast.RC_CONTOUR_TESS_WALL_EDGES), 'contours');
  if (cset.raw.nconts === 0) return null;
  const pmesh = R.allocPolyMesh();
  ok(R.buildPolyMesh(ctx, cset, S.max_verts_per_poly, pmesh), 'polymesh');
  if (pmesh.raw.npolys === 0) return null;
  const dmesh = R.allocPolyMeshDetail();
  ok(R.buildPolyMeshDetail(ctx, pmesh, chf, S.detail_sample_dist, S.detail_sample_max_error,
    dmesh), 'detail');
  // the demo's flags: walkable polygons become ground (area 0) that may be walked (flag 1)
  // (with area costs given, the areas keep their ids)
  for (let i = 0; i < pmesh.raw.npolys; i++) {
    if (pmesh.raw.get_areas(i) === 63 && !input.area_costs) pmesh.raw.set_areas(i, 0);
    pmesh.raw.set_flags(i, 1);
  }
  const params = new R.NavMeshCreateParams();
  params.setPolyMeshCreateParams(pmesh);
  params.setPolyMeshDetailCreateParams(dmesh);
  if (links.length) params.setOffMeshConnections(links);
  params.setWalkableHeight(S.walkable_height * S.ch);
  params.setWalkableRadius(S.walkable_radius * S.cs);
  params.setWalkableClimb(S.agent_max_climb ?? S.walkable_climb * S.ch);
  params.setCellSize(S.cs);
  params.setCellHeight(S.ch);
  params.setBuildBvTree(true);
  return params;
}

// The level's Detour navmesh, whole (Sample_SoloMesh) or tile by tile, rows of tiles from
// the lowest z up, each row from the lowest x (Sample_TileMesh, the same boxes as the build
// of wayfinding.navmesh3d), with the off-mesh connections of "links".
export function buildNavMesh(input) {
  const S = settingsOf(input);
  const links = (input.links || []).map((l) => ({
    startPosition: v3(l.start), endPosition: v3(l.end), radius: l.radius,
    bidirectional: l.bidirectional, area: l.area ?? 0, flags: l.flags ?? 1,
  }));
  const ctx = new R.RecastBuildContext(false);
  const nverts = input.vertices.length, ntris = input.triangles.length;
  const verts = new R.FloatArray(); verts.copy(input.vertices.flat());
  const tris = new R.IntArray(); tris.copy(input.triangles.flat());
  const mesh = { ctx, verts, nverts, tris, ntris };
  const b = R.calcBounds(verts, nverts);
  const bmin = [0, 1, 2].map((i) => b.get_bmin(i));
  const bmax = [0, 1, 2].map((i) => b.get_bmax(i));
  const g = R.calcGridSize(bmin, bmax, S.cs);
  const navMesh = new R.NavMesh();
  if (!S.tile_size) {
    const params = buildBox(S, mesh, input, bmin, bmax, g.width, g.height, 0, links);
    if (!params) {   // no polygon: an empty mesh, where every query finds nothing
      navMesh.initTiled(R.NavMeshParams.create({
        orig: { x: bmin[0], y: bmin[1], z: bmin[2] }, tileWidth: bmax[0] - bmin[0],
        tileHeight: bmax[2] - bmin[2], maxTiles: 1, maxPolys: 1 << 20,
      }));
      return navMesh;
    }
    const made = R.createNavMeshData(params);
    if (!made.success) throw new Error('createNavMeshData failed');
    if (!navMesh.initSolo(made.navMeshData)) throw new Error('initSolo failed');
    return navMesh;
  }
  const f = Math.fround;
  const ts = S.tile_size, border = S.walkable_radius + 3;
  const tw = Math.ceil(g.width / ts), th = Math.ceil(g.height / ts);
  const tcs = f(ts * f(S.cs));
  const bcs = f(border * f(S.cs));
  const tileBits = Math.min(Math.ceil(Math.log2(Math.max(tw * th, 1))), 14);
  const polyBits = 22 - tileBits;
  navMesh.initTiled(R.NavMeshParams.create({
    orig: { x: bmin[0], y: bmin[1], z: bmin[2] }, tileWidth: tcs, tileHeight: tcs,
    maxTiles: 1 << tileBits, maxPolys: 1 << polyBits,
  }));
  for (let y = 0; y < th; y++) {
    for (let x = 0; x < tw; x++) {
      const lo = [f(f(bmin[0] + f(x * tcs)) - bcs), bmin[1], f(f(bmin[2] + f(y * tcs)) - bcs)];
      const hi = [f(f(bmin[0] + f((x + 1) * tcs)) + bcs), bmax[1],
        f(f(bmin[2] + f((y + 1) * tcs)) + bcs)];
      const params = buildBox(S, mesh, input, lo, hi, ts + 2 * border, ts + 2 * border, border,
        links);
      if (!params) continue;
      params.setTileX(x);
      params.setTileY(y);
      const made = R.createNavMeshData(params);
      if (!made.success) continue;
      navMesh.addTile(made.navMeshData, 1, 0);   // DT_TILE_FREE_DATA
    }
  }
  return navMesh;
}

async function main() {
  const [inPath, outPath] = process.argv.slice(2);
  if (!inPath || !outPath) throw new Error('usage: node queries.mjs INPUT.json OUTPUT.json');
  await R.init();
  const input = JSON.parse(readFileSync(inPath, 'utf8'));
  const navMesh = buildNavMesh(input);
  const query = new R.NavMeshQuery(navMesh, { maxNodes: 2048 });
  const ext = input.half_extents || [2, 4, 2];
  const halfExtents = { x: ext[0], y: ext[1], z: ext[2] };
  // a polygon as [tile x, tile z, index in the tile], or -1
  const index = (ref) => {
    if (!ref) return -1;
    const { tile } = navMesh.getTileAndPolyByRefUnsafe(ref);
    const h = tile.header();
    return [h.x(), h.y(), navMesh.decodePolyId(ref).tilePolygonIndex];
  };
  const out = { nearest: [], paths: [], tiles: [], us: {} };
  for (let i = 0; i < navMesh.getMaxTiles(); i++) {
    const h = navMesh.getTile(i).header();
    if (h) out.tiles.push([h.x(), h.y(), h.polyCount()]);
  }
  const filter = new R.QueryFilter();
  filter.includeFlags = 0xffff;
  filter.excludeFlags = 0;
  for (const p of input.points || []) {
    const r = query.findNearestPoly(v3(p), { filter, halfExtents });
    out.nearest.push([index(r.nearestRef), r.nearestPoint.x, r.nearestPoint.y, r.nearestPoint.z,
      r.isOverPoly ? 1 : 0]);
  }
  let tPath = 0, tStraight = 0;
  for (const q of input.paths || []) {
    const f = new R.QueryFilter();
    f.includeFlags = q[6];
    f.excludeFlags = q[7];
    for (const [area, cost] of Object.entries(input.area_costs || {})) f.setAreaCost(+area, cost);
    const s = v3(q.slice(0, 3)), e = v3(q.slice(3, 6));
    const a = query.findNearestPoly(s, { filter: f, halfExtents });
    const b = query.findNearestPoly(e, { filter: f, halfExtents });
    const rec = {
      start: index(a.nearestRef), end: index(b.nearestRef),
      nstart: [a.nearestPoint.x, a.nearestPoint.y, a.nearestPoint.z],
      nend: [b.nearestPoint.x, b.nearestPoint.y, b.nearestPoint.z],
      status: 0, polys: [], straight: [], flags: [], refs: [],
    };
    if (a.nearestRef && b.nearestRef) {
      let t0 = performance.now();
      const fp = query.findPath(a.nearestRef, b.nearestRef, s, e, { filter: f, maxPathPolys: 256 });
      tPath += performance.now() - t0;
      rec.status = fp.status;
      const polys = [];
      for (let i = 0; i < fp.polys.size; i++) polys.push(fp.polys.get(i));
      rec.polys = polys.map(index);
      if (polys.length) {
        t0 = performance.now();
        const sp = query.findStraightPath(s, e, polys, {
          maxStraightPathPoints: 256, straightPathOptions: input.straight_options || 0 });
        tStraight += performance.now() - t0;
        for (let i = 0; i < sp.straightPathCount; i++) {
          rec.straight.push([sp.straightPath.get(3 * i), sp.straightPath.get(3 * i + 1),
            sp.straightPath.get(3 * i + 2)]);
          rec.flags.push(sp.straightPathFlags.get(i));
          rec.refs.push(index(sp.straightPathRefs.get(i)));
        }
      }
    }
    out.paths.push(rec);
  }
  const n = Math.max((input.paths || []).length, 1);
  out.us = { find_path: (1000 * tPath) / n, find_straight_path: (1000 * tStraight) / n };
  // a polygon [tile x, tile z, index] back to its reference
  const refOf = (p) => {
    for (let i = 0; i < navMesh.getMaxTiles(); i++) {
      const tile = navMesh.getTile(i);
      const h = tile.header();
      if (h && h.x() === p[0] && h.y() === p[1]) return navMesh.getPolyRefBase(tile) | p[2];
    }
    return 0;
  };
  const timed = (what, fn) => {
    const t0 = performance.now();
    const r = fn();
    out.us[what] = (out.us[what] || 0) + 1000 * (performance.now() - t0);
    return r;
  };
  const count = {};
  const bump = (what) => { count[what] = (count[what] || 0) + 1; };
  const M = R.Raw.Module;
  // dtRaycastHit: t, hitNormal[3], hitEdgeIndex, then the path pointer, its count and size
  const PATH_AT = 20;
  const rayBuf = M._malloc(4 * 256);
  {
    const probe = new M.dtRaycastHit();
    probe.set_maxPath(12345);
    if (M.HEAP32[(probe.ptr + PATH_AT + 8) >> 2] !== 12345) throw new Error('dtRaycastHit layout');
    R.Raw.destroy(probe);
  }
  out.raycasts = [];
  for (const q of input.raycasts || []) {
    const a = query.findNearestPoly(v3(q.slice(0, 3)), { filter, halfExtents });
    const rec = { start: index(a.nearestRef), t: null, normal: [0, 0, 0], edge: -1, polys: [] };
    if (a.nearestRef) {
      bump('raycast');
      // the binding's raycast gives Detour no buffer for the polygons crossed, and
      // Detour then stops after the first: lend it one (the hit's path pointer and size)
      const hit = new M.dtRaycastHit();
      M.HEAPU32[(hit.ptr + PATH_AT) >> 2] = rayBuf;
      hit.set_maxPath(256);
      timed('raycast', () => query.raw.raycast(a.nearestRef, q.slice(0, 3), q.slice(3, 6),
        filter.raw, 0, hit, 0));
      rec.t = hit.get_t() >= 3.4e38 ? null : hit.get_t();
      rec.normal = [0, 1, 2].map((k) => hit.get_hitNormal(k));
      rec.edge = hit.get_hitEdgeIndex();
      for (let k = 0; k < hit.get_pathCount(); k++) {
        rec.polys.push(index(M.HEAPU32[(rayBuf >> 2) + k]));
      }
      R.Raw.destroy(hit);
    }
    out.raycasts.push(rec);
  }
  out.moves = [];
  for (const q of input.moves || []) {
    const a = query.findNearestPoly(v3(q.slice(0, 3)), { filter, halfExtents });
    const rec = { start: index(a.nearestRef), pos: [], visited: [], height: null };
    if (a.nearestRef) {
      bump('move_along_surface');
      const r = timed('move_along_surface', () => query.moveAlongSurface(a.nearestRef,
        v3(q.slice(0, 3)), v3(q.slice(3, 6)), { filter }));
      rec.pos = [r.resultPosition.x, r.resultPosition.y, r.resultPosition.z];
      rec.visited = r.visited.map(index);
      if (r.visited.length) {
        const h = query.getPolyHeight(r.visited[r.visited.length - 1], r.resultPosition);
        rec.height = h.success ? h.height : null;
      }
    }
    out.moves.push(rec);
  }
  out.boxes = [];
  for (const q of input.boxes || []) {
    bump('polygons_in_box');
    const r = timed('polygons_in_box', () => query.queryPolygons(v3(q.slice(0, 3)),
      v3(q.slice(3, 6)), { filter, maxPolys: 4096 }));
    out.boxes.push(r.polyRefs.map(index));
  }
  out.heights = [];
  for (const q of input.heights || []) {
    const h = query.getPolyHeight(refOf(q[0]), v3(q.slice(1, 4)));
    out.heights.push(h.success ? h.height : null);
  }
  out.circles = [];
  for (const c of input.circles || []) {
    const centre = v3(c);
    const a = query.findNearestPoly(centre, { filter, halfExtents });
    const rec = { start: index(a.nearestRef), polys: [], parents: [], costs: [] };
    if (a.nearestRef) {
      const r = query.findPolysAroundCircle(a.nearestRef, centre, c[3], { filter, maxPolys: 4096 });
      for (let i = 0; i < r.resultCount; i++) {
        rec.polys.push(index(r.resultRefs[i]));
        rec.parents.push(index(r.resultParents[i]));
        rec.costs.push(r.resultCost[i]);
      }
    }
    out.circles.push(rec);
  }
  for (const what of Object.keys(count)) out.us[what] /= count[what];
  writeFileSync(outPath, JSON.stringify(out));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => { console.error(e.stack || e); process.exit(1); });
}
