// A full disk: the control plane runs with its data directory on a small tmpfs (its own mount
// namespace, `unshare -m`), with a Stripe twin whose data file is there too; the disk is filled,
// and for 60 s writes keep coming at both: no process ends (the billing heartbeat, the log writer,
// the twin's deliveries all write meanwhile), authenticated reads still answer 200 (authentication
// writes nothing), reads through the twin's URL too, writes answer 503 with a sentence (never
// 500: the API's `{detail}`, the twin's provider error), and /health/ready reports the disk. Once
// space is freed everything works again by itself.
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

/** Seconds of writes against the full disk. */
const FULL_SECONDS = 60;

t.test(
  'a full disk degrades to 503 on writes for 60 s; reads and authentication keep working; nothing crashes; it recovers',
  { skip: canMount ? false : `cannot mount a tmpfs here (${(probe.stderr || probe.error?.message || '').trim()})` },
  async (t) => {
    ensureBuilt();
    t.setTimeout(FULL_SECONDS * 1000 + 240_000);
    const dir = mkdtempSync(join(tmpdir(), 'twins-full-disk-'));
    const child: ChildProcess = spawn(
      'unshare',
      [
        ...unshareArgs,
        'sh',
        '-c',
        'mount -t tmpfs -o size=48m,mode=700 tmpfs "$TWINS_DATA_DIR" && exec "$0" "$@"',
        process.execPath,
        join(ROOT, 'dist', 'control-plane', 'cli', 'index.js'),
        'serve',
      ],
      {
        env: {
          ...process.env,
          TWINS_DATA_DIR: dir,
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          TWINS_WARM_POOL: '0',
          TWINS_PAYMENT_PROCESSOR: 'none',
          TWINS_TWIN_START_TIMEOUT_MS: process.env.TWINS_TWIN_START_TIMEOUT_MS ?? '60000',
        },
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
    // A Stripe twin whose data file is on the same disk, with a customer to read back.
    let env = (await call('POST', '/environments', { name: 'full', twins: [{ twin: 'stripe' }] })).body;
    for (let i = 0; env.status !== 'ready'; i++) {
      if (i > 1200) throw new Error(`environment not ready: ${JSON.stringify(env)}`);
      await new Promise((r) => setTimeout(r, 50));
      env = (await call('GET', `/environments/${env.id}`)).body;
    }
    const twinUrl: string = env.twins[0].url;
    const key: string = (await call('POST', `/twins/${env.twins[0].id}/credential`)).body.api_key;
    const stripe = async (method: string, path: string, form?: string) => {
      const res = await fetch(twinUrl + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: form,
      });
      return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
    };
    const customer = (await stripe('POST', '/v1/customers', 'email=before%40example.com')).body;
    t.match(customer, { object: 'customer' });
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

    // Writes at the control plane and at the twin for FULL_SECONDS, reads between them. SQLite may
    // still reuse free pages for a while: every write answers success or 503, never 500.
    const seen: Record<string, Record<number, number>> = { api_write: {}, api_read: {}, twin_write: {}, twin_read: {} };
    const note = (kind: string, status: number) => (seen[kind]![status] = (seen[kind]![status] ?? 0) + 1);
    let apiRefusal: any;
    let twinRefusal: any;
    const until = Date.now() + FULL_SECONDS * 1000;
    for (let i = 0; Date.now() < until; i++) {
      const written = await call('POST', '/organizations/current/api-keys', { name: `k${i}-${'x'.repeat(90)}` });
      note('api_write', written.status);
      if (written.status === 503) apiRefusal = written.body;
      note('api_read', (await call('GET', '/users/me')).status);
      const made = await stripe('POST', '/v1/customers', `email=full${i}%40example.com&description=${'y'.repeat(2000)}`);
      note('twin_write', made.status);
      if (made.status === 503) twinRefusal = made.body;
      note('twin_read', (await stripe('GET', `/v1/customers/${customer.id}`)).status);
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    t.equal(child.exitCode, null, `the control plane stayed up for ${FULL_SECONDS} s of writes`);
    t.comment(JSON.stringify(seen));
    t.same(
      Object.keys(seen.api_write!)
        .map(Number)
        .filter((s) => s !== 201 && s !== 503),
      [],
      'API writes: 201 or 503, no 500',
    );
    t.same(
      Object.keys(seen.twin_write!)
        .map(Number)
        .filter((s) => s !== 200 && s !== 503),
      [],
      'twin writes: 200 or 503, no 500',
    );
    t.same(Object.keys(seen.api_read!), ['200'], 'API reads: 200 throughout');
    // A Stripe read writes too (its request's bookkeeping in aroundStripe): refused like a write, never a 500.
    t.same(
      Object.keys(seen.twin_read!)
        .map(Number)
        .filter((s) => s !== 200 && s !== 503),
      [],
      "reads at the twin's URL: 200 or 503, no 500",
    );
    t.match(apiRefusal?.detail, /disk is full/, 'an API write is refused with a sentence');
    t.match(twinRefusal?.error, { type: 'api_error', message: /disk is full/ }, "a twin write is refused in Stripe's shape, with a sentence");
    const state = (await call('GET', `/environments/${env.id}`)).body;
    t.equal(state.twins[0].state, 'ready', 'the twin kept running');
    const ready = await fetch(url + '/health/ready');
    t.equal(ready.status, 503, '/health/ready reports it');
    const readyBody = (await ready.json()) as { checks: Record<string, string> };
    t.match(readyBody.checks.storage, /disk full/);

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
    t.equal((await stripe('POST', '/v1/customers', 'email=after%40example.com')).status, 200, 'writes at the twin work again');
    // Every request answered through the twin's URL meanwhile reaches the log once it can be written.
    const answered = Object.values(seen.twin_write!).reduce((a, b) => a + b, 0) + Object.values(seen.twin_read!).reduce((a, b) => a + b, 0);
    let logged = 0;
    for (let i = 0; i < 100 && logged < answered + 2; i++) {
      logged = (await call('GET', `/environments/${env.id}/logs?size=1`)).body.total;
      if (logged < answered + 2) await new Promise((r) => setTimeout(r, 200));
    }
    t.ok(logged >= answered + 2, `the log holds every request of the full spell (${logged} rows, ${answered + 2} answered)`);
  },
);
