// `twins console --email E --org ORG --role admin|member [--first-name F] [--last-name L]
// [--session SECONDS] [--url URL] [--no-open]`: print a one-time sign-in link to the web console of
// the control plane serving this data directory, and open it in a browser where there is one.
// The link carries a ticket in its fragment (never sent to a server, so never in a server log),
// valid for two minutes and usable once (control-plane/console/sign-in-ticket.ts).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadLocalKeys } from '../auth/local-idp.js';
import { DEFAULT_SESSION_SECONDS, mintSignInTicket, TICKET_TTL_SECONDS } from './sign-in-ticket.js';

export interface ConsoleSignInOptions {
  email: string;
  org: string;
  role: 'admin' | 'member';
  firstName?: string;
  lastName?: string;
  /** Lifetime of the console session, seconds (default 8 h, at most 24 h). */
  sessionSeconds?: number;
  /** The control plane's own address, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** The data directory whose local identity provider signs the ticket. */
  dataDir: string;
  /** Open the link in a browser (default true; `--no-open` turns it off). */
  open?: boolean;
}

export interface ConsoleSignInIo {
  /** The link alone (scripts read it). */
  stdout(text: string): void;
  /** Notes for the person at the terminal. */
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Start the browser; returns false when it could not be started. */
  openUrl?(url: string): Promise<boolean>;
}

/** The sign-in link: the console at `/`, the ticket in the fragment. */
export function signInUrl(base: string, ticket: string): string {
  const root = new URL('/', base);
  root.hash = `ticket=${encodeURIComponent(ticket)}`;
  return root.toString();
}

/** Whether this machine has a display to open a browser on. */
export function canOpenBrowser(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return !!(env.DISPLAY || env.WAYLAND_DISPLAY) || !!env.BROWSER;
}

function opener(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): [string, string[]] {
  if (env.BROWSER) return [env.BROWSER, [url]];
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]];
  return ['xdg-open', [url]];
}

async function spawnOpener(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Promise<boolean> {
  const [command, args] = opener(url, env, platform);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { detached: true, stdio: 'ignore' });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

/** The local identity provider's key file (auth/local-idp.ts), made by the server on its first start. */
const LOCAL_KEY_FILE = 'local-idp-key.json';

export class ConsoleSignInError extends Error {}

/** Mint the ticket, print the link, open it where possible; returns the link. */
export async function runConsoleSignIn(o: ConsoleSignInOptions, io: ConsoleSignInIo): Promise<string> {
  if (io.env.TWINS_IDP && io.env.TWINS_IDP !== 'local') {
    throw new ConsoleSignInError(`TWINS_IDP is '${io.env.TWINS_IDP}': open ${o.url} and sign in with your identity provider.`);
  }
  // Never create a key here: a link signed by a key the server does not hold would not work.
  if (!existsSync(join(o.dataDir, LOCAL_KEY_FILE))) {
    throw new ConsoleSignInError(
      `No local identity provider in ${o.dataDir}: run \`twins console\` from the folder the control plane runs in (or set TWINS_DATA_DIR to its data directory).`,
    );
  }
  const keys = await loadLocalKeys(o.dataDir);
  const ticket = await mintSignInTicket(keys, {
    email: o.email,
    org: o.org,
    role: o.role,
    firstName: o.firstName,
    lastName: o.lastName,
    sessionSeconds: o.sessionSeconds ?? DEFAULT_SESSION_SECONDS,
  });
  const url = signInUrl(o.url, ticket);
  io.stdout(`${url}\n`);
  io.stderr(`Sign-in link for ${o.email} (${o.role} of ${o.org}): it works once, within ${TICKET_TTL_SECONDS / 60} minutes.\n`);
  if (o.open !== false && canOpenBrowser(io.env, io.platform)) {
    const opened = await (io.openUrl ?? ((u) => spawnOpener(u, io.env, io.platform)))(url);
    io.stderr(opened ? 'Opened in your browser.\n' : 'Could not start a browser: open the link yourself.\n');
  }
  return url;
}
