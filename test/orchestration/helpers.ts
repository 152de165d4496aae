// Shared steps of the orchestration tests: a control plane whose twins are real child processes,
// polling an environment until it is ready, and talking to a twin through its gateway URL.

import { ensureBuilt } from './build.js';
import { startTestControlPlane, type TestControlPlane } from '../helpers/control-plane.js';
import type { Config } from '../../control-plane/config.js';

export async function startOrchestratedControlPlane(overrides: Partial<Config> = {}): Promise<TestControlPlane> {
  ensureBuilt();
  return startTestControlPlane(overrides);
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

export async function waitReady(cp: TestControlPlane, token: string, environmentId: string, timeoutMs = 15_000): Promise<any> {
  return waitFor(
    `environment ${environmentId} ready`,
    async () => {
      const res = await cp.call('GET', `/environments/${environmentId}`, { token });
      if (res.body?.status === 'failed') throw new Error(`failed: ${JSON.stringify(res.body)}`);
      return res.body?.status === 'ready' ? res.body : undefined;
    },
    timeoutMs,
  );
}

/** A Stripe-shaped call straight at a twin URL (form body, bearer key). */
export async function stripe(url: string, key: string, method: string, path: string, form?: Record<string, string>) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}
