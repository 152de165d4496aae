// The request log's store and its writer's housekeeping: pages by key with the contract's envelope
// numbers, retention cutting the oldest rows (per environment, incrementally), the per-environment
// body cap dropping the oldest bodies with the truncation marker, and a deleted environment's rows
// gone at once for readers and step by step on disk.

import t from 'tap';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../control-plane/store/database.js';
import Database from 'better-sqlite3';
import { attachLogs, LOGS_SCHEMA, openLogDatabase, RequestLogStore, type RequestLogRow } from '../../control-plane/store/request-logs.js';
import { mergeAnswers, RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { UNANSWERED } from '../../control-plane/gateway/recording.js';

function setup(t: { teardown(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'twins-log-store-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, store: new RequestLogStore(db) };
}

function rows(env: string, n: number, opts: { start?: number; stepMs?: number; body?: string } = {}): RequestLogRow[] {
  const start = opts.start ?? Date.parse('2026-01-01T00:00:00Z');
  return Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    organization_id: 'org',
    environment_id: env,
    environment_twin_id: 'twin',
    twin_slug: 'stripe',
    actor: 'agent' as const,
    method: 'GET',
    path: `/v1/customers/${i}`,
    query_string: `n=${i}`,
    status_code: 200,
    duration_ms: 1,
    occurred_at: new Date(start + i * (opts.stepMs ?? 1000)).toISOString(),
    request_headers: '{}',
    request_content_type: null,
    request_body: opts.body ?? null,
    request_body_truncated: 0 as const,
    response_content_type: 'application/json',
    response_body: opts.body ?? null,
    response_body_truncated: 0 as const,
  }));
}

t.test('a request logged before it was forwarded: its answer completes its row where it stands', async (t) => {
  const { db, store } = setup(t);
  const [before, opened, after, cut] = rows('open', 4);
  const request = {
    ...opened!,
    method: 'POST',
    status_code: UNANSWERED,
    duration_ms: 0,
    request_body: 'email=a',
    response_content_type: null,
    response_body: null,
  };
  const lost = { ...cut!, method: 'POST', status_code: UNANSWERED, duration_ms: 0, response_content_type: null, response_body: null };
  store.append([before!, request, after!, lost]);
  t.same(
    store.listPage('open', 1, 10).items.map((i) => i.status_code),
    [null, 200, null, 200],
    'the logs API lists an unanswered request with status_code null',
  );
  const answer = {
    ...request,
    status_code: 201,
    duration_ms: 7,
    response_content_type: 'application/json',
    response_body: '{"id":"cus_1"}',
    completes: 1 as const,
  };
  store.append([answer]);
  const listed = store.listPage('open', 1, 10);
  t.equal(listed.total, 4, 'no row added');
  t.same(
    listed.items.map((i) => [i.id, i.status_code]),
    [
      [lost.id, null],
      [after!.id, 200],
      [request.id, 201],
      [before!.id, 200],
    ],
    'completed at its place in arrival order',
  );
  const stored = store.page('open', 4, 0).find((r) => r.id === request.id)!;
  t.equal(stored.response_body, '{"id":"cus_1"}');
  t.equal(stored.request_body, 'email=a', 'the request as it was journaled');
  // After a restart (a store that never saw the request): found among the environment's newest rows.
  const again = new RequestLogStore(db);
  again.append([{ ...lost, status_code: 502, duration_ms: 3, response_body: '{"detail":"x"}', response_content_type: 'application/json', completes: 1 }]);
  t.equal(again.count('open'), 4);
  t.equal(again.listPage('open', 1, 1).items[0]!.status_code, 502, 'completed after a restart too');
  const bytes = (db.prepare("SELECT body_bytes FROM logs.request_log_environments WHERE environment_id = 'open'").get() as { body_bytes: number }).body_bytes;
  const sum = (db.prepare("SELECT SUM(body_bytes) AS n FROM logs.request_logs WHERE environment_id = 'open'").get() as { n: number }).n;
  t.equal(bytes, sum, "the environment's body bytes follow the completed rows");
});

t.test('answers read with their requests become one row at the request place', async (t) => {
  const [a, b, c] = rows('merge', 3);
  const opened = { ...a!, status_code: UNANSWERED };
  const other = { ...b! };
  const answered = { ...a!, status_code: 200, completes: 1 as const };
  const laterOnly = { ...c!, status_code: 200, completes: 1 as const };
  const merged = mergeAnswers([opened, other, answered, laterOnly]);
  t.same(
    merged.map((r) => [r.id, r.status_code, r.completes ?? null]),
    [
      [a!.id, 200, null],
      [b!.id, 200, null],
      [c!.id, 200, 1],
    ],
    "the answer takes its request's place and is stored as a plain row; an answer whose request was read earlier still completes it",
  );
});

