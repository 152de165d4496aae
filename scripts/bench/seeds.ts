// Seeds: generate a large seed through the worker (POST /seeds → ready), then create environments
// from it (POST /environments with seed_id → ready; target ≤ 1 s on the 2-core machine).
//   node --import=tsx scripts/bench/seeds.ts ["prompt"] [runs]
// Default prompt: 5000 Stripe customers, which the Stripe twin stores as 10,000 records (each
// customer and its `customer.created` event). Build first (`npm run build`): twins run compiled.

import { fmt, percentile, startBenchControlPlane } from './control-plane.js';

const PROMPT = process.argv[2] ?? '5000 customers';
const RUNS = Math.min(50, Math.max(1, Number(process.argv[3] ?? 5)));
const POLL_MS = 5;

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string, pollMs = POLL_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const bench = await startBenchControlPlane();
try {
  const t0 = performance.now();
  const created = await bench.call('POST', '/seeds', { name: 'bench', twin: 'stripe', prompt: PROMPT });
  if (created.status !== 201) throw new Error(`POST /seeds answered ${created.status}: ${JSON.stringify(created.body)}`);
  const seed = await until(
    async () => {
      const s = (await bench.call('GET', `/seeds/${created.body.id}`)).body;
      if (s.status === 'failed') throw new Error(`seed failed: ${s.failure}`);
      return s.status === 'ready' ? s : undefined;
    },
    600_000,
    'the seed',
    // The worker runs in this same process: polling slowly keeps the poll out of the measurement.
    250,
  );
  const generateMs = performance.now() - t0;
  const row = bench.cp.services.seeds.byId(seed.id)!;
  console.log(
    `seed "${PROMPT}": ${row.record_count} records, ${(seed.size_bytes / 1024 / 1024).toFixed(1)} MiB, generated in ${fmt(generateMs)} (${Math.round(row.record_count / (generateMs / 1000))} records/s)`,
  );

  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const env = await bench.call('POST', '/environments', { name: `seeded ${i}`, twins: [{ twin: 'stripe', seed_id: seed.id }] });
    if (env.status !== 201) throw new Error(`POST /environments answered ${env.status}: ${JSON.stringify(env.body)}`);
    await until(
      async () => {
        const e = (await bench.call('GET', `/environments/${env.body.id}`)).body;
        if (e.status === 'failed') throw new Error(`environment failed: ${JSON.stringify(e)}`);
        return e.status === 'ready' ? e : undefined;
      },
      30_000,
      'the environment',
    );
    times.push(performance.now() - start);
    // Check the twin really holds the seed (untimed).
    if (i === 0) {
      const twinId = env.body.twins[0].id;
      const key = (await bench.call('POST', `/twins/${twinId}/credential`)).body.api_key;
      const e = (await bench.call('GET', `/environments/${env.body.id}`)).body;
      const res = await fetch(`${e.twins[0].url}/v1/customers?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as { data: unknown[]; has_more: boolean };
      if (res.status !== 200 || body.data.length !== 1 || !body.has_more) throw new Error('the seeded twin does not list the seeded customers');
    }
    await bench.call('DELETE', `/environments/${env.body.id}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.log(`environment from the seed → ready, ${RUNS} runs: p50 ${fmt(percentile(times, 50))}, max ${fmt(Math.max(...times))} (target ≤ 1 s)`);
} finally {
  await bench.stop();
}
