// Detour's crowd timings: builds a level as query_bench.mjs does (RecastDemo's Sample_SoloMesh,
// or Sample_TileMesh with "tile_size"), adds agents to a dtCrowd with RecastDemo's agent
// settings (acceleration 8, collision query range 12 radii, path optimization range 30 radii,
// separation weight 2, every update flag: anticipate turns, obstacle avoidance, separation,
// visibility and topology optimization; avoidance type 3, RecastDemo's "high"), asks each for
// its target and times dtCrowd::update over the frames.
//
//   node crowd_bench.mjs INPUT.json OUTPUT.json
//
// INPUT: as queries.mjs's (vertices, triangles, settings with "tile_size" and
// "agent_max_climb"), plus "agents": [[sx, sy, sz, tx, ty, tz, max_speed], ...], "radius",
// "height", "dt" and "frames".
// OUTPUT: {"ms": [per frame], "final": [[x, y, z], ...] the agents' positions at the end,
//   "added": agents the crowd took, "polygons"}.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as R from '@recast-navigation/core';

function settingsOf(input) {
  return {
    partition: 'watershed', filter_low_hanging_obstacles: true, filter_ledge_spans: true,
    filter_walkable_low_height_spans: true, tile_size: 0, ...input.settings,
  };
}

// One box's polygon and detail meshes as Detour tile parameters (null when it holds none).
function buildBox(S, mesh, bmin, bmax, width, height, border) {
  const { ctx, verts, nverts, tris, ntris } = mesh;
  const ok = (r, what) => { if (r === false) throw new Error(`${what} failed`); };
  const areas = new R.UnsignedCharArray();
  areas.copy(new Uint8Array(ntris));
  const hf = R.allocHeightfield();
  ok(R.createHeightfield(ctx, hf, width, height, bmin, bmax, S.cs, S.ch), 'heightfield');
  R.markWalkableTriangles(ctx, S.walkable_slope_angle, verts, nverts, tris, ntris, areas);
  ok(R.rasterizeTriangles(ctx, verts, nverts, tris, areas, ntris, hf, S.walkable_climb), 'rasterize');
  if (S.filter_low_hanging_obstacles) R.filterLowHangingWalkableObstacles(ctx, S.walkable_climb, hf);
  if (S.filter_ledge_spans) R.filterLedgeSpans(ctx, S.walkable_height, S.walkable_climb, hf);
  if (S.filter_walkable_low_height_spans) R.filterWalkableLowHeightSpans(ctx, S.walkable_height, hf);
  const chf = R.allocCompactHeightfield();
  ok(R.buildCompactHeightfield(ctx, S.walkable_height, S.walkable_climb, hf, chf), 'compact');
  ok(R.erodeWalkableArea(ctx, S.walkable_radius, chf), 'erode');
  R.buildDistanceField(ctx, chf);
  ok(R.buildRegions(ctx, chf, border, S.min_region_area, S.merge_region_area), 'regions');
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
  for (let i = 0; i < pmesh.raw.npolys; i++) {
    pmesh.raw.set_areas(i, 0);
    pmesh.raw.set_flags(i, 1);
  }
  const params = new R.NavMeshCreateParams();
  params.setPolyMeshCreateParams(pmesh);
  params.setPolyMeshDetailCreateParams(dmesh);
  params.setWalkableHeight(S.walkable_height * S.ch);
  params.setWalkableRadius(S.walkable_radius * S.cs);
  params.setWalkableClimb(S.agent_max_climb ?? S.walkable_climb * S.ch);
  params.setCellSize(S.cs);
  params.setCellHeight(S.ch);
  params.setBuildBvTree(true);
  return params;
}

