// Start the real control plane on a loopback port with a fresh data directory and a real SQLite
// file, and mint access tokens from its local identity provider.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../control-plane/config.js';
import { startControlPlane, type RunningControlPlane } from '../../control-plane/server.js';
import { mintLocalToken, type TokenRequest } from '../../control-plane/auth/local-idp.js';
import { seedTestTls } from './tls-template.js';

export interface TestControlPlane extends RunningControlPlane {
  dataDir: string;
  token(req: Partial<TokenRequest> & { email?: string }): Promise<string>;
  /** fetch against the control plane with an optional bearer token and JSON body. */
  call(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export async function startTestControlPlane(overrides: Partial<Config> = {}, env: NodeJS.ProcessEnv = {}): Promise<TestControlPlane> {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'twins-cp-'));
  seedTestTls(dataDir);
  // No payment processor unless the test asks for one (the house Stripe twin is a child process).
  const config = loadConfig(
    { ...env },
    { port: 0, host: '127.0.0.1', dataDir, logLevel: 'silent', ...(env.TWINS_PAYMENT_PROCESSOR ? {} : { paymentProcessor: 'none' as const }), ...overrides },
  );
  const cp = await startControlPlane(config);
  return {
    ...cp,
    dataDir,
    async token(req) {
      return mintLocalToken(cp.services.localKeys!, {
        email: req.email ?? 'ada@example.com',
        org: req.org ?? 'acme',
        role: req.role ?? 'admin',
        firstName: req.firstName,
        lastName: req.lastName,
        ttlSeconds: req.ttlSeconds,
        sub: req.sub,
      });
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined;
      if (opts.rawBody !== undefined) {
        body = opts.rawBody;
        headers['content-type'] ??= 'application/json';
      } else if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] = 'application/json';
      }
      const res = await fetch(cp.url + path, { method, headers, body });
      const text = await res.text();
      let parsed: any;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async stop(opts = {}) {
      await cp.close();
      if (!opts.keepData && !overrides.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
