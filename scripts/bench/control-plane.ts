// Shared by the orchestration benchmarks: a real control plane (process driver unless TWINS_DRIVER says, fresh data
// directory, loopback only) and a token for it. Twins run the compiled runtime: build first
// (`npm run build` or `make build`).

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../control-plane/config.js';
import { startControlPlane, type RunningControlPlane } from '../../control-plane/server.js';
import { mintLocalToken } from '../../control-plane/auth/local-idp.js';
import { defaultRuntimeEntry } from '../../control-plane/orchestration/drivers/process.js';

export interface BenchControlPlane {
  cp: RunningControlPlane;
  token: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export async function startBenchControlPlane(overrides: Partial<Config> = {}): Promise<BenchControlPlane> {
  if (!existsSync(defaultRuntimeEntry())) {
    throw new Error(`${defaultRuntimeEntry()} is missing: run \`npm run build\` first.`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-bench-'));
  // paygo: no parallel-twin limit, so runs are not throttled by the plan.
  // TWINS_DRIVER / TWINS_IMAGE pass through, so the same bench runs under Docker (`make image` first).
  const config = loadConfig(
    {
      TWINS_DEFAULT_PLAN: 'paygo',
      TWINS_RECONCILE_MS: '1000',
      TWINS_DRIVER: process.env.TWINS_DRIVER,
      TWINS_IMAGE: process.env.TWINS_IMAGE,
      TWINS_API_RATE: process.env.TWINS_API_RATE,
    },
    { port: 0, host: '127.0.0.1', dataDir, logLevel: 'silent', ...overrides },
  );
  const cp = await startControlPlane(config);
  const token = await mintLocalToken(cp.services.localKeys!, { email: 'bench@example.com', org: 'bench', role: 'admin' });
  return {
    cp,
    token,
    async call(method, path, body) {
      const res = await fetch(cp.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async stop() {
      await cp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function fmt(ms: number): string {
  return `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
}