t.test('bodies handed over as bytes are stored as the same text, counted in bytes', async (t) => {
  const { store } = setup(t);
  const text = '{"name":"Zoë ☃ 😀","note":"a \\"quoted\\" line"}';
  const [row] = rows('bytes', 1);
  store.append([{ ...row!, request_body: Buffer.from('name=Zo%C3%AB'), response_body: Buffer.from(text) }]);
  const [stored] = store.page('bytes', 1, 0);
  t.ok(stored, 'the row is there');
  t.equal(typeof stored!.response_body, 'string', 'read back as text');
  t.equal(stored!.response_body, text);
  t.equal(stored!.request_body, 'name=Zo%C3%AB');
  const typed = store.db
    .prepare("SELECT typeof(response_body) AS t, length(response_body) AS n, body_bytes FROM request_logs WHERE environment_id = 'bytes'")
    .get() as { t: string; n: number; body_bytes: number };
  t.equal(typed.t, 'text', 'stored as TEXT, not BLOB');
  t.equal(typed.n, [...text].length, 'SQLite sees characters, not bytes');
  t.equal(typed.body_bytes, Buffer.byteLength(text) + Buffer.byteLength('name=Zo%C3%AB'));
});

t.test('a new log file has 32 KB pages (a row with a 7 KB answer on one page); an existing one keeps its own', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-log-pages-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const writerOwn = openLogDatabase(join(dir, 'writer-first.sqlite'));
  t.equal(writerOwn.pragma('page_size', { simple: true }), 32768, "created by the log writer's connection");
  t.equal(writerOwn.pragma('journal_mode', { simple: true }), 'wal');
  writerOwn.close();
  const cp = new Database(join(dir, 'cp.sqlite'));
  attachLogs(cp, join(dir, 'attached-first.sqlite'));
  t.equal(cp.pragma(`${LOGS_SCHEMA}.page_size`, { simple: true }), 32768, "created by the control plane's ATTACH");
  cp.close();
  const older = new Database(join(dir, 'older.sqlite'));
  older.exec('CREATE TABLE earlier (x)');
  older.close();
  const reopened = openLogDatabase(join(dir, 'older.sqlite'));
  t.equal(reopened.pragma('page_size', { simple: true }), 4096, 'a file made before keeps its pages');
  t.ok((reopened.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'request_logs'").get() as { n: number }).n === 1, 'and gets the schema');
  reopened.close();
});

t.test('pages are index ranges: newest first, total and pages from the counters', async (t) => {
  const { store } = setup(t);
  store.append(rows('a', 250));
  store.append(rows('b', 3));
  t.equal(store.count('a'), 250);
  const first = store.listPage('a', 1, 100);
  t.equal(first.total, 250);
  t.same(first.items.map((r) => r.query_string).slice(0, 2), ['n=249', 'n=248']);
  t.equal(first.items.length, 100);
  t.same(Object.keys(first.items[0]!).sort(), [
    'duration_ms',
    'environment_id',
    'environment_twin_id',
    'fault',
    'fidelity',
    'id',
    'method',
    'occurred_at',
    'path',
    'query_string',
    'status_code',
  ]);
  const last = store.listPage('a', 3, 100);
  t.equal(last.items.length, 50);
  t.equal(last.items.at(-1)!.query_string, 'n=0');
  t.same(store.listPage('a', 4, 100).items, [], 'past the end: empty');
  t.same(store.listPage('nope', 1, 10), { total: 0, items: [] });
  t.equal(store.listPage('b', 1, 50).total, 3, 'environments are counted apart');
});

t.test('filtered pages: each filter and their combinations, newest first, paged, read from one covering index', async (t) => {
  const { db, store } = setup(t);
  const all = rows('a', 300).map((r, i) => ({
    ...r,
    environment_twin_id: i % 2 === 0 ? 'even' : 'odd',
    status_code: i % 3 === 0 ? 404 : 200,
    fidelity: i % 5 === 0 ? ('unsupported' as const) : ('modelled' as const),
  }));
  store.append(all);
  store.append(rows('b', 10).map((r) => ({ ...r, status_code: 404 })));
  const expect = (keep: (i: number) => boolean) =>
    all
      .map((_, i) => i)
      .filter(keep)
      .reverse()
      .map((i) => `n=${i}`);
  const cases: [string, Parameters<RequestLogStore['listPage']>[3], (i: number) => boolean][] = [
    ['status', { statusCode: 404 }, (i) => i % 3 === 0],
    ['twin', { twinId: 'odd' }, (i) => i % 2 === 1],
    ['fidelity', { fidelity: 'unsupported' }, (i) => i % 5 === 0],
    ['twin and fidelity', { twinId: 'even', fidelity: 'unsupported' }, (i) => i % 10 === 0],
    ['all three', { twinId: 'odd', statusCode: 404, fidelity: 'modelled' }, (i) => i % 2 === 1 && i % 3 === 0 && i % 5 !== 0],
  ];
  for (const [name, filter, keep] of cases) {
    const wanted = expect(keep);
    t.ok(wanted.length > 10, `${name}: the case has rows`);
    const pages = [1, 2, 3].map((page) => store.listPage('a', page, 10, filter));
    t.equal(pages[0]!.total, wanted.length, `${name}: total`);
    t.same(
      pages.flatMap((p) => p.items.map((r) => r.query_string)),
      wanted.slice(0, 30),
      `${name}: pages newest first`,
    );
  }
  t.same(store.listPage('a', 1, 10, { statusCode: 500 }), { total: 0, items: [] }, 'nothing matches: empty');
  t.equal(store.listPage('b', 1, 10, { statusCode: 404 }).total, 10, 'environments are filtered apart');
  // Every filtered read is an index search that covers its conditions: no table scan, no row read.
  const plan = db
    .prepare(
      `EXPLAIN QUERY PLAN SELECT COUNT(*) FROM ${LOGS_SCHEMA}.request_logs INDEXED BY request_logs_by_status
       WHERE environment_id = ? AND env_seq >= ? AND status_code = ? AND environment_twin_id = ? AND fidelity = ?`,
    )
    .all('a', 1, 404, 'odd', 'modelled') as { detail: string }[];
  t.match(
    plan.map((p) => p.detail).join('\n'),
    /^SEARCH (logs\.)?request_logs USING COVERING INDEX request_logs_by_status \(environment_id=\? AND status_code=\? AND env_seq>\?\)$/,
  );
});

t.test("each row's fidelity level: stored, listed and filtered; rows from before the column read null", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-log-fidelity-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'request-logs.sqlite');
  // A log file as the previous version left it: no fidelity (nor later fault) column, one row.
  const older = openLogDatabase(file);
  older.exec(
    `DROP INDEX request_logs_by_status; DROP INDEX request_logs_by_twin; DROP INDEX request_logs_by_fidelity;
     ALTER TABLE request_logs DROP COLUMN fault; ALTER TABLE request_logs DROP COLUMN fidelity; DELETE FROM log_schema_migrations WHERE version >= 2`,
  );
  const [old] = rows('env', 1);
  older
    .prepare(
      `INSERT INTO request_logs (env_seq, id, organization_id, environment_id, environment_twin_id, twin_slug, method, path, status_code, duration_ms, occurred_at)
       VALUES (1, ?, 'org', 'env', 'twin', 'stripe', 'GET', '/v1/old', 200, 1, ?)`,
    )
    .run(old!.id, old!.occurred_at);
  older.exec("INSERT INTO request_log_environments (environment_id, organization_id, next_seq) VALUES ('env', 'org', 2)");
  older.close();

  // The control plane attaches it: the schema is brought up to date in the attached file.
  const cp = new Database(join(dir, 'cp.sqlite'));
  t.teardown(() => cp.close());
  attachLogs(cp, file);
  const store = new RequestLogStore(cp);
  const [modelled, unsupported, unsaid] = rows('env', 3, { start: Date.parse('2026-02-01T00:00:00Z') });
  store.append([
    { ...modelled!, fidelity: 'modelled' },
    { ...unsupported!, fidelity: 'unsupported' },
    { ...unsaid!, fidelity: null },
  ]);
  const all = store.listPage('env', 1, 10);
  t.same(
    all.items.map((r) => [r.path, r.fidelity]),
    [
      ['/v1/customers/2', null],
      ['/v1/customers/1', 'unsupported'],
      ['/v1/customers/0', 'modelled'],
      ['/v1/old', null],
    ],
    'listed with each row, null where nothing was said',
  );
  const refused = store.listPage('env', 1, 10, { fidelity: 'unsupported' });
  t.equal(refused.total, 1);
  t.same(
    refused.items.map((r) => r.path),
    ['/v1/customers/1'],
    'the filter narrows to the level',
  );
  t.same(store.listPage('env', 1, 10, { fidelity: 'stored' }), { total: 0, items: [] });
  t.same(
    store.listPage('env', 1, 10, { fidelity: 'modelled', statusCode: 200 }).items.map((r) => r.path),
    ['/v1/customers/0'],
    'and combines with the other filters',
  );
  t.equal(store.page('env', 1, 1)[0]!.fidelity, 'unsupported', 'whole rows carry it too');
});

