// Environments (one sandbox each) and their twins: desired and observed state, gateway URL, the
// running workload's address, key and admin secret. Every read a route makes is scoped to an
// organization; the reconciler reads by id.

import type { Db } from './database.js';

export type EnvironmentStatus = 'provisioning' | 'ready' | 'degraded' | 'stopping' | 'stopped' | 'expired' | 'failed';
export type DesiredState = 'running' | 'stopped';
/** `degraded`: running, but it did not answer its health check in time (busy); restarted if it stays so. */
export type TwinState = 'pending' | 'starting' | 'ready' | 'degraded' | 'stopping' | 'stopped' | 'failed';

export interface EnvironmentRow {
  id: string;
  organization_id: string;
  sandbox_id: string;
  slug: string;
  name: string;
  status: EnvironmentStatus;
  scenario_id: string | null;
  /** `strict` refuses what a twin does not simulate; `lenient` answers permissively (decisions §15). */
  fidelity: 'strict' | 'lenient';
  /** `living`: the clock runs with wall time from `clock_wall`; `frozen`: it moves only on advance. */
  clock_mode: 'living' | 'frozen';
  /** The clock's reading at `clock_wall` (living), or its instant (frozen): orchestration/clock.ts reads it. */
  clock: string;
  /** Living: the wall time at which the clock read `clock`; null for a frozen clock. */
  clock_wall: string | null;
  clock_start: string;
  ttl_seconds: number | null;
  created_at: string;
  expires_at: string | null;
  deleted_at: string | null;
}

export interface EnvironmentTwinRow {
  id: string;
  environment_id: string;
  organization_id: string;
  twin_slug: string;
  twin_version: string;
  seed_id: string | null;
  seed_file: string | null;
  /** The snapshot the twin started from (its file is then `seed_file`), and the twin of it this one continues. */
  snapshot_id: string | null;
  snapshot_twin_id: string | null;
  desired_state: DesiredState;
  state: TwinState;
  url: string | null;
  gateway_port: number | null;
  address: string | null;
  admin_secret: string;
  api_key: string | null;
  data_file: string;
  restarts: number;
  created_at: string;
  ready_at: string | null;
  failure: string | null;
  deleted_at: string | null;
}

export type NewEnvironment = Omit<EnvironmentRow, 'deleted_at'>;
export type NewEnvironmentTwin = Omit<EnvironmentTwinRow, 'url' | 'gateway_port' | 'address' | 'api_key' | 'restarts' | 'ready_at' | 'failure' | 'deleted_at'>;

type TwinPatch = Partial<
  Pick<EnvironmentTwinRow, 'desired_state' | 'state' | 'url' | 'gateway_port' | 'address' | 'api_key' | 'restarts' | 'ready_at' | 'failure' | 'deleted_at'>
>;
type EnvironmentPatch = Partial<Pick<EnvironmentRow, 'name' | 'status' | 'clock' | 'clock_wall' | 'ttl_seconds' | 'expires_at' | 'deleted_at'>>;

const ENV_COLUMNS = [
  'id',
  'organization_id',
  'sandbox_id',
  'slug',
  'name',
  'status',
  'scenario_id',
  'fidelity',
  'clock_mode',
  'clock',
  'clock_wall',
  'clock_start',
  'ttl_seconds',
  'created_at',
  'expires_at',
] as const;
const TWIN_COLUMNS = [
  'id',
  'environment_id',
  'organization_id',
  'twin_slug',
  'twin_version',
  'seed_id',
  'seed_file',
  'snapshot_id',
  'snapshot_twin_id',
  'desired_state',
  'state',
  'admin_secret',
  'data_file',
  'created_at',
] as const;

