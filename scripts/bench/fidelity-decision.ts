// The cost of the fidelity decision per request (issue 32: ≤ 5 % of a modelled request's CPU), side
// by side in one run. A route's level is decided once, when the twin's routes are built (the generic
// engine's decideLevels); per request the host reads the matched route's level and stamps the answer
// with it (`withFidelity`: the `Twin-Fidelity` header and the level the request log stores). Measured
// in this process's CPU time: sequential modelled Stripe requests through the host (no HTTP), then
// the stamp alone on the same answers.
//   node --import=tsx scripts/bench/fidelity-decision.ts [requests=2000]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TwinRequest, TwinResponse } from '../../twin-runtime/contract.js';
import { TwinHost, withFidelity } from '../../twin-runtime/host.js';
import { loadTwin } from '../../twin-runtime/registry.js';

const N = Math.max(100, Math.min(50_000, Number(process.argv[2] ?? 2000)));
const dir = mkdtempSync(join(tmpdir(), 'bench-fidelity-'));
const host = new TwinHost(await loadTwin('stripe'), { dataFile: join(dir, 'stripe.sqlite'), clockStart: new Date('2026-01-01T00:00:00Z') });

function request(method: string, path: string, form = ''): TwinRequest {
  const body = Object.fromEntries(new URLSearchParams(form));
  return {
    method,
    path,
    params: {},
    queryString: '',
    query: {},
    headers: { authorization: `Bearer ${host.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: Buffer.from(form),
    body,
    bodyKind: form ? 'form' : 'none',
  };
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function measure(name: string, make: (i: number) => TwinRequest): Promise<{ name: string; perRequestUs: number; answers: TwinResponse[] }> {
  for (let i = 0; i < 50; i++) await host.handle(make(i)); // warm: JIT, statement cache
  const answers: TwinResponse[] = [];
  const t0 = cpuMs();
  for (let i = 0; i < N; i++) answers.push(await host.handle(make(i)));
  const perRequestUs = ((cpuMs() - t0) * 1000) / N;
  const bad = answers.find((a) => a.status >= 300);
  if (bad) throw new Error(`${name} answered ${bad.status}`);
  return { name, perRequestUs, answers };
}

const created = await host.handle(request('POST', '/v1/customers', 'email=a%40example.com'));
if (created.status !== 200) throw new Error(`customer create answered ${created.status}`);
// Answers carry their JSON already serialised.
const customerId = (JSON.parse(String(created.body)) as { id: string }).id;
const runs = [
  await measure('POST /v1/customers', (i) => request('POST', '/v1/customers', `email=c${i}%40example.com&name=Customer+${i}`)),
  await measure('GET /v1/customers/{customer}', () => request('GET', `/v1/customers/${customerId}`)),
];

// The per-request part of the decision alone, on the very answers the runs produced (unstamped copies).
const STAMPS = 20;
let sink = 0;
console.log(`fidelity decision per request, ${N} sequential requests in-process (CPU of this process)`);
console.log('operation                          request µs   decision µs   share');
for (const run of runs) {
  const bare = run.answers.map(({ fidelity: _f, headers = {}, ...rest }): TwinResponse => {
    const { 'twin-fidelity': _h, ...others } = headers;
    return { ...rest, headers: others };
  });
  const t0 = cpuMs();
  for (let k = 0; k < STAMPS; k++) for (const a of bare) sink += withFidelity(a, 'modelled').status;
  const decisionUs = ((cpuMs() - t0) * 1000) / (N * STAMPS);
  const share = decisionUs / run.perRequestUs;
  console.log(
    `${run.name.padEnd(34)} ${run.perRequestUs.toFixed(1).padStart(10)} ${decisionUs.toFixed(3).padStart(13)} ${(share * 100).toFixed(2).padStart(6)} %  ${share <= 0.05 ? 'ok (≤ 5 %)' : 'OVER 5 %'}`,
  );
}
if (sink === 0) console.log('(no answers)');
await host.close();
rmSync(dir, { recursive: true, force: true });
