// Detour query oracle with off-mesh connections: queries.mjs's answers on a navmesh whose
// tiles also hold the connections of "links" in the input.
//
//   node offmesh.mjs INPUT.json OUTPUT.json
//
// INPUT: as queries.mjs's, plus "links": [{"start": [x, y, z], "end": [x, y, z], "radius": r,
// "bidirectional": bool, "area": a, "flags": f}, ...], handed to every tile's
// dtNavMeshCreateParams (Detour keeps in each tile those whose start lies in it).  Off-mesh
// connection polygons come out as [tile x, tile z, index], their index after the tile's
// ground polygons.
import { readFileSync } from 'node:fs';
import * as R from '@recast-navigation/core';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const v3 = (p) => ({ x: p[0], y: p[1], z: p[2] });
const links = (input.links || []).map((l) => ({
  startPosition: v3(l.start), endPosition: v3(l.end), radius: l.radius,
  bidirectional: l.bidirectional, area: l.area ?? 0, flags: l.flags ?? 1,
}));
const setDetail = R.NavMeshCreateParams.prototype.setPolyMeshDetailCreateParams;
R.NavMeshCreateParams.prototype.setPolyMeshDetailCreateParams = function withLinks(dmesh) {
  setDetail.call(this, dmesh);
  if (links.length) this.setOffMeshConnections(links);
};
await import('./queries.mjs');
