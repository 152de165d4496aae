// The GitHub CLI against a twin: Debian's `gh` (installed with apt-get when missing and possible)
// talking to the recording gateway (test/helpers/gateway-twin.ts) over its TLS listener, trusting
// the deployment's local CA. gh speaks HTTPS to any host other than github.com, as to a GitHub
// Enterprise Server: REST under /api/v3, GraphQL at /api/graphql.

import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { GITHUB_TEST_START, gitHubOn, type GitHubTwin } from './setup.js';

function which(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Make sure `gh` is installed (Debian's package); the reason it cannot be, or undefined. */
export function ensureGh(): string | undefined {
  if (which('gh')) return undefined;
  if (!which('apt-get')) return 'gh is not installed and apt-get is not available';
  if (process.getuid?.() !== 0) return 'gh is not installed and installing it needs root';
  try {
    execFileSync('apt-get', ['install', '-y', '-q', 'gh'], { stdio: 'ignore', timeout: 300_000 });
  } catch {
    try {
      execFileSync('apt-get', ['update', '-q'], { stdio: 'ignore', timeout: 300_000 });
      execFileSync('apt-get', ['install', '-y', '-q', 'gh'], { stdio: 'ignore', timeout: 300_000 });
    } catch (e) {
      return `apt-get install gh failed: ${(e as Error).message}`;
    }
  }
  return which('gh') ? undefined : 'gh is still missing after apt-get install';
}

export interface GhHarness {
  gh: GitHubTwin;
  /** gh's host: `127.0.0.1:<port>` of the HTTPS listener, or the twin's own loopback address (`ownHost`). */
  host: string;
  /** The variables gh runs with (what the README tells users to set, and a private HOME). */
  env: NodeJS.ProcessEnv;
  /** The local CA's PEM (trusted through SSL_CERT_FILE and GIT_SSL_CAINFO). */
  caFile: string;
  /** Run gh with the twin as its only host; resolves with exit code and output (never rejects). */
  run(args: string[], opts?: { cwd?: string }): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Rows the gateway recorded so far (after a flush). */
  recorded(): { method: string; path: string; status_code: number }[];
  close(): Promise<void>;
}

/**
 * gh against a GitHub twin behind the gateway. `ownHost`: gh's host is the twin's own loopback
 * address at port 443 (README "gh inside a clone"); undefined when this process may not bind it.
 */
export async function startGhHarness(opts: { ownHost?: boolean } = {}): Promise<GhHarness | undefined> {
  const gw = await startTwinBehindGateway('github', { clockStart: GITHUB_TEST_START });
  if (opts.ownHost && !gw.ownHost) {
    await gw.close();
    return undefined;
  }
  const gh = gitHubOn(gw.twin);
  const host = opts.ownHost ? gw.ownHost! : new URL(gw.url).host;
  const dir = dirname(gw.twin.dataFile);
  const config = join(dir, 'gh-config');
  writeFileSync(join(dir, 'README'), 'gh harness');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    GH_CONFIG_DIR: config,
    GH_HOST: host,
    GH_ENTERPRISE_TOKEN: gh.twin.apiKey,
    // What the README tells users: trust the deployment's CA (Go reads SSL_CERT_FILE).
    SSL_CERT_FILE: gw.caFile,
    // git (Debian's is built with GnuTLS, which does not read SSL_CERT_FILE) trusts it through this.
    GIT_SSL_CAINFO: gw.caFile,
    GH_PROMPT_DISABLED: '1',
    GH_NO_UPDATE_NOTIFIER: '1',
    GH_PAGER: 'cat',
    NO_COLOR: '1',
    GIT_TERMINAL_PROMPT: '0',
    ...(process.env.GH_DEBUG ? { GH_DEBUG: process.env.GH_DEBUG } : {}),
  };
  return {
    gh,
    host,
    env,
    caFile: gw.caFile,
    run(args, opts = {}) {
      return new Promise((resolve) => {
        execFile('gh', args, { env, cwd: opts.cwd ?? dir, timeout: 60_000 }, (err, stdout, stderr) => {
          const code = err ? (typeof (err as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? (err as unknown as { code: number }).code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        });
      });
    },
    recorded() {
      return gw.logs.page(gw.environmentId, 1000, 0);
    },
    close: () => gw.close(),
  };
}
