// The `twins` command: serve the control plane, mint a local access token, or run one twin alone.

import { parseArgs } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { loadConfig } from './config.js';
import { startControlPlane } from './server.js';
import { loadLocalKeys, mintLocalToken } from './auth/local-idp.js';
import { readClaims } from './auth/access-tokens.js';
import { openDatabase } from './store/database.js';
import { IdentityStore } from './store/identity.js';
import { decodeJwt } from 'jose';
import { loadTwin, TWIN_SLUGS } from '../twin-runtime/registry.js';
import { TwinServer } from '../twin-runtime/server.js';

const USAGE = `usage:
  twins serve                      start the control plane (PORT, HOST, TWINS_DATA_DIR, TWINS_IDP, …)
  twins token --email E --org ORG --role admin|member [--first-name F] [--last-name L] [--ttl SECONDS]
                                   print an access token from the local identity provider
  twins twin <slug> [--port N] [--data FILE]
                                   run one twin without the control plane (${TWIN_SLUGS.join(', ')})
`;

async function serve(): Promise<void> {
  const config = loadConfig();
  const cp = await startControlPlane(config);
  cp.services.log.info({ url: cp.url, driver: config.driver, dataDir: config.dataDir }, `twins control plane listening on ${cp.url}`);
  let stopping = false;
  const stop = async (signal: string) => {
    // A second signal does not wait for the drain.
    if (stopping) process.exit(1);
    stopping = true;
    cp.services.log.info({ signal, drainMs: config.drainMs }, 'shutting down: draining requests in flight');
    await cp.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

async function token(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      org: { type: 'string' },
      role: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      ttl: { type: 'string' },
    },
  });
  if (!values.email || !values.org || (values.role !== 'admin' && values.role !== 'member')) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl <= 0)) {
    process.stderr.write('--ttl must be a positive whole number of seconds\n');
    process.exit(2);
  }
  const config = loadConfig();
  const keys = await loadLocalKeys(config.dataDir);
  const jwt = await mintLocalToken(keys, {
    email: values.email,
    org: values.org,
    role: values.role,
    firstName: values['first-name'],
    lastName: values['last-name'],
    ttlSeconds: ttl,
  });
  // The local identity provider vouches for its tokens: the holder is a member from now on (an
  // invitation for them answers 409), unless an admin removed them.
  const claims = readClaims(decodeJwt(jwt));
  if (claims) {
    process.umask(0o077);
    const db = openDatabase(join(config.dataDir, 'control-plane.sqlite'));
    try {
      new IdentityStore(db, config.defaultPlan).registerLocalMember(claims);
    } finally {
      db.close();
    }
  }
  process.stdout.write(jwt + '\n');
}

async function twin(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { port: { type: 'string', default: '0' }, data: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } },
  });
  const slug = positionals[0];
  if (!slug) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const def = await loadTwin(slug);
  const data = values.data ? resolve(values.data) : join(mkdtempSync(join(tmpdir(), `twins-${slug}-`)), `${slug}.sqlite`);
  const server = new TwinServer(def, { dataFile: data });
  const url = await server.listen(Number(values.port), values.host);
  process.stdout.write(`${def.name} twin listening on ${url}\napi key: ${server.apiKey}\ndata: ${data}\n`);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'serve') await serve();
  else if (command === 'token') await token(rest);
  else if (command === 'twin') await twin(rest);
  else {
    process.stderr.write(USAGE);
    process.exit(command ? 2 : 0);
  }
} catch (e) {
  process.stderr.write(`twins: ${(e as Error).message}\n`);
  process.exit(1);
}
