// Orchestration as one component: the environment store and request log, the driver, the gateway
// and its log writer, the reconciler and the environment rules. Built with the services, started
// after them, closed before the database: reconciler → gateway → log flush → driver.

import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../store/database.js';
import { EnvironmentStore } from '../store/environments.js';
import { RequestLogStore } from '../store/request-logs.js';
import { RequestLogWriter } from '../gateway/request-log-writer.js';
import { TwinGateway } from '../gateway/gateway.js';
import { ensureTls } from '../../twin-runtime/tls.js';
import type { TwinDriver } from './drivers/driver.js';
import { createDriver } from './drivers/index.js';
import { Reconciler } from './reconciler.js';
import { TwinAdminClient } from './twin-admin.js';
import { EnvironmentService } from './environments.js';

export interface Orchestration {
  store: EnvironmentStore;
  requestLogs: RequestLogStore;
  logWriter: RequestLogWriter;
  driver: TwinDriver;
  gateway: TwinGateway;
  reconciler: Reconciler;
  admin: TwinAdminClient;
  environments: EnvironmentService;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createOrchestration(config: Config, db: Db, log: Logger): Promise<Orchestration> {
  const store = new EnvironmentStore(db);
  const requestLogs = new RequestLogStore(db);
  const logWriter = new RequestLogWriter(requestLogs, log.child({ component: 'request-log' }));
  const driver = await createDriver(config);
  const gatewayHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const gateway = new TwinGateway({
    host: gatewayHost,
    domain: config.domain,
    sharedPort: process.env.TWINS_GATEWAY_PORT ? Number(process.env.TWINS_GATEWAY_PORT) : undefined,
    publicScheme: process.env.TWINS_GATEWAY_SCHEME,
    writer: logWriter,
    log: log.child({ component: 'gateway' }),
    // Twin URLs answer https:// too, with a certificate from the data directory's local CA.
    tls: ensureTls(config.dataDir, [gatewayHost]),
  });
  const admin = new TwinAdminClient();
  const reconciler = new Reconciler({
    store,
    driver,
    gateway,
    admin,
    log: log.child({ component: 'reconciler' }),
    tickMs: process.env.TWINS_RECONCILE_MS ? Number(process.env.TWINS_RECONCILE_MS) : undefined,
    image: process.env.TWINS_IMAGE,
  });
  const environments = new EnvironmentService({ db, dataDir: config.dataDir, store, logs: requestLogs, writer: logWriter, reconciler, admin });
  let closed = false;
  return {
    store,
    requestLogs,
    logWriter,
    driver,
    gateway,
    reconciler,
    admin,
    environments,
    async start() {
      await gateway.start();
      await reconciler.start();
    },
    async close() {
      if (closed) return;
      closed = true;
      await reconciler.stop();
      await gateway.closeAll();
      logWriter.close();
      await driver.close();
    },
  };
}
