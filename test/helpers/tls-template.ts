// A control plane's first start in a data directory makes its local CA and server certificate
// (twin-runtime/tls.ts: two RSA keys, signed with node-forge), 1.1–1.7 s of CPU; every test starts
// its control planes in fresh data directories, so each start paid it. Tests make these files once
// per checkout (node_modules/.cache/twins-test-tls) and copy them into a fresh data directory; the
// control plane finds them and checks them as it checks any it kept (names, validity, issuer), making
// a server certificate again where it needs other names.

import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTls } from '../../twin-runtime/tls.js';

const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache');
const TEMPLATE = join(CACHE, 'twins-test-tls');

/** Copy the shared TLS files into `dataDir/tls` unless it has its own. */
export function seedTestTls(dataDir: string): void {
  if (existsSync(join(dataDir, 'tls'))) return;
  if (!existsSync(join(TEMPLATE, 'tls', 'server.pem'))) makeTemplate();
  cpSync(join(TEMPLATE, 'tls'), join(dataDir, 'tls'), { recursive: true });
}

function makeTemplate(): void {
  // Made aside and renamed into place: parallel test files never see half a template.
  const aside = mkdtempSync(`${TEMPLATE}-`);
  ensureTls(aside);
  try {
    renameSync(aside, TEMPLATE);
  } catch {
    rmSync(aside, { recursive: true, force: true }); // another file made it first
  }
}
