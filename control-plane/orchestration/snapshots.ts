// Snapshots, forks and diffs of environments (issue 38, decisions §13). A snapshot is each twin's
// SQLite file as the twin itself copies it (`VACUUM INTO`, an exclusive job of its pipeline: no
// request half applied; twin-runtime/snapshot.ts), taken under the environment's clock lock so every
// copy stands at the same instant, kept under the data directory. An environment started from one
// gets each file cloned (`COPYFILE_FICLONE`: a reflink where the filesystem can, a plain copy
// elsewhere) as its twins' data files, never a replay of history; a fork is both at once. The clock
// and each twin's seeded id source travel in the files.

import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../store/database.js';
import type { EnvironmentStore, EnvironmentTwinRow } from '../store/environments.js';
import { SnapshotStore, snapshotTwins, type SnapshotRow, type SnapshotTwin } from '../store/snapshots.js';
import { badGateway, conflict, notFound } from '../http/errors.js';
import { paginate, type Page, type PageQuery } from '../http/pagination.js';
import { loadTwin } from '../../twin-runtime/registry.js';
import type { SnapshotFile } from '../../twin-runtime/snapshot.js';
import { clockAt } from './clock.js';
import type { EnvironmentService, EnvironmentView } from './environments.js';
import type { OrganizationJobs } from './organization-jobs.js';
import type { Reconciler } from './reconciler.js';
import type { TwinAdminClient } from './twin-admin.js';
import { diffTwinFiles, type TwinDiff } from './diff.js';

export interface SnapshotTwinView {
  twin_id: string;
  twin_slug: string;
  twin_version: string;
  storage_version: number;
  size_bytes: number;
}

export interface SnapshotView {
  id: string;
  name: string;
  environment_id: string;
  twins: SnapshotTwinView[];
  /** The environment clock's instant when the snapshot was taken; an environment started from it starts here. */
  clock: string;
  clock_mode: 'living' | 'frozen';
  size_bytes: number;
  created_at: string;
}

export interface DiffView {
  twins: TwinDiff[];
}

/** Where a snapshot's files live: one directory per snapshot, one file per twin. */
export function snapshotDir(dataDir: string, snapshotId: string): string {
  return join(dataDir, 'snapshots', snapshotId);
}

export function snapshotFilePath(dataDir: string, snapshotId: string, twinId: string): string {
  return join(snapshotDir(dataDir, snapshotId), `${twinId}.sqlite`);
}

export function snapshotView(row: SnapshotRow): SnapshotView {
  return {
    id: row.id,
    name: row.name,
    environment_id: row.environment_id,
    twins: snapshotTwins(row).map((t) => ({
      twin_id: t.twin_id,
      twin_slug: t.twin_slug,
      twin_version: t.twin_version,
      storage_version: t.storage_version,
      size_bytes: t.size_bytes,
    })),
    clock: row.clock,
    clock_mode: row.clock_mode,
    size_bytes: row.size_bytes,
    created_at: row.created_at,
  };
}

/** A twin of a snapshot with the file a new twin's data file is cloned from. */
export type SnapshotStartTwin = SnapshotTwin & { file: string };

/**
 * The twins a new environment starts from a snapshot with: each file (checked against its twin's
 * storage version, as a seed's is) and the snapshot's clock and settings. 404 unknown, 409 unusable.
 */
export async function snapshotStartingPoint(
  db: Db,
  dataDir: string,
  orgId: string,
  snapshotId: string,
): Promise<{ row: SnapshotRow; twins: SnapshotStartTwin[] }> {
  // Every driver can start from one: under kubernetes the twin fetches its file (start-files.ts).
  const row = new SnapshotStore(db).get(orgId, snapshotId);
  if (!row) throw notFound(`Snapshot ${snapshotId} not found.`);
  const twins: SnapshotStartTwin[] = [];
  for (const t of snapshotTwins(row)) {
    const def = await loadTwin(t.twin_slug);
    if (def.storageVersion !== t.storage_version) {
      throw conflict(
        `Snapshot ${snapshotId} holds a ${t.twin_slug} twin written in storage version ${t.storage_version}; the ${t.twin_slug} twin is now at ${def.storageVersion} and cannot load it. Take a new snapshot.`,
      );
    }
    twins.push({ ...t, file: snapshotFilePath(dataDir, row.id, t.twin_id) });
  }
  return { row, twins };
}

