// Detour's tile cache (dtTileCache, the WASM build in @recast-navigation/core) timed on
// temporary obstacles: the level built into compressed heightfield layers tile by tile (as
// RecastDemo's Sample_TempObstacles), then each cylinder added, moved (removed and added
// again elsewhere) and removed, `update` called until the navmesh is up to date.
//
//   node tilecache.mjs INPUT.json OUTPUT.json
//
// INPUT.json: {"vertices", "triangles", "settings" (as stages.mjs, with "tile_size" in
// cells), "radius", "height", "places": [[x, y, z], ...], "moves": [[x, y, z], ...]}: the
// cylinders' base centres, one move per place.
// OUTPUT.json: {"build_ms", "add_ms", "move_ms", "remove_ms" (medians), "tiles" (layers
// cached), "kb_per_tile" (mean compressed bytes per tile, in KiB), "blocked" (the share of
// added cylinders whose centre the mesh no longer holds: a check that the tiles were
// rebuilt)}.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as R from '@recast-navigation/core';

const [src, dst] = process.argv.slice(2);
if (!src || !dst) {
  console.error('usage: node tilecache.mjs INPUT.json OUTPUT.json');
  process.exit(2);
}
await R.init();
const input = JSON.parse(readFileSync(src, 'utf8'));
const S = input.settings;
const f32 = Math.fround;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// the level's bounds, in single precision as Recast reads them
const bmin = [Infinity, Infinity, Infinity];
const bmax = [-Infinity, -Infinity, -Infinity];
for (const v of input.vertices) {
  for (let k = 0; k < 3; k++) {
    bmin[k] = Math.min(bmin[k], f32(v[k]));
    bmax[k] = Math.max(bmax[k], f32(v[k]));
  }
}
const grid = R.calcGridSize(bmin, bmax, S.cs);
const ts = S.tile_size;
const tilesX = Math.floor((grid.width + ts - 1) / ts);
const tilesZ = Math.floor((grid.height + ts - 1) / ts);
const border = S.walkable_radius + 3;
const tileWorld = ts * S.cs;

const t0 = performance.now();
const ctx = new R.RecastBuildContext(false);
const verts = new R.FloatArray();
verts.copy(input.vertices.flat());
const nverts = input.vertices.length;

// the triangles' xz bounds, to hand each tile only the triangles that reach it
const tri = input.triangles;
const lo = tri.map((t) => [0, 2].map((k) => Math.min(...t.map((i) => f32(input.vertices[i][k])))));
const hi = tri.map((t) => [0, 2].map((k) => Math.max(...t.map((i) => f32(input.vertices[i][k])))));

const tileCache = new R.TileCache();
const navMesh = new R.NavMesh();
const layersPerTile = 4;
const params = R.DetourTileCacheParams.create({
  orig: bmin, cs: S.cs, ch: S.ch, width: ts, height: ts,
  walkableHeight: S.walkable_height, walkableRadius: S.walkable_radius,
  walkableClimb: S.walkable_climb, maxSimplificationError: S.max_simplification_error,
  maxTiles: tilesX * tilesZ * layersPerTile, maxObstacles: 128,
});
const alloc = new R.Raw.RecastLinearAllocator(32000);
const comp = new R.Raw.RecastFastLZCompressor();
const process_ = new R.TileCacheMeshProcess((p, areas, flags) => {
  for (let i = 0; i < p.polyCount(); ++i) { areas.set(i, 0); flags.set(i, 1); }
});
if (!tileCache.init(params, alloc, comp, process_)) throw new Error('tile cache init failed');
const tileBits = Math.min(Math.ceil(Math.log2(tilesX * tilesZ * layersPerTile)), 14);
if (!navMesh.initTiled(R.NavMeshParams.create({
  orig: bmin, tileWidth: tileWorld, tileHeight: tileWorld,
  maxTiles: 1 << tileBits, maxPolys: 1 << (22 - tileBits),
}))) throw new Error('navmesh init failed');

