// The host of one running twin: its SQLite file, clock, ids and deliveries, the router and the
// request pipeline, and the operations the control plane asks of a twin (health, credential,
// advance, reset, records). The internal admin API (admin-api.ts) and the seed expander call these
// methods; the HTTP server (server.ts) only translates between sockets and `handle`.

import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RecordStore, type StoredRecord } from './record-store.js';
import { EnvironmentClock, type ClockMode, type WallClock } from './clock.js';
import { IdSource, randomBase62 } from './ids.js';
import { Deliveries, DELIVERY_RESOURCE } from './deliveries.js';
import { RequestPipeline } from './pipeline.js';
import { AdvanceJobs, type AdvanceJobView } from './advance-job.js';
import { atBatchPriority } from './background-priority.js';
import { prototypesIntact } from './safe-input.js';
import { isStorageFull, STORAGE_FULL_RETRY_SECONDS, STORAGE_FULL_SENTENCE } from './storage-full.js';
import { routeTwin, type RoutedTwin } from './router.js';
import { mcpUrl } from './mcp.js';
import { SNAPSHOT_FILE_NAME, writeSnapshot, type SnapshotFile } from './snapshot.js';
import { FAULT_HEADER, FAULTS_META, TwinFaults } from './faults.js';
import { FIDELITY_HEADER, NotSimulated, type FidelityLevel, type FidelityMode } from './fidelity.js';
import type { RequestProblem, TwinContext, TwinDefinition, TwinRequest, TwinResponse, TwinRoute } from './contract.js';

export interface TwinHostOptions {
  dataFile: string;
  /** Seed file copied in when the data file is new, and restored by reset. */
  seedFile?: string;
  /** Clock start for a new data file (default: now); reset puts the clock back here. */
  clockStart?: Date;
  /**
   * Where the clock of a new, unseeded data file stands (default: `clockStart`): the
   * environment's clock now, for a twin that joins it after it started. A seed's file keeps its
   * own instant (the control plane brings it up to the environment with an advance).
   */
  clockNow?: Date;
  /** The wall time at which `clockNow` holds, for a living clock (it runs on from there); default now. */
  clockWall?: Date;
  /**
   * How the environment clock moves (decisions §15): `frozen` (default here: only on advance, runs
   * byte-identical) or `living` (with wall time from its start, plus every advance; what
   * environments and standalone twins run). Due lifecycle events a living clock passes run on the
   * lifecycle tick (LIFECYCLE_TICK_MS).
   */
  clock?: ClockMode;
  /** Wall time for a living clock (default Date.now); tests inject one to move it without waiting. */
  wall?: WallClock;
  /**
   * The environment's fidelity (decisions §15): `strict` (default) refuses what the twin does not
   * simulate; `lenient` gives the generic layer's permissive answers. Handed to handlers as `ctx.fidelity`.
   */
  fidelity?: FidelityMode;
  /** Base URL callers see (gateway URL); defaults to the listening address. */
  publicUrl?: string;
  /**
   * Keep the provider key in the data file and use it again on the next start (standalone twins,
   * docs/decisions.md §10), instead of minting one per start (docs/decisions.md §7). `apiKey` chooses it.
   */
  keepKey?: boolean;
  /** The key to accept (implies keeping it); default: the kept one, or a freshly minted one. */
  apiKey?: string;
}

/** Meta key under which a standalone twin keeps its provider key. */
export const KEPT_KEY_META = 'standalone_api_key';

/** A host operation refused, with the status and sentence the admin API answers. */
export class HostError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface TwinHealth {
  status: 'ok';
  twin: string;
  version: string;
  storage_version: number;
  clock: string;
  /** How the clock moves: `living` (with wall time) or `frozen` (only on advance). */
  clock_mode: ClockMode;
  /** The twin's wall time when `clock` was read: a living clock's offset is `clock` − `wall`. */
  wall: string;
  /** The environment's fidelity the twin runs with (`ctx.fidelity`). */
  fidelity: FidelityMode;
  /** The advance job under way, if any (GET /_twin/advance/{id} follows it). */
  advance: AdvanceJobView | null;
  /** Twin-only: no request has reached Object.prototype (or Array/Function/String's) in this process. */
  prototype_intact: boolean;
}

const PATH_ENCODING = /%(?![0-9A-Fa-f]{2})/;