export interface SnapshotServiceOptions {
  db: Db;
  dataDir: string;
  store: EnvironmentStore;
  environments: EnvironmentService;
  reconciler: Reconciler;
  admin: TwinAdminClient;
  jobs: OrganizationJobs;
  /** The driver's name: under `kubernetes` a twin's file lives in its Pod (snapshots fetch the copy over its admin API; a live diff is refused). */
  driverName: string;
  log?: Logger;
}

export class SnapshotService {
  readonly snapshots: SnapshotStore;

  constructor(private readonly o: SnapshotServiceOptions) {
    this.snapshots = new SnapshotStore(o.db);
  }

  snapshot(orgId: string, id: string): SnapshotRow {
    const row = this.snapshots.get(orgId, id);
    if (!row) throw notFound(`Snapshot ${id} not found.`);
    return row;
  }

  list(orgId: string, environmentId: string, q: PageQuery): Page<SnapshotView> {
    const env = this.o.environments.environment(orgId, environmentId);
    return paginate(q, this.snapshots.count(orgId, env.id), (limit, offset) => this.snapshots.list(orgId, env.id, limit, offset).map(snapshotView));
  }

  /** Every twin of the environment, each ready (409 otherwise). */
  private readyTwins(environmentId: string): (EnvironmentTwinRow & { address: string })[] {
    const twins = this.o.store.twinsOf(environmentId);
    const notReady = twins.find((t) => t.state !== 'ready' || !t.address);
    if (notReady) throw conflict(`Twin ${notReady.id} is ${notReady.state}; take a snapshot when every twin of the environment is ready.`);
    return twins as (EnvironmentTwinRow & { address: string })[];
  }

  /**
   * Copy every twin's file and the clock (an organization job, under the environment's clock lock
   * so no advance moves the clock between the copies) → the Snapshot.
   */
  async take(orgId: string, environmentId: string, name: string): Promise<SnapshotView> {
    const env = this.o.environments.environment(orgId, environmentId);
    if (env.status === 'expired') throw conflict(`Environment ${environmentId} has expired; its twins are stopped.`);
    this.o.environments.refuseWhileAdvancing(env.id);
    this.readyTwins(env.id);
    const row = await this.o.jobs.run(orgId, 'snapshot', () => this.o.reconciler.clockLocks.run(env.id, () => this.capture(orgId, env.id, name)));
    return snapshotView(row);
  }

