// The reconciler: level-triggered. On every tick, every driver event and every API change it
// compares each twin's desired state with what the driver observes and moves it one step
// (docs/decisions.md §7): start → credential → gateway target → ready; crash → starting again (records
// kept, new key); stop or removal → stopping → stopped (data removed with the twin). It also
// expires environments past `expires_at` and derives each environment's status from its twins.

import type { Logger } from 'pino';
import type { TwinDriver, TwinWorkloadSpec, WorkloadStatus } from './drivers/driver.js';
import type { GatewayControl } from '../gateway/host.js';
import { alignClocks, clockAt, ClockLocks, environmentPosition, instantOf, twinPosition } from './clock.js';
import type { EnvironmentRow, EnvironmentStatus, EnvironmentStore, EnvironmentTwinRow } from '../store/environments.js';
import type { TwinAdminClient } from './twin-admin.js';

export const MANAGED_BY_LABEL = 'twins.managed-by';
export const MANAGED_BY = 'twins-control-plane';

export interface ReconcilerOptions {
  store: EnvironmentStore;
  driver: TwinDriver;
  gateway: GatewayControl;
  admin: TwinAdminClient;
  log: Logger;
  /** Moves of each environment's clock, shared with the environment service. */
  clockLocks?: ClockLocks;
  /** Configuration every twin receives as environment variables (egress policy). */
  twinEnv?: Record<string, string>;
  tickMs?: number;
  /** Image for container drivers. */
  image?: string;
  /** Consecutive start failures after which a twin stays failed until something changes. */
  maxStartAttempts?: number;
  /** How long a running twin has to answer its health check (TWINS_TWIN_HEALTH_DEADLINE_MS). */
  healthDeadlineMs?: number;
  /** Milliseconds between health checks of each running twin. */
  healthIntervalMs?: number;
  /** How long a twin may stay degraded before it is restarted (TWINS_TWIN_RESTART_GRACE_MS). */
  restartGraceMs?: number;
}

/**
 * Defaults: a twin that misses two health checks in a row (3 s each, 5 s apart) is busy, not
 * ready (one miss alone can be a loaded machine); degraded for 30 s, it is restarted.
 */
export const HEALTH_DEADLINE_MS = 3_000;
export const HEALTH_INTERVAL_MS = 5_000;
export const RESTART_GRACE_MS = 30_000;
const MISSES_TO_DEGRADE = 2;

interface FailureCount {
  count: number;
  nextAttemptAt: number;
}

export function workloadLabels(row: Pick<EnvironmentTwinRow, 'id' | 'environment_id' | 'organization_id' | 'twin_slug'>): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: MANAGED_BY,
    'twins.twin-id': row.id,
    'twins.environment-id': row.environment_id,
    'twins.org-id': row.organization_id,
    'twins.twin-slug': row.twin_slug,
  };
}

/** Environment status from its twins (docs/decisions.md §7); expired and deleted are set elsewhere. */
export function deriveStatus(twins: EnvironmentTwinRow[]): EnvironmentStatus {
  if (twins.length > 0 && twins.every((t) => t.desired_state === 'stopped')) {
    return twins.every((t) => t.state === 'stopped') ? 'stopped' : 'stopping';
  }
  const live = twins.filter((t) => t.desired_state === 'running');
  if (live.some((t) => t.state === 'failed' && t.ready_at === null)) return 'failed';
  if (live.some((t) => t.state !== 'ready' && t.ready_at !== null)) return 'degraded';
  if (live.some((t) => t.state !== 'ready')) return 'provisioning';
  return 'ready';
}

export class Reconciler {
  private readonly store: EnvironmentStore;
  private readonly driver: TwinDriver;
  private readonly gateway: GatewayControl;
  readonly clockLocks: ClockLocks;
  private readonly admin: TwinAdminClient;
  private readonly log: Logger;
  /** The last step queued for each twin; steps of one twin never overlap. */
  private readonly chains = new Map<string, Promise<void>>();
  /** A queued step that has not begun yet: later kicks join it (it will read the latest state). */
  private readonly waiting = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, FailureCount>();
  /** When each running twin was last checked, and since when a degraded one has been so. */
  private readonly lastChecked = new Map<string, number>();
  private readonly degradedSince = new Map<string, number>();
  /** Health checks each twin has missed in a row. */
  private readonly misses = new Map<string, number>();
  private readonly checking = new Set<string>();
  /** Degraded past the grace period: restarted by its next step. */
  private readonly restartWanted = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private stopped = false;
  private readonly onDriverEvent = (e: { twinId: string }) => void this.kick(e.twinId);

