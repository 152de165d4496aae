// The GitHub CLI against a twin: Debian's `gh` (installed with apt-get when missing and possible),
// a recording gateway in front of the twin, and an HTTPS listener with a throwaway self-signed
// certificate in front of the gateway (gh speaks HTTPS to any host other than github.com, as to a
// GitHub Enterprise Server: REST under /api/v3, GraphQL at /api/graphql).

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../control-plane/store/database.js';
import { RequestLogStore } from '../../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../../control-plane/gateway/gateway.js';
import { startGitHub, type GitHubTwin } from './setup.js';

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
  /** `127.0.0.1:<port>` of the HTTPS listener: gh's host. */
  host: string;
  /** Run gh with the twin as its only host; resolves with exit code and output (never rejects). */
  run(args: string[], opts?: { cwd?: string }): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Rows the gateway recorded so far (after a flush). */
  recorded(): { method: string; path: string; status_code: number }[];
  close(): Promise<void>;
}

function selfSigned(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { stdio: 'ignore' });
  return { key: execFileSync('cat', [keyFile]).toString(), cert: execFileSync('cat', [certFile]).toString(), certFile };
}

/** An HTTPS listener that forwards every request to `target` (an http:// origin). */
function tlsFront(key: string, cert: string, target: URL): Promise<Server> {
  const server = createHttpsServer({ key, cert }, (req, res) => {
    const upstream = httpRequest({
      host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host },
    }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function startGhHarness(): Promise<GhHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'twins-gh-'));
  const { key, cert, certFile } = selfSigned(dir);
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer });
  const gh = await startGitHub();
  const route = { twinId: 'gh-twin', environmentId: 'env-gh', organizationId: 'org-gh', slug: 'github' };
  const { url: gatewayUrl } = await gateway.open(route);
  gateway.setTarget('gh-twin', gh.twin.url);
  const front = await tlsFront(key, cert, new URL(gatewayUrl));
  const host = `127.0.0.1:${(front.address() as AddressInfo).port}`;
  const config = join(dir, 'gh-config');
  writeFileSync(join(dir, 'README'), 'gh harness');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    GH_CONFIG_DIR: config,
    GH_HOST: host,
    GH_ENTERPRISE_TOKEN: gh.twin.apiKey,
    SSL_CERT_FILE: certFile,
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
    run(args, opts = {}) {
      return new Promise((resolve) => {
        execFile('gh', args, { env, cwd: opts.cwd ?? dir, timeout: 60_000 }, (err, stdout, stderr) => {
          const code = err ? (typeof (err as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? (err as unknown as { code: number }).code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        });
      });
    },
    recorded() {
      return logs.page('env-gh', 1000, 0) as { method: string; path: string; status_code: number }[];
    },
    async close() {
      await new Promise((resolve) => front.close(resolve));
      front.closeAllConnections?.();
      await gateway.closeAll();
      writer.close();
      await gh.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
