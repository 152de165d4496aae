// The control plane's client for a running twin's internal admin API (/_twin/*): health,
// credential, advance (a job to follow when long), records, reset. Called straight at the
// workload's address, never through the gateway, with the workload's admin secret. Paths are sent
// as given (no URL normalisation: a record id `.` stays `.`), and no error message names the
// workload's address: messages reach API callers.

import { createWriteStream, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { getGlobalDispatcher } from 'undici';
import { parseJson } from '../../twin-runtime/safe-input.js';

export const ADMIN_SECRET_HEADER = 'x-twin-admin-secret';

export interface AdminAnswer<T = unknown> {
  status: number;
  body: T;
  headers?: Record<string, string | string[] | undefined>;
}

export class TwinAdminError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

export interface AdvanceJob {
  id: string;
  status: 'running' | 'succeeded' | 'failed';
  clock: string;
  error: string | null;
}

/** A twin's clock as its health reports it: the instant, and the twin's wall time when it was read (a living clock's offset is the difference). */
export interface TwinClockReading {
  clock: string;
  clock_mode?: 'living' | 'frozen';
  wall?: string;
}

export type AdvanceOutcome = { ok: true; clock: string } | { ok: false; status: number; detail: string; clock?: string };

/** How long the control plane lets a twin's advance answer before following it as a job. */
export const TWIN_ADVANCE_WAIT_MS = 500;
const POLL_MS = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function detailOf(body: unknown, status: number): string {
  const d = (body as { detail?: unknown } | undefined)?.detail;
  return typeof d === 'string' ? d : `status ${status}`;
}

export class TwinAdminClient {
  constructor(private readonly timeoutMs = 30_000) {}

  // biome-ignore lint/suspicious/noExplicitAny: an untyped caller reads the twin's JSON answer field by field
  async call<T = any>(address: string, secret: string, method: string, path: string, body?: unknown, timeoutMs = this.timeoutMs): Promise<AdminAnswer<T>> {
    let res;
    try {
      res = await getGlobalDispatcher().request({
        origin: address,
        path,
        method: method as 'GET',
        headers: {
          [ADMIN_SECRET_HEADER]: secret,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (e) {
      throw new TwinAdminError(`The twin did not answer ${method} ${path.split('?')[0]} (${(e as { code?: string }).code ?? (e as Error).name}).`);
    }
    const text = await res.body.text();
    let parsed: unknown;
    if (text) {
      try {
        parsed = parseJson(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.statusCode, body: parsed as T, headers: res.headers };
  }

  /** GET a file the twin serves (a snapshot file) into `dest`; any status but 200 is an error and leaves nothing. */
  async download(address: string, secret: string, path: string, dest: string, timeoutMs = this.timeoutMs): Promise<void> {
    let res;
    try {
      res = await getGlobalDispatcher().request({
        origin: address,
        path,
        method: 'GET',
        headers: { [ADMIN_SECRET_HEADER]: secret },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (e) {
      throw new TwinAdminError(`The twin did not answer GET ${path} (${(e as { code?: string }).code ?? (e as Error).name}).`);
    }
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      throw new TwinAdminError(`GET ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`, res.statusCode);
    }
    try {
      await pipeline(res.body, createWriteStream(dest, { mode: 0o600 }));
    } catch (e) {
      rmSync(dest, { force: true });
      throw new TwinAdminError(`The twin's file from GET ${path} was cut short (${(e as Error).message}).`);
    }
  }

  /** Like call, but any status other than `expected` is an error. */
  // biome-ignore lint/suspicious/noExplicitAny: as call
  async expect<T = any>(expected: number, address: string, secret: string, method: string, path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    const out = await this.call<T>(address, secret, method, path, body, timeoutMs);
    if (out.status !== expected) {
      throw new TwinAdminError(`${method} ${path} answered ${out.status}: ${detailOf(out.body, out.status)}`, out.status, out.body);
    }
    return out.body;
  }

  credential(address: string, secret: string): Promise<{ api_key: string }> {
    return this.expect(200, address, secret, 'GET', '/_twin/credential');
  }

  /** The twin's health; `deadlineMs`: how long it has to answer (a busy twin misses it). */
  health(
    address: string,
    secret: string,
    deadlineMs?: number,
  ): Promise<TwinClockReading & { status: string; version: string; storage_version: number; fidelity?: 'strict' | 'lenient'; prototype_intact: boolean }> {
    return this.expect(200, address, secret, 'GET', '/_twin/health', undefined, deadlineMs);
  }

  /**
   * Move the twin's clock to `to`, running every lifecycle event due, and wait for it: a long
   * advance answers 202 and is followed until it ends. A refusal (clock later, lifecycle error) is
   * an outcome, not an exception; an unreachable twin throws. `wall`: the wall time at which `to`
   * holds, for a living clock (it runs on from there).
   */
  async advanceAndWait(address: string, secret: string, to: Date, wall?: Date): Promise<AdvanceOutcome> {
    const first = await this.call<{ clock?: string; detail?: string; job?: AdvanceJob }>(address, secret, 'POST', '/_twin/advance', {
      to: to.toISOString(),
      ...(wall ? { wall: wall.toISOString() } : {}),
      wait_ms: TWIN_ADVANCE_WAIT_MS,
    });
    let answer = first;
    while (answer.status === 202 && answer.body?.job) {
      await sleep(POLL_MS);
      answer = await this.call(address, secret, 'GET', `/_twin/advance/${encodeURIComponent(answer.body.job.id)}`);
      if (answer.status === 404) return { ok: false, status: 502, detail: 'The twin restarted during the advance.' };
    }
    if (answer.status === 200) return { ok: true, clock: answer.body?.clock ?? to.toISOString() };
    return { ok: false, status: answer.status, detail: detailOf(answer.body, answer.status), clock: answer.body?.job?.clock };
  }

  /** The instant (ms) of the twin's first lifecycle event due after its clock and by `to`; undefined: none. */
  async nextDue(address: string, secret: string, to: Date): Promise<number | undefined> {
    const out = await this.expect<{ at: string | null }>(200, address, secret, 'POST', '/_twin/next-due', { to: to.toISOString() });
    return out.at === null ? undefined : Date.parse(out.at);
  }

  /** Wait until every delivery the twin has due now has had its first attempt (the twin bounds the wait). */
  async settleDeliveries(address: string, secret: string): Promise<void> {
    await this.expect(200, address, secret, 'POST', '/_twin/deliveries/settle');
  }

  /** Back to the seed (or empty); a living clock reads its start at `wall` and runs on from there. */
  reset(address: string, secret: string, wall?: Date): Promise<{ clock: string }> {
    return this.expect(200, address, secret, 'POST', '/_twin/reset', wall ? { wall: wall.toISOString() } : undefined);
  }
}
