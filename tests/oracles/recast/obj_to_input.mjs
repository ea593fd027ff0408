// OBJ reader and RecastDemo default settings for the Recast stage oracle.
//
// As a module: import { readObj, demoDefaults } from './obj_to_input.mjs'.
// As a command: node obj_to_input.mjs LEVEL.obj INPUT.json
//   writes an INPUT.json for stages.mjs with the RecastDemo default settings.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Parse the `v` and `f` lines of a Wavefront OBJ file.
// Faces are split as fans: a b c d -> (a,b,c), (a,c,d). Indices are 1-based;
// negative indices count back from the last vertex read so far. Texture and
// normal parts of a face corner (v/vt/vn) are ignored.
export function parseObj(text) {
  const vertices = [];
  const triangles = [];
  const lines = text.split(/\r?\n/);
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln].trim();
    if (line.length === 0 || line[0] === '#') continue;
    const parts = line.split(/\s+/);
    if (parts[0] === 'v') {
      if (parts.length < 4) throw new Error(`OBJ line ${ln + 1}: vertex needs 3 coordinates`);
      vertices.push([Number(parts[1]), Number(parts[2]), Number(parts[3])]);
    } else if (parts[0] === 'f') {
      const idx = [];
      for (let k = 1; k < parts.length; k++) {
        const n = parseInt(parts[k].split('/')[0], 10);
        if (!Number.isInteger(n) || n === 0) throw new Error(`OBJ line ${ln + 1}: bad face index '${parts[k]}'`);
        const i = n > 0 ? n - 1 : vertices.length + n;
        if (i < 0 || i >= vertices.length) throw new Error(`OBJ line ${ln + 1}: face index ${n} out of range`);
        idx.push(i);
      }
      for (let k = 2; k < idx.length; k++) triangles.push([idx[0], idx[k - 1], idx[k]]);
    }
  }
  return { vertices, triangles };
}

export function readObj(path) {
  return parseObj(readFileSync(path, 'utf8'));
}

// RecastDemo's default sliders, converted to rcConfig the way RecastDemo's
// Sample_SoloMesh::handleBuild does (float arithmetic, then int casts).
export const DEMO_SLIDERS = {
  cellSize: 0.3, cellHeight: 0.2,
  agentHeight: 2.0, agentRadius: 0.6, agentMaxClimb: 0.9, agentMaxSlope: 45,
  regionMinSize: 8, regionMergeSize: 20,
  edgeMaxLen: 12, edgeMaxError: 1.3, vertsPerPoly: 6,
  detailSampleDist: 6, detailSampleMaxError: 1,
};

export function demoDefaults(s = DEMO_SLIDERS) {
  const f = Math.fround;
  const cs = f(s.cellSize);
  const ch = f(s.cellHeight);
  return {
    cs,
    ch,
    walkable_slope_angle: s.agentMaxSlope,
    walkable_height: Math.ceil(f(f(s.agentHeight) / ch)),
    walkable_climb: Math.floor(f(f(s.agentMaxClimb) / ch)),
    walkable_radius: Math.ceil(f(f(s.agentRadius) / cs)),
    max_edge_len: Math.trunc(f(f(s.edgeMaxLen) / cs)),
    max_simplification_error: f(s.edgeMaxError),
    min_region_area: Math.trunc(s.regionMinSize * s.regionMinSize),
    merge_region_area: Math.trunc(s.regionMergeSize * s.regionMergeSize),
    max_verts_per_poly: Math.trunc(s.vertsPerPoly),
    detail_sample_dist: s.detailSampleDist < 0.9 ? 0 : f(cs * f(s.detailSampleDist)),
    detail_sample_max_error: f(ch * f(s.detailSampleMaxError)),
    partition: 'watershed',
    filter_low_hanging_obstacles: true,
    filter_ledge_spans: true,
    filter_walkable_low_height_spans: true,
    border_size: 0,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [objPath, outPath] = process.argv.slice(2);
  if (!objPath || !outPath) {
    console.error('usage: node obj_to_input.mjs LEVEL.obj INPUT.json');
    process.exit(2);
  }
  const mesh = readObj(objPath);
  writeFileSync(outPath, JSON.stringify({ ...mesh, settings: demoDefaults() }));
  console.log(`${outPath}: ${mesh.vertices.length} vertices, ${mesh.triangles.length} triangles`);
}
