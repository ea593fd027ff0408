// Detour oracle for findPolysAroundCircle: queries.mjs's answers plus, for each of
// "circles": [[cx, cy, cz, radius], ...] in the input, the polygons around the circle
// from the polygon findNearestPoly gives its centre (every flag; half extents as
// queries.mjs's), as "circles": [{"start": poly, "polys": [...], "parents": [...],
// "costs": [...]}] (polygons as queries.mjs writes them: [tile x, tile z, index], -1 none).
//
//   node around.mjs INPUT.json OUTPUT.json
//
// queries.mjs runs unchanged: this script only watches it (the navmesh and query it makes)
// and adds its own answers to the output as it is written.
import { readFileSync } from 'node:fs';
import * as R from '@recast-navigation/core';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let navMesh = null;
let query = null;
const maxTiles = R.NavMesh.prototype.getMaxTiles;
R.NavMesh.prototype.getMaxTiles = function watched() {
  navMesh = this;
  return maxTiles.call(this);
};
const nearest = R.NavMeshQuery.prototype.findNearestPoly;
R.NavMeshQuery.prototype.findNearestPoly = function watched(...args) {
  query = this;
  return nearest.apply(this, args);
};

function circles() {
  const index = (ref) => {
    if (!ref) return -1;
    const { tile } = navMesh.getTileAndPolyByRefUnsafe(ref);
    const h = tile.header();
    return [h.x(), h.y(), navMesh.decodePolyId(ref).tilePolygonIndex];
  };
  const ext = input.half_extents || [2, 4, 2];
  const halfExtents = { x: ext[0], y: ext[1], z: ext[2] };
  const filter = new R.QueryFilter();
  filter.includeFlags = 0xffff;
  filter.excludeFlags = 0;
  return (input.circles || []).map((c) => {
    const centre = { x: c[0], y: c[1], z: c[2] };
    const a = nearest.call(query, centre, { filter, halfExtents });
    const rec = { start: index(a.nearestRef), polys: [], parents: [], costs: [] };
    if (!a.nearestRef) return rec;
    const r = query.findPolysAroundCircle(a.nearestRef, centre, c[3], { filter, maxPolys: 4096 });
    for (let i = 0; i < r.resultCount; i++) {
      rec.polys.push(index(r.resultRefs[i]));
      rec.parents.push(index(r.resultParents[i]));
      rec.costs.push(r.resultCost[i]);
    }
    return rec;
  });
}

const stringify = JSON.stringify;
JSON.stringify = function withCircles(value, ...rest) {
  if (value && typeof value === 'object' && 'paths' in value && 'nearest' in value) {
    value.circles = circles();
  }
  return stringify.call(JSON, value, ...rest);
};
await import('./queries.mjs');
