// Issue 14's figures in one run, side by side:
//   levels      each provider's surface walked over HTTP against its twin (the twin's own loopback
//               URL): operations routed (not the route miss), answers per Twin-Fidelity level,
//               `unsupported` operations that answered 2xx (none);
//   schemas     inferred/stored operations a scripted walk reaches, answers checked against the spec;
//   lists       list pages at 10 vs 50,000 records (scripts/bench/lists.ts);
//   start       cold start and idle RSS vs a bare http server (scripts/bench/twin-start.ts).
//
//   node --import=tsx scripts/bench/breadth.ts [--skip lists,start]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';
import { levelWalk, prepareFixtures, schemaWalk } from './walk.js';

const { values } = parseArgs({ options: { skip: { type: 'string', default: '' } } });
const skip = new Set(values.skip.split(',').filter(Boolean));
const dir = mkdtempSync(join(tmpdir(), 'bench-breadth-'));

async function twin(slug: string, name: string) {
  const server = new TwinServer(await loadTwin(slug), { dataFile: join(dir, `${name}.sqlite`), clockStart: new Date('2026-01-05T10:00:00Z') });
  const url = await server.listen(0, '127.0.0.1');
  return { server, url, apiKey: server.apiKey };
}

const DENOMINATOR: Record<string, string> = {
  stripe: 'v1 operations of stripe@23 resources (test helpers included)',
  github: '@octokit/openapi operations outside /enterprises/',
  slack: '@slack/web-api methods outside admin.*',
};

try {
  console.log('levels (twin URL on loopback; "routed" = not the route miss; answers of the generic layer per Twin-Fidelity)');
  for (const slug of ['stripe', 'github', 'slack']) {
    const t = await twin(slug, `served-${slug}`);
    try {
      const t0 = performance.now();
      const w = await levelWalk(t, slug, await prepareFixtures(t, slug));
      console.log(
        `  ${slug.padEnd(7)} ${w.served}/${w.counted} routed of ${DENOMINATOR[slug]}; ${w.walked} generic answers ${JSON.stringify(w.levels)}, ${w.lies.length} unsupported 2xx; walked in ${(performance.now() - t0).toFixed(0)} ms`,
      );
    } finally {
      await t.server.close();
    }
  }
  console.log("schemas (ajv + ajv-formats against the operation's response schema)");
  for (const slug of ['stripe', 'github', 'slack']) {
    const t = await twin(slug, `schemas-${slug}`);
    try {
      const w = await schemaWalk(t, slug, await prepareFixtures(t, slug));
      console.log(
        `  ${slug.padEnd(7)} ${w.walked} generic walked: ${w.reached} answered 2xx with a JSON body, ${w.valid} valid; ${w.noBody} 2xx without body or schema; ${w.refused.length} refused (preconditions the walk does not set up)`,
      );
    } finally {
      await t.server.close();
    }
  }
  if (!skip.has('lists')) {
    const { listCosts } = await import('./lists.js');
    console.log('lists (limit 3; 10 vs 50,000 records; medians of interleaved rounds)');
    for (const f of await listCosts()) {
      console.log(
        `  ${f.name.padEnd(45)} first ${f.small.first.toFixed(2)} → ${f.large.first.toFixed(2)} ms (${(f.large.first / f.small.first).toFixed(2)}×), next ${f.small.next.toFixed(2)} → ${f.large.next.toFixed(2)} ms (${(f.large.next / f.small.next).toFixed(2)}×)`,
      );
    }
  }
  if (!skip.has('start')) {
    const { twinStart } = await import('./twin-start.js');
    const out = await twinStart(7, ['stripe', 'github', 'slack']);
    const bare = out.bare!;
    console.log('start (spawn → first answer; idle RSS; RSS after one generic call), median of 7');
    for (const [k, v] of Object.entries(out)) {
      console.log(
        `  ${k.padEnd(7)} ${v.startMs.toFixed(0)} ms (${(v.startMs / bare.startMs).toFixed(2)}×)  idle ${v.rssMiB.toFixed(1)} MiB (${(v.rssMiB / bare.rssMiB).toFixed(2)}×)  in use ${v.usedMiB.toFixed(1)} MiB (${(v.usedMiB / bare.rssMiB).toFixed(2)}×)`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
