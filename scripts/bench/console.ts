// The web console's figures: its size (every file a first visit loads, gzipped; target ≤ 200 kB),
// the first page's DOMContentLoaded with an empty cache (a fresh browser context per run; target
// ≤ 300 ms) side by side with the Swagger UI page the same server serves at /docs, and how long a
// request takes to appear in the live log after the twin answered.
//   node --import=tsx scripts/bench/console.ts [runs]
// Needs Debian's chromium (/usr/bin/chromium or TWINS_CHROMIUM) and the build (`make build`).

import { chromium, type Browser } from 'playwright-core';
import { existsSync } from 'node:fs';
import { fmt, percentile, startBenchControlPlane } from './control-plane.js';
import { buildConsole } from '../console/build.js';

const RUNS = Math.min(50, Math.max(3, Number(process.argv[2] ?? 15)));
const LOG_RUNS = 20;
const CHROMIUM = [process.env.TWINS_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!CHROMIUM) throw new Error('chromium is not installed (apt-get install chromium, or set TWINS_CHROMIUM)');

const built = await buildConsole();
const bench = await startBenchControlPlane();
let browser: Browser | undefined;
try {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const url = bench.cp.url;
  const session = JSON.stringify({ token: bench.token, expiresAt: null });

  /** One cold visit: a new context (empty cache), navigation timing read from the page. */
  const visit = async (path: string, ready: string) => {
    const context = await browser!.newContext();
    await context.addInitScript(`sessionStorage.setItem('twins.console.token', ${JSON.stringify(session)})`);
    const page = await context.newPage();
    let transferred = 0;
    page.on('response', async (r) => {
      const size = Number((await r.allHeaders())['content-length'] ?? 0);
      transferred += size;
    });
    await page.goto(url + path, { waitUntil: 'domcontentloaded' });
    await page.locator(ready).first().waitFor();
    const timing = (await page.evaluate(`(() => { const n = performance.getEntriesByType('navigation')[0]; return { dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, shown: performance.now() }; })()`)) as {
      dcl: number;
      load: number;
      shown: number;
    };
    await context.close();
    return { ...timing, transferred };
  };

  const consoleRuns: { dcl: number; shown: number; transferred: number }[] = [];
  const docsRuns: { dcl: number; shown: number }[] = [];
  await visit('/', 'h1'); // the server's first answer reads the files into memory; not counted
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so both pages see the same machine load.
    consoleRuns.push(await visit('/', 'h1#page-title'));
    docsRuns.push(await visit('/docs', '.swagger-ui'));
  }

  // Live log: an environment with Stripe, the requests page open, SDK-shaped calls one by one.
  const created = await bench.call('POST', '/environments', { name: 'console bench', twins: [{ twin: 'stripe' }] });
  let env = created.body;
  for (let i = 0; env.status !== 'ready'; i++) {
    if (i > 600) throw new Error('environment not ready');
    await new Promise((r) => setTimeout(r, 50));
    env = (await bench.call('GET', `/environments/${env.id}`)).body;
  }
  const key = (await bench.call('POST', `/twins/${env.twins[0].id}/credential`)).body.api_key as string;
  const context = await browser.newContext();
  await context.addInitScript(`sessionStorage.setItem('twins.console.token', ${JSON.stringify(session)})`);
  const page = await context.newPage();
  await page.goto(`${url}/#/environments/${env.id}/requests`);
  await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  const latencies: number[] = [];
  for (let i = 0; i < LOG_RUNS; i++) {
    const res = await fetch(`${env.twins[0].url}/v1/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=bench${i}%40example.com`,
    });
    const answered = performance.now();
    await res.text();
    await page.locator('tbody tr').nth(i).waitFor({ timeout: 5000 });
    latencies.push(performance.now() - answered);
    await new Promise((r) => setTimeout(r, 100));
  }
  await context.close();

  const dcl = consoleRuns.map((r) => r.dcl);
  const docsDcl = docsRuns.map((r) => r.dcl);
  console.log(
    JSON.stringify(
      {
        bench: 'web console',
        assets: Object.fromEntries(built.files.map((f) => [f.name, { bytes: f.bytes, gzip: f.gzip, brotli: f.brotli }])),
        assets_total_gzip_kB: +(built.totalGzip / 1024).toFixed(1),
        first_visit_transferred_kB: +(percentile(consoleRuns.map((r) => r.transferred), 50) / 1024).toFixed(1),
        runs: RUNS,
        console_dom_content_loaded_p50: fmt(percentile(dcl, 50)),
        console_dom_content_loaded_p95: fmt(percentile(dcl, 95)),
        console_first_page_rendered_p50: fmt(percentile(consoleRuns.map((r) => r.shown), 50)),
        docs_dom_content_loaded_p50: fmt(percentile(docsDcl, 50)),
        console_vs_docs_dcl: +(percentile(dcl, 50) / percentile(docsDcl, 50)).toFixed(2),
        live_log_appearance_p50: fmt(percentile(latencies, 50)),
        live_log_appearance_max: fmt(Math.max(...latencies)),
      },
      null,
      2,
    ),
  );
} finally {
  await browser?.close();
  await bench.stop();
}
