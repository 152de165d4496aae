// The web console's figures: its size (every file a first visit loads, gzipped; target ≤ 200 kB),
// the first page's DOMContentLoaded with an empty cache (a fresh browser context per run; target
// ≤ 300 ms) side by side with the Swagger UI page the same server serves at /docs and with the floor
// (an empty page with the console's headers, one empty stylesheet and one empty module script, served
// by a bare node:http server: what any such page costs in this browser on this machine right now, the
// new renderer process included), and how long a request takes to appear in the live log after the
// twin answered.
// With `--compare DIR`, a second control plane in this process serves another console and its visits
// alternate with the current one's, so a change is measured before/after in one time window. DIR is
// either a built console (`buildConsole(DIR)`: another build, this server) or a source tree of another
// commit with its console built (`git archive REV | tar -x -C DIR`, node_modules linked, dist/twin-runtime
// copied, `node --import=tsx scripts/console/build.ts` there): that commit's server and build.
//   node --import=tsx scripts/bench/console.ts [runs] [--compare DIR]
// Needs Debian's chromium (/usr/bin/chromium or TWINS_CHROMIUM) and the build (`make build`).

import { chromium, type Browser } from 'playwright-core';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONSOLE_CSP } from '../../control-plane/routes/console.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, percentile, startBenchControlPlane } from './control-plane.js';
import { buildConsole } from '../console/build.js';

const args = process.argv.slice(2);
const compareAt = args.indexOf('--compare');
const COMPARE_DIR = compareAt >= 0 ? args.splice(compareAt, 2)[1] : undefined;
const RUNS = Math.min(50, Math.max(3, Number(args[0] ?? 15)));
const LOG_RUNS = 20;
const CHROMIUM = [process.env.TWINS_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!CHROMIUM) throw new Error('chromium is not installed (apt-get install chromium, or set TWINS_CHROMIUM)');

