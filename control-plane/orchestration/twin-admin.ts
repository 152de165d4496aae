// The control plane's client for a running twin's internal admin API (/_twin/*): health,
// credential, advance, records, reset. Called straight at the workload's address, never through
// the gateway, with the workload's admin secret.

import { request } from 'undici';
import { parseJson } from '../../twin-runtime/safe-input.js';

export const ADMIN_SECRET_HEADER = 'x-twin-admin-secret';

export interface AdminAnswer<T = unknown> {
  status: number;
  body: T;
}

export class TwinAdminError extends Error {
  constructor(message: string, readonly status?: number, readonly body?: unknown) {
    super(message);
  }
}

export class TwinAdminClient {
  constructor(private readonly timeoutMs = 30_000) {}

  async call<T = any>(address: string, secret: string, method: string, path: string, body?: unknown): Promise<AdminAnswer<T>> {
    let res;
    try {
      res = await request(address + path, {
        method: method as 'GET',
        headers: {
          [ADMIN_SECRET_HEADER]: secret,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (e) {
      throw new TwinAdminError(`The twin at ${address} did not answer ${method} ${path}: ${(e as Error).message}`);
    }
    const text = await res.body.text();
    let parsed: unknown = undefined;
    if (text) {
      try {
        parsed = parseJson(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.statusCode, body: parsed as T };
  }

  /** Like call, but any status other than `expected` is an error. */
  async expect<T = any>(expected: number, address: string, secret: string, method: string, path: string, body?: unknown): Promise<T> {
    const out = await this.call<T>(address, secret, method, path, body);
    if (out.status !== expected) {
      const detail = (out.body as { detail?: string } | undefined)?.detail ?? JSON.stringify(out.body);
      throw new TwinAdminError(`${method} ${path} answered ${out.status}: ${detail}`, out.status, out.body);
    }
    return out.body;
  }

  credential(address: string, secret: string): Promise<{ api_key: string }> {
    return this.expect(200, address, secret, 'GET', '/_twin/credential');
  }

  health(address: string, secret: string): Promise<{ status: string; clock: string; version: string; storage_version: number; prototype_intact: boolean }> {
    return this.expect(200, address, secret, 'GET', '/_twin/health');
  }

  /** Run every lifecycle event due up to `to`; answers 409 when the twin's clock is already later. */
  advance(address: string, secret: string, to: Date): Promise<AdminAnswer<{ clock?: string; detail?: string }>> {
    return this.call(address, secret, 'POST', '/_twin/advance', { to: to.toISOString() });
  }

  reset(address: string, secret: string): Promise<{ clock: string }> {
    return this.expect(200, address, secret, 'POST', '/_twin/reset');
  }
}
