// The rules of environments, their twins and sandboxes, apart from the HTTP surface: creation
// (from twins, seeds or a scenario) within the plan's limits, edits, teardown, reset, the shared
// clock and advance, credentials and records through each twin's admin API, and request logs.

import { randomBytes, randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Db } from '../store/database.js';
import type { EnvironmentRow, EnvironmentStore, EnvironmentTwinRow, NewEnvironmentTwin } from '../store/environments.js';
import type { Logger } from 'pino';
import type { RequestLogFilter, RequestLogListItem, RequestLogStore } from '../store/request-logs.js';
import type { GatewayHost } from '../gateway/host.js';
import { AdvanceStore, type AdvanceRow } from '../store/advances.js';
import { OrganizationJobs } from './organization-jobs.js';
import { badGateway, conflict, forbidden, HttpError, notFound, paymentRequired } from '../http/errors.js';
import { paginate, type Page, type PageQuery } from '../http/pagination.js';
import { isTwinSlug, loadTwin } from '../../twin-runtime/registry.js';
import { DELIVERY_RESOURCE } from '../../twin-runtime/deliveries.js';
import type { Reconciler } from './reconciler.js';
import { TwinAdminError, type TwinAdminClient } from './twin-admin.js';
import { alignClocks, clockAt, clockColumns, clockNow, clockPosition, twinPosition } from './clock.js';
import { expiresAt, planLimitsFor } from './plan-limits.js';
import { billingRefusal } from '../billing/standing.js';
import { resolveScenario, resolveSeedFile } from './starting-points.js';
import { snapshotStartingPoint, type SnapshotStartTwin } from './snapshots.js';

export interface TwinView {
  id: string;
  twin_slug: string;
  twin_version: string;
  seed_id: string | null;
  desired_state: string;
  state: string;
  url: string | null;
  created_at: string;
  ready_at: string | null;
  failure: string | null;
}

export interface EnvironmentView {
  id: string;
  name: string;
  status: string;
  scenario_id: string | null;
  sandbox_id: string;
  twins: TwinView[];
  /** The environment clock's instant now (a living clock runs with wall time between advances). */
  clock: string;
  /** How the clock moves: `living` (with wall time, plus every advance) or `frozen` (only on advance). */
  clock_mode: 'living' | 'frozen';
  fidelity: 'strict' | 'lenient';
  created_at: string;
  expires_at: string | null;
}

export interface SandboxView {
  id: string;
  slug: string;
  name: string;
  status: string;
  twins: TwinView[];
  created_at: string;
  expires_at: string | null;
}

/** A logged request as the contract's logs endpoint shows it: the stored row's public fields. */
export type RequestLogView = RequestLogListItem;

/** An advance of the environment clock that is followed as a resource (202 → GET it). */
export interface AdvanceView {
  id: string;
  environment_id: string;
  status: 'running' | 'succeeded' | 'failed';
  from: string;
  to: string;
  /** The environment clock now, equal to every running twin's clock. */
  clock: string;
  failure: string | null;
  created_at: string;
  completed_at: string | null;
}

/** Steps of one advance run in global time order at most; what remains runs twin by twin. */
const MAX_ORDERED_STEPS = 10_000;

/** An advance answered within this many ms answers 200; a longer one answers 202 and runs on. */
export const ADVANCE_ANSWER_MS = 800;

export interface TwinRecordView {
  external_id: string;
  resource: string;
  body: Record<string, unknown>;
}

export interface TwinRequestInput {
  twin: string;
  seed_id?: string | null;
  /** The snapshot's twin this one continues (its file is cloned as the new twin's data file). */
  snapshot?: { id: string; twin: SnapshotStartTwin };
}

export interface CreateEnvironmentInput {
  name: string;
  twins?: TwinRequestInput[];
  scenario_id?: string | null;
  /** Start from a snapshot (decisions §13): its twins, clock and settings (`fidelity`, `clock` override them). */
  snapshot_id?: string | null;
  ttl_seconds?: number | null;
  /** Default strict (decisions §15). */
  fidelity?: 'strict' | 'lenient';
  /** How the clock moves; default living (decisions §15). */
  clock?: 'living' | 'frozen';
  /** Where the clock starts (default now, or the snapshot's or latest seed's instant): a replay's target starts where the recording did. */
  clock_start?: string;
}

