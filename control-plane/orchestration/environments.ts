// The rules of environments, their twins and sandboxes, apart from the HTTP surface: creation
// (from twins, seeds or a scenario) within the plan's limits, edits, teardown, reset, the shared
// clock and advance, credentials and records through each twin's admin API, and request logs.

import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Db } from '../store/database.js';
import type { EnvironmentRow, EnvironmentStore, EnvironmentTwinRow, NewEnvironmentTwin } from '../store/environments.js';
import type { RequestLogFilter, RequestLogRow, RequestLogStore } from '../store/request-logs.js';
import type { RequestLogWriter } from '../gateway/request-log-writer.js';
import { badGateway, conflict, HttpError, notFound, paymentRequired } from '../http/errors.js';
import { paginate, type Page, type PageQuery } from '../http/pagination.js';
import { isTwinSlug, loadTwin } from '../../twin-runtime/registry.js';
import { DELIVERY_RESOURCE } from '../../twin-runtime/deliveries.js';
import type { Reconciler } from './reconciler.js';
import { TwinAdminError, type TwinAdminClient } from './twin-admin.js';
import { expiresAt, planLimitsFor } from './plan-limits.js';
import { billingRefusal } from '../billing/standing.js';
import { resolveScenario, resolveSeedFile } from './starting-points.js';

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
  clock: string;
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
export type RequestLogView = Pick<
  RequestLogRow,
  'id' | 'environment_id' | 'environment_twin_id' | 'method' | 'path' | 'query_string' | 'status_code' | 'duration_ms' | 'occurred_at'
>;

export interface TwinRecordView {
  external_id: string;
  resource: string;
  body: Record<string, unknown>;
}

export interface TwinRequestInput {
  twin: string;
  seed_id?: string | null;
}

export interface CreateEnvironmentInput {
  name: string;
  twins?: TwinRequestInput[];
  scenario_id?: string | null;
  ttl_seconds?: number | null;
}

