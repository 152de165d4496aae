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

// Generous: at load 19 an environment of one twin took over 15 s to be ready (the process start, its first health answer).
export async function waitReady(cp: TestControlPlane, token: string, environmentId: string, timeoutMs = 120_000): Promise<any> {
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

/**
 * An advance's outcome (`POST /environments/{id}/advance`, `/twins/{id}/advance`): 200 done, or 409
 * with the refusal's detail. On a loaded machine an advance the bound expects to be short can
 * outlast it and answer 202 with its job to follow; the job then says the same.
 */
export async function advanceSettled(
  cp: TestControlPlane,
  token: string,
  res: { status: number; body: any; headers: Headers },
): Promise<{ status: number; body: any; detail?: string }> {
  if (res.status !== 202) return { status: res.status, body: res.body, detail: res.body?.detail };
  const job = await advanceJobEnded(cp, token, res.headers.get('location')!);
  return job.status === 'succeeded' ? { status: 200, body: {} } : { status: 409, body: job, detail: job.failure };
}

/** The advance job at `location` once it is no longer running (succeeded or failed). */
export function advanceJobEnded(cp: TestControlPlane, token: string, location: string): Promise<any> {
  return waitFor(
    'the advance to end',
    async () => {
      const r = await cp.call('GET', location, { token });
      return r.body.status !== 'running' ? r.body : undefined;
    },
    600_000,
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