/**
 * How often a living clock's host runs the lifecycle events that have fallen due (a renewal, a
 * scheduled message, a batch completing), as the provider would without being asked:
 * TWIN_LIFECYCLE_TICK_MS overrides it, 0 turns it off (they then run on the next advance).
 * A pass costs what the twin's lifecycle costs to look at its records (scripts/bench/lifecycle-tick.ts:
 * 50–200 µs with a starting state, ~5 ms for Stripe with 100 subscriptions), so the pace adapts:
 * the next tick waits at least TICK_COST_FACTOR times as long as the last took (a tick never takes
 * more than 0.5 % of a core), and a twin without provider requests for IDLE_AFTER_MS whose last
 * tick found nothing due ticks every IDLE_TICK_MS until its next request.
 */
export const LIFECYCLE_TICK_MS = 1000;
const TICK_COST_FACTOR = 200;
const IDLE_AFTER_MS = 60_000;
const IDLE_TICK_MS = 15_000;

function lifecycleTickMs(): number {
  const v = Number(process.env.TWIN_LIFECYCLE_TICK_MS);
  return process.env.TWIN_LIFECYCLE_TICK_MS !== undefined && Number.isFinite(v) && v >= 0 ? v : LIFECYCLE_TICK_MS;
}

export class TwinHost {
  readonly store: RecordStore;
  readonly clock: EnvironmentClock;
  readonly ids: IdSource;
  readonly deliveries: Deliveries;
  /** Injected faults (faults.ts), drawn from the seeded id source. */
  readonly faults: TwinFaults;
  /** Snapshot files written by this process and not yet dropped (the only files GET /_twin/snapshot/{file} serves). */
  private readonly snapshotsWritten = new Set<string>();
  readonly apiKey: string;
  readonly ctx: TwinContext;
  readonly routing: RoutedTwin;
  readonly pipeline: RequestPipeline;
  /** A long advance runs as a job; provider requests are answered between its slices. */
  readonly advances: AdvanceJobs;
  private readonly startClock: Date;
  private lifecycleTimer: NodeJS.Timeout | undefined;
  /** The lifecycle tick under way, if any (they never overlap). */
  private ticking: Promise<void> | undefined;
  /** The tick's own pace (LIFECYCLE_TICK_MS), when its clock is living. */
  private readonly tickEvery: number;
  /** When the pending tick runs, and what the last one took and did (performance.now ms). */
  private tickAt = 0;
  private lastTick = { ms: 0, wrote: true };
  private lastRequestAt = performance.now();
  private changesStmt: { get(): unknown } | undefined;
  private closed = false;

  constructor(
    readonly twin: TwinDefinition,
    readonly options: TwinHostOptions,
  ) {
    const fresh = !existsSync(options.dataFile);
    this.store = new RecordStore(options.dataFile);
    if (fresh && options.seedFile) this.store.replaceWith(options.seedFile);
    if (this.store.getMeta('storage_version') === undefined) {
      this.store.setMeta('storage_version', String(twin.storageVersion));
    }
    if (this.store.getMeta('clock_start') === undefined) {
      this.store.setMeta('clock_start', String((options.clockStart ?? new Date()).getTime()));
    }
    this.startClock = new Date(Number(this.store.getMeta('clock_start')));
    this.clock = new EnvironmentClock(this.store, options.clockNow ?? this.startClock, options.clock ?? 'frozen', options.wall, options.clockWall?.getTime());
    this.ids = new IdSource(this.store, `${twin.slug}:default-seed`);
    this.faults = new TwinFaults(
      this.store,
      twin,
      () => this.ids.fraction('faults'),
      () => this.ctx,
    );
    this.apiKey = this.providerKey(twin, options);
    this.deliveries = new Deliveries(this.store, () => this.ids.next('dlv_', 24), twin.signDelivery?.bind(twin), undefined, twin.stampDelivery?.bind(twin));
    this.ctx = {
      store: this.store,
      clock: this.clock,
      ids: this.ids,
      apiKey: this.apiKey,
      baseUrl: options.publicUrl ?? '',
      deliveries: this.deliveries,
      fidelity: options.fidelity ?? 'strict',
    };
    this.pipeline = new RequestPipeline(this.store.db, this.store);
    this.advances = new AdvanceJobs({ twin, ctx: this.ctx, exclusive: (fn) => this.pipeline.exclusive(fn) });
    this.ctx.later = (job) => this.pipeline.submit(() => this.pipeline.savepoint(job));
    // The starting state exists from the first instant, so the records endpoints show it at once.
    twin.initialize?.(this.ctx);
    this.routing = routeTwin(twin);
    this.tickEvery = this.clock.mode === 'living' && twin.advance ? lifecycleTickMs() : 0;
    if (this.tickEvery > 0) this.scheduleTick(this.tickEvery);
  }