// The level's Detour navmesh, whole or tile by tile (the tile boxes of queries.mjs).
function buildNavMesh(input) {
  const S = settingsOf(input);
  const ctx = new R.RecastBuildContext(false);
  const verts = new R.FloatArray(); verts.copy(input.vertices.flat());
  const tris = new R.IntArray(); tris.copy(input.triangles.flat());
  const mesh = { ctx, verts, nverts: input.vertices.length, tris, ntris: input.triangles.length };
  const b = R.calcBounds(verts, mesh.nverts);
  const bmin = [0, 1, 2].map((i) => b.get_bmin(i));
  const bmax = [0, 1, 2].map((i) => b.get_bmax(i));
  const g = R.calcGridSize(bmin, bmax, S.cs);
  const navMesh = new R.NavMesh();
  if (!S.tile_size) {
    const made = R.createNavMeshData(buildBox(S, mesh, bmin, bmax, g.width, g.height, 0));
    if (!made.success || !navMesh.initSolo(made.navMeshData)) throw new Error('solo mesh failed');
    return navMesh;
  }
  const f = Math.fround;
  const ts = S.tile_size, border = S.walkable_radius + 3;
  const tw = Math.ceil(g.width / ts), th = Math.ceil(g.height / ts);
  const tcs = f(ts * f(S.cs)), bcs = f(border * f(S.cs));
  const tileBits = Math.min(Math.ceil(Math.log2(Math.max(tw * th, 1))), 14);
  navMesh.initTiled(R.NavMeshParams.create({
    orig: { x: bmin[0], y: bmin[1], z: bmin[2] }, tileWidth: tcs, tileHeight: tcs,
    maxTiles: 1 << tileBits, maxPolys: 1 << (22 - tileBits),
  }));
  for (let y = 0; y < th; y++) {
    for (let x = 0; x < tw; x++) {
      const lo = [f(f(bmin[0] + f(x * tcs)) - bcs), bmin[1], f(f(bmin[2] + f(y * tcs)) - bcs)];
      const hi = [f(f(bmin[0] + f((x + 1) * tcs)) + bcs), bmax[1],
        f(f(bmin[2] + f((y + 1) * tcs)) + bcs)];
      const params = buildBox(S, mesh, lo, hi, ts + 2 * border, ts + 2 * border, border);
      if (!params) continue;
      params.setTileX(x);
      params.setTileY(y);
      const made = R.createNavMeshData(params);
      if (made.success) navMesh.addTile(made.navMeshData, 1, 0);
    }
  }
  return navMesh;
}


async function main() {
  const [inPath, outPath] = process.argv.slice(2);
  if (!inPath || !outPath) throw new Error('usage: node crowd_bench.mjs INPUT.json OUTPUT.json');
  await R.init();
  const input = JSON.parse(readFileSync(inPath, 'utf8'));
  const navMesh = buildNavMesh(input);
  const n = input.agents.length, r = input.radius;
  const crowd = new R.Crowd(navMesh, { maxAgents: Math.max(n, 1), maxAgentRadius: r });
  // RecastDemo's "high" obstacle avoidance quality (CrowdToolState::init), as type 3.
  const oa = new R.Raw.Module.dtObstacleAvoidanceParams();
  oa.velBias = 0.5; oa.weightDesVel = 2.0; oa.weightCurVel = 0.75; oa.weightSide = 0.75;
  oa.weightToi = 2.5; oa.horizTime = 2.5; oa.gridSize = 33; oa.adaptiveDivs = 7;
  oa.adaptiveRings = 3; oa.adaptiveDepth = 3;
  crowd.raw.setObstacleAvoidanceParams(3, oa);
  const agents = input.agents.map(([sx, sy, sz, tx, ty, tz, speed]) => {
    const agent = crowd.addAgent({ x: sx, y: sy, z: sz }, {
      radius: r, height: input.height, maxAcceleration: 8.0, maxSpeed: speed,
      collisionQueryRange: r * 12, pathOptimizationRange: r * 30, separationWeight: 2.0,
      updateFlags: 1 | 2 | 4 | 8 | 16, obstacleAvoidanceType: 3,
    });
    agent.requestMoveTarget({ x: tx, y: ty, z: tz });
    return agent;
  });
  const ms = [];
  for (let f = 0; f < input.frames; f++) {
    const t0 = performance.now();
    crowd.update(input.dt);
    ms.push(performance.now() - t0);
  }
  const final = agents.map((agent) => { const p = agent.position(); return [p.x, p.y, p.z]; });
  let polygons = 0;
  for (let i = 0; i < navMesh.getMaxTiles(); i++) {
    const h = navMesh.getTile(i).header();
    if (h) polygons += h.polyCount();
  }
  writeFileSync(outPath, JSON.stringify({ ms, final, added: crowd.getAgentCount(), polygons }));
}

main().catch((e) => { console.error(e.stack || e); process.exit(1); });
