// The request log's hand-off journal (log-journal.ts, log-writer-worker.ts): an answer leaves once
// its entry is in the journal; the writer's thread moves entries into SQLite and saves how far it
// got; a start replays what a crash left behind (a torn last entry ignored, several segments in
// order, an earlier version's NDJSON segments too), deletes what it applied, and a clean stop
// leaves no journal. Entries carry their bodies as bytes (entryParts/decodeEntries).

import t from 'tap';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayHost } from '../../control-plane/gateway/host.js';
import { STAT } from '../../control-plane/gateway/protocol.js';
import {
  decodeEntries,
  entryParts,
  journalDirFor,
  listSegments,
  LogJournal,
  SEGMENT_BYTES,
  segmentPath,
  unpackPosition,
  packPosition,
} from '../../control-plane/gateway/log-journal.js';
import { openLogDatabase, RequestLogStore, type RequestLogRow } from '../../control-plane/store/request-logs.js';
import type { CapturedRow } from '../../control-plane/gateway/recording.js';

const row = (env: string, i: number, body = ''): RequestLogRow => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  organization_id: 'org-j',
  environment_id: env,
  environment_twin_id: 'tw-j',
  twin_slug: 'stripe',
  actor: 'agent',
  method: 'POST',
  path: `/v1/customers/cus_${i}`,
  query_string: '',
  status_code: 200,
  duration_ms: 1,
  occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString(),
  request_headers: '{"content-type":"application/x-www-form-urlencoded"}',
  request_content_type: 'application/x-www-form-urlencoded',
  request_body: `email=a${i}%40example.com&note=${body}`,
  request_body_truncated: 0,
  response_content_type: 'application/json',
  response_body: JSON.stringify({ id: `cus_${i}`, object: 'customer', note: body }),
  response_body_truncated: 0,
});

t.test('positions pack into one shared counter and back', async (t) => {
  const p = { segment: 123456, offset: SEGMENT_BYTES + 4096 };
  t.same(unpackPosition(packPosition(p)), p);
  t.equal(unpackPosition(0n), undefined, 'nothing published yet');
});