  /** Whether the key survives restarts (kept in the data file's meta, also across a reset). */
  get keepsKey(): boolean {
    return !!this.options.keepKey || this.options.apiKey !== undefined;
  }

  private providerKey(twin: TwinDefinition, options: TwinHostOptions): string {
    if (!this.keepsKey) return twin.mintKey(randomBase62);
    const key = options.apiKey ?? this.store.getMeta(KEPT_KEY_META) ?? twin.mintKey(randomBase62);
    this.store.setMeta(KEPT_KEY_META, key);
    return key;
  }

  /** The clock's start instant (reset puts the clock back here). */
  get clockStart(): Date {
    return this.startClock;
  }

  // ---- provider requests ---------------------------------------------------------------------

  /** The route a request would take (undefined: a route miss). */
  match(method: string, path: string): { route: TwinRoute; params: Record<string, string>; template: string } | undefined {
    const found = this.routing.match(method, path);
    return found && { route: found.value.route, params: found.params, template: found.template };
  }

  /** Answer one provider request (the HTTP server, tests and the seed expander call this). */
  handle(req: TwinRequest): Promise<TwinResponse> {
    if (this.tickEvery > 0) this.noteRequest();
    // A commit the full disk refused: the request changed nothing, and says why.
    return this.pipeline
      .submit(() => this.answer(req))
      .catch((e: unknown) => {
        if (isStorageFull(e)) return this.storageFull(req);
        throw e;
      });
  }

  /** Answer a request the runtime could not read, in the provider's error shape. */
  refuse(req: TwinRequest, problem: RequestProblem): Promise<TwinResponse> {
    const hook = this.twin.errors.parseFailure;
    if (hook) return this.pipeline.submit(() => hook(req, this.ctx, problem));
    const status = problem.kind === 'input_refused' && problem.refusal.reason === 'body_too_large' ? 413 : 400;
    return Promise.resolve({ status, body: { error: { message: problem.message } } });
  }

  private async answer(req: TwinRequest): Promise<TwinResponse> {
    if (PATH_ENCODING.test(req.path) || !wellEncoded(req.path)) {
      const hook = this.twin.errors.parseFailure;
      if (hook) return withFidelity(hook(req, this.ctx, { kind: 'malformed_url', message: 'The URL path is not valid percent-encoding.' }), 'modelled');
    }
    const found = this.match(req.method, req.path);
    if (!found) return withFidelity(await this.inSavepoint(req, () => this.twin.errors.routeMiss(req, this.ctx)), 'modelled');
    req.params = found.params;
    req.template = found.template;
    const level = found.route.fidelity ?? 'modelled';
    if (!found.route.public) {
      const refused = this.twin.authenticate(req, this.ctx);
      if (refused) return withFidelity(refused, level);
    }
    const struck = this.faults.strike(req, found.template);
    if (struck?.answer) return { ...withFidelity(struck.answer, level), ...(struck.drop ? { drop: true } : {}) };
    const run = (finish?: (res: TwinResponse) => TwinResponse | Promise<TwinResponse>) =>
      this.inSavepoint(req, async () => {
        const res = await found.route.handler(req, this.ctx);
        return finish ? finish(res) : res;
      });
    let out: TwinResponse;
    const go = () => (this.twin.around ? this.twin.around({ req, ctx: this.ctx, route: found.route }, run) : run());
    try {
      // A webhook fault: the route runs as usual and the deliveries it queues are shaped.
      out = struck?.webhooks ? await this.deliveries.shaped(struck.webhooks, go) : await go();
    } catch (e) {
      out = this.renderError(e, req);
    }
    if (struck?.delayMs !== undefined) out = faultDelayed(out, struck.fault.id, struck.delayMs);
    if (struck?.webhooks) out = { ...out, headers: { ...(out.headers ?? {}), [FAULT_HEADER]: `${struck.fault.id} ${struck.webhooks.type}` } };
    return withFidelity(out, level);
  }