let layerBytes = 0, layers = 0, tilesWithLayers = 0;
for (let tz = 0; tz < tilesZ; tz++) {
  for (let tx = 0; tx < tilesX; tx++) {
    const tmin = [f32(bmin[0] + tx * tileWorld - border * S.cs), bmin[1],
      f32(bmin[2] + tz * tileWorld - border * S.cs)];
    const tmax = [f32(bmin[0] + (tx + 1) * tileWorld + border * S.cs), bmax[1],
      f32(bmin[2] + (tz + 1) * tileWorld + border * S.cs)];
    const mine = [];
    for (let i = 0; i < tri.length; i++) {
      if (lo[i][0] <= tmax[0] && hi[i][0] >= tmin[0] && lo[i][1] <= tmax[2] && hi[i][1] >= tmin[2]) {
        mine.push(...tri[i]);
      }
    }
    if (!mine.length) continue;
    const nt = mine.length / 3;
    const tris = new R.IntArray();
    tris.copy(mine);
    const areas = new R.UnsignedCharArray();
    areas.copy(new Uint8Array(nt));
    const hf = R.allocHeightfield();
    const size = ts + 2 * border;
    if (!R.createHeightfield(ctx, hf, size, size, tmin, tmax, S.cs, S.ch)) throw new Error('hf');
    R.markWalkableTriangles(ctx, S.walkable_slope_angle, verts, nverts, tris, nt, areas);
    R.rasterizeTriangles(ctx, verts, nverts, tris, areas, nt, hf, S.walkable_climb);
    R.filterLowHangingWalkableObstacles(ctx, S.walkable_climb, hf);
    R.filterLedgeSpans(ctx, S.walkable_height, S.walkable_climb, hf);
    R.filterWalkableLowHeightSpans(ctx, S.walkable_height, hf);
    const chf = R.allocCompactHeightfield();
    if (!R.buildCompactHeightfield(ctx, S.walkable_height, S.walkable_climb, hf, chf)) throw new Error('chf');
    R.freeHeightfield(hf);
    R.erodeWalkableArea(ctx, S.walkable_radius, chf);
    const set = R.allocHeightfieldLayerSet();
    if (!R.buildHeightfieldLayers(ctx, chf, border, S.walkable_height, set)) throw new Error('layers');
    R.freeCompactHeightfield(chf);
    if (set.nlayers()) tilesWithLayers++;
    for (let i = 0; i < set.nlayers(); i++) {
      const layer = set.layers(i);
      const header = new R.Raw.dtTileCacheLayerHeader();
      header.magic = R.Detour.DT_TILECACHE_MAGIC;
      header.version = R.Detour.DT_TILECACHE_VERSION;
      header.tx = tx; header.ty = tz; header.tlayer = i;
      const lb = layer.bmin(), ub = layer.bmax();
      header.set_bmin(0, lb.x); header.set_bmin(1, lb.y); header.set_bmin(2, lb.z);
      header.set_bmax(0, ub.x); header.set_bmax(1, ub.y); header.set_bmax(2, ub.z);
      header.width = layer.width(); header.height = layer.height();
      header.minx = layer.minx(); header.maxx = layer.maxx();
      header.miny = layer.miny(); header.maxy = layer.maxy();
      header.hmin = layer.hmin(); header.hmax = layer.hmax();
      const data = new R.TileCacheData();
      const status = R.buildTileCacheLayer(comp, header, R.getHeightfieldLayerHeights(layer),
        R.getHeightfieldLayerAreas(layer), R.getHeightfieldLayerCons(layer), data);
      if (R.statusFailed(status)) throw new Error('layer data');
      layerBytes += data.size;
      layers++;
      if (R.statusFailed(tileCache.addTile(data, 1).status)) throw new Error('add tile');
    }
    R.freeHeightfieldLayerSet(set);
    tris.destroy();
    areas.destroy();
  }
}
for (let tz = 0; tz < tilesZ; tz++) {
  for (let tx = 0; tx < tilesX; tx++) tileCache.buildNavMeshTilesAt(tx, tz, navMesh);
}
const buildMs = performance.now() - t0;

const settle = () => {
  for (let k = 0; k < 1000; k++) {
    const r = tileCache.update(navMesh);
    if (!r.success) throw new Error(`update failed: ${r.status}`);
    if (r.upToDate) return;
  }
  throw new Error('the tile cache never came up to date');
};
const timed = (fn) => { const t = performance.now(); fn(); settle(); return performance.now() - t; };
const point = ([x, y, z]) => ({ x, y, z });
const query = new R.NavMeshQuery(navMesh);
// whether the ground at a cylinder's centre is off the mesh: no polygon near, or the
// nearest point on one at least half the radius away (xz) or on another floor (more than
// the climb, 0.9, above or below)
const blockedAt = ([x, y, z]) => {
  const r = query.findNearestPoly({ x, y: y + 0.5, z }, { halfExtents: { x: 2, y: 4, z: 2 } });
  if (!r.success || !r.nearestRef) return true;
  return Math.hypot(r.nearestPoint.x - x, r.nearestPoint.z - z) >= 0.5 * input.radius
    || Math.abs(r.nearestPoint.y - (y + 0.5)) > 0.9;
};
const ms = { add: [], move: [], remove: [] };
let blocked = 0;
for (let k = 0; k < input.places.length; k++) {
  let ob;
  ms.add.push(timed(() => {
    ob = tileCache.addCylinderObstacle(point(input.places[k]), input.radius, input.height).obstacle;
  }));
  if (blockedAt(input.places[k])) blocked++;
  ms.move.push(timed(() => {
    tileCache.removeObstacle(ob);
    ob = tileCache.addCylinderObstacle(point(input.moves[k]), input.radius, input.height).obstacle;
  }));
  ms.remove.push(timed(() => tileCache.removeObstacle(ob)));
}
writeFileSync(dst, JSON.stringify({
  build_ms: buildMs, add_ms: median(ms.add), move_ms: median(ms.move),
  remove_ms: median(ms.remove), tiles: layers, blocked: blocked / input.places.length,
  kb_per_tile: layerBytes / Math.max(tilesWithLayers, 1) / 1024,
}));
