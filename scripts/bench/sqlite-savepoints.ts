// What the record store's SQLite settings cost the writes of an advance, isolated from the twin's
// own work: the writes (and the savepoints around each lifecycle step) of a one-year advance of a
// daily subscription are captured in-process, then replayed into fresh files under each variant,
// interleaved, so every variant sees the same machine load. The replay commits as the advance does
// (one transaction per slice of steps; STEPS_PER_COMMIT=1 commits after every step, as single
// provider requests do). Larger pages help the first and cost the second, so they are not used.
//   [STEPS_PER_COMMIT=30] node --import=tsx scripts/bench/sqlite-savepoints.ts [rounds=6]

import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordStore } from '../../twin-runtime/record-store.js';

const ROUNDS = Math.min(20, Number(process.argv[2] ?? 6));

// ---- capture: every put, and where each step's savepoint opens and closes ----------------------
type Op = ['put', string, string, string] | ['begin'] | ['end'];
const ops: Op[] = [];
let capturing = false;
const proto = RecordStore.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
const put = proto.put!;
const transaction = proto.transaction!;
proto.put = function (this: unknown, resource: unknown, id: unknown, body: unknown) {
  if (capturing) ops.push(['put', resource as string, id as string, JSON.stringify(body)]);
  return put.call(this, resource, id, body);
};
proto.transaction = function (this: unknown, fn: unknown) {
  if (capturing) ops.push(['begin']);
  try {
    return transaction.call(this, fn);
  } finally {
    if (capturing) ops.push(['end']);
  }
};
const { TwinAdminClient } = await import('../../control-plane/orchestration/twin-admin.js');
const advance = TwinAdminClient.prototype.advanceAndWait;
TwinAdminClient.prototype.advanceAndWait = async function (this: InstanceType<typeof TwinAdminClient>, ...a: Parameters<typeof advance>) {
  capturing = true;
  try {
    return await advance.apply(this, a);
  } finally {
    capturing = false;
  }
};
process.argv[2] = '1';
console.log('capturing a one-year advance:');
await import('./advance.js');
proto.put = put;
proto.transaction = transaction;

// ---- replay ---------------------------------------------------------------------------------
const SCHEMA = `CREATE TABLE records (seq INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, external_id TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (resource, external_id));
CREATE INDEX records_by_resource ON records (resource, seq);
CREATE INDEX records_by_scope ON records (resource, rtrim(external_id, replace(external_id, '/', '')), seq);
CREATE INDEX records_by_created ON records (resource, ifnull(json_extract(body, '$.created'), 0), seq);
CREATE INDEX records_by_status ON records (resource, json_extract(body, '$.status'), seq);`;
const STEPS_PER_COMMIT = Number(process.env.STEPS_PER_COMMIT ?? 30);

function replay(pragmas: string[]): number {
  const dir = mkdtempSync(join(tmpdir(), 'twins-savepoints-'));
  const db = new Database(join(dir, 'twin.sqlite'));
  try {
    for (const p of pragmas.filter((p) => p.startsWith('page_size'))) db.pragma(p);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    for (const p of pragmas.filter((p) => !p.startsWith('page_size'))) db.pragma(p);
    db.exec(SCHEMA);
    const upsert = db.prepare(
      'INSERT INTO records (resource, external_id, body) VALUES (?, ?, ?) ON CONFLICT (resource, external_id) DO UPDATE SET body = excluded.body',
    );
    const t0 = performance.now();
    let depth = 0;
    let steps = 0;
    db.exec('BEGIN');
    for (const op of ops) {
      if (op[0] === 'put') upsert.run(op[1], op[2], op[3]);
      else if (op[0] === 'begin') db.exec(`SAVEPOINT s${depth++}`);
      else {
        db.exec(`RELEASE s${--depth}`);
        if (depth === 0 && ++steps % STEPS_PER_COMMIT === 0) {
          db.exec('COMMIT');
          db.exec('BEGIN');
        }
      }
    }
    db.exec('COMMIT');
    return performance.now() - t0;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const variants: [string, string[]][] = [
  ['temp_store default (file)', ['temp_store = DEFAULT']],
  ['temp_store = MEMORY', ['temp_store = MEMORY']],
  ['MEMORY + 8 KB pages', ['temp_store = MEMORY', 'page_size = 8192']],
  ['MEMORY + 16 KB pages', ['temp_store = MEMORY', 'page_size = 16384']],
  ['MEMORY + cache 32 MB', ['temp_store = MEMORY', 'cache_size = -32768']],
];
const puts = ops.filter((o) => o[0] === 'put').length;
const results = new Map<string, number[]>();
for (let r = 0; r < ROUNDS; r++) for (const [name, pragmas] of variants) results.set(name, [...(results.get(name) ?? []), replay(pragmas)]);
console.log(`replayed ${puts} writes in ${ops.filter((o) => o[0] === 'begin').length} savepoints, ${ROUNDS} rounds each, interleaved`);
const base = Math.min(...results.get(variants[0]![0])!);
for (const [name, ms] of results) {
  ms.sort((a, b) => a - b);
  const min = ms[0]!;
  console.log(
    `${name.padEnd(28)} min ${min.toFixed(0).padStart(6)} ms (${((min / puts) * 1000).toFixed(1)} µs per write, ×${(min / base).toFixed(2)})  median ${ms[Math.floor(ms.length / 2)]!.toFixed(0)} ms`,
  );
}
