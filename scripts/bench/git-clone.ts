// `git clone` of a 10 MB, 1,000-file repository from the GitHub twin (target ≤ 2 s through the
// gateway), side by side in one run: through the gateway over http and https, straight to the twin
// process, and from a local bare repository (file://, git alone): packed, as a hosted repository
// is kept (the floor: git reuses the pack's compressed objects), and loose (what `git clone --bare`
// of a working repository leaves; git then compresses and delta-searches every object, ~2 s here,
// which an earlier note took for the floor). Also the push that fills it.
// Needs Debian's git and a build (`npm run build`): twins run the compiled runtime.
//   node --import=tsx scripts/bench/git-clone.ts [files] [bytes per file] [runs]

import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fmt, percentile, startBenchControlPlane } from './control-plane.js';
import { caPath } from '../../twin-runtime/tls.js';

const FILES = Math.min(100_000, Number(process.argv[2] ?? 1000));
const BYTES = Math.min(10_000_000, Number(process.argv[3] ?? 10_240));
const RUNS = Math.min(50, Number(process.argv[4] ?? 5));

const run = promisify(execFile);
const env = {
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
const git = (args: string[], cwd?: string, extra: Record<string, string> = {}) => run('git', args, { cwd, env: { ...env, ...extra }, maxBuffer: 1 << 26 });

const work = mkdtempSync(join(tmpdir(), 'twins-git-bench-'));
const bench = await startBenchControlPlane();
try {
  const created = await bench.call('POST', '/environments', { name: 'git bench', twins: [{ twin: 'github' }] });
  let envRow = created.body;
  for (let i = 0; envRow.status !== 'ready'; i++) {
    if (i > 3000) throw new Error('twin not ready');
    await new Promise((r) => setTimeout(r, 10));
    envRow = (await bench.call('GET', `/environments/${envRow.id}`)).body;
  }
  const twin = envRow.twins[0];
  const key = (await bench.call('POST', `/twins/${twin.id}/credential`)).body.api_key as string;
  const direct = `http://${bench.cp.services.orchestration.store.twinById(twin.id)!.address!.replace(/^https?:\/\//, '')}`;
  const api = (path: string, body?: unknown) =>
    fetch(twin.url + path, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    }).then((r) => r.json() as Promise<any>);
  const me = (await api('/user')).login as string;
  await api('/user/repos', { name: 'big' });

  // The repository: FILES files of BYTES random (incompressible) bytes in 20 directories.
  const src = join(work, 'src');
  mkdirSync(src);
  await git(['init', '-q', '-b', 'main'], src);
  for (let i = 0; i < FILES; i++) {
    const d = join(src, `dir${i % 20}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `file${i}.bin`), randomBytes(BYTES));
  }
  await git(['add', '.'], src);
  await git(['commit', '-qm', 'Big repository'], src);
  const cred = (base: string) => `${base.replace('://', `://x-access-token:${key}@`)}/${me}/big.git`;
  const t0 = performance.now();
  await git(['push', '-q', cred(twin.url), 'main'], src);
  const pushMs = performance.now() - t0;
  await git(['clone', '-q', '--bare', src, join(work, 'bare.git')]);
  await git(['clone', '-q', '--bare', src, join(work, 'packed.git')]);
  await git(['repack', '-q', '-a', '-d'], join(work, 'packed.git'));

  const targets: [string, string, Record<string, string>][] = [
    ['gateway http', cred(twin.url), {}],
    ['gateway https', cred(twin.url.replace('http:', 'https:')), { GIT_SSL_CAINFO: caPath(bench.cp.services.config.dataDir) }],
    ['twin direct', cred(direct), {}],
    ['file:// packed (floor)', `file://${join(work, 'packed.git')}`, {}],
    ['file:// loose objects', `file://${join(work, 'bare.git')}`, {}],
  ];
  const results: Record<string, number[]> = {};
  for (let r = 0; r < RUNS; r++) {
    for (const [name, url, extra] of targets) {
      const dest = join(work, `clone-${r}-${name.replace(/\W/g, '')}`);
      const s = performance.now();
      await git(['clone', '-q', url, dest], undefined, extra);
      (results[name] ??= []).push(performance.now() - s);
      rmSync(dest, { recursive: true, force: true });
    }
  }
  const floor = percentile(results['file:// packed (floor)']!, 50);
  console.log(`repository: ${FILES} files × ${BYTES} B = ${((FILES * BYTES) / 1e6).toFixed(1)} MB; push through the gateway ${fmt(pushMs)}`);
  for (const [name] of targets) {
    const p50 = percentile(results[name]!, 50);
    console.log(
      `${name.padEnd(22)} clone p50 ${fmt(p50).padStart(8)}  min ${fmt(Math.min(...results[name]!)).padStart(8)}  ×${(p50 / floor).toFixed(1)} of the floor`,
    );
  }
} finally {
  await bench.stop();
  rmSync(work, { recursive: true, force: true });
}
