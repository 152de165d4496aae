// Start-up to first answer: `twins twin <slug>` (the compiled CLI) against a bare Node http server
// started the same way, side by side, interleaved. Target: the twin answers its first request within
// 6× the bare server. Each run: spawn, wait for the URL line on stdout, GET until it answers.
//   node --import=tsx scripts/bench/cli-start.ts [runs] [slug]

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './control-plane.js';

const ms = (v: number) => v.toFixed(0);

const RUNS = Math.min(50, Number(process.argv[2] ?? 10));
const SLUG = process.argv[3] ?? 'stripe';
const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'twins-cli-start-'));

const BARE = `require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });`;

/** Milliseconds from spawn to the first answered GET on the URL the process prints. */
function timeToFirstAnswer(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.stdout.on('data', async (c: Buffer) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m || out === 'done') return;
      out = 'done';
      try {
        for (;;) {
          const res = await fetch(m[1] + '/', { headers: { connection: 'close' } }).catch(() => undefined);
          if (res) {
            await res.arrayBuffer();
            break;
          }
        }
        resolve(performance.now() - t0);
      } catch (e) {
        reject(e);
      } finally {
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (out !== 'done') reject(new Error(`exited ${code} before answering: ${err}`));
    });
  });
}

const bare: number[] = [];
const twin: number[] = [];
try {
  for (let i = 0; i < RUNS + 1; i++) {
    const b = await timeToFirstAnswer(['-e', BARE]);
    const t = await timeToFirstAnswer(['bin/twins.js', 'twin', SLUG, '--port', '0', '--data', join(dir, `${SLUG}-${i}.sqlite`)]);
    if (i === 0) continue; // warm the file cache
    bare.push(b);
    twin.push(t);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const b50 = percentile(bare, 50);
const t50 = percentile(twin, 50);
console.log(`bare node http server: p50 ${ms(b50)} ms (min ${ms(Math.min(...bare))}, max ${ms(Math.max(...bare))})`);
console.log(`twins twin ${SLUG}:     p50 ${ms(t50)} ms (min ${ms(Math.min(...twin))}, max ${ms(Math.max(...twin))})`);
console.log(`ratio ${(t50 / b50).toFixed(2)}× (target ≤ 6×), ${RUNS} runs each`);