t.test('entries: fields as JSON, headers and bodies as bytes; a torn tail, older entries and NDJSON lines, damaged entries', async (t) => {
  const a = row('env-e', 1, 'ünïcödé "quoted"\n');
  const b = { ...row('env-e', 2), request_body: null, response_body: Buffer.from('{"id":"cus_2"}') };
  const c = { ...row('env-e', 3), request_body: Buffer.alloc(0), response_body: null };
  const bytes = Buffer.concat(entryParts([a, b, c]));
  const whole = decodeEntries(bytes);
  t.equal(whole.consumed, bytes.length);
  t.ok(whole.rows.length > 0 && whole.rows.every((r) => r.response_body === null || Buffer.isBuffer(r.response_body)), 'bodies come back as bytes');
  const asText = (r: CapturedRow) => ({ ...r, request_body: r.request_body?.toString() ?? null, response_body: r.response_body?.toString() ?? null });
  t.same(whole.rows.map(asText), [a, { ...b, response_body: '{"id":"cus_2"}' }, { ...c, request_body: '' }], 'the same bytes; null stays null');

  // An answer completing a request journaled before it was forwarded keeps its mark; an entry of the
  // version before the mark (one field fewer) still reads.
  const answer = { ...row('env-e', 5), completes: 1 as const };
  t.equal(decodeEntries(Buffer.concat(entryParts([answer]))).rows[0]!.completes, 1);
  const unmarked = Buffer.concat(entryParts([a]));
  const fields = unmarked.readUInt32LE(1);
  const shorter = Buffer.from(JSON.stringify((JSON.parse(unmarked.toString('utf8', 17, 17 + fields)) as unknown[]).slice(0, -1)));
  const head = Buffer.from(unmarked.subarray(0, 17));
  head.writeUInt32LE(shorter.length, 1);
  const before = decodeEntries(Buffer.concat([head, shorter, unmarked.subarray(17 + fields)])).rows;
  t.same(before.map(asText), [a], 'an entry without the mark reads as before');

  // A write cut short anywhere in the last entry: the entries before it, and where they end.
  const twoEntries = Buffer.concat(entryParts([a, b])).length;
  for (const cut of [bytes.length - 1, twoEntries + 5, twoEntries + 20]) {
    const torn = decodeEntries(bytes, cut);
    t.equal(torn.consumed, twoEntries, `cut at ${cut}`);
    t.equal(torn.rows.length, 2);
  }

  // An earlier version's lines, then entries, in one segment.
  const older = Buffer.from(JSON.stringify(row('env-e', 4)) + '\n{"damaged\n');
  const mixed = decodeEntries(Buffer.concat([older, bytes]));
  t.same(
    mixed.rows.map((r) => r.id),
    [row('env-e', 4).id, a.id, b.id, c.id],
    'a damaged line is skipped',
  );

  // Damaged fields: the entry is skipped, the ones after it still read.
  const damaged = Buffer.from(bytes);
  damaged[17] = 0x21; // the first entry's JSON no longer parses
  t.same(
    decodeEntries(damaged).rows.map((r) => r.id),
    [b.id, c.id],
  );

  // The previous version's entries (fields as one JSON object, headers inside), before these.
  const previous = (r: CapturedRow): Buffer => {
    const { request_body, response_body, ...fields } = r;
    const json = Buffer.from(JSON.stringify(fields));
    const req = request_body === null ? null : Buffer.from(request_body);
    const res = response_body === null ? null : Buffer.from(response_body);
    const head = Buffer.alloc(13);
    head[0] = 0x01;
    head.writeUInt32LE(json.length, 1);
    head.writeInt32LE(req ? req.length : -1, 5);
    head.writeInt32LE(res ? res.length : -1, 9);
    return Buffer.concat([head, json, ...(req ? [req] : []), ...(res ? [res] : [])]);
  };
  const upgraded = decodeEntries(Buffer.concat([previous(a), previous(b), bytes]));
  t.same(
    upgraded.rows.map(asText),
    [a, { ...b, response_body: '{"id":"cus_2"}' }, a, { ...b, response_body: '{"id":"cus_2"}' }, { ...c, request_body: '' }],
    'previous entries read',
  );

  // The fidelity level round-trips; entries written before it was a field (17 fields) read without it.
  const leveled = { ...b, fidelity: 'unsupported' as const };
  t.same(decodeEntries(Buffer.concat(entryParts([leveled]))).rows.map(asText), [{ ...leveled, response_body: '{"id":"cus_2"}' }]);
  const beforeFidelity = (r: CapturedRow): Buffer => {
    const names = ['id', 'organization_id', 'environment_id', 'environment_twin_id', 'twin_slug', 'actor', 'method', 'path', 'query_string', 'status_code'];
    const rest = [
      'duration_ms',
      'occurred_at',
      'request_content_type',
      'request_body_truncated',
      'response_content_type',
      'response_body_truncated',
      'body_bytes',
    ];
    const json = Buffer.from(JSON.stringify([...names, ...rest].map((k) => (r as unknown as Record<string, unknown>)[k] ?? null)));
    const headers = Buffer.from(r.request_headers);
    const req = r.request_body === null ? null : Buffer.from(r.request_body);
    const res = r.response_body === null ? null : Buffer.from(r.response_body);
    const head = Buffer.alloc(17);
    head[0] = 0x02;
    head.writeUInt32LE(json.length, 1);
    head.writeUInt32LE(headers.length, 5);
    head.writeInt32LE(req ? req.length : -1, 9);
    head.writeInt32LE(res ? res.length : -1, 13);
    return Buffer.concat([head, json, headers, ...(req ? [req] : []), ...(res ? [res] : [])]);
  };
  const beforeRows = decodeEntries(Buffer.concat([beforeFidelity(a), ...entryParts([leveled])])).rows;
  t.same(beforeRows.map(asText), [a, { ...leveled, response_body: '{"id":"cus_2"}' }], 'an entry from before reads, with no fidelity');
  t.notOk('fidelity' in beforeRows[0]!, 'absent: stored as null');

  // Rows that give body_bytes keep it; entryParts is what the journal writes (no copy of the bodies).
  const counted = { ...b, body_bytes: 14 };
  t.same(decodeEntries(Buffer.concat(entryParts([counted]))).rows.map(asText), [{ ...counted, response_body: '{"id":"cus_2"}' }]);
  t.equal(entryParts([counted]).at(-1), counted.response_body, 'the body is written from its own buffer');
});

t.test('journal directory: memory-backed when there is one, beside the log otherwise, owner-only', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'twins-journal-dir-'));
  const memory = mkdtempSync(join(tmpdir(), 'twins-journal-mem-'));
  t.teardown(() => {
    rmSync(data, { recursive: true, force: true });
    rmSync(memory, { recursive: true, force: true });
  });
  const inMemory = journalDirFor(data, memory);
  t.ok(inMemory.startsWith(memory + '/twins-log-journal-'), inMemory);
  t.equal(journalDirFor(data, memory), inMemory, 'the same data directory finds the same journal after a restart');
  t.not(journalDirFor(mkdtempSync(join(data, 'other-')), memory), inMemory, 'another data directory has its own');
  t.equal(journalDirFor(data, join(memory, 'absent')), join(data, 'request-log-journal'));

  // Memory without room (a container's 64 MB /dev/shm): beside the log.
  const small = mkdtempSync(join(data, 'small-'));
  t.equal(journalDirFor(small, memory, Number.MAX_SAFE_INTEGER), join(small, 'request-log-journal'), 'too little memory free: on disk');
  // A journal a crash left behind is replayed where it is, whatever the room now.
  writeFileSync(join(inMemory, 'journal-3.entries'), '');
  t.equal(journalDirFor(data, memory, Number.MAX_SAFE_INTEGER), inMemory, 'segments in memory: stays in memory');
  const onDisk = mkdtempSync(join(data, 'disk-'));
  mkdirSync(join(onDisk, 'request-log-journal'));
  writeFileSync(join(onDisk, 'request-log-journal', 'journal-1.entries'), '');
  t.equal(journalDirFor(onDisk, memory), join(onDisk, 'request-log-journal'), 'segments on disk: stays on disk');
  // An earlier version's segments (NDJSON) count too, under the current name.
  const older = mkdtempSync(join(data, 'older-'));
  mkdirSync(join(older, 'request-log-journal'));
  writeFileSync(join(older, 'request-log-journal', 'journal-7.ndjson'), '');
  t.equal(journalDirFor(older, memory), join(older, 'request-log-journal'), 'older segments on disk: stays on disk');
  t.same(listSegments(join(older, 'request-log-journal')), [7]);
});