t.test('retention cuts the oldest rows of each environment, a step at a time', async (t) => {
  const { store } = setup(t);
  const day = 86_400_000;
  const now = Date.parse('2026-03-01T00:00:00Z');
  // 40 days of rows, one an hour: 960 rows.
  store.append(rows('free-env', 960, { start: now - 40 * day, stepMs: 3_600_000 }));
  store.append(rows('paygo-env', 960, { start: now - 40 * day, stepMs: 3_600_000 }));
  store.setRetention('free-env', 'org', 7);
  store.setRetention('paygo-env', 'org', 30);
  const writer = new RequestLogWriter(store, { defaultRetentionDays: 30, stepBudgetMs: 1000 });
  // Budgets of 100 rows per step: several steps finish the sweep.
  let steps = 0;
  let cursor: string | undefined = '';
  do {
    const out = store.retentionStep({ defaultRetentionDays: 30, bodyCapBytes: 1e12, rowLimit: 100, now: new Date(now) }, cursor);
    cursor = out.cursor;
    steps++;
    t.ok(out.deleted <= 100, 'a step stays within its budget');
  } while (cursor !== undefined && steps < 100);
  t.ok(steps > 5, `${steps} steps`);
  t.equal(store.count('free-env'), 7 * 24, 'free: 7 days kept');
  t.equal(store.count('paygo-env'), 30 * 24, 'paygo: 30 days kept');
  const oldest = store.page('free-env', 1, store.count('free-env') - 1)[0]!;
  t.ok(Date.parse(oldest.occurred_at) >= now - 7 * day);
  const page = store.listPage('free-env', 1, 50);
  t.equal(page.total, 168);
  t.equal(store.listPage('free-env', 4, 50).items.length, 18, 'pages still add up after the cut');
  writer.close();
});

