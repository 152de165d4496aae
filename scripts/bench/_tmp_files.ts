import { chromium } from 'playwright-core';
import { startBenchControlPlane } from './control-plane.js';
const dirs = process.argv.slice(3);
const benches = await Promise.all(dirs.map((d) => startBenchControlPlane(d === 'current' ? {} : { consoleDir: d })));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, chromiumSandbox: false, args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
for (let i = 0; i < Number(process.argv[2]); i++) for (const [j, b] of benches.entries()) {
  const ctx = await browser.newContext();
  await ctx.addInitScript(`sessionStorage.setItem('twins.console.token', ${JSON.stringify(JSON.stringify({ token: b.token, expiresAt: null }))})`);
  const page = await ctx.newPage();
  await page.goto(b.cp.url + '/', { waitUntil: 'domcontentloaded' });
  await page.locator('h1#page-title').waitFor();
  const t = await page.evaluate(`(() => { const n = performance.getEntriesByType('navigation')[0]; const f = (x) => x.toFixed(0);
    return 'html ' + f(n.responseEnd) + ' domInteractive ' + f(n.domInteractive) + ' dclStart ' + f(n.domContentLoadedEventStart) + ' dclEnd ' + f(n.domContentLoadedEventEnd) + '\\n' + performance.getEntriesByType('resource').filter((r) => r.startTime < n.domContentLoadedEventEnd + 50).map((r) => '   ' + new URL(r.name).pathname.slice(0, 30).padEnd(30) + ' ' + r.initiatorType.padEnd(6) + ' start ' + f(r.startTime) + ' req ' + f(r.requestStart) + ' resp ' + f(r.responseStart) + ' end ' + f(r.responseEnd) + ' size ' + r.transferSize).join('\\n'); })()`);
  console.log(dirs[j], t);
  await ctx.close();
}
await browser.close(); for (const b of benches) await b.stop();
