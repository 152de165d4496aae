// No answered request without its log entry (issue 20): the control plane runs as its own process
// with a Stripe twin behind its gateway; requests are numbered in their query string.
// - SIGKILL during 5,000 gateway requests, then a restart: every answered request is in the log.
// - SIGTERM under load: requests already taken in are answered (none cut), and every answered
//   request is logged, every logged one answered.

import t from 'tap';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { ensureBuilt } from '../orchestration/build.js';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../helpers/control-plane-process.js';

ensureBuilt();
// Two control-plane processes under tsx, thousands of requests: more than the default file budget on a shared machine.
t.setTimeout(600_000);

async function readyTwin(cp: ControlPlaneProcess): Promise<{ envId: string; url: string; key: string }> {
  const created = await cp.call('POST', '/environments', { name: 'durable', twins: [{ twin: 'stripe' }] });
  let env = created.body;
  for (let i = 0; env.status !== 'ready'; i++) {
    if (i > 600) throw new Error(`environment not ready: ${JSON.stringify(env)}`);
    await new Promise((r) => setTimeout(r, 50));
    env = (await cp.call('GET', `/environments/${env.id}`)).body;
  }
  const key = (await cp.call('POST', `/twins/${env.twins[0].id}/credential`)).body.api_key;
  return { envId: env.id, url: env.twins[0].url, key };
}

/** Request numbers in the log file (read directly: independent of the API). */
function loggedNumbers(dataDir: string, envId: string): Set<number> {
  const db = new Database(join(dataDir, 'request-logs.sqlite'), { readonly: true });
  try {
    const rows = db.prepare('SELECT query_string FROM request_logs WHERE environment_id = ?').all(envId) as { query_string: string }[];
    return new Set(rows.map((r) => Number(new URLSearchParams(r.query_string).get('n'))).filter((n) => Number.isInteger(n)));
  } finally {
    db.close();
  }
}

/** Numbered requests, `concurrency` at a time, until `total` are sent or the server goes away. */
async function load(url: string, key: string, total: number, concurrency: number, onAnswer: (answered: number) => void) {
  const pool = new Pool(url, { connections: concurrency });
  const answered = new Set<number>();
  const failed = new Set<number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const n = next++;
        try {
          const res = await pool.request({ path: `/v1/customers/cus_missing?n=${n}`, method: 'GET', headers: { authorization: `Bearer ${key}` } });
          await res.body.dump();
          answered.add(n);
          onAnswer(answered.size);
        } catch {
          failed.add(n);
          if (failed.size > 200) return; // the server is gone
        }
      }
    }),
  );
  await pool.destroy();
  return { answered, failed };
}

t.test('SIGKILL during 5,000 gateway requests, then restart: every answered request is in the log', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-sigkill-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const cp = await startControlPlaneProcess(dataDir);
  const { envId, url, key } = await readyTwin(cp);
  let killed = false;
  const { answered, failed } = await load(url, key, 5000, 16, (count) => {
    if (!killed && count >= 2000) {
      killed = true;
      cp.child.kill('SIGKILL');
    }
  });
  await cp.exited;
  t.ok(killed, 'killed mid-run');
  t.ok(answered.size >= 2000 && answered.size < 5000, `${answered.size} answered, ${failed.size} cut by the kill`);

  const again = await startControlPlaneProcess(dataDir);
  t.teardown(async () => {
    again.child.kill('SIGTERM');
    await again.exited;
  });
  const logged = loggedNumbers(dataDir, envId);
  const missing = [...answered].filter((n) => !logged.has(n));
  t.same(missing, [], `every answered request is logged (${logged.size} logged, ${answered.size} answered)`);
  const listed = await again.call('GET', `/environments/${envId}/logs?size=1`);
  t.equal(listed.status, 200);
  t.ok(listed.body.total >= answered.size, `the logs API counts them after the restart (${listed.body.total})`);
});

