// POST /environments with three twins → every twin `ready`, 20 runs, p50 (target ≤ 500 ms on the
// 2-core machine, process driver); with `all`, one of every twin in the catalog (target ≤ 1 s).
//   node --import=tsx scripts/bench/environments.ts [runs] [pause ms] [three|all]
// Between runs (untimed) the environment is deleted and the bench pauses (default 1 s) so the
// driver's warm pool refills, as it does between environments a person or CI creates; pass 0 to
// measure back-to-back creation instead.

import { fmt, percentile, startBenchControlPlane } from './control-plane.js';

const RUNS = Math.min(100, Math.max(1, Number(process.argv[2] ?? 20)));
const PAUSE_MS = Math.min(10_000, Math.max(0, Number(process.argv[3] ?? 1000)));
const ALL = process.argv[4] === 'all';
const POLL_MS = 5;

const bench = await startBenchControlPlane();
try {
  const catalog = (await bench.call('GET', '/twins/catalog')).body as { slug: string }[];
  const slugs = catalog.map((c) => c.slug);
  // One of each twin the build ships (all of them, or the first three; the same slug again when
  // fewer than three load).
  const twins = ALL ? slugs.map((twin) => ({ twin })) : [0, 1, 2].map((i) => ({ twin: slugs[i % slugs.length]! }));
  const target = ALL ? 1000 : 500;
  const timings: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const created = await bench.call('POST', '/environments', { name: `bench ${run}`, twins });
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
    const id = created.body.id as string;
    for (let polls = 0; ; polls++) {
      const env = await bench.call('GET', `/environments/${id}`);
      if (env.body.status === 'ready') break;
      if (env.body.status === 'failed') throw new Error(`environment failed: ${JSON.stringify(env.body.twins.map((t: any) => t.failure))}`);
      if (polls > 30_000 / POLL_MS) throw new Error('environment not ready within 30 s');
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    timings.push(performance.now() - started);
    await bench.call('DELETE', `/environments/${id}`);
    await new Promise((r) => setTimeout(r, PAUSE_MS));
  }
  console.log(
    JSON.stringify({
      bench: `environment with ${twins.length} twins: POST → all ready`,
      driver: bench.cp.services.config.driver,
      twins: twins.map((t) => t.twin),
      runs: RUNS,
      pause_between_runs_ms: PAUSE_MS,
      p50_ms: Math.round(percentile(timings, 50)),
      p90_ms: Math.round(percentile(timings, 90)),
      min_ms: Math.round(Math.min(...timings)),
      max_ms: Math.round(Math.max(...timings)),
      target_p50_ms: target,
    }),
  );
  console.error(`p50 ${fmt(percentile(timings, 50))} over ${RUNS} runs (target ≤ ${target} ms)`);
} finally {
  await bench.stop();
}
