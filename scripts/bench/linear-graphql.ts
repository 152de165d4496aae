// Linear twin: what the schema derived from @linear/sdk costs (SDL from the declarations, then
// buildSchema, once per process), the first GraphQL request (which pays it) against later ones,
// and the per-request cost of the SDK's issue create and read, side by side in one run.
//
//   node --import=tsx scripts/bench/linear-graphql.ts

import { performance } from 'node:perf_hooks';
import { LinearClient } from '@linear/sdk';
import { buildASTSchema, buildSchema, parse } from 'graphql';
import { linearSdl } from '../../twins/linear/spec/schema.js';
import { startTwin } from '../../test/helpers/twin.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let t0 = performance.now();
const sdl = linearSdl();
const sdlMs = performance.now() - t0;
t0 = performance.now();
buildSchema(sdl, { assumeValidSDL: true });
const buildDefaultMs = performance.now() - t0;
t0 = performance.now();
buildASTSchema(parse(sdl, { noLocation: true }), { assumeValid: true, assumeValidSDL: true });
const buildMs = performance.now() - t0;

const twin = await startTwin('linear');
const client = new LinearClient({ apiKey: twin.apiKey, apiUrl: `${twin.url}/graphql` });
t0 = performance.now();
const teams = await client.teams();
const firstMs = performance.now() - t0;
const team = teams.nodes[0]!;
const reads: number[] = [];
const creates: number[] = [];
for (let i = 0; i < 30; i++) {
  t0 = performance.now();
  const created = await client.createIssue({ teamId: team.id, title: `Bench ${i}` });
  creates.push(performance.now() - t0);
  t0 = performance.now();
  await client.issue(created.issueId!);
  reads.push(performance.now() - t0);
}
t0 = performance.now();
await client.teams();
const warmTeamsMs = performance.now() - t0;
await twin.close();

console.log(
  JSON.stringify(
    {
      sdl_chars: sdl.length,
      sdl_ms: Math.round(sdlMs),
      build_schema_default_ms: Math.round(buildDefaultMs),
      build_schema_no_location_ms: Math.round(buildMs),
      first_request_ms: Math.round(firstMs),
      same_request_warm_ms: Math.round(warmTeamsMs),
      issue_create_p50_ms: Number(median(creates).toFixed(1)),
      issue_read_p50_ms: Number(median(reads).toFixed(1)),
    },
    null,
    2,
  ),
);