  private async capture(orgId: string, environmentId: string, name: string): Promise<SnapshotRow> {
    const env = this.o.store.environmentById(environmentId)!;
    const twins = this.readyTwins(env.id);
    const id = randomUUID();
    const instant = new Date(clockAt(env)).toISOString();
    const dir = snapshotDir(this.o.dataDir, id);
    mkdirSync(dir, { recursive: true });
    // Each twin writes its copy beside its data file (the directory it can write under every
    // driver that shares the data directory); it then moves under the snapshot's directory.
    const written: SnapshotTwin[] = [];
    try {
      await Promise.all(
        twins.map(async (t) => {
          // Named for the twin too: the twins of one environment may share one data directory.
          const file = `snapshot-${id}-${t.id}.sqlite`;
          const staged = join(dirname(t.data_file), file);
          try {
            const out = await this.o.admin.expect<SnapshotFile>(200, t.address, t.admin_secret, 'POST', '/_twin/snapshot', { file, clock: instant });
            if (this.o.driverName === 'kubernetes') {
              // The twin's directory is in its Pod: the copy comes over its admin API, then the twin drops it.
              await this.o.admin.download(t.address, t.admin_secret, `/_twin/snapshot/${file}`, snapshotFilePath(this.o.dataDir, id, t.id));
              await this.o.admin.call(t.address, t.admin_secret, 'DELETE', `/_twin/snapshot/${file}`).catch(() => undefined);
            } else renameSync(staged, snapshotFilePath(this.o.dataDir, id, t.id));
            written.push({
              twin_id: t.id,
              twin_slug: t.twin_slug,
              twin_version: t.twin_version,
              storage_version: out.storage_version,
              size_bytes: out.size_bytes,
              origin_twin_id: t.snapshot_twin_id,
            });
          } catch (e) {
            if (this.o.driverName === 'kubernetes')
              await this.o.admin.call(t.address, t.admin_secret, 'DELETE', `/_twin/snapshot/${file}`).catch(() => undefined);
            else rmSync(staged, { force: true });
            this.o.log?.warn({ err: (e as Error).message, twinId: t.id }, 'snapshot of a twin failed');
            throw badGateway(`The ${t.twin_slug} twin ${t.id} could not copy its records; no snapshot was kept. Retry in a moment.`);
          }
        }),
      );
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    // In the environment's twin order, whatever order the copies finished in.
    const order = new Map(twins.map((t, i) => [t.id, i]));
    written.sort((a, b) => order.get(a.twin_id)! - order.get(b.twin_id)!);
    const row: Omit<SnapshotRow, 'deleted_at'> = {
      id,
      organization_id: orgId,
      environment_id: env.id,
      name,
      clock: instant,
      clock_mode: env.clock_mode,
      fidelity: env.fidelity,
      twins: JSON.stringify(written),
      size_bytes: written.reduce((n, t) => n + t.size_bytes, 0),
      created_at: new Date().toISOString(),
    };
    this.snapshots.insert(row);
    return { ...row, deleted_at: null };
  }

  /** A snapshot of the environment and a new environment started from it, at once. */
  async fork(orgId: string, environmentId: string, name?: string): Promise<EnvironmentView> {
    const env = this.o.environments.environment(orgId, environmentId);
    const forkName = name ?? `${env.name} (fork)`.slice(0, 200);
    // Refused before anything is copied: a fork over the plan's limit leaves no snapshot behind.
    this.o.environments.checkParallelLimit(orgId, this.o.store.twinsOf(env.id).length);
    const snapshot = await this.take(orgId, env.id, `fork: ${forkName}`.slice(0, 200));
    return this.o.environments.create(orgId, {
      name: forkName,
      snapshot_id: snapshot.id,
      fidelity: env.fidelity,
      clock: env.clock_mode,
      ttl_seconds: env.ttl_seconds,
    });
  }

  /** 409 while twins of live environments start from it (reset returns to it). */
  delete(orgId: string, id: string): void {
    this.snapshot(orgId, id);
    const twins = this.snapshots.liveTwinsUsing(id);
    if (twins > 0) {
      throw conflict(
        `Snapshot ${id} is the starting point of ${twins} twin${twins > 1 ? 's' : ''} of live environments (reset returns to it); delete those environments first.`,
      );
    }
    this.snapshots.softDelete(orgId, id);
    rmSync(snapshotDir(this.o.dataDir, id), { recursive: true, force: true });
  }

  /**
   * What changed per twin: from a snapshot to the environment now (`snapshotId`), or between two
   * snapshots (`to`). A live twin's file is read as SQLite gives a reader of a WAL file: the last
   * committed state, so no request half applied. An organization job (it reads whole files).
   */
  async diff(orgId: string, environmentId: string, q: { from: string; to?: string }, limit?: number): Promise<DiffView> {
    const env = this.o.environments.environment(orgId, environmentId);
    const before = this.snapshot(orgId, q.from);
    const after = q.to ? this.snapshot(orgId, q.to) : undefined;
    // Under kubernetes a live twin's file is in its Pod: each twin's copy is fetched first (as a snapshot's is).
    const fetched = !after && this.o.driverName === 'kubernetes' ? await this.fetchLiveCopies(orgId, env.id) : undefined;
    try {
      const sides = this.pairs(before, after, env.id, fetched?.files);
      const journals = new Map<string, readonly string[]>();
      for (const s of sides) if (!journals.has(s.slug)) journals.set(s.slug, (await loadTwin(s.slug).catch(() => undefined))?.journal ?? []);
      return await this.o.jobs.run(orgId, 'diff', async () => ({
        twins: sides.map((s) => diffTwinFiles(s.twinId, s.before, s.after, { limit, journal: journals.get(s.slug) })),
      }));
    } finally {
      if (fetched) rmSync(fetched.dir, { recursive: true, force: true });
    }
  }

  /** Each ready twin's records now, copied by the twin and fetched over its admin API (twin id → temporary file). */
  private async fetchLiveCopies(orgId: string, environmentId: string): Promise<{ dir: string; files: Map<string, string> }> {
    const twins = this.readyTwins(environmentId);
    const id = randomUUID();
    const dir = join(this.o.dataDir, 'diffs', id);
    mkdirSync(dir, { recursive: true });
    const files = new Map<string, string>();
    try {
      await this.o.jobs.run(orgId, 'diff', () =>
        Promise.all(
          twins.map(async (t) => {
            const file = `diff-${id}-${t.id}.sqlite`;
            try {
              await this.o.admin.expect<SnapshotFile>(200, t.address, t.admin_secret, 'POST', '/_twin/snapshot', { file });
              await this.o.admin.download(t.address, t.admin_secret, `/_twin/snapshot/${file}`, join(dir, `${t.id}.sqlite`));
              files.set(t.id, join(dir, `${t.id}.sqlite`));
            } catch (e) {
              this.o.log?.warn({ err: (e as Error).message, twinId: t.id }, 'copying a twin for a diff failed');
              throw badGateway(`The ${t.twin_slug} twin ${t.id} could not copy its records for the diff. Retry in a moment.`);
            } finally {
              await this.o.admin.call(t.address, t.admin_secret, 'DELETE', `/_twin/snapshot/${file}`).catch(() => undefined);
            }
          }),
        ),
      );
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    return { dir, files };
  }

  /**
   * The files to compare, twin by twin: a twin is paired with the snapshot's twin it is (same id)
   * or continues (it started from it). A twin on one side only is compared with nothing.
   */
  private pairs(
    before: SnapshotRow,
    after: SnapshotRow | undefined,
    environmentId: string,
    /** Live twins' files fetched from where they run (kubernetes), by twin id. */
    fetched?: Map<string, string>,
  ): { twinId: string; slug: string; before?: string; after?: string }[] {
    const beforeTwins = snapshotTwins(before);
    const file = (row: SnapshotRow, t: SnapshotTwin) => snapshotFilePath(this.o.dataDir, row.id, t.twin_id);
    const afterSide: { twinId: string; slug: string; origin: string | null; file: string }[] = after
      ? snapshotTwins(after).map((t) => ({ twinId: t.twin_id, slug: t.twin_slug, origin: t.origin_twin_id, file: file(after, t) }))
      : this.o.store.twinsOf(environmentId).map((t) => {
          const file = fetched ? fetched.get(t.id) : t.data_file;
          // A twin that has not started yet has no file to read.
          if (!file || !existsSync(file)) throw conflict(`Twin ${t.id} is ${t.state} and holds no records yet; diff when it is ready.`);
          return { twinId: t.id, slug: t.twin_slug, origin: t.snapshot_twin_id, file };
        });
    const used = new Set<string>();
    const out: { twinId: string; slug: string; before?: string; after?: string }[] = [];
    for (const a of afterSide) {
      const b = beforeTwins.find((t) => !used.has(t.twin_id) && (t.twin_id === a.twinId || t.twin_id === a.origin || t.origin_twin_id === a.twinId));
      if (b) used.add(b.twin_id);
      out.push({ twinId: a.twinId, slug: a.slug, before: b && file(before, b), after: a.file });
    }
    for (const b of beforeTwins) if (!used.has(b.twin_id)) out.push({ twinId: b.twin_id, slug: b.twin_slug, before: file(before, b) });
    return out;
  }
}
