// Orchestration as one component: the environment store and request log, the driver, the gateway
// (on its own thread, with the log writer), the reconciler and the environment rules. Built with the
// services, started after them, closed before the database: reconciler → gateway (drained, log
// committed) → driver.

import { join } from 'node:path';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../store/database.js';
import { EnvironmentStore } from '../store/environments.js';
import { LOG_FILE_NAME, RequestLogStore } from '../store/request-logs.js';
import { GatewayHost } from '../gateway/host.js';
import { planNamed } from '../billing/plans.js';
import { loadTwin } from '../../twin-runtime/registry.js';
import { ensureTls } from '../../twin-runtime/tls.js';
import type { TwinDriver } from './drivers/driver.js';
import { createDriver } from './drivers/index.js';
import { Reconciler } from './reconciler.js';
import type { OrganizationJobs } from './organization-jobs.js';
import { TwinAdminClient } from './twin-admin.js';
import { EnvironmentService } from './environments.js';
import { SnapshotService } from './snapshots.js';
import { FaultService } from './faults.js';
import { ReplayService } from './replay.js';
import { StartFileTokens } from './start-files.js';

export interface Orchestration {
  store: EnvironmentStore;
  /** Reads of the request log (the gateway's thread writes it). */
  requestLogs: RequestLogStore;
  driver: TwinDriver;
  gateway: GatewayHost;
  reconciler: Reconciler;
  admin: TwinAdminClient;
  environments: EnvironmentService;
  /** Snapshots, forks and diffs of environments. */
  snapshots: SnapshotService;
  /** Faults injected into twins. */
  faults: FaultService;
  /** Traffic exported as a file, and replayed. */
  replay: ReplayService;
  /** Tokens opening one twin's seed or snapshot file on the internal start-file route. */
  startFiles: StartFileTokens;
  start(): Promise<void>;
  /** Stop taking gateway connections and let requests in flight finish (bounded); the unanswered count. */
  drain(timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/** Days an organization's request logs are kept: the override, else its plan's. */
export function retentionDaysFor(db: Db, config: Pick<Config, 'logRetentionDays'>, organizationId: string): number {
  if (config.logRetentionDays !== undefined) return config.logRetentionDays;
  const row = db.prepare('SELECT plan FROM organizations WHERE id = ?').get(organizationId) as { plan: string } | undefined;
  return planNamed(row?.plan ?? 'free').logRetentionDays;
}

/** The control plane's own addresses, which a twin under TWINS_EGRESS=public must never deliver to. */
export function ownAddresses(host: string): string[] {
  if (host === '0.0.0.0' || host === '::' || host === '') {
    return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
  }
  return isIP(host) ? [host] : [];
}

/** What every twin is told of the egress policy (environment variables). */
export function twinEnvironment(config: Pick<Config, 'egress' | 'host'>): Record<string, string> {
  if (config.egress !== 'public') return { TWINS_EGRESS: config.egress };
  return { TWINS_EGRESS: 'public', TWINS_EGRESS_DENY: ownAddresses(config.host).join(',') };
}

export async function createOrchestration(config: Config, db: Db, log: Logger, jobs?: OrganizationJobs): Promise<Orchestration> {
  const store = new EnvironmentStore(db);
  const requestLogs = new RequestLogStore(db);
  const startFiles = new StartFileTokens();
  const driver = await createDriver(config, startFiles);
  const gatewayHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const gateway = new GatewayHost({
    logFile: join(config.dataDir, LOG_FILE_NAME),
    host: gatewayHost,
    domain: config.domain,
    sharedPort: process.env.TWINS_GATEWAY_PORT ? Number(process.env.TWINS_GATEWAY_PORT) : undefined,
    publicScheme: process.env.TWINS_GATEWAY_SCHEME,
    defaultRetentionDays: config.logRetentionDays ?? planNamed(config.defaultPlan).logRetentionDays,
    bodyCapBytes: config.logBodyCapBytes,
    log: log.child({ component: 'gateway' }),
    describe: async (twin) => {
      const def = await loadTwin(twin.slug).catch(() => undefined);
      return { redact: def?.redact, retentionDays: retentionDaysFor(db, config, twin.organizationId), ownHost: def?.ownHost };
    },
    // Twin URLs answer https:// too, with a certificate from the data directory's local CA.
    tls: ensureTls(config.dataDir, [gatewayHost]),
    tlsDataDir: config.dataDir,
    twinLocalSockets: driver.name === 'process',
  });
  const admin = new TwinAdminClient();
  const reconciler = new Reconciler({
    store,
    driver,
    gateway,
    admin,
    log: log.child({ component: 'reconciler' }),
    tickMs: process.env.TWINS_RECONCILE_MS ? Number(process.env.TWINS_RECONCILE_MS) : undefined,
    healthDeadlineMs: process.env.TWINS_TWIN_HEALTH_DEADLINE_MS ? Number(process.env.TWINS_TWIN_HEALTH_DEADLINE_MS) : undefined,
    healthIntervalMs: process.env.TWINS_TWIN_HEALTH_INTERVAL_MS ? Number(process.env.TWINS_TWIN_HEALTH_INTERVAL_MS) : undefined,
    restartGraceMs: process.env.TWINS_TWIN_RESTART_GRACE_MS ? Number(process.env.TWINS_TWIN_RESTART_GRACE_MS) : undefined,
    image: process.env.TWINS_IMAGE,
    twinEnv: twinEnvironment(config),
  });
  const environments = new EnvironmentService({
    db,
    dataDir: config.dataDir,
    store,
    logs: requestLogs,
    gateway,
    reconciler,
    admin,
    log: log.child({ component: 'environments' }),
    jobs,
  });
  const snapshots = new SnapshotService({
    db,
    dataDir: config.dataDir,
    store,
    environments,
    reconciler,
    admin,
    jobs: environments.jobs,
    driverName: driver.name,
    log: log.child({ component: 'snapshots' }),
  });
  const faults = new FaultService({ store, environments, admin });
  const replay = new ReplayService({ db, store, logs: requestLogs, environments, admin });
  // Plans change (an upgrade keeps logs longer): each live environment's retention is refreshed.
  const refreshRetention = () => {
    try {
      gateway.setRetention(
        store
          .liveEnvironments()
          .map((e) => ({ environmentId: e.id, organizationId: e.organization_id, days: retentionDaysFor(db, config, e.organization_id) })),
      );
    } catch (err) {
      log.warn({ err }, 'refreshing log retention failed');
    }
  };
  let retentionTimer: NodeJS.Timeout | undefined;
  let closed = false;
  return {
    store,
    requestLogs,
    driver,
    gateway,
    reconciler,
    admin,
    environments,
    snapshots,
    faults,
    replay,
    startFiles,
    async start() {
      await gateway.start();
      // Logs of environments deleted while the log writer was not told (a crash in between).
      for (const id of store.deletedEnvironmentsWithLogs()) gateway.purgeEnvironment(id);
      environments.recoverAdvances();
      await reconciler.start();
      refreshRetention();
      retentionTimer = setInterval(refreshRetention, 10 * 60_000);
      retentionTimer.unref();
    },
    async drain(timeoutMs) {
      return gateway.drain(timeoutMs);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (retentionTimer) clearInterval(retentionTimer);
      await reconciler.stop();
      await gateway.closeAll();
      await driver.close();
    },
  };
}
