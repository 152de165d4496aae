// Expansion: a plan becomes a seed file by driving the twin's own model. A fresh SQLite file is
// opened as a twin host (in-process, no port), the twin's `seeding.expand` issues the provider
// calls a real user would, and the finished file — the twin's own storage format, holding the
// clock the expansion ended at — is compacted and moved into place. A failure leaves no file.

import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import type { TwinDefinition } from '../twin-runtime/contract.js';
import { TwinHost } from '../twin-runtime/host.js';
import { resolvePlan } from './entities.js';
import type { Plan } from './plan.js';
import { SeedExpansionError } from '../twin-runtime/seeding.js';
import { HostSeedApi } from './seed-api.js';
import { PlanSeedValues } from './values.js';

export interface GeneratedSeed {
  file: string;
  sizeBytes: number;
  recordCount: number;
  /** The seed's frozen clock (where the expansion ended). */
  clock: string;
  storageVersion: number;
  twinVersion: string;
  apiCalls: number;
}

function removeFile(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) rmSync(f, { force: true });
}

export async function generateSeedFile(twin: TwinDefinition, plan: Plan, file: string, opts: { signal?: AbortSignal } = {}): Promise<GeneratedSeed> {
  const seeding = twin.seeding;
  if (!seeding) throw new SeedExpansionError(`The ${twin.slug} twin cannot be seeded in this build.`);
  const entities = resolvePlan(plan);
  const tmp = `${file}.partial`;
  removeFile(tmp);
  const server = new TwinHost(twin, { dataFile: tmp, clockStart: new Date(plan.clock_start) });
  let closed = false;
  try {
    // The file is thrown away on any failure (all or nothing comes from the rename below), so
    // per-request durability buys nothing here. One enclosing transaction is not possible: the
    // runtime's pipeline BEGINs per batch of requests; with no sync and an in-memory journal those
    // commits cost next to nothing, and rollback of a refused call works.
    server.store.db.pragma('synchronous = OFF');
    server.store.db.pragma('journal_mode = MEMORY');
    const api = new HostSeedApi(server, { encoding: seeding.encoding, authorization: `Bearer ${server.apiKey}` }, opts.signal);
    await seeding.expand(entities, { api, values: new PlanSeedValues(`${plan.twin}:${plan.key}`, plan.pools) });
    const clock = server.clock.now();
    // Loading the seed (or resetting to it) puts the clock back here, not at the plan's start.
    server.store.setMeta('clock_start', String(clock.getTime()));
    const recordCount = (server.store.db.prepare('SELECT COUNT(*) AS n FROM records').get() as { n: number }).n;
    // One self-contained file: no WAL beside it, no free pages.
    server.store.db.pragma('journal_mode = DELETE');
    server.store.db.exec('VACUUM');
    await server.close();
    closed = true;
    removeFile(file);
    renameSync(tmp, file);
    return {
      file,
      sizeBytes: statSync(file).size,
      recordCount,
      clock: clock.toISOString(),
      storageVersion: twin.storageVersion,
      twinVersion: twin.version,
      apiCalls: api.calls,
    };
  } finally {
    if (!closed) {
      await server.close().catch(() => undefined);
      removeFile(tmp);
    }
    if (existsSync(tmp)) removeFile(tmp);
  }
}