t.test('a crash between the answer and SQLite: the next start replays the journal', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-journal-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const logFile = join(dir, 'request-logs.sqlite');
  const journalDir = join(dir, 'journal');
  let next = 1;
  const released: boolean[] = [];
  let published: bigint = 0n;
  // journalDirFor makes the directory; here it is made by hand to keep the test off /dev/shm.
  mkdirSync(journalDir, { recursive: true });
  const journal = new LogJournal(
    journalDir,
    () => next++,
    () => 0,
    (end) => (published = packPosition(end)),
  );
  // Enough rows for two segments (~2.5 KB each).
  const big = 'x'.repeat(2000);
  const rows = Array.from({ length: Math.ceil((SEGMENT_BYTES * 1.3) / 2600) }, (_, i) => row('env-j', i, big));
  for (const [i, r] of rows.entries()) {
    journal.write(r, (ok) => released.push(ok));
    if (i % 100 === 99) journal.flush();
  }
  journal.flush();
  journal.close();
  t.ok(rows.length > 0 && released.length === rows.length && released.every(Boolean), `${rows.length} answers released, each after its entry was written`);
  const segments = listSegments(journalDir);
  t.ok(segments.length >= 2, `the journal rotated (${segments.length} segments)`);
  t.same(unpackPosition(published)?.segment, segments.at(-1), 'the published end is in the last segment');
  // A power loss could cut the last entry short: it was never answered, and is ignored.
  appendFileSync(segmentPath(journalDir, segments.at(-1)!), Buffer.concat(entryParts([row('env-j', 999_999)])).subarray(0, 40));
  // A segment an earlier version (NDJSON) left behind is replayed too, in its place.
  const olderSegment = segments.at(-1)! + 1;
  const olderRows = [row('env-j', 1_000_001), row('env-j', 1_000_002)];
  writeFileSync(join(journalDir, `journal-${olderSegment}.ndjson`), olderRows.map((r) => JSON.stringify(r) + '\n').join('') + '{"id":"torn","organiz');
  rows.push(...olderRows);
  segments.push(olderSegment);

  // The "crashed" process never moved anything into SQLite; a new start does.
  const host = new GatewayHost({ logFile, journalDir, host: '127.0.0.1', defaultRetentionDays: 3650, bodyCapBytes: 1 << 30 });
  await host.start();
  // The replayed rows were journaled by the crashed process: they are not this one's to wait for.
  t.equal(host.stats().log.written, 0);
  t.equal(Number((host as unknown as { counters: BigInt64Array }).counters[STAT.applied]), 0, 'a replay counts nothing as applied');
  const db = openLogDatabase(logFile);
  const store = new RequestLogStore(db);
  t.equal(store.count('env-j'), rows.length, 'every journaled entry is in the log after the start');
  const newest = store.page('env-j', 1, 0)[0]!;
  t.equal(newest.id, rows.at(-1)!.id, 'in order: the newest is the last written');
  t.equal(newest.response_body, rows.at(-1)!.response_body);
  t.same(listSegments(journalDir), [segments.at(-1)], 'applied segments are deleted (the last once entries go on past it)');

  // New entries after the start go on in a fresh segment and reach SQLite (a URL without its twin
  // yet answers 503 itself, logged like any answer); a clean stop removes the journal.
  const { url } = await host.open({ twinId: 'tw-j', environmentId: 'env-j', organizationId: 'org-j', slug: 'stripe' });
  t.equal((await fetch(`${url}/v1/customers`)).status, 503);
  await host.awaitLogged();
  t.equal(store.count('env-j'), rows.length + 1, 'the new entry follows the replayed ones');
  t.equal(store.page('env-j', 1, 0)[0]!.status_code, 503);
  t.ok(
    listSegments(journalDir).every((s) => s > segments.at(-1)!),
    'the replayed segments are gone',
  );
  await host.closeAll();
  db.close();
  t.notOk(existsSync(journalDir), 'a clean stop leaves no journal behind');
  t.ok(readdirSync(dir).includes('request-logs.sqlite'));
});