  /** Run `fn` in the request's savepoint; a throw is rolled back and answered as the provider does. */
  private async inSavepoint(req: TwinRequest, fn: () => TwinResponse | Promise<TwinResponse>): Promise<TwinResponse> {
    try {
      return await this.pipeline.savepoint(fn);
    } catch (e) {
      return this.renderError(e, req);
    }
  }

  /** A write refused for lack of space: the provider's 503 with a sentence and Retry-After (reads still answer). */
  storageFull(req: TwinRequest): TwinResponse {
    const answer = this.twin.unavailable?.(req, STORAGE_FULL_RETRY_SECONDS, STORAGE_FULL_SENTENCE) ?? {
      status: 503,
      body: { error: { type: 'api_error', message: STORAGE_FULL_SENTENCE } },
    };
    return { ...answer, status: 503, headers: { ...(answer.headers ?? {}), 'retry-after': String(STORAGE_FULL_RETRY_SECONDS) } };
  }

  private renderError(e: unknown, req: TwinRequest): TwinResponse {
    if (e instanceof NotSimulated) {
      const hook = this.twin.errors.unsupported;
      const refusal = hook ? hook(req, this.ctx, e.message) : { status: 501, body: { error: { type: 'api_error', message: e.message } } };
      return { ...refusal, fidelity: 'unsupported' };
    }
    if (isStorageFull(e)) return this.storageFull(req);
    const rendered = this.twin.errors.render(e, req, this.ctx);
    if (rendered) return rendered;
    return { status: 500, body: { error: { type: 'api_error', message: (e as Error)?.message ?? String(e) } } };
  }

  // ---- host operations (admin API, seeds) ----------------------------------------------------

  health(): TwinHealth {
    const wall = this.clock.wallMs();
    return {
      status: 'ok',
      twin: this.twin.slug,
      version: this.twin.version,
      storage_version: Number(this.store.getMeta('storage_version')),
      clock: new Date(this.clock.at(wall)).toISOString(),
      clock_mode: this.clock.mode,
      wall: new Date(wall).toISOString(),
      fidelity: this.ctx.fidelity,
      advance: this.advances.running ?? null,
      prototype_intact: prototypesIntact(),
    };
  }

  /** The key, the credential's other halves, and `mcp_url` where the twin serves its provider's MCP tools (decisions §15). */
  credential(): { api_key: string; mcp_url?: string } & Record<string, string> {
    const out: { api_key: string; mcp_url?: string } & Record<string, string> = { ...this.twin.credentialExtras?.(this.ctx), api_key: this.apiKey };
    if (this.twin.mcp && this.ctx.baseUrl) out.mcp_url = mcpUrl(this.ctx.baseUrl);
    return out;
  }

  /**
   * Move the environment clock to `to` (default: now, or the clock if it is ahead), running every
   * lifecycle event due on the way. Runs alone, between provider requests.
   */
  advance(to?: Date): Promise<{ clock: string }> {
    return this.pipeline.exclusive(async () => {
      const target = to ?? new Date(Math.max(Date.now(), this.clock.nowMs()));
      if (Number.isNaN(target.getTime())) throw new HostError(400, '`to` must be a date-time.');
      if (target.getTime() < this.clock.nowMs()) {
        throw new HostError(409, `Cannot move the clock back from ${this.clock.now().toISOString()} to ${target.toISOString()}.`);
      }
      await this.twin.advance?.(this.ctx, target);
      this.clock.advanceTo(target);
      return { clock: this.clock.now().toISOString() };
    });
  }

