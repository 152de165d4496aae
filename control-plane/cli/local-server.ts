// The control plane `twins serve` runs from a data directory leaves a note there (server.json: its
// URL, pid and identity provider) so the other commands of the same folder find it: `twins token`
// signs only for a directory a server uses, `twins mcp` and the API commands reach it by default.

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../orchestration/drivers/process.js';

export const SERVER_FILE = 'server.json';
/** Created by the control plane on first start (store/database.ts). */
export const DATABASE_FILE = 'control-plane.sqlite';
/** Created by the control plane under TWINS_IDP=local (auth/local-idp.ts). */
export const LOCAL_KEY_FILE = 'local-idp-key.json';
/** Who last signed in from this folder (`twins token`, `twins console`): `twins mcp` acts in their organization. */
export const SIGN_IN_FILE = 'last-sign-in.json';

export interface LocalServerNote {
  url: string;
  pid: number;
  idp: 'local' | 'oidc';
  started_at: string;
}

export function writeServerNote(dataDir: string, note: LocalServerNote): void {
  writeFileSync(join(dataDir, SERVER_FILE), JSON.stringify(note, null, 2) + '\n', { mode: 0o600 });
}

/** Remove the note if it is still ours (a later server may have replaced it). */
export function removeServerNote(dataDir: string, pid: number): void {
  const note = readNote(dataDir);
  if (note?.pid === pid) rmSync(join(dataDir, SERVER_FILE), { force: true });
}

function readNote(dataDir: string): LocalServerNote | undefined {
  try {
    const note = JSON.parse(readFileSync(join(dataDir, SERVER_FILE), 'utf8')) as LocalServerNote;
    return typeof note.url === 'string' && Number.isInteger(note.pid) ? note : undefined;
  } catch {
    return undefined;
  }
}

/** The server running from this data directory now, if any. */
export function runningServer(dataDir: string): LocalServerNote | undefined {
  const note = readNote(dataDir);
  return note && isAlive(note.pid) ? note : undefined;
}

export interface SignIn {
  email: string;
  org: string;
}

export function recordSignIn(dataDir: string, who: SignIn): void {
  writeFileSync(join(dataDir, SIGN_IN_FILE), JSON.stringify({ email: who.email, org: who.org }) + '\n', { mode: 0o600 });
}

export function lastSignIn(dataDir: string): SignIn | undefined {
  try {
    const who = JSON.parse(readFileSync(join(dataDir, SIGN_IN_FILE), 'utf8')) as SignIn;
    return typeof who.org === 'string' && who.org !== '' && typeof who.email === 'string' ? who : undefined;
  } catch {
    return undefined;
  }
}

/** Why `twins token` must not sign from this directory, or undefined when it may. */
export function whyNotSigning(dataDir: string, idpFromEnv: string | undefined): string | undefined {
  if (idpFromEnv && idpFromEnv !== 'local') {
    return `TWINS_IDP is '${idpFromEnv}': tokens come from that identity provider, not from \`twins token\`.`;
  }
  if (!existsSync(join(dataDir, DATABASE_FILE))) {
    return `No control plane uses the data directory ${dataDir}: start one there first (\`make dev\` or \`twins serve\`), or point TWINS_DATA_DIR (or --data) at the directory your server uses.`;
  }
  const note = runningServer(dataDir);
  if ((note && note.idp !== 'local') || !existsSync(join(dataDir, LOCAL_KEY_FILE))) {
    return `The control plane of ${dataDir} does not use the local identity provider (TWINS_IDP=oidc): get an access token from your identity provider.`;
  }
  return undefined;
}
