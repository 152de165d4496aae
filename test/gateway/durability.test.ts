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