  constructor(private readonly options: ReconcilerOptions) {
    this.store = options.store;
    this.driver = options.driver;
    this.gateway = options.gateway;
    this.admin = options.admin;
    this.log = options.log;
    this.clockLocks = options.clockLocks ?? new ClockLocks();
  }

  /** Sweep orphans of an earlier run, then pick every environment back up. */
  async start(): Promise<void> {
    const wanted = new Set(
      this.store
        .twinIdsToReconcile()
        .map((id) => this.store.twinById(id))
        .filter((t): t is EnvironmentTwinRow => !!t && t.deleted_at === null && t.desired_state === 'running')
        .map((t) => t.id),
    );
    const workloads = await this.driver.list({ [MANAGED_BY_LABEL]: MANAGED_BY });
    for (const w of workloads) {
      if (!wanted.has(w.twinId)) {
        this.log.info({ twinId: w.twinId }, 'stopping an orphaned twin workload');
        await this.driver.stop(w.twinId).catch((err) => this.log.warn({ err, twinId: w.twinId }, 'orphan stop failed'));
      }
    }
    // A twin recorded ready whose workload did not survive (the process driver's twins stop with
    // the control plane) is starting again, not ready: no caller is handed its dead address while
    // the first pass brings it back.
    const running = new Set(workloads.filter((w) => w.state === 'running').map((w) => w.twinId));
    for (const id of wanted) {
      const row = this.store.twinById(id);
      if ((row?.state !== 'ready' && row?.state !== 'degraded') || running.has(id)) continue;
      this.gateway.setTarget(id, undefined);
      this.store.updateTwin(id, { state: 'starting', address: null, api_key: null, restarts: row.restarts + 1 });
      this.refreshEnvironment(row.environment_id);
    }
    this.driver.events.on('event', this.onDriverEvent);
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 1000);
    this.timer.unref();
    void this.tick();
  }

  /** One pass over everything: expiry, then a step for every twin that may need one. */
  async tick(): Promise<void> {
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    try {
      this.expireDue();
      const ids = this.store.twinIdsToReconcile();
      this.checkHealth(ids);
      await Promise.all(ids.map((id) => this.kick(id)));
    } catch (err) {
      this.log.error({ err }, 'reconciler tick failed');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Health checks with a deadline, apart from the twins' steps (a check waits up to its deadline): a
   * running twin that does not answer in time (its event loop held by one request, a disk that
   * does not answer) is reported degraded, with why, and keeps its address (it may come back); one
   * that answers again is ready again; one degraded past the grace period is restarted by its next
   * step. Committed writes are in its data file, which the restart keeps.
   */
  private checkHealth(ids: string[]): void {
    const now = Date.now();
    const interval = this.options.healthIntervalMs ?? HEALTH_INTERVAL_MS;
    for (const id of ids) {
      if (this.checking.has(id) || now - (this.lastChecked.get(id) ?? 0) < interval) continue;
      const row = this.store.twinById(id);
      if (!row || (row.state !== 'ready' && row.state !== 'degraded') || !row.address || row.desired_state !== 'running') continue;
      this.lastChecked.set(id, now);
      this.checking.add(id);
      void this.checkOne(row)
        .catch((err) => this.log.warn({ err, twinId: id }, 'twin health check failed'))
        .finally(() => this.checking.delete(id));
    }
  }

  private async checkOne(row: EnvironmentTwinRow & { address: string | null }): Promise<void> {
    const deadline = this.options.healthDeadlineMs ?? HEALTH_DEADLINE_MS;
    const answered = await this.admin.health(row.address!, row.admin_secret, deadline).then(
      () => true,
      () => false,
    );
    const now = this.store.twinById(row.id);
    // Its state moved on while we asked (restarted, stopped): the answer is about another workload.
    if (!now || now.address !== row.address || (now.state !== 'ready' && now.state !== 'degraded')) return;
    if (answered) {
      this.misses.delete(row.id);
      this.degradedSince.delete(row.id);
      if (now.state === 'degraded') {
        this.store.updateTwin(row.id, { state: 'ready', failure: null });
        this.log.info({ twinId: row.id }, 'twin answers its health check again');
        this.refreshEnvironment(row.environment_id);
      }
      return;
    }
    const missed = (this.misses.get(row.id) ?? 0) + 1;
    this.misses.set(row.id, missed);
    if (missed < MISSES_TO_DEGRADE) return;
    const since = this.degradedSince.get(row.id) ?? Date.now();
    this.degradedSince.set(row.id, since);
    const grace = this.options.restartGraceMs ?? RESTART_GRACE_MS;
    if (now.state !== 'degraded') {
      this.store.updateTwin(row.id, {
        state: 'degraded',
        failure: `The twin did not answer ${missed} health checks in a row within ${deadline} ms each (busy since ${new Date(since).toISOString()}); it is restarted if it stays so for ${Math.round(grace / 1000)} s.`,
      });
      this.log.warn({ twinId: row.id, deadlineMs: deadline }, 'twin degraded: no answer to its health check in time');
      this.refreshEnvironment(row.environment_id);
    }
    if (Date.now() - since >= grace) {
      this.restartWanted.add(row.id);
      void this.kick(row.id);
    }
  }

  private expireDue(): void {
    for (const env of this.store.environmentsDueToExpire(new Date().toISOString())) {
      this.store.transaction(() => {
        this.store.updateEnvironment(env.id, { status: 'expired' });
        this.store.updateTwinsOf(env.id, { desired_state: 'stopped' });
      });
      this.log.info({ environmentId: env.id }, 'environment expired; stopping its twins');
    }
  }

  /** Reconcile one twin soon; resolves when a step that saw the current state has finished. */
  kick(twinId: string): Promise<void> {
    const waiting = this.waiting.get(twinId);
    if (waiting) return waiting;
    const previous = this.chains.get(twinId) ?? Promise.resolve();
    const next = previous.then(async () => {
      this.waiting.delete(twinId);
      if (this.stopped) return;
      try {
        await this.step(twinId);
      } catch (err) {
        this.log.error({ err, twinId }, 'reconcile step failed');
      }
    });
    this.waiting.set(twinId, next);
    this.chains.set(twinId, next);
    void next.then(() => {
      if (this.chains.get(twinId) === next) this.chains.delete(twinId);
    });
    return next;
  }

  /** Reconcile every twin of an environment and wait for it. */
  async settle(environmentId: string, twinIds?: string[]): Promise<void> {
    const ids = twinIds ?? this.store.twinsOf(environmentId).map((t) => t.id);
    await Promise.all(ids.map((id) => this.kick(id)));
    this.refreshEnvironment(environmentId);
  }

  /** Forget a twin's failure history (reset, re-add) so it is tried again at once. */
  clearFailures(twinId: string): void {
    this.failures.delete(twinId);
  }

  private async step(twinId: string): Promise<void> {
    const row = this.store.twinById(twinId);
    if (!row) return;
    const env = this.store.environmentById(row.environment_id);
    const remove = row.deleted_at !== null || !env || env.deleted_at !== null;
    const wantRunning = !remove && row.desired_state === 'running' && env!.status !== 'expired';
    const observed = await this.driver.inspect(twinId);

    if (wantRunning) {
      if (this.restartWanted.delete(twinId) && row.state === 'degraded') {
        this.log.warn({ twinId }, 'restarting a twin degraded past its grace period');
        await this.driver.stop(twinId);
        this.degradedSince.delete(twinId);
        this.misses.delete(twinId);
        await this.bringUp(row, env!, { ...observed, state: 'exited', message: row.failure ?? undefined });
        this.refreshEnvironment(row.environment_id);
        return;
      }
      // A degraded twin still runs where it did (it may answer again); it is not started anew.
      const up = row.state === 'ready' || row.state === 'degraded';
      const healthy = observed.state === 'running' && up && this.gateway.targetOf(twinId) === observed.address;
      if (!healthy && this.mayTryStart(row)) await this.bringUp(row, env!, observed);
    } else if (remove || row.state !== 'stopped' || observed.state !== 'missing') {
      await this.bringDown(row, remove, observed);
    }
    this.refreshEnvironment(row.environment_id);
  }

  private mayTryStart(row: EnvironmentTwinRow): boolean {
    if (row.state !== 'failed') return true;
    const f = this.failures.get(row.id);
    if (!f) return true;
    return f.count < (this.options.maxStartAttempts ?? 5) && Date.now() >= f.nextAttemptAt;
  }

  private spec(row: EnvironmentTwinRow, env: EnvironmentRow, publicUrl: string): TwinWorkloadSpec {
    const wall = Date.now();
    return {
      twinId: row.id,
      environmentId: row.environment_id,
      orgId: row.organization_id,
      slug: row.twin_slug,
      image: this.options.image,
      dataFile: row.data_file,
      seedFile: row.seed_file ?? undefined,
      // A new twin's reset goes back to the environment's start; its clock starts where the
      // environment's stands now (a seeded twin at its seed's, caught up in bringUp).
      clockStart: new Date(env.clock_start),
      clockNow: new Date(clockAt(env, wall)),
      clockWall: env.clock_mode === 'living' ? new Date(wall) : undefined,
      clockMode: env.clock_mode,
      fidelity: env.fidelity,
      adminSecret: row.admin_secret,
      publicUrl,
      labels: workloadLabels(row),
      expiresAt: env.expires_at ? new Date(env.expires_at) : null,
      env: this.options.twinEnv,
    };
  }

  private async bringUp(row: EnvironmentTwinRow, env: EnvironmentRow, observed: WorkloadStatus): Promise<void> {
    // It ran before and is gone (crash, control-plane restart): a restart, not a first start.
    const restart = observed.state === 'exited' || row.state === 'ready' || row.state === 'degraded';
    this.gateway.setTarget(row.id, undefined);
    this.store.updateTwin(row.id, {
      state: 'starting',
      address: null,
      api_key: null,
      restarts: restart ? row.restarts + 1 : row.restarts,
    });
    this.refreshEnvironment(row.environment_id);
    if (restart) this.log.info({ twinId: row.id, workload: observed.state, message: observed.message }, 'restarting twin');
    try {
      const { url, port } = await this.gateway.open(
        { twinId: row.id, environmentId: row.environment_id, organizationId: row.organization_id, slug: row.twin_slug },
        row.gateway_port,
      );
      this.store.updateTwin(row.id, { url, gateway_port: port });
      const { address } = await this.driver.start(this.spec(row, env, url));
      const [{ api_key }, health] = await Promise.all([this.admin.credential(address, row.admin_secret), this.admin.health(address, row.admin_secret)]);
      // A twin stopped across an advance (or loaded from an older seed) catches up with the
      // environment clock; one that restarted ahead of it (an advance cut short) moves the
      // environment and its other twins up to it once it is ready.
      const ahead = await this.clockLocks.run(row.environment_id, async () => {
        const current = this.store.environmentById(row.environment_id) ?? env;
        const mode = current.clock_mode;
        const twinAt = twinPosition(mode, health);
        const envAt = environmentPosition(current);
        if (twinAt < envAt) {
          const wall = Date.now();
          const to = new Date(instantOf(mode, envAt, wall));
          const out = await this.admin.advanceAndWait(address, row.admin_secret, to, mode === 'living' ? new Date(wall) : undefined);
          if (!out.ok) throw new Error(`The twin could not catch up with the environment clock: ${out.detail}`);
        }
        return twinAt > envAt;
      });
      this.gateway.setTarget(row.id, address);
      this.store.updateTwin(row.id, { state: 'ready', address, api_key, ready_at: new Date().toISOString(), failure: null });
      this.failures.delete(row.id);
      if (ahead) {
        void this.clockLocks
          .run(row.environment_id, () => alignClocks(this.store, this.admin, row.environment_id, this.log))
          .catch((err) => this.log.warn({ err, environmentId: row.environment_id }, 'aligning clocks failed'));
      }
    } catch (err) {
      const message = (err as Error).message;
      const f = this.failures.get(row.id) ?? { count: 0, nextAttemptAt: 0 };
      f.count += 1;
      f.nextAttemptAt = Date.now() + Math.min(30_000, 250 * 2 ** f.count);
      this.failures.set(row.id, f);
      this.store.updateTwin(row.id, { state: 'failed', failure: message, address: null, api_key: null });
      this.log.warn({ twinId: row.id, attempt: f.count, err: message }, 'twin failed to start');
    }
  }

  private async bringDown(row: EnvironmentTwinRow, remove: boolean, observed: WorkloadStatus): Promise<void> {
    if (row.state !== 'stopped' && row.state !== 'stopping') {
      this.store.updateTwin(row.id, { state: 'stopping' });
      this.refreshEnvironment(row.environment_id);
    }
    this.gateway.setTarget(row.id, undefined);
    if (observed.state !== 'missing' || remove) {
      await this.driver.stop(row.id, { removeData: remove, dataFile: row.data_file });
    }
    await this.gateway.close(row.id);
    this.store.updateTwin(row.id, { state: 'stopped', address: null, api_key: null });
    this.failures.delete(row.id);
  }

  /** Recompute an environment's status from its twins (expired and deleted environments keep theirs). */
  refreshEnvironment(environmentId: string): void {
    const env = this.store.environmentById(environmentId);
    if (!env || env.deleted_at !== null || env.status === 'expired') return;
    const status = deriveStatus(this.store.twinsOf(environmentId));
    if (status !== env.status) this.store.updateEnvironment(environmentId, { status });
  }

  /** Stop ticking and wait for steps under way. Workloads are left to the driver's own close. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.driver.events.off('event', this.onDriverEvent);
    await Promise.all([...this.chains.values()]);
  }
}