export class EnvironmentStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insertEnv: db.prepare(`INSERT INTO environments (${ENV_COLUMNS.join(', ')}) VALUES (${ENV_COLUMNS.map((c) => '@' + c).join(', ')})`),
      insertTwin: db.prepare(`INSERT INTO environment_twins (${TWIN_COLUMNS.join(', ')}) VALUES (${TWIN_COLUMNS.map((c) => '@' + c).join(', ')})`),
      envById: db.prepare('SELECT * FROM environments WHERE id = ?'),
      envOfOrg: db.prepare('SELECT * FROM environments WHERE id = ? AND organization_id = ? AND deleted_at IS NULL'),
      envBySandbox: db.prepare('SELECT * FROM environments WHERE sandbox_id = ? AND organization_id = ? AND deleted_at IS NULL'),
      countEnvs: db.prepare('SELECT COUNT(*) AS n FROM environments WHERE organization_id = ? AND deleted_at IS NULL'),
      listEnvs: db.prepare('SELECT * FROM environments WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?'),
      twinsOfEnv: db.prepare('SELECT * FROM environment_twins WHERE environment_id = ? AND deleted_at IS NULL ORDER BY created_at, rowid'),
      twinById: db.prepare('SELECT * FROM environment_twins WHERE id = ?'),
      twinOfOrg: db.prepare(
        `SELECT t.* FROM environment_twins t JOIN environments e ON e.id = t.environment_id
         WHERE t.id = ? AND t.organization_id = ? AND t.deleted_at IS NULL AND e.deleted_at IS NULL`,
      ),
      activeTwins: db.prepare(`SELECT COUNT(*) AS n FROM environment_twins WHERE organization_id = ? AND deleted_at IS NULL AND desired_state = 'running'`),
      toReconcile: db.prepare(`SELECT id FROM environment_twins WHERE deleted_at IS NULL OR state != 'stopped' ORDER BY created_at, rowid`),
      liveEnvs: db.prepare('SELECT * FROM environments WHERE deleted_at IS NULL'),
      dueToExpire: db.prepare(`SELECT * FROM environments WHERE deleted_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ? AND status != 'expired'`),
    };
  }

  /** Create an environment and its twins atomically. */
  create(env: NewEnvironment, twins: NewEnvironmentTwin[]): void {
    this.db.transaction(() => {
      this.stmts.insertEnv.run(env);
      for (const t of twins) this.stmts.insertTwin.run(t);
    })();
  }

  addTwin(twin: NewEnvironmentTwin): void {
    this.stmts.insertTwin.run(twin);
  }

  /** Internal read by id (reconciler), deleted rows included. */
  environmentById(id: string): EnvironmentRow | undefined {
    return this.stmts.envById.get(id) as EnvironmentRow | undefined;
  }

  /** An environment of this organization; undefined for unknown, deleted or another org's. */
  environment(orgId: string, id: string): EnvironmentRow | undefined {
    return this.stmts.envOfOrg.get(id, orgId) as EnvironmentRow | undefined;
  }

  environmentBySandbox(orgId: string, sandboxId: string): EnvironmentRow | undefined {
    return this.stmts.envBySandbox.get(sandboxId, orgId) as EnvironmentRow | undefined;
  }

  countEnvironments(orgId: string): number {
    return (this.stmts.countEnvs.get(orgId) as { n: number }).n;
  }

  /** Newest first. */
  listEnvironments(orgId: string, limit: number, offset: number): EnvironmentRow[] {
    return this.stmts.listEnvs.all(orgId, limit, offset) as EnvironmentRow[];
  }

  /** The environment's current twins, in the order they were added. */
  twinsOf(environmentId: string): EnvironmentTwinRow[] {
    return this.stmts.twinsOfEnv.all(environmentId) as EnvironmentTwinRow[];
  }

  twinById(id: string): EnvironmentTwinRow | undefined {
    return this.stmts.twinById.get(id) as EnvironmentTwinRow | undefined;
  }

  /** A twin of this organization whose environment still exists. */
  twin(orgId: string, id: string): EnvironmentTwinRow | undefined {
    return this.stmts.twinOfOrg.get(id, orgId) as EnvironmentTwinRow | undefined;
  }

  /** Twins asked to run right now (plan limit `max_parallel_twins`, billing `active_twins`). */
  countActiveTwins(orgId: string): number {
    return (this.stmts.activeTwins.get(orgId) as { n: number }).n;
  }

  /** Every twin the reconciler still has work for: live ones, and removed ones not yet torn down. */
  twinIdsToReconcile(): string[] {
    return (this.stmts.toReconcile.all() as { id: string }[]).map((r) => r.id);
  }

  liveEnvironments(): EnvironmentRow[] {
    return this.stmts.liveEnvs.all() as EnvironmentRow[];
  }

  /** Deleted environments whose request-log rows are still kept (the log file is attached as `logs`). */
  deletedEnvironmentsWithLogs(): string[] {
    return (
      this.db
        .prepare(
          `SELECT l.environment_id AS id FROM request_log_environments l JOIN environments e ON e.id = l.environment_id
           WHERE e.deleted_at IS NOT NULL AND l.deleted = 0`,
        )
        .all() as { id: string }[]
    ).map((r) => r.id);
  }

  environmentsDueToExpire(nowIso: string): EnvironmentRow[] {
    return this.stmts.dueToExpire.all(nowIso) as EnvironmentRow[];
  }

  updateTwin(id: string, patch: TwinPatch): void {
    const keys = Object.keys(patch);
    if (keys.length === 0) return;
    this.db.prepare(`UPDATE environment_twins SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...patch, id });
  }

  updateEnvironment(id: string, patch: EnvironmentPatch): void {
    const keys = Object.keys(patch);
    if (keys.length === 0) return;
    this.db.prepare(`UPDATE environments SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...patch, id });
  }

  /** Every twin of an environment at once (expiry stops them, deletion removes them). */
  updateTwinsOf(environmentId: string, patch: TwinPatch): void {
    const keys = Object.keys(patch);
    if (keys.length === 0) return;
    this.db
      .prepare(`UPDATE environment_twins SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE environment_id = @environmentId AND deleted_at IS NULL`)
      .run({ ...patch, environmentId });
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}
