// Detour's crowd timings: builds a level as queries.mjs does (RecastDemo's Sample_SoloMesh,
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

import { buildNavMesh } from './queries.mjs';

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