  /**
   * The instant of the first lifecycle event due by `to` (the clock's own instant for one already
   * due; undefined: none), for an environment advance that runs its twins' events in one time
   * order. The lifecycle runs up to its first advanceTo (each event moves the clock to its own time
   * first) in a transaction that is then rolled back: nothing changes. Runs alone between provider
   * requests.
   */
  nextDue(to: Date): Promise<Date | undefined> {
    const advance = this.twin.advance;
    if (!advance) return Promise.resolve(undefined);
    return this.pipeline.exclusive(async () => {
      const db = this.store.db;
      const from = this.clock.nowMs();
      let first: number | undefined;
      const stop = new Error('next due found');
      this.clock.onAdvance = (t) => {
        if (t <= to.getTime()) {
          first = Math.max(t, from);
          throw stop;
        }
      };
      db.exec('BEGIN');
      try {
        await advance.call(this.twin, this.ctx, to);
      } catch (e) {
        if (e !== stop && first === undefined) throw e;
      } finally {
        this.clock.onAdvance = undefined;
        if (db.inTransaction) db.exec('ROLLBACK');
        this.clock.reload();
        this.store.forgetCached();
      }
      return first === undefined ? undefined : new Date(first);
    });
  }

  /**
   * A living clock's tick: run the lifecycle events that fell due since the last one, up to the
   * clock's now, in one transaction, alone between provider requests and at batch priority. The
   * clock itself does not move (it runs with wall time): events the lifecycle dates before now are
   * dated now, as a provider processes them a little after they fall due. Skipped while an advance
   * runs (it runs them itself).
   */
  runDueEvents(): Promise<void> {
    if (this.closed || !this.twin.advance || this.advances.running) return Promise.resolve();
    this.ticking ??= this.pipeline
      .exclusive(() =>
        atBatchPriority(async () => {
          if (this.advances.running) return;
          const db = this.store.db;
          const t0 = performance.now();
          const before = this.totalChanges();
          db.exec('BEGIN');
          try {
            await this.twin.advance!(this.ctx, this.clock.now());
            db.exec('COMMIT');
          } catch (e) {
            if (db.inTransaction) db.exec('ROLLBACK');
            this.clock.reload();
            throw e;
          } finally {
            this.lastTick = { ms: performance.now() - t0, wrote: this.totalChanges() !== before };
          }
        }),
      )
      .finally(() => {
        this.ticking = undefined;
      });
    return this.ticking;
  }

  /** Rows written on the twin's connection so far (SQLite's total_changes). */
  private totalChanges(): number {
    this.changesStmt ??= this.store.db.prepare('SELECT total_changes()').pluck();
    return this.changesStmt.get() as number;
  }

  /** The next tick, `delay` ms from now (LIFECYCLE_TICK_MS: the pace adapts to its cost and to idleness). */
  private scheduleTick(delay: number): void {
    if (this.closed) return;
    if (this.lifecycleTimer) clearTimeout(this.lifecycleTimer);
    this.tickAt = performance.now() + delay;
    this.lifecycleTimer = setTimeout(() => {
      this.lifecycleTimer = undefined;
      // A failing lifecycle step fails the same way on the next tick and on the next advance, which reports it.
      void this.runDueEvents()
        .catch(() => {})
        .finally(() => this.scheduleTick(this.nextTickDelay()));
    }, delay);
    this.lifecycleTimer.unref();
  }

  private nextTickDelay(): number {
    const paced = Math.max(this.tickEvery, TICK_COST_FACTOR * this.lastTick.ms);
    const idle = !this.lastTick.wrote && performance.now() - this.lastRequestAt > IDLE_AFTER_MS;
    return idle ? Math.max(paced, IDLE_TICK_MS) : paced;
  }

  /** A provider request: an idle twin's tick comes back to its pace. */
  private noteRequest(): void {
    const now = performance.now();
    this.lastRequestAt = now;
    if (!this.lifecycleTimer) return;
    const paced = Math.max(this.tickEvery, TICK_COST_FACTOR * this.lastTick.ms);
    if (this.tickAt - now > paced) this.scheduleTick(paced);
  }

  /**
   * Back to the seed (or to empty), the clock back to its start, the starting state recreated.
   * `wall`: the wall time at which the clock reads its start (a living clock runs on from there;
   * default now), so every twin of an environment reset together runs at the same offset.
   */
  reset(wall?: Date): Promise<{ clock: string }> {
    return this.pipeline.exclusive(() => {
      const start = this.clockStart;
      // replaceWith ATTACHes the seed file, which SQLite refuses inside a transaction; it runs its
      // own transaction for the copy, so it goes first and alone.
      if (this.options.seedFile) this.store.replaceWith(this.options.seedFile);
      const faults = this.store.getMeta(FAULTS_META);
      this.store.transaction(() => {
        if (!this.options.seedFile) this.store.clear();
        // Faults are the environment's setting, not its records: a reset keeps them.
        if (faults !== undefined) this.store.setMeta(FAULTS_META, faults);
        this.store.setMeta('clock_start', String(start.getTime()));
        if (this.store.getMeta('storage_version') === undefined) {
          this.store.setMeta('storage_version', String(this.twin.storageVersion));
        }
        if (this.keepsKey) this.store.setMeta(KEPT_KEY_META, this.apiKey);
      });
      this.clock.resetTo(new Date(Number(this.store.getMeta('clock') ?? start.getTime())), wall?.getTime());
      this.faults.reload();
      this.twin.initialize?.(this.ctx);
      return { clock: this.clock.now().toISOString() };
    });
  }