t.test('the body cap drops the oldest bodies with the marker; counters follow', async (t) => {
  const { store, db } = setup(t);
  const body = 'x'.repeat(1000);
  store.append(rows('big', 100, { body }));
  const bytes = () => (db.prepare("SELECT body_bytes FROM request_log_environments WHERE environment_id = 'big'").get() as { body_bytes: number }).body_bytes;
  t.equal(bytes(), 200_000);
  const writer = new RequestLogWriter(store, { bodyCapBytes: 50_000, stepBudgetMs: 1000 });
  // (An instant within retention of the rows' dates: only the cap is at work.)
  for (let i = 0; i < 20; i++) writer.maintain(new Date('2026-01-02T00:00:00Z'));
  t.ok(bytes() <= 50_000, `bodies kept: ${bytes()} bytes`);
  const all = store.page('big', 100, 0);
  t.equal(all.length, 100, 'rows stay; only bodies go');
  const newest = all[0]!;
  const oldest = all.at(-1)!;
  t.equal(newest.response_body, body, 'the newest bodies are kept');
  t.equal(newest.response_body_truncated, 0);
  t.equal(oldest.response_body, null, 'the oldest are dropped');
  t.equal(oldest.response_body_truncated, 1, 'with the truncation marker');
  t.equal(oldest.request_body_truncated, 1);
  t.ok(writer.stats().bodiesDropped > 0);
  writer.close();
});

t.test("a deleted environment's rows are gone for readers at once and from the file step by step", async (t) => {
  const { store, db } = setup(t);
  store.append(rows('gone', 3000, { body: 'y'.repeat(200) }));
  store.append(rows('kept', 10));
  store.markDeleted('gone');
  t.equal(store.count('gone'), 0, 'no row is listed any more');
  t.same(store.listPage('gone', 1, 10), { total: 0, items: [] });
  const remaining = () => (db.prepare("SELECT COUNT(*) AS n FROM request_logs WHERE environment_id = 'gone'").get() as { n: number }).n;
  t.equal(remaining(), 3000);
  const first = store.purgeStep(1000);
  t.equal(first, 1000, 'one step deletes at most its budget');
  t.equal(remaining(), 2000);
  while (store.purgeStep(1000) > 0);
  t.equal(remaining(), 0, 'rows and bodies deleted');
  t.equal((db.prepare("SELECT COUNT(*) AS n FROM request_log_environments WHERE environment_id = 'gone'").get() as { n: number }).n, 0);
  t.equal(store.count('kept'), 10, 'other environments untouched');
});

t.test('the writer answers only after commit and reports a failed commit', async (t) => {
  const { store, db } = setup(t);
  const writer = new RequestLogWriter(store);
  const order: string[] = [];
  await new Promise<void>((resolve) => {
    writer.write(rows('w', 1)[0]!, (ok) => {
      order.push(`done:${ok}:${store.count('w')}`);
      resolve();
    });
    order.push(`queued:${writer.queueDepth}:${store.count('w')}`);
  });
  t.same(order, ['queued:1:0', 'done:true:1'], 'the callback runs once the row is committed');
  db.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON request_logs BEGIN SELECT RAISE(ABORT, 'disk full'); END");
  const outcome = await new Promise<boolean>((resolve) => writer.write(rows('w', 1)[0]!, resolve));
  t.equal(outcome, false, 'a failed commit is reported to the waiting answer');
  t.equal(writer.writable, false);
  t.equal(writer.stats().failed, 1);
  writer.close();
});