export interface EnvironmentServiceOptions {
  db: Db;
  dataDir: string;
  store: EnvironmentStore;
  logs: RequestLogStore;
  writer: RequestLogWriter;
  reconciler: Reconciler;
  admin: TwinAdminClient;
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

function logView(r: RequestLogRow): RequestLogView {
  return {
    id: r.id,
    environment_id: r.environment_id,
    environment_twin_id: r.environment_twin_id,
    method: r.method,
    path: r.path,
    query_string: r.query_string,
    status_code: r.status_code,
    duration_ms: r.duration_ms,
    occurred_at: r.occurred_at,
  };
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
  /** Advances of one environment run one at a time (its clock only moves forward). */
  private readonly clockLocks = new Map<string, Promise<unknown>>();

  constructor(private readonly o: EnvironmentServiceOptions) {
    this.store = o.store;
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
      clock: env.clock,
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
    return paginate(q, this.store.countEnvironments(orgId), (limit, offset) =>
      this.store.listEnvironments(orgId, limit, offset).map((e) => this.view(e)),
    );
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
  private checkParallelLimit(orgId: string, adding: number): void {
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
  private async newTwin(orgId: string, environmentId: string, req: TwinRequestInput, createdAt: string): Promise<{ row: NewEnvironmentTwin; seedClock?: string }> {
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
    // The clock starts now, or at the latest seed's frozen instant (so no seeded twin moves back).
    const seedClocks = twins.map((t) => t.seedClock).filter((c): c is string => !!c).map((c) => Date.parse(c));
    const clock = seedClocks.length > 0 ? new Date(Math.max(...seedClocks)).toISOString() : createdAt;
    const limits = planLimitsFor(this.o.db, orgId);
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
          clock,
          clock_start: clock,
          ttl_seconds: input.ttl_seconds ?? null,
          created_at: createdAt,
          expires_at: expiresAt(now, input.ttl_seconds ?? null, limits),
        },
        twins.map((t) => t.row),
      );
    });
    this.o.reconciler.refreshEnvironment(id);
    for (const t of twins) void this.o.reconciler.kick(t.row.id);
    return this.view(this.store.environmentById(id)!);
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
    await Promise.all(twinIds.map((t) => this.o.reconciler.kick(t)));
    this.store.updateEnvironment(env.id, { status: 'stopped' });
  }

  async addTwin(orgId: string, environmentId: string, req: TwinRequestInput): Promise<TwinView> {
    const env = this.environment(orgId, environmentId);
    if (env.status === 'expired') throw conflict(`Environment ${environmentId} has expired; create a new one.`);
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
    const twins = this.store.twinsOf(env.id);
    const notRunning = twins.filter((t) => t.state !== 'ready' || !t.address);
    if (notRunning.length > 0) {
      throw conflict(`Twin ${notRunning[0]!.id} is ${notRunning[0]!.state}; reset when every twin of the environment is ready.`);
    }
    await this.withClockLock(env.id, async () => {
      await Promise.all(twins.map((t) => this.adminCall(() => this.o.admin.reset(t.address!, t.admin_secret))));
      this.store.updateEnvironment(env.id, { clock: env.clock_start });
    });
    return this.view(this.store.environmentById(env.id)!);
  }

  // ---- twins by id ---------------------------------------------------------------------------

  /** Move the environment clock to `at` (default max(now, clock)); every running twin runs its due events. */
  async advance(orgId: string, twinId: string, at?: Date): Promise<void> {
    const twin = this.twin(orgId, twinId);
    await this.withClockLock(twin.environment_id, async () => {
      const env = this.store.environmentById(twin.environment_id)!;
      const clock = Date.parse(env.clock);
      const to = at ?? new Date(Math.max(Date.now(), clock));
      if (to.getTime() < clock) {
        throw conflict(`The environment clock is at ${env.clock}; it cannot move back to ${to.toISOString()}.`);
      }
      // In time order across twins is each twin's own job; twins share one instant and run one after another.
      for (const t of this.store.twinsOf(env.id)) {
        if (t.state !== 'ready' || !t.address) continue; // caught up by the reconciler when it starts again
        const out = await this.adminCall(() => this.o.admin.advance(t.address!, t.admin_secret, to));
        if (out.status !== 200 && out.status !== 409) {
          throw badGateway(`The ${t.twin_slug} twin ${t.id} could not advance: ${out.body?.detail ?? out.status}.`);
        }
      }
      this.store.updateEnvironment(env.id, { clock: to.toISOString() });
    });
  }

  async credential(orgId: string, twinId: string): Promise<{ api_key: string } & Record<string, string>> {
    const twin = this.twin(orgId, twinId);
    const running = this.requireRunning(twin);
    const cred = await this.adminCall(() => this.o.admin.credential(running.address, running.admin_secret));
    // The provider's other credential halves (decisions §10) pass through as string fields.
    const extras = Object.fromEntries(Object.entries(cred).filter(([k, v]) => k !== 'api_key' && typeof v === 'string'));
    return { ...extras, api_key: cred.api_key };
  }

  // ---- records -------------------------------------------------------------------------------

  private async checkResource(twin: EnvironmentTwinRow, resource: string): Promise<void> {
    const def = await loadTwin(twin.twin_slug);
    if (!def.resources.includes(resource) && resource !== DELIVERY_RESOURCE) {
      throw notFound(`The ${twin.twin_slug} twin keeps no records of kind '${resource}'. Known kinds: ${def.resources.join(', ')}.`);
    }
  }

  private recordPath(resource: string, externalId?: string): string {
    return `/_twin/records/${encodeURIComponent(resource)}${externalId === undefined ? '' : '/' + encodeURIComponent(externalId)}`;
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

  async putRecord(orgId: string, environmentId: string, twinId: string, resource: string, externalId: string, fields: Record<string, unknown>): Promise<TwinRecordView> {
    const twin = this.twinOfEnvironment(orgId, environmentId, twinId);
    await this.checkResource(twin, resource);
    const t = this.requireRunning(twin);
    return this.adminCall(() =>
      this.o.admin.expect<TwinRecordView>(200, t.address, t.admin_secret, 'PUT', this.recordPath(resource, externalId), { fields }),
    );
  }

  async deleteRecord(orgId: string, environmentId: string, twinId: string, resource: string, externalId: string): Promise<void> {
    const twin = this.twinOfEnvironment(orgId, environmentId, twinId);
    await this.checkResource(twin, resource);
    const t = this.requireRunning(twin);
    const out = await this.adminCall(() => this.o.admin.call(t.address, t.admin_secret, 'DELETE', this.recordPath(resource, externalId)));
    if (out.status === 404) throw notFound(`No ${resource} record '${externalId}' in twin ${twinId}.`);
    if (out.status !== 204) throw badGateway(`The twin could not delete the record (status ${out.status}).`);
  }

  // ---- request logs --------------------------------------------------------------------------

  logs(orgId: string, environmentId: string, q: PageQuery, filter: RequestLogFilter = {}): Page<RequestLogView> {
    const env = this.environment(orgId, environmentId);
    // Entries still batched in memory belong to the answer too.
    this.o.writer.flush();
    return paginate(q, this.o.logs.count(env.id, filter), (limit, offset) => this.o.logs.page(env.id, limit, offset, filter).map(logView));
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
        if (e.status === 404) throw notFound((e.body as { detail?: string } | undefined)?.detail ?? 'Not Found');
        throw badGateway(`The twin did not complete the request: ${e.message}`);
      }
      throw e;
    }
  }

  private async withClockLock<T>(environmentId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.clockLocks.get(environmentId) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(fn);
    this.clockLocks.set(environmentId, run);
    try {
      return await run;
    } finally {
      if (this.clockLocks.get(environmentId) === run) this.clockLocks.delete(environmentId);
    }
  }
}