const built = await buildConsole();
const bench = await startBenchControlPlane();
const floor = createServer((req, res) => {
  const [type, body] =
    req.url === '/floor.js'
      ? ['text/javascript', 'document.body.dataset.ran = "yes";']
      : req.url === '/floor.css'
        ? ['text/css', 'body { margin: 0 }']
        : [
            'text/html; charset=utf-8',
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title><link rel="stylesheet" href="/floor.css"><script type="module" src="/floor.js"></script></head><body><h1 id="page-title">Floor</h1></body></html>',
          ];
  const headers: Record<string, string> = { 'content-type': type!, 'cache-control': 'no-cache' };
  if (type!.startsWith('text/html'))
    Object.assign(headers, {
      'content-security-policy': CONSOLE_CSP,
      'cross-origin-opener-policy': 'same-origin',
      link: '</floor.css>; rel=preload; as=style, </floor.js>; rel=preload; as=script; crossorigin',
    });
  res.writeHead(200, headers).end(body);
});
await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
const floorUrl = `http://127.0.0.1:${(floor.address() as AddressInfo).port}`;
const compared = !COMPARE_DIR
  ? undefined
  : existsSync(join(COMPARE_DIR, 'scripts', 'bench', 'control-plane.ts'))
    ? await (
        (await import(pathToFileURL(join(COMPARE_DIR, 'scripts', 'bench', 'control-plane.ts')).href)) as {
          startBenchControlPlane: typeof startBenchControlPlane;
        }
      ).startBenchControlPlane()
    : await startBenchControlPlane({ consoleDir: COMPARE_DIR });
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
  const comparedSession = compared ? JSON.stringify({ token: compared.token, expiresAt: null }) : undefined;

  /**
   * One cold visit: a new context (empty cache), navigation and resource timing read from the page.
   * Besides DOMContentLoaded, where the time went: the HTML's answer, the first and last of the
   * page's own files to arrive (script, stylesheet, preloaded chunks), and what ran after the last
   * one arrived until DOMContentLoaded ended (the module executing, the first render).
   */
  const visit = async (base: string, path: string, ready: string, token = session) => {
    const context = await browser!.newContext();
    await context.addInitScript(`sessionStorage.setItem('twins.console.token', ${JSON.stringify(token)})`);
    const page = await context.newPage();
    let transferred = 0;
    const sizes: Promise<void>[] = [];
    page.on('response', (r) => {
      sizes.push(r.allHeaders().then((h) => void (transferred += Number(h['content-length'] ?? 0))));
    });
    await page.goto(base + path, { waitUntil: 'domcontentloaded' });
    await page.locator(ready).first().waitFor();
    const timing = (await page.evaluate(`(() => {
      const n = performance.getEntriesByType('navigation')[0];
      const own = performance.getEntriesByType('resource').filter((r) => r.startTime < n.domContentLoadedEventEnd && new URL(r.name).origin === location.origin && !new URL(r.name).pathname.startsWith('/users') && !['fetch', 'xmlhttprequest'].includes(r.initiatorType));
      return {
        dcl: n.domContentLoadedEventEnd,
        load: n.loadEventEnd,
        shown: performance.now(),
        html: n.responseEnd,
        firstFileStart: own.length ? Math.min(...own.map((r) => r.startTime)) : NaN,
        lastFileEnd: own.length ? Math.max(...own.map((r) => r.responseEnd)) : NaN,
        files: own.length,
      };
    })()`)) as { dcl: number; load: number; shown: number; html: number; firstFileStart: number; lastFileEnd: number; files: number };
    await Promise.allSettled(sizes); // headers read before the context closes
    await context.close();
    return { ...timing, transferred };
  };
  type Visit = Awaited<ReturnType<typeof visit>>;
  const breakdown = (runs: Visit[]) => ({
    dom_content_loaded_p50: fmt(
      percentile(
        runs.map((r) => r.dcl),
        50,
      ),
    ),
    dom_content_loaded_p95: fmt(
      percentile(
        runs.map((r) => r.dcl),
        95,
      ),
    ),
    html_answered_p50: fmt(
      percentile(
        runs.map((r) => r.html),
        50,
      ),
    ),
    first_file_requested_p50: fmt(
      percentile(
        runs.map((r) => r.firstFileStart),
        50,
      ),
    ),
    files_arrived_after_first_request_p50: fmt(
      percentile(
        runs.map((r) => r.lastFileEnd - r.firstFileStart),
        50,
      ),
    ),
    ran_after_last_file_until_dcl_p50: fmt(
      percentile(
        runs.map((r) => r.dcl - r.lastFileEnd),
        50,
      ),
    ),
    files_before_dcl: percentile(
      runs.map((r) => r.files),
      50,
    ),
    first_page_rendered_p50: fmt(
      percentile(
        runs.map((r) => r.shown),
        50,
      ),
    ),
    transferred_kB_p50: +(
      percentile(
        runs.map((r) => r.transferred),
        50,
      ) / 1024
    ).toFixed(1),
  });

  const consoleRuns: Visit[] = [];
  const comparedRuns: Visit[] = [];
  const docsRuns: Visit[] = [];
  const floorRuns: Visit[] = [];
  await visit(url, '/', 'h1'); // the server's first answer reads the files into memory; not counted
  if (compared) await visit(compared.cp.url, '/', 'h1', comparedSession);
  for (let i = 0; i < RUNS; i++) {
    // Interleaved (and the order alternated), so every variant sees the same machine load.
    const order: (() => Promise<void>)[] = [
      async () => void consoleRuns.push(await visit(url, '/', 'h1#page-title')),
      async () => void docsRuns.push(await visit(url, '/docs', '.swagger-ui')),
      async () => void floorRuns.push(await visit(floorUrl, '/', 'body[data-ran] h1#page-title')),
    ];
    if (compared) order.push(async () => void comparedRuns.push(await visit(compared.cp.url, '/', 'h1#page-title', comparedSession)));
    for (const step of i % 2 ? order.reverse() : order) await step();
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
        assets: Object.fromEntries(built.files.map((f) => [f.name, { bytes: f.bytes, gzip: f.gzip, brotli: f.brotli, first_visit: f.firstVisit }])),
        assets_first_visit_gzip_kB: +(built.firstVisitGzip / 1024).toFixed(1),
        assets_total_gzip_kB: +(built.totalGzip / 1024).toFixed(1),
        first_visit_transferred_kB: +(
          percentile(
            consoleRuns.map((r) => r.transferred),
            50,
          ) / 1024
        ).toFixed(1),
        load_average: loadavg().map((l) => +l.toFixed(2)),
        runs: RUNS,
        console_dom_content_loaded_p50: fmt(percentile(dcl, 50)),
        console_dom_content_loaded_p95: fmt(percentile(dcl, 95)),
        console_first_page_rendered_p50: fmt(
          percentile(
            consoleRuns.map((r) => r.shown),
            50,
          ),
        ),
        console_breakdown: breakdown(consoleRuns),
        ...(compared
          ? {
              compared: { dir: COMPARE_DIR, ...breakdown(comparedRuns) },
              current_vs_compared_dcl_p50: +(
                percentile(dcl, 50) /
                percentile(
                  comparedRuns.map((r) => r.dcl),
                  50,
                )
              ).toFixed(2),
            }
          : {}),
        floor: breakdown(floorRuns),
        console_minus_floor_dcl_p50: fmt(
          percentile(dcl, 50) -
            percentile(
              floorRuns.map((r) => r.dcl),
              50,
            ),
        ),
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
  await compared?.stop();
  floor.close();
}
