// Everything the routes use, built once at start and closed once at shutdown.
// Each component adds its own field here and its start/stop in createServices / closeServices.

import { join } from 'node:path';
import type { Logger } from 'pino';
import { createLogger } from './logging.js';
import type { Config } from './config.js';
import { openDatabase, type Db } from './store/database.js';
import { IdentityStore } from './store/identity.js';
import { ApiKeyStore } from './store/api-keys.js';
import { InvitationStore } from './store/invitations.js';
import { createInvitationProvider, InvitationService } from './identity/index.js';
import { TokenVerifier } from './auth/access-tokens.js';
import { loadLocalKeys, type LocalKeys } from './auth/local-idp.js';
import { createOrchestration, type Orchestration } from './orchestration/index.js';
import { SeedStore } from './store/seeds.js';
import { ScenarioStore } from './store/scenarios.js';
import { SeedWorker, seedConcurrencyFromEnv } from './seeds/worker.js';
import { loadTwinReleases } from './seeds/twin-releases.js';
import { llmConfigFromEnv } from '../seeds/llm-client.js';
import { StorageHealth } from './store/storage-health.js';
import { BillingService } from './billing/service.js';
import { Judges } from './testing/judges.js';
import { LOG_FILE_NAME } from './store/request-logs.js';
import { OrganizationJobs } from './orchestration/organization-jobs.js';

export interface Services {
  config: Config;
  log: Logger;
  db: Db;
  localKeys?: LocalKeys;
  tokens: TokenVerifier;
  identity: IdentityStore;
  apiKeys: ApiKeyStore;
  invitationStore: InvitationStore;
  /** Invitations through the identity-provider adapter (TWINS_IDP_PROVIDER). */
  invitations: InvitationService;
  /** Environments, twins, driver, gateway, reconciler, request log (started by server.ts). */
  orchestration: Orchestration;
  seeds: SeedStore;
  scenarios: ScenarioStore;
  /** Generates seeds in the background (started by server.ts, stopped by closeServices). */
  seedWorker: SeedWorker;
  /** Whether the data directory takes writes (full disk → 503, /health/ready). */
  storage: StorageHealth;
  /** Payment processor, checkout, upgrade, metering, webhooks (started by server.ts). */
  billing: BillingService;
  /** Test attempts judged and patterns compiled off the API's thread, within a budget. */
  judges: Judges;
  /** Heavy work per organization (advances, seed generations): each waits its organization's turn. */
  jobs: OrganizationJobs;
}

export async function createServices(config: Config, log?: Logger): Promise<Services> {
  const logger = log ?? (await createLogger(config));
  const db = openDatabase(join(config.dataDir, 'control-plane.sqlite'));
  const localKeys = config.idp === 'local' ? await loadLocalKeys(config.dataDir) : undefined;
  const identity = new IdentityStore(db, config.defaultPlan);
  const invitationStore = new InvitationStore(db);
  // Twin releases (version, storageVersion) decide a seed's `usable`; read them once.
  await loadTwinReleases();
  const storage = new StorageHealth(config.dataDir);
  const jobs = new OrganizationJobs();
  const billing = new BillingService({ db, config, log: logger.child({ component: 'billing' }), storage });
  // A new organization gets its customer at the payment processor right away.
  identity.onOrganizationCreated = () => billing.organizationCreated();
  return {
    config,
    log: logger,
    db,
    localKeys,
    tokens: new TokenVerifier(config, localKeys),
    identity,
    apiKeys: new ApiKeyStore(db),
    invitationStore,
    invitations: new InvitationService(identity, invitationStore, createInvitationProvider(config)),
    orchestration: await createOrchestration(config, db, logger, jobs),
    seeds: new SeedStore(db),
    scenarios: new ScenarioStore(db),
    seedWorker: new SeedWorker({
      db,
      dataDir: config.dataDir,
      log: logger.child({ component: 'seeds' }),
      concurrency: seedConcurrencyFromEnv(),
      llm: llmConfigFromEnv(),
      jobs,
    }),
    storage,
    billing,
    judges: new Judges({
      logFile: join(config.dataDir, LOG_FILE_NAME),
      threads: config.judges.threads,
      limits: config.judges.limits,
      log: logger.child({ component: 'judges' }),
    }),
    jobs,
  };
}

export async function closeServices(s: Services): Promise<void> {
  // Twins stop and buffered request logs are written before the database closes.
  await s.seedWorker.close();
  await s.judges.close();
  await s.orchestration.close();
  await s.billing.close();
  s.db.close();
}