t.test('SIGTERM drains: requests taken in are answered and logged, none is cut', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-sigterm-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const cp = await startControlPlaneProcess(dataDir, { TWINS_DRAIN_MS: '10000' });
  const { envId, url, key } = await readyTwin(cp);
  let stopped = false;
  const { answered, failed } = await load(url, key, 20_000, 32, (count) => {
    if (!stopped && count >= 1000) {
      stopped = true;
      cp.child.kill('SIGTERM');
    }
  });
  const exit = await cp.exited;
  t.ok(stopped);
  t.same(exit, { code: 0, signal: null }, 'a clean exit');
  const logged = loggedNumbers(dataDir, envId);
  t.ok(answered.size >= 1000, `${answered.size} answered; ${failed.size} refused once the gateway stopped taking connections`);
  t.same(
    [...answered].filter((n) => !logged.has(n)),
    [],
    'every answered request is logged',
  );
  t.same(
    [...logged].filter((n) => !answered.has(n)),
    [],
    'every request the gateway took in was answered: none cut',
  );
});

t.test('SIGKILL with writes in flight: every request that reached the twin is in the log, unanswered ones marked so', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-sigkill-writes-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const cp = await startControlPlaneProcess(dataDir);
  const { envId, url, key } = await readyTwin(cp);
  // Numbered customers, 32 at a time; the kill lands while many are between the gateway and the twin.
  const pool = new Pool(url, { connections: 32 });
  const answered = new Set<number>();
  let next = 0;
  let killed = false;
  let failures = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < 3000 && failures < 100) {
        const n = next++;
        try {
          const res = await pool.request({
            path: '/v1/customers',
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: `metadata[n]=${n}`,
          });
          await res.body.dump();
          if (res.statusCode === 200) answered.add(n);
          if (!killed && answered.size >= 300) {
            killed = true;
            cp.child.kill('SIGKILL');
          }
        } catch {
          failures++;
        }
      }
    }),
  );
  await pool.destroy();
  await cp.exited;
  t.ok(killed, `killed mid-run (${answered.size} answered)`);

  const again = await startControlPlaneProcess(dataDir);
  t.teardown(async () => {
    again.child.kill('SIGTERM');
    await again.exited;
  });
  const env = (await again.call('GET', `/environments/${envId}`)).body;
  let twin = env.twins[0];
  for (let i = 0; twin.state !== 'ready'; i++) {
    if (i > 600) throw new Error(`twin not ready again: ${JSON.stringify(twin)}`);
    await new Promise((r) => setTimeout(r, 50));
    twin = (await again.call('GET', `/environments/${envId}`)).body.twins[0];
  }
  const records = await again.call('GET', `/environments/${envId}/twins/${twin.id}/records/customer`);
  t.equal(records.status, 200);
  const created = (records.body as { body: { metadata?: { n?: string } } }[]).map((r) => Number(r.body.metadata?.n)).filter(Number.isInteger);
  t.ok(created.length >= answered.size, `the twin holds ${created.length} numbered customers`);

  // The log as stored (independent of the API): request number → status.
  const db = new Database(join(dataDir, 'request-logs.sqlite'), { readonly: true });
  const rows = db.prepare("SELECT id, status_code, request_body FROM request_logs WHERE environment_id = ? AND method = 'POST'").all(envId) as {
    id: string;
    status_code: number;
    request_body: string;
  }[];
  db.close();
  const statusOf = new Map(rows.map((r) => [Number(new URLSearchParams(r.request_body).get('metadata[n]')), r.status_code]));
  t.same(
    created.filter((n) => !statusOf.has(n)),
    [],
    `every customer the twin made has its request in the log (${rows.length} rows)`,
  );
  t.same(
    [...answered].filter((n) => statusOf.get(n) !== 200),
    [],
    'every answered request is logged with its answer',
  );
  t.equal(new Set(rows.map((r) => r.id)).size, rows.length, 'one row per request: an answer completes its row, never adds one');
  const unanswered = rows.filter((r) => r.status_code === 0);
  t.same(
    unanswered.map((r) => Number(new URLSearchParams(r.request_body).get('metadata[n]'))).filter((n) => answered.has(n)),
    [],
    `requests cut by the kill are logged unanswered (${unanswered.length}), none that was answered`,
  );
  if (unanswered.length > 0) {
    const listed = await again.call('GET', `/environments/${envId}/logs?size=100`);
    const shown = (listed.body.items as { id: string; status_code: number | null }[]).filter((i) => i.id === unanswered[0]!.id);
    if (shown.length > 0) t.equal(shown[0]!.status_code, null, 'the logs API shows an unanswered request with status_code null');
  }
});