export interface EnvironmentServiceOptions {
  db: Db;
  dataDir: string;
  store: EnvironmentStore;
  logs: RequestLogStore;
  gateway: Pick<GatewayHost, 'purgeEnvironment'>;
  reconciler: Reconciler;
  admin: TwinAdminClient;
  log?: Logger;
  /** Where advances wait their organization's turn (organization-jobs.ts); default: a queue of its own. */
  jobs?: OrganizationJobs;
}

export function twinView(t: EnvironmentTwinRow): TwinView {
  return {
    id: t.id,
    twin_slug: t.twin_slug,
    twin_version: t.twin_version,
    seed_id: t.seed_id,
    desired_state: t.desired_state,
    state: t.state,
    url: t.url,
    created_at: t.created_at,
    ready_at: t.ready_at,
    failure: t.failure,
  };
}

function advanceView(r: AdvanceRow): AdvanceView {
  return {
    id: r.id,
    environment_id: r.environment_id,
    status: r.status,
    from: r.from_clock,
    to: r.to_clock,
    clock: r.clock,
    failure: r.failure,
    created_at: r.created_at,
    completed_at: r.completed_at,
  };
}

/** A record id as a path segment: `.` and `..` stay themselves (the admin client sends paths as given). */
function segment(value: string): string {
  return encodeURIComponent(value).replace(/\./g, '%2E');
}

