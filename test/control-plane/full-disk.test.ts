// A full disk: the control plane runs with its data directory on a small tmpfs (its own mount
// namespace, `unshare -m`), the disk is filled, and then: authenticated reads still answer 200
// (authentication writes nothing), writes answer 503 with a sentence (never 500), and
// /health/ready reports the disk. Once space is freed it is ready again.
// Skipped where mount namespaces or tmpfs mounts are not allowed.

import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadLocalKeys, mintLocalToken } from '../../control-plane/auth/local-idp.js';
import { ensureBuilt } from '../orchestration/build.js';

const ROOT = join(import.meta.dirname, '..', '..');
const asRoot = process.getuid?.() === 0;
const unshareArgs = asRoot ? ['-m', '--propagation', 'private'] : ['-rm', '--propagation', 'private'];
const probe = spawnSync('unshare', [...unshareArgs, 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && umount "$d" && rmdir "$d"'], {
  encoding: 'utf8',
});
const canMount = probe.status === 0;

t.test(
  'a full disk degrades to 503 on writes; reads and authentication keep working',
  { skip: canMount ? false : `cannot mount a tmpfs here (${(probe.stderr || probe.error?.message || '').trim()})` },
  async (t) => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'twins-full-disk-'));
    const child: ChildProcess = spawn(
      'unshare',
      [
        ...unshareArgs,
        'sh',
        '-c',
        'mount -t tmpfs -o size=12m,mode=700 tmpfs "$TWINS_DATA_DIR" && exec "$0" "$@"',
        process.execPath,
        join(ROOT, 'dist', 'control-plane', 'cli', 'index.js'),
        'serve',
      ],
      {
        env: { ...process.env, TWINS_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', TWINS_WARM_POOL: '0', TWINS_PAYMENT_PROCESSOR: 'none' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    t.teardown(() => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 120_000);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        try {
          const msg = JSON.parse(line) as { url?: string };
          if (msg.url) {
            clearTimeout(timer);
            resolve(msg.url);
          }
        } catch {
          // not a log line
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    // The mount lives in the child's namespace; its root is reachable through /proc.
    const inside = `/proc/${child.pid}/root${dir}`;
    const token = await mintLocalToken(await loadLocalKeys(inside), { email: 'ada@example.com', org: 'full', role: 'admin' });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
    };
    t.equal((await call('GET', '/users/me')).status, 200, 'first call: the member is recorded');
    t.equal((await fetch(url + '/health/ready')).status, 200);

    // Fill the disk.
    const filler = join(inside, 'filler');
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(256 * 1024, 1);
    let filled = 0;
    try {
      for (;;) {
        writeSync(fd, chunk);
        filled += chunk.length;
      }
    } catch (e) {
      t.equal((e as NodeJS.ErrnoException).code, 'ENOSPC', `the disk is full after ${filled} bytes`);
    }
    closeSync(fd);

    for (let i = 0; i < 5; i++) t.equal((await call('GET', '/users/me')).status, 200, 'an authenticated read still answers 200');
    t.equal((await call('GET', '/organizations/current/api-keys')).status, 200);
    // Writes: SQLite may still reuse free pages for a while; every answer is 201 or 503, never 500.
    const statuses: number[] = [];
    let refusal: any;
    for (let i = 0; i < 300 && refusal === undefined; i++) {
      const res = await call('POST', '/organizations/current/api-keys', { name: `k${i}-${'x'.repeat(90)}` });
      statuses.push(res.status);
      if (res.status === 503) refusal = res.body;
    }
    t.ok(statuses.length > 0);
    t.same(
      statuses.filter((s) => s !== 201 && s !== 503),
      [],
      'no 500, no other status',
    );
    t.ok(refusal, 'a write is refused with 503');
    t.match(refusal?.detail, /disk is full/);
    const ready = await fetch(url + '/health/ready');
    t.equal(ready.status, 503, '/health/ready reports it');
    const readyBody = (await ready.json()) as { checks: Record<string, string> };
    t.match(readyBody.checks.storage, /disk full/);
    t.equal((await call('GET', '/users/me')).status, 200, 'reads still work');

    // Space back: ready again once the last failure is 10 s old.
    unlinkSync(filler);
    const deadline = Date.now() + 20_000;
    let back = 503;
    while (Date.now() < deadline && back !== 200) {
      await new Promise((r) => setTimeout(r, 500));
      back = (await fetch(url + '/health/ready')).status;
    }
    t.equal(back, 200, 'ready again once space is freed');
    t.equal((await call('POST', '/organizations/current/api-keys', { name: 'after' })).status, 201, 'writes work again');
  },
);
