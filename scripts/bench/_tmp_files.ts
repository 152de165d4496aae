import { chromium } from 'playwright-core';
import { existsSync } from 'node:fs';
import { startBenchControlPlane } from './control-plane.js';
const dirs = process.argv.slice(3);
const benches = [];
for (const d of dirs) benches.push(d === 'current' ? await startBenchControlPlane() : existsSync(d + '/scripts/bench/control-plane.ts') ? await (await import(d + '/scripts/bench/control-plane.ts')).startBenchControlPlane() : await startBenchControlPlane({ consoleDir: d }));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, chromiumSandbox: false, args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const rows: Record<string, Record<string, number>[]> = {};
for (let i = 0; i < Number(process.argv[2]); i++) for (const [j, b] of (i % 2 ? [...benches.entries()].reverse() : [...benches.entries()])) {
  const ctx = await browser.newContext();
  await ctx.addInitScript(`sessionStorage.setItem('twins.console.token', ${JSON.stringify(JSON.stringify({ token: b.token, expiresAt: null }))})`);
  const page = await ctx.newPage();
  await page.goto(b.cp.url + '/', { waitUntil: 'domcontentloaded' });
  await page.locator('h1#page-title').waitFor();
  const t = await page.evaluate(`(() => { const n = performance.getEntriesByType('navigation')[0]; const own = performance.getEntriesByType('resource').filter((r) => r.name.includes('/console/') && r.startTime < n.domContentLoadedEventEnd);
    return { html: n.responseEnd, firstStart: Math.min(...own.map(r => r.startTime)), firstReq: Math.min(...own.map(r => r.requestStart)), lastResp: Math.max(...own.map(r => r.responseStart)), lastEnd: Math.max(...own.map(r => r.responseEnd)), domInteractive: n.domInteractive, dclStart: n.domContentLoadedEventStart, dclEnd: n.domContentLoadedEventEnd, shown: performance.now() }; })()`) as Record<string, number>;
  (rows[dirs[j]!] ??= []).push(t);
  await ctx.close();
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(0);
for (const [d, r] of Object.entries(rows)) console.log(d.padEnd(28), Object.keys(r[0]!).map((k) => `${k} ${med(r.map((x) => x[k]!))}`).join('  '));
await browser.close(); for (const b of benches) await b.stop();