function slugify(name: string, id: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${base || 'sandbox'}-${id.slice(0, 8)}`;
}

export class EnvironmentService {
  private readonly store: EnvironmentStore;
  private readonly advances: AdvanceStore;
  /** The organization jobs advances, snapshots and diffs run as. */
  readonly jobs: OrganizationJobs;
  /** The advance under way per environment (its job promise). */
  private readonly runningAdvances = new Map<string, { id: string; done: Promise<void> }>();

  constructor(private readonly o: EnvironmentServiceOptions) {
    this.store = o.store;
    this.advances = new AdvanceStore(o.db);
    this.jobs = o.jobs ?? new OrganizationJobs();
  }

  // ---- views ---------------------------------------------------------------------------------

  view(env: EnvironmentRow): EnvironmentView {
    return {
      id: env.id,
      name: env.name,
      status: env.status,
      scenario_id: env.scenario_id,
      sandbox_id: env.sandbox_id,
      twins: this.store.twinsOf(env.id).map(twinView),
      clock: clockNow(env),
      clock_mode: env.clock_mode,
      fidelity: env.fidelity,
      created_at: env.created_at,
      expires_at: env.expires_at,
    };
  }

  sandboxView(env: EnvironmentRow): SandboxView {
    return {
      id: env.sandbox_id,
      slug: env.slug,
      name: env.name,
      status: env.status,
      twins: this.store.twinsOf(env.id).map(twinView),
      created_at: env.created_at,
      expires_at: env.expires_at,
    };
  }

  // ---- lookups (404 for unknown ids and for ids of another organization) ----------------------

  environment(orgId: string, id: string): EnvironmentRow {
    const env = this.store.environment(orgId, id);
    if (!env) throw notFound(`Environment ${id} not found.`);
    return env;
  }

  twin(orgId: string, twinId: string): EnvironmentTwinRow {
    const twin = this.store.twin(orgId, twinId);
    if (!twin) throw notFound(`Twin ${twinId} not found.`);
    return twin;
  }

  twinOfEnvironment(orgId: string, environmentId: string, twinId: string): EnvironmentTwinRow {
    const env = this.environment(orgId, environmentId);
    const twin = this.store.twin(orgId, twinId);
    if (!twin || twin.environment_id !== env.id) throw notFound(`Twin ${twinId} not found in environment ${environmentId}.`);
    return twin;
  }

  // ---- environments ----------------------------------------------------------------------------

  list(orgId: string, q: PageQuery): Page<EnvironmentView> {
    return paginate(q, this.store.countEnvironments(orgId), (limit, offset) => this.store.listEnvironments(orgId, limit, offset).map((e) => this.view(e)));
  }

  listSandboxes(orgId: string, q: PageQuery): Page<SandboxView> {
    return paginate(q, this.store.countEnvironments(orgId), (limit, offset) =>
      this.store.listEnvironments(orgId, limit, offset).map((e) => this.sandboxView(e)),
    );
  }

  sandbox(orgId: string, sandboxId: string): SandboxView {
    const env = this.store.environmentBySandbox(orgId, sandboxId);
    if (!env) throw notFound(`Sandbox ${sandboxId} not found.`);
    return this.sandboxView(env);
  }

  /** 402 when `adding` more running twins would pass the plan's `max_parallel_twins`. */
  checkParallelLimit(orgId: string, adding: number): void {
    const refusal = billingRefusal(this.o.db, orgId);
    if (refusal) throw paymentRequired(refusal);
    const limits = planLimitsFor(this.o.db, orgId);
    if (limits.maxParallelTwins === null) return;
    const active = this.store.countActiveTwins(orgId);
    if (active + adding > limits.maxParallelTwins) {
      throw paymentRequired(
        `The ${limits.plan} plan allows at most ${limits.maxParallelTwins} twins running at once (max_parallel_twins); ` +
          `this organization has ${active} running and the request would add ${adding}. Stop a twin or upgrade to pay as you go.`,
      );
    }
  }

  /** Validate a requested twin and build its row (seed file resolved now, so a bad seed fails the request). */
  private async newTwin(
    orgId: string,
    environmentId: string,
    req: TwinRequestInput,
    createdAt: string,
  ): Promise<{ row: NewEnvironmentTwin; seedClock?: string }> {
    if (!isTwinSlug(req.twin)) throw notFound(`Twin '${req.twin}' is not in the catalog.`);
    const def = await loadTwin(req.twin).catch((e: Error) => {
      throw new HttpError(503, `The ${req.twin} twin cannot be loaded: ${e.message}`);
    });
    let seedFile: string | null = null;
    let seedClock: string | undefined;
    if (req.seed_id) {
      const seed = await resolveSeedFile(this.o.db, this.o.dataDir, orgId, req.seed_id);
      if (seed.twin !== req.twin) throw conflict(`Seed ${req.seed_id} is for the ${seed.twin} twin, not ${req.twin}.`);
      seedFile = seed.file;
      seedClock = seed.clock;
    }
    if (req.snapshot) seedFile = req.snapshot.twin.file;
    const id = randomUUID();
    return {
      seedClock,
      row: {
        id,
        environment_id: environmentId,
        organization_id: orgId,
        twin_slug: req.twin,
        twin_version: def.version,
        seed_id: req.seed_id ?? null,
        seed_file: seedFile,
        snapshot_id: req.snapshot?.id ?? null,
        snapshot_twin_id: req.snapshot?.twin.twin_id ?? null,
        desired_state: 'running',
        state: 'pending',
        admin_secret: randomBytes(24).toString('base64url'),
        data_file: join(this.o.dataDir, 'twins', `${id}.sqlite`),
        created_at: createdAt,
      },
    };
  }

  async create(orgId: string, input: CreateEnvironmentInput): Promise<EnvironmentView> {
    const requested: TwinRequestInput[] = [];
    const snapshot = input.snapshot_id ? await snapshotStartingPoint(this.o.db, this.o.dataDir, orgId, input.snapshot_id) : undefined;
    if (snapshot) requested.push(...snapshot.twins.map((t) => ({ twin: t.twin_slug, snapshot: { id: snapshot.row.id, twin: t } })));
    if (input.scenario_id) {
      const scenario = await resolveScenario(this.o.db, orgId, input.scenario_id);
      requested.push(...scenario.twins.map((t) => ({ twin: t.twin, seed_id: t.seed_id })));
    }
    requested.push(...(input.twins ?? []));
    this.checkParallelLimit(orgId, requested.length);

    const now = new Date();
    const createdAt = now.toISOString();
    const id = randomUUID();
    const sandboxId = randomUUID();
    const twins: { row: NewEnvironmentTwin; seedClock?: string }[] = [];
    for (const r of requested) twins.push(await this.newTwin(orgId, id, r, createdAt));
    // The clock starts now, or at the snapshot's instant or the latest seed's frozen one (so no
    // seeded twin moves back).
    const seedClocks = [...twins.map((t) => t.seedClock), snapshot?.row.clock].filter((c): c is string => !!c).map((c) => Date.parse(c));
    const startingClock = seedClocks.length > 0 ? Math.max(...seedClocks) : undefined;
    if (input.clock_start !== undefined && startingClock !== undefined && Date.parse(input.clock_start) < startingClock) {
      throw conflict(
        `clock_start ${input.clock_start} is before ${new Date(startingClock).toISOString()}, where the environment's ${snapshot ? 'snapshot' : 'seeded twins'} stand; a twin's clock never moves back.`,
      );
    }
    const clock =
      input.clock_start !== undefined
        ? new Date(input.clock_start).toISOString()
        : startingClock !== undefined
          ? new Date(startingClock).toISOString()
          : createdAt;
    const clockMode = input.clock ?? snapshot?.row.clock_mode ?? 'living';
    const limits = planLimitsFor(this.o.db, orgId);
    // A snapshot's twins start from clones of its files (a reflink where the filesystem can).
    await this.cloneSnapshotFiles(twins.map((t) => t.row));
    try {
      this.store.transaction(() => {
        // Checked again inside the write so two concurrent creates cannot both pass the limit.
        this.checkParallelLimit(orgId, requested.length);
        this.store.create(
          {
            id,
            organization_id: orgId,
            sandbox_id: sandboxId,
            slug: slugify(input.name, sandboxId),
            name: input.name,
            status: 'provisioning',
            scenario_id: input.scenario_id ?? null,
            fidelity: input.fidelity ?? snapshot?.row.fidelity ?? 'strict',
            clock_mode: clockMode,
            // A living clock reads its start at the creation instant and runs on from there.
            ...clockColumns(clockMode, Date.parse(clock), now.getTime()),
            clock_start: clock,
            ttl_seconds: input.ttl_seconds ?? null,
            created_at: createdAt,
            expires_at: expiresAt(now, input.ttl_seconds ?? null, limits),
          },
          twins.map((t) => t.row),
        );
      });
    } catch (e) {
      await Promise.all(twins.filter((t) => t.row.snapshot_id).map((t) => rm(t.row.data_file, { force: true })));
      throw e;
    }
    this.o.reconciler.refreshEnvironment(id);
    for (const t of twins) void this.o.reconciler.kick(t.row.id);
    return this.view(this.store.environmentById(id)!);
  }

  /**
   * Each twin started from a snapshot gets its data file as a clone of the snapshot's file
   * (`COPYFILE_FICLONE`: copy-on-write where the filesystem offers it, a plain copy elsewhere); the
   * twin opens it as its own, never replaying anything. On failure no clone is left behind.
   */
  private async cloneSnapshotFiles(rows: NewEnvironmentTwin[]): Promise<void> {
    const cloned = rows.filter((r) => r.snapshot_id && r.seed_file);
    try {
      await Promise.all(
        cloned.map(async (r) => {
          await mkdir(dirname(r.data_file), { recursive: true });
          await copyFile(r.seed_file!, r.data_file, fsConstants.COPYFILE_FICLONE);
        }),
      );
    } catch (e) {
      await Promise.all(cloned.map((r) => rm(r.data_file, { force: true })));
      this.o.log?.warn({ err: (e as Error).message }, 'cloning snapshot files failed');
      throw conflict('The snapshot files could not be copied for the new environment; the snapshot may have been deleted meanwhile.');
    }
  }

  update(orgId: string, id: string, patch: { name?: string; ttl_seconds?: number | null }): EnvironmentView {
    const env = this.environment(orgId, id);
    if (patch.ttl_seconds !== undefined) {
      if (env.status === 'expired') throw conflict(`Environment ${id} has expired; its lifetime can no longer change.`);
      const limits = planLimitsFor(this.o.db, orgId);
      this.store.updateEnvironment(id, {
        ttl_seconds: patch.ttl_seconds,
        expires_at: expiresAt(new Date(env.created_at), patch.ttl_seconds, limits),
      });
    }
    if (patch.name !== undefined) this.store.updateEnvironment(id, { name: patch.name });
    return this.view(this.store.environmentById(id)!);
  }

  /** Tear down every twin (workloads stopped, data removed), then forget the environment. */
  async delete(orgId: string, id: string): Promise<void> {
    const env = this.environment(orgId, id);
    const twinIds = this.store.twinsOf(env.id).map((t) => t.id);
    const now = new Date().toISOString();
    this.store.transaction(() => {
      this.store.updateEnvironment(env.id, { status: 'stopping' });
      this.store.updateTwinsOf(env.id, { desired_state: 'stopped', deleted_at: now });
      this.store.updateEnvironment(env.id, { deleted_at: now });
    });
    // Its request log goes with it: gone from every read at once, from the disk step by step.
    this.o.gateway.purgeEnvironment(env.id);
    await Promise.all(twinIds.map((t) => this.o.reconciler.kick(t)));
    this.store.updateEnvironment(env.id, { status: 'stopped' });
  }

  async addTwin(orgId: string, environmentId: string, req: TwinRequestInput): Promise<TwinView> {
    const env = this.environment(orgId, environmentId);
    if (env.status === 'expired') throw conflict(`Environment ${environmentId} has expired; create a new one.`);
    this.refuseWhileAdvancing(env.id);
    this.checkParallelLimit(orgId, 1);
    const { row } = await this.newTwin(orgId, env.id, req, new Date().toISOString());
    this.store.transaction(() => {
      this.checkParallelLimit(orgId, 1);
      this.store.addTwin(row);
    });
    this.o.reconciler.refreshEnvironment(env.id);
    void this.o.reconciler.kick(row.id);
    return twinView(this.store.twinById(row.id)!);
  }

  async removeTwin(orgId: string, environmentId: string, twinId: string): Promise<void> {
    const twin = this.twinOfEnvironment(orgId, environmentId, twinId);
    this.store.updateTwin(twin.id, { desired_state: 'stopped', deleted_at: new Date().toISOString() });
    await this.o.reconciler.kick(twin.id);
    this.o.reconciler.refreshEnvironment(environmentId);
  }

  /** Every twin back to its seed (or empty) state and the clock back to where it started. */
  async reset(orgId: string, id: string): Promise<EnvironmentView> {
    const env = this.environment(orgId, id);
    if (env.status === 'expired') throw conflict(`Environment ${id} has expired; its twins are stopped.`);
    this.refuseWhileAdvancing(env.id);
    const twins = this.store.twinsOf(env.id);
    const notRunning = twins.filter((t) => t.state !== 'ready' || !t.address);
    if (notRunning.length > 0) {
      throw conflict(`Twin ${notRunning[0]!.id} is ${notRunning[0]!.state}; reset when every twin of the environment is ready.`);
    }
    await this.o.reconciler.clockLocks.run(env.id, async () => {
      // A living clock reads its start now and runs on from there, in every twin at the same offset.
      const wall = new Date();
      await Promise.all(twins.map((t) => this.adminCall(() => this.o.admin.reset(t.address!, t.admin_secret, wall))));
      this.store.updateEnvironment(env.id, clockColumns(env.clock_mode, Date.parse(env.clock_start), wall.getTime()));
      // A twin whose seed starts earlier than the environment catches up, as when it first started.
      await alignClocks(this.store, this.o.admin, env.id, this.o.log);
    });
    return this.view(this.store.environmentById(env.id)!);
  }

  // ---- twins by id ---------------------------------------------------------------------------

  /** 409 while an advance of the environment runs. */
  refuseWhileAdvancing(environmentId: string): void {
    const running = this.runningAdvances.get(environmentId);
    if (running) {
      throw conflict(
        `An advance of environment ${environmentId} is running; follow it at /environments/${environmentId}/advances/${running.id} and retry when it has finished.`,
      );
    }
  }

  /**
   * Move the environment clock to `at` (default max(now, clock)); every running twin runs its due
   * events. Resolves within ADVANCE_ANSWER_MS: `done` when finished, else the advance to follow.
   * A twin's refusal is the answer's error (409 clock, 502 twin failure), never swallowed.
   */
  async advance(orgId: string, environmentId: string, at?: Date): Promise<{ done: true } | { done: false; advance: AdvanceView }> {
    const env = this.environment(orgId, environmentId);
    if (env.status === 'expired') throw conflict(`Environment ${environmentId} has expired; its twins are stopped.`);
    this.refuseWhileAdvancing(env.id);
    // The instant `to` holds at this wall time: a living clock runs on from there once it is reached.
    const wall = Date.now();
    const clock = clockAt(env, wall);
    const from = new Date(clock).toISOString();
    const to = at ?? new Date(Math.max(wall, clock));
    if (to.getTime() < clock) {
      throw conflict(`The environment clock is at ${from}; it cannot move back to ${to.toISOString()}.`);
    }
    const row: AdvanceRow = {
      id: randomUUID(),
      organization_id: orgId,
      environment_id: env.id,
      status: 'running',
      from_clock: from,
      to_clock: to.toISOString(),
      clock: from,
      failure: null,
      created_at: new Date().toISOString(),
      completed_at: null,
    };
    this.advances.insert(row);
    // A job: behind this organization's other heavy work, never in front of another organization's.
    const done = this.jobs.run(env.organization_id, 'advance', () => this.runAdvance(row, to, wall));
    this.runningAdvances.set(env.id, { id: row.id, done });
    void done.finally(() => {
      if (this.runningAdvances.get(env.id)?.id === row.id) this.runningAdvances.delete(env.id);
    });
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([done.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), ADVANCE_ANSWER_MS)))]);
    clearTimeout(timer);
    const now = this.advances.byId(row.id)!;
    if (!finished) return { done: false, advance: advanceView(now) };
    if (now.status === 'failed') {
      throw new HttpError(now.failure?.startsWith('Refused:') ? 409 : 502, now.failure!.replace(/^Refused: /, ''));
    }
    return { done: true };
  }

  advanceOf(orgId: string, environmentId: string, advanceId: string): AdvanceView {
    const env = this.environment(orgId, environmentId);
    const row = this.advances.get(orgId, env.id, advanceId);
    if (!row) throw notFound(`Advance ${advanceId} not found.`);
    return advanceView(row);
  }

  /** Advances a restart cut short end as failed; twins ahead of their environment pull it up (reconciler). */
  recoverAdvances(): void {
    for (const row of this.advances.running()) {
      this.advances.finish(
        row.id,
        'failed',
        ((env) => (env ? clockNow(env) : row.clock))(this.store.environmentById(row.environment_id)),
        'The control plane restarted during the advance.',
      );
    }
  }

  /**
   * The job: each ready twin in turn, followed to its end; on failure every clock is aligned. `to`
   * holds at wall time `wallMs` (a living clock runs on from there).
   */
  private async runAdvance(row: AdvanceRow, to: Date, wallMs: number): Promise<void> {
    await this.o.reconciler.clockLocks.run(row.environment_id, async () => {
      const mode = this.store.environmentById(row.environment_id)!.clock_mode;
      const wall = mode === 'living' ? new Date(wallMs) : undefined;
      let failure = await this.runInTimeOrder(row.environment_id, to, wall);
      for (const t of failure === undefined ? this.store.twinsOf(row.environment_id) : []) {
        if (t.state !== 'ready' || !t.address) continue; // caught up by the reconciler when it starts again
        try {
          const out = await this.o.admin.advanceAndWait(t.address, t.admin_secret, to, wall);
          if (!out.ok) {
            failure = `${out.status === 409 ? 'Refused: ' : ''}The ${t.twin_slug} twin ${t.id} could not advance: ${out.detail}`;
            break;
          }
        } catch (e) {
          this.o.log?.warn({ err: (e as Error).message, twinId: t.id }, 'twin unreachable during an advance');
          failure = `The ${t.twin_slug} twin ${t.id} stopped answering during the advance; it is being restarted.`;
          break;
        }
      }
      if (failure === undefined) {
        // Twins that became ready while the others advanced (none lag once this returns).
        const target = clockPosition(mode, to.getTime(), wallMs);
        for (const t of this.store.twinsOf(row.environment_id)) {
          if (t.state !== 'ready' || !t.address) continue;
          const health = await this.o.admin.health(t.address, t.admin_secret).catch(() => undefined);
          if (health && twinPosition(mode, health) < target) await this.o.admin.advanceAndWait(t.address, t.admin_secret, to, wall).catch(() => undefined);
        }
        this.store.updateEnvironment(row.environment_id, clockColumns(mode, to.getTime(), wallMs));
        this.advances.finish(row.id, 'succeeded', to.toISOString(), null);
        return;
      }
      const clock = await alignClocks(this.store, this.o.admin, row.environment_id, this.o.log).catch(() =>
        clockNow(this.store.environmentById(row.environment_id)!),
      );
      this.advances.finish(row.id, 'failed', clock, failure);
    });
  }

  /**
   * One clock across twins (issue 38): before every twin moves to `to`, their lifecycle events run
   * in one global time order. Each step asks every twin for its next event due (a probe that
   * changes nothing), moves the twin with the earliest up to just before the next twin's (its own
   * events up to there run, in its order), and waits until what they delivered has had its first
   * attempt, so a Twilio callback at 08:59 is delivered before a Stripe renewal at 09:00 and that
   * before a Slack message scheduled at 09:05, whatever the twins' order. A twin that cannot say
   * (an older twin) is moved with the others at the end. Returns the failure, if any.
   */
  private async runInTimeOrder(environmentId: string, to: Date, wall: Date | undefined): Promise<string | undefined> {
    const twins = this.store.twinsOf(environmentId).filter((t) => t.state === 'ready' && t.address) as (EnvironmentTwinRow & { address: string })[];
    if (twins.length < 2) return undefined;
    const due = new Map<string, number | undefined>();
    const probe = async (t: EnvironmentTwinRow & { address: string }) => {
      due.set(t.id, await this.o.admin.nextDue(t.address, t.admin_secret, to).catch(() => undefined));
    };
    await Promise.all(twins.map(probe));
    for (let step = 0; step < MAX_ORDERED_STEPS; step++) {
      let first: (EnvironmentTwinRow & { address: string }) | undefined;
      for (const t of twins) {
        const at = due.get(t.id);
        if (at !== undefined && (first === undefined || at < due.get(first.id)!)) first = t;
      }
      if (!first) return undefined;
      const at = due.get(first.id)!;
      const others = twins.filter((t) => t !== first && due.get(t.id) !== undefined).map((t) => due.get(t.id)!);
      const next = others.length > 0 ? Math.min(...others) : to.getTime();
      // Up to just before the next twin's event (ties: the earlier twin in the environment's order first).
      const until = Math.min(to.getTime(), next > at ? (next === to.getTime() && others.length === 0 ? next : next - 1) : at);
      try {
        const out = await this.o.admin.advanceAndWait(first.address, first.admin_secret, new Date(until), wall);
        if (!out.ok) return `${out.status === 409 ? 'Refused: ' : ''}The ${first.twin_slug} twin ${first.id} could not advance: ${out.detail}`;
        await this.o.admin.settleDeliveries(first.address, first.admin_secret).catch(() => undefined);
      } catch (e) {
        this.o.log?.warn({ err: (e as Error).message, twinId: first.id }, 'twin unreachable during an advance');
        return `The ${first.twin_slug} twin ${first.id} stopped answering during the advance; it is being restarted.`;
      }
      await probe(first);
      // A twin that still says an event is due where it now stands has one it does not run: it
      // leaves the ordering (the final move of every twin runs what it can).
      if ((due.get(first.id) ?? Number.POSITIVE_INFINITY) <= until) due.set(first.id, undefined);
    }
    return undefined;
  }

  async credential(orgId: string, twinId: string): Promise<{ api_key: string } & Record<string, string>> {
    const twin = this.twin(orgId, twinId);
    const running = this.requireRunning(twin);
    const cred = await this.adminCall(() => this.o.admin.credential(running.address, running.admin_secret));
    // The provider's other credential halves (docs/decisions.md §10) pass through as string fields.
    const extras = Object.fromEntries(Object.entries(cred).filter(([k, v]) => k !== 'api_key' && typeof v === 'string'));
    return { ...extras, api_key: cred.api_key };
  }

  // ---- records -------------------------------------------------------------------------------

  /** Delivery records say what the twin sent; rewriting one would make the twin send anything. */
  private refuseDeliveryWrite(resource: string): void {
    if (resource === DELIVERY_RESOURCE) {
      throw forbidden('Delivery records are read-only: they record what the twin sent, and only the twin writes them.');
    }
  }

  private async checkResource(twin: EnvironmentTwinRow, resource: string): Promise<void> {
    const def = await loadTwin(twin.twin_slug);
    if (!def.resources.includes(resource) && resource !== DELIVERY_RESOURCE) {
      throw notFound(`The ${twin.twin_slug} twin keeps no records of kind '${resource}'. Known kinds: ${def.resources.join(', ')}.`);
    }
  }

  private recordPath(resource: string, externalId?: string): string {
    return `/_twin/records/${segment(resource)}${externalId === undefined ? '' : '/' + segment(externalId)}`;
  }

  async listRecords(orgId: string, environmentId: string, twinId: string, resource: string): Promise<TwinRecordView[]> {
    const twin = this.twinOfEnvironment(orgId, environmentId, twinId);
    await this.checkResource(twin, resource);
    const t = this.requireRunning(twin);
    return this.adminCall(() => this.o.admin.expect<TwinRecordView[]>(200, t.address, t.admin_secret, 'GET', this.recordPath(resource)));
  }

  async getRecord(orgId: string, environmentId: string, twinId: string, resource: string, externalId: string): Promise<TwinRecordView> {
    const twin = this.twinOfEnvironment(orgId, environmentId, twinId);
    await this.checkResource(twin, resource);
    const t = this.requireRunning(twin);
    return this.adminCall(() => this.o.admin.expect<TwinRecordView>(200, t.address, t.admin_secret, 'GET', this.recordPath(resource, externalId)));
  }

  async putRecord(
    orgId: string,
    environmentId: string,
    twinId: string,
    resource: string,
    externalId: string,
    fields: Record<string, unknown>,
  ): Promise<TwinRecordView> {
    const twin = this.twinOfEnvironment(orgId, environmentId, twinId);
    this.refuseDeliveryWrite(resource);
    await this.checkResource(twin, resource);
    const t = this.requireRunning(twin);
    return this.adminCall(() => this.o.admin.expect<TwinRecordView>(200, t.address, t.admin_secret, 'PUT', this.recordPath(resource, externalId), { fields }));
  }

  async deleteRecord(orgId: string, environmentId: string, twinId: string, resource: string, externalId: string): Promise<void> {
    const twin = this.twinOfEnvironment(orgId, environmentId, twinId);
    this.refuseDeliveryWrite(resource);
    await this.checkResource(twin, resource);
    const t = this.requireRunning(twin);
    const out = await this.adminCall(() => this.o.admin.call(t.address, t.admin_secret, 'DELETE', this.recordPath(resource, externalId)));
    if (out.status === 404) throw notFound(`No ${resource} record '${externalId}' in twin ${twinId}.`);
    if (out.status !== 204) throw badGateway(`The twin could not delete the record (status ${out.status}).`);
  }

  // ---- request logs --------------------------------------------------------------------------

  /**
   * Newest first. Unfiltered, the cost is one page's rows whatever the log's size; a filter looks
   * at the newest FILTER_WINDOW rows only (store/request-logs.ts).
   */
  logs(orgId: string, environmentId: string, q: PageQuery, filter: RequestLogFilter = {}): Page<RequestLogView> {
    const env = this.environment(orgId, environmentId);
    const { total, items } = this.o.logs.listPage(env.id, q.page, q.size, filter);
    return { items, total, page: q.page, size: q.size, pages: total === 0 ? 0 : Math.ceil(total / q.size) };
  }

  // ---- helpers -------------------------------------------------------------------------------

  private requireRunning(twin: EnvironmentTwinRow): EnvironmentTwinRow & { address: string } {
    if (twin.state !== 'ready' || !twin.address) {
      throw conflict(`Twin ${twin.id} is ${twin.state}; it answers once it is ready.`);
    }
    return twin as EnvironmentTwinRow & { address: string };
  }

  /** A twin that cannot be reached is the upstream failing (502), not bad input. */
  private async adminCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof HttpError) throw e;
      if (e instanceof TwinAdminError) {
        const detail = (e.body as { detail?: string } | undefined)?.detail;
        if (e.status === 404) throw notFound(detail ?? 'Not Found');
        if (e.status === 409 || e.status === 403) throw new HttpError(e.status, detail ?? 'The twin refused the request.');
        // The message names the admin path, never the workload's address.
        this.o.log?.warn({ err: e.message }, 'twin admin call failed');
        throw badGateway('The twin did not complete the request; it may be restarting. Retry in a moment.');
      }
      throw e;
    }
  }
}
