// CPU a twin spends answering hostile input (10,000 parameters, a name 100 levels deep, index
// 10^9, a 100,000-character name, JSON 100 levels deep, JSON of 300,000 keys, a body past the size
// limit) next to a
// normal request of the same twin, measured in the twin's own process: each twin runs as a child
// (as the process driver runs it) and its on-CPU time is read from /proc/<pid>/schedstat (ns)
// around a run of sequential keep-alive requests. Target: every refusal ≤ 5 ms of CPU.
//   node --import=tsx scripts/bench/hostile-input.ts [requests per case]

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { INPUT_LIMITS } from '../../twin-runtime/safe-input.js';

const RUNS = Math.max(10, Math.min(5000, Number(process.argv[2] ?? 200)));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Case {
  name: string;
  method: string;
  path: string;
  contentType?: string;
  body?: string;
  /** Large bodies: fewer runs (the time is in moving the bytes). */
  runs?: number;
}

const manyPairs = Array.from({ length: 10_000 }, (_, i) => `p${i}=x`).join('&');
const form = 'application/x-www-form-urlencoded';
const manyKeys = `{${Array.from({ length: 300_000 }, (_, i) => `"k${i}":0`).join(',')}}`;

function hostileCases(path: string): Case[] {
  return [
    { name: '10,000 parameters', method: 'POST', path, contentType: form, body: manyPairs },
    { name: 'name 100 levels deep', method: 'POST', path, contentType: form, body: 'metadata' + '[a]'.repeat(100) + '=x' },
    { name: 'array index 10^9', method: 'POST', path, contentType: form, body: 'items[1000000000][price]=p' },
    { name: 'array index 2*10^7', method: 'POST', path, contentType: form, body: 'a[20000000]=x' },
    { name: '100,000-character name', method: 'POST', path, contentType: form, body: 'k'.repeat(100_000) + '=x' },
    { name: 'JSON 100 levels deep', method: 'POST', path, contentType: 'application/json', body: '{"a":'.repeat(100) + '1' + '}'.repeat(100) },
    { name: 'JSON of 300,000 keys (3.6 MB)', method: 'POST', path, contentType: 'application/json', body: manyKeys, runs: 20 },
    {
      name: `body of ${INPUT_LIMITS.maxBodyBytes + 1} bytes`,
      method: 'POST',
      path,
      contentType: 'application/json',
      body: ' '.repeat(INPUT_LIMITS.maxBodyBytes + 1),
      runs: 10,
    },
  ];
}

const TWINS: { slug: string; normal: Case }[] = [
  {
    slug: 'stripe',
    normal: {
      name: 'normal: create a customer',
      method: 'POST',
      path: '/v1/customers',
      contentType: form,
      body: 'email=ada%40example.com&name=Ada&metadata[plan]=pro&metadata[seats]=3&expand[]=default_source',
    },
  },
  { slug: 'github', normal: { name: 'normal: list my repositories', method: 'GET', path: '/user/repos?per_page=30' } },
  {
    slug: 'slack',
    normal: { name: 'normal: post a message', method: 'POST', path: '/api/chat.postMessage', contentType: form, body: 'channel=%23general&text=hello' },
  },
];

/** Nanoseconds the process has run on a CPU (Linux). */
function cpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

async function startChild(slug: string, dir: string): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = spawn(process.execPath, ['--import=tsx', join(ROOT, 'twin-runtime/main.ts'), '--twin', slug, '--data', join(dir, `${slug}.sqlite`)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${slug} exited with ${code}`)));
  });
  const started = JSON.parse(line) as { url: string; api_key: string };
  return { child, url: started.url, key: started.api_key };
}

/** CPU per request in the twin's process (ms) and the status it answered. */
async function measure(pool: Pool, pid: number, key: string, c: Case): Promise<{ cpuMs: number; status: number; answer: string }> {
  const runs = c.runs ?? RUNS;
  const send = async () => {
    const res = await pool.request({
      path: c.path,
      method: c.method as 'GET' | 'POST',
      headers: { authorization: `Bearer ${key}`, ...(c.contentType ? { 'content-type': c.contentType } : {}) },
      body: c.body,
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  for (let i = 0; i < Math.min(20, runs); i++) await send();
  let last = { status: 0, text: '' };
  const before = cpuNs(pid);
  for (let i = 0; i < runs; i++) last = await send();
  const cpuMs = (cpuNs(pid) - before) / runs / 1e6;
  let answer = last.text.slice(0, 60);
  try {
    const b = JSON.parse(last.text);
    answer =
      b.ok === true
        ? 'ok'
        : b.error?.type
          ? `${b.error.type}${b.error.param ? ` (param ${String(b.error.param).slice(0, 24)})` : ''}`
          : b.ok === false
            ? `ok:false ${b.error}`
            : b.message
              ? String(b.message).split('\n')[0]!
              : 'ok';
  } catch {
    /* not JSON */
  }
  return { cpuMs, status: last.status, answer };
}

const dir = mkdtempSync(join(tmpdir(), 'hostile-bench-'));
const rows: string[][] = [];
let worst = 0;
try {
  for (const { slug, normal } of TWINS) {
    const { child, url, key } = await startChild(slug, dir);
    const pool = new Pool(url, { connections: 1, pipelining: 1 });
    try {
      const base = await measure(pool, child.pid!, key, normal);
      rows.push([slug, normal.name, base.cpuMs.toFixed(3), '1.0×', String(base.status), base.answer]);
      for (const c of hostileCases(normal.path.split('?')[0]!)) {
        const r = await measure(pool, child.pid!, key, c);
        if (!c.runs || c.body === manyKeys) worst = Math.max(worst, r.cpuMs);
        rows.push([slug, c.name, r.cpuMs.toFixed(3), `${(r.cpuMs / base.cpuMs).toFixed(1)}×`, String(r.status), r.answer]);
      }
    } finally {
      await pool.close();
      child.kill('SIGTERM');
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const header = ['twin', 'request', 'CPU ms/request', 'vs normal', 'status', 'answer'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
console.log(`twin-process CPU per request, ${RUNS} sequential requests per case (oversized bodies: 10)`);
console.log(line(header));
for (const r of rows) console.log(line(r));
console.log(`worst refusal (parameter limits, 300,000 keys): ${worst.toFixed(3)} ms of CPU (target ≤ 5 ms)`);
