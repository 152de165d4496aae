// Everything the routes use, built once at start and closed once at shutdown.
// Each component adds its own field here and its start/stop in createServices / closeServices.

import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type Db } from './store/database.js';
import { IdentityStore } from './store/identity.js';
import { ApiKeyStore } from './store/api-keys.js';
import { TokenVerifier } from './auth/access-tokens.js';
import { loadLocalKeys, type LocalKeys } from './auth/local-idp.js';

export interface Services {
  config: Config;
  log: Logger;
  db: Db;
  localKeys?: LocalKeys;
  tokens: TokenVerifier;
  identity: IdentityStore;
  apiKeys: ApiKeyStore;
}

export async function createServices(config: Config, log?: Logger): Promise<Services> {
  const logger = log ?? pino({ level: config.logLevel });
  const db = openDatabase(join(config.dataDir, 'control-plane.sqlite'));
  const localKeys = config.idp === 'local' ? await loadLocalKeys(config.dataDir) : undefined;
  return {
    config,
    log: logger,
    db,
    localKeys,
    tokens: new TokenVerifier(config, localKeys),
    identity: new IdentityStore(db, config.defaultPlan),
    apiKeys: new ApiKeyStore(db),
  };
}

export async function closeServices(s: Services): Promise<void> {
  s.db.close();
}