  /**
   * Write a snapshot of the twin's file as `name` beside it (snapshot.ts), alone between provider
   * requests (no request half applied), its clock at `at` (default: the twin's now), the instant
   * the control plane read for every twin of the environment.
   */
  snapshot(name: string, at?: Date): Promise<SnapshotFile> {
    if (!SNAPSHOT_FILE_NAME.test(name)) throw new HostError(400, '`file` must be a plain file name ending in .sqlite.');
    if (at && Number.isNaN(at.getTime())) throw new HostError(400, '`clock` must be a date-time.');
    return this.pipeline.exclusive(async () => {
      const dir = dirname(this.options.dataFile);
      const written = await writeSnapshot(this.store, this.options.dataFile, join(dir, name), at?.getTime() ?? this.clock.nowMs(), [KEPT_KEY_META]);
      this.snapshotsWritten.add(name);
      return { file: name, ...written };
    });
  }

  /**
   * A snapshot file this twin wrote (and nothing else of its directory, its data file least of
   * all), for a control plane that cannot read the twin's directory (kubernetes) to fetch.
   */
  snapshotFile(name: string): string | undefined {
    return this.snapshotsWritten.has(name) ? join(dirname(this.options.dataFile), name) : undefined;
  }

  /** Remove a snapshot file once the control plane holds its copy. */
  dropSnapshotFile(name: string): boolean {
    const path = this.snapshotFile(name);
    if (!path) return false;
    rmSync(path, { force: true });
    this.snapshotsWritten.delete(name);
    return true;
  }

  /** Whether `resource` is a kind of record this twin keeps (deliveries included). */
  keeps(resource: string): boolean {
    return this.twin.resources.includes(resource) || resource === DELIVERY_RESOURCE;
  }

  private known(resource: string): void {
    if (!this.keeps(resource)) throw new HostError(404, `The ${this.twin.slug} twin keeps no records of kind '${resource}'.`);
  }

  listRecords(resource: string): StoredRecord[] {
    this.known(resource);
    return this.store.listRecords(resource);
  }

  getRecord(resource: string, externalId: string): Record<string, unknown> | undefined {
    this.known(resource);
    return this.store.get(resource, externalId);
  }

  putRecord(resource: string, externalId: string, fields: Record<string, unknown>): Promise<void> {
    this.known(resource);
    return this.pipeline.exclusive(() => this.store.put(resource, externalId, fields));
  }

  /** False when there was no such record. */
  deleteRecord(resource: string, externalId: string): Promise<boolean> {
    this.known(resource);
    return this.pipeline.exclusive(() => this.store.delete(resource, externalId));
  }

  /** Wait for queued requests and deliveries, then close the file. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.lifecycleTimer) clearTimeout(this.lifecycleTimer);
    await this.ticking?.catch(() => {});
    await this.advances.stop();
    await this.pipeline.idle();
    await this.deliveries.close();
    this.store.close();
  }
}

/** The answer with its `Twin-Fidelity` header: the level the answer names, else its route's (exported for scripts/bench/fidelity-decision.ts). */
export function withFidelity(res: TwinResponse, routeLevel: FidelityLevel): TwinResponse {
  const level = res.fidelity ?? routeLevel;
  return { ...res, fidelity: level, headers: { ...res.headers, [FIDELITY_HEADER]: level } };
}

/** The answer, to be sent `ms` later, naming the latency fault that delays it. */
function faultDelayed(res: TwinResponse, faultId: string, ms: number): TwinResponse {
  return { ...res, delayMs: ms, headers: { ...res.headers, [FAULT_HEADER]: `${faultId} latency` } };
}

function wellEncoded(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
