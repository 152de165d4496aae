// Fault injection (issue 38): a twin told to misbehave on some of its requests, as its provider
// does under load. A fault matches a method, the provider's path template (or the concrete path)
// and optionally top-level body fields; with its probability, drawn from the twin's seeded id
// source (ids.ts, kept in the twin's file and so copied with snapshots and forks), it answers the
// provider's rate limit or 5xx instead of running the route, delays the real answer, or drops the
// connection. Faults apply here, in the twin runtime, where the route's template is known and the
// seeded source lives: the gateway's hot path pays nothing for them but one header compare.
// Faults are kept in the twin's file (meta `faults`), so a restarted twin keeps them.

import type { RecordStore } from './record-store.js';
import type { TwinContext, TwinDefinition, TwinRequest, TwinResponse } from './contract.js';

/** The answer header naming the fault that made (or delayed) it: `<fault id> <effect type>`; the gateway logs it. */
export const FAULT_HEADER = 'twin-fault';
/** Meta key holding the twin's faults (JSON). */
export const FAULTS_META = 'faults';

export const FAULT_TYPES = ['latency', 'rate_limit', 'server_error', 'drop', 'late', 'twice', 'out_of_order'] as const;
export type FaultType = (typeof FAULT_TYPES)[number];
/** Effects on the webhooks a struck request causes (the request itself runs and answers as usual). */
export const WEBHOOK_FAULT_TYPES = ['late', 'twice', 'out_of_order'] as const;
export type WebhookFaultType = (typeof WEBHOOK_FAULT_TYPES)[number];

/** Limits on what a fault may ask: a twin holds at most MAX_FAULTS, a delay lasts at most MAX_LATENCY_MS. */
export const MAX_FAULTS = 50;
export const MAX_LATENCY_MS = 60_000;
export const MAX_RETRY_AFTER_SECONDS = 3600;

export type FaultEffect =
  | { type: 'latency'; ms: number; jitter_ms?: number }
  | { type: 'rate_limit'; retry_after_seconds?: number }
  | { type: 'server_error' }
  | { type: 'drop' }
  /** Its webhooks leave `ms` (plus a seeded share of `jitter_ms`) later than they would. */
  | { type: 'late'; ms: number; jitter_ms?: number }
  /** Each of its webhooks is delivered twice (the same event, as a provider's redelivery). */
  | { type: 'twice' }
  /** Its webhooks are held until the next webhook of the twin has been attempted (or 30 s passed). */
  | { type: 'out_of_order' };

/** How the webhooks a struck request causes are delivered (deliveries.ts reads it). */
export interface WebhookShaping {
  faultId: string;
  type: WebhookFaultType;
  /** `late`: the delay drawn for this request. */
  delayMs?: number;
}

export interface FaultMatch {
  method?: string;
  /** The provider's path template (`/v1/customers/{customer}`) or a concrete path. */
  path?: string;
  /** Top-level body fields and the values (compared as strings) a matching request carries. */
  body?: Record<string, string | number | boolean>;
}

export interface Fault {
  id: string;
  match: FaultMatch;
  effect: FaultEffect;
  /** 0 < p ≤ 1: the share of matching requests it strikes, drawn from the seeded source. */
  probability: number;
  created_at: string;
}

/** What the host does with a request a fault struck. */
export interface FaultOutcome {
  fault: Fault;
  /** Answer this instead of running the route (rate_limit, server_error, drop). */
  answer?: TwinResponse;
  /** Delay the real answer by this much (latency). */
  delayMs?: number;
  /** Close the connection without an answer (drop). */
  drop?: boolean;
  /** Run the route with its webhooks delivered so (late, twice, out_of_order). */
  webhooks?: WebhookShaping;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A fault as the control plane sends it, checked; a sentence saying what is wrong otherwise. */
export function parseFault(input: unknown): Fault | string {
  if (!isRecord(input)) return 'A fault must be an object.';
  const { id, match, effect, probability, created_at } = input;
  if (typeof id !== 'string' || !/^flt_[A-Za-z0-9]{1,64}$/.test(id)) return '`id` must be flt_ and letters or digits.';
  if (match !== undefined && !isRecord(match)) return '`match` must be an object.';
  const m = (match ?? {}) as Record<string, unknown>;
  if (m.method !== undefined && (typeof m.method !== 'string' || !/^[A-Za-z]{1,16}$/.test(m.method))) return '`match.method` must be an HTTP method.';
  if (m.path !== undefined && (typeof m.path !== 'string' || !m.path.startsWith('/') || m.path.length > 1000)) {
    return '`match.path` must be a path template starting with / (at most 1000 characters).';
  }
  if (m.body !== undefined) {
    if (!isRecord(m.body) || Object.keys(m.body).length > 20) return '`match.body` must be an object of at most 20 fields.';
    for (const [k, v] of Object.entries(m.body)) {
      if (!['string', 'number', 'boolean'].includes(typeof v) || String(v).length > 1000 || k.length > 200) {
        return `\`match.body.${k.slice(0, 200)}\` must be a string, number or boolean.`;
      }
    }
  }
  if (!isRecord(effect) || !(FAULT_TYPES as readonly unknown[]).includes(effect.type)) return `\`effect.type\` must be one of ${FAULT_TYPES.join(', ')}.`;
  const e = effect as Record<string, unknown>;
  if (e.type === 'latency' || e.type === 'late') {
    if (!Number.isInteger(e.ms) || (e.ms as number) < 0 || (e.ms as number) > MAX_LATENCY_MS)
      return `\`effect.ms\` must be an integer from 0 to ${MAX_LATENCY_MS}.`;
    if (
      e.jitter_ms !== undefined &&
      (!Number.isInteger(e.jitter_ms) || (e.jitter_ms as number) < 0 || (e.ms as number) + (e.jitter_ms as number) > MAX_LATENCY_MS)
    ) {
      return `\`effect.jitter_ms\` must be an integer ≥ 0, with ms + jitter_ms at most ${MAX_LATENCY_MS}.`;
    }
  }
  if (e.type === 'rate_limit' && e.retry_after_seconds !== undefined) {
    if (!Number.isInteger(e.retry_after_seconds) || (e.retry_after_seconds as number) < 0 || (e.retry_after_seconds as number) > MAX_RETRY_AFTER_SECONDS) {
      return `\`effect.retry_after_seconds\` must be an integer from 0 to ${MAX_RETRY_AFTER_SECONDS}.`;
    }
  }
  if (typeof probability !== 'number' || !(probability > 0 && probability <= 1)) return '`probability` must be a number above 0 and at most 1.';
  if (typeof created_at !== 'string' || Number.isNaN(Date.parse(created_at))) return '`created_at` must be a date-time.';
  return {
    id,
    match: {
      ...(m.method !== undefined ? { method: (m.method as string).toUpperCase() } : {}),
      ...(m.path !== undefined ? { path: m.path as string } : {}),
      ...(m.body !== undefined ? { body: m.body as FaultMatch['body'] } : {}),
    },
    effect: effect as FaultEffect,
    probability,
    created_at,
  };
}

function matches(fault: Fault, req: TwinRequest, template: string): boolean {
  const m = fault.match;
  if (m.method !== undefined && m.method !== req.method.toUpperCase()) return false;
  if (m.path !== undefined && m.path !== template && m.path !== req.path) return false;
  if (m.body) {
    const body = req.body as Record<string, unknown>;
    for (const [k, v] of Object.entries(m.body)) if (body[k] === undefined || String(body[k]) !== String(v)) return false;
  }
  return true;
}

/** The generic answers, for a twin without its provider's (TwinDefinition.faultAnswer). */
function genericAnswer(type: 'rate_limit' | 'server_error', retryAfterSeconds: number): TwinResponse {
  if (type === 'rate_limit') {
    return { status: 429, headers: { 'retry-after': String(retryAfterSeconds) }, body: { error: { message: 'Too many requests. Retry later.' } } };
  }
  return { status: 500, body: { error: { message: 'Internal server error.' } } };
}

/** A uniform draw in [0, 1) from the seeded source: 48 bits of its next deterministic bytes. */
export type SeededDraw = () => number;

/** The faults of one twin: kept in its file, consulted on every routed request. */
export class TwinFaults {
  private list: Fault[];

  constructor(
    private readonly store: RecordStore,
    private readonly twin: TwinDefinition,
    private readonly draw: SeededDraw,
    /** The twin's context (built after the faults: a getter). */
    private readonly ctx: () => TwinContext,
  ) {
    this.list = TwinFaults.read(store);
  }

  private static read(store: RecordStore): Fault[] {
    const raw = store.getMeta(FAULTS_META);
    if (!raw) return [];
    try {
      const parsed = JSON.parse(raw) as unknown[];
      return parsed.map(parseFault).filter((f): f is Fault => typeof f !== 'string');
    } catch {
      return [];
    }
  }

  get all(): readonly Fault[] {
    return this.list;
  }

  /** Replace the twin's faults (the control plane sends the whole list). */
  replace(faults: Fault[]): void {
    this.list = faults;
    this.store.setMeta(FAULTS_META, JSON.stringify(faults));
  }

  /** Read again from the file (after a reset replaced it). */
  reload(): void {
    this.list = TwinFaults.read(this.store);
  }

  /**
   * The first fault matching the request that strikes it, and what it does; undefined otherwise
   * (and always without a draw when no fault matches, so requests a fault does not name never
   * shift the seeded sequence).
   */
  strike(req: TwinRequest, template: string): FaultOutcome | undefined {
    if (this.list.length === 0) return undefined;
    for (const fault of this.list) {
      if (!matches(fault, req, template)) continue;
      if (fault.probability < 1 && this.draw() >= fault.probability) continue;
      return this.outcome(fault, req);
    }
    return undefined;
  }

  private outcome(fault: Fault, req: TwinRequest): FaultOutcome {
    const e = fault.effect;
    const marked = (res: TwinResponse): TwinResponse => ({ ...res, headers: { ...(res.headers ?? {}), [FAULT_HEADER]: `${fault.id} ${e.type}` } });
    switch (e.type) {
      case 'latency':
        return { fault, delayMs: e.ms + (e.jitter_ms ? Math.floor(this.draw() * (e.jitter_ms + 1)) : 0) };
      case 'drop':
        return { fault, drop: true, answer: marked({ status: 502, body: { detail: `Connection dropped by fault ${fault.id}.` } }) };
      case 'rate_limit': {
        const retryAfter = e.retry_after_seconds ?? 1;
        const res = this.twin.faultAnswer?.('rate_limit', req, this.ctx(), retryAfter) ?? genericAnswer('rate_limit', retryAfter);
        return { fault, answer: marked(res) };
      }
      case 'server_error':
        return { fault, answer: marked(this.twin.faultAnswer?.('server_error', req, this.ctx(), 0) ?? genericAnswer('server_error', 0)) };
      case 'late':
        return { fault, webhooks: { faultId: fault.id, type: 'late', delayMs: e.ms + (e.jitter_ms ? Math.floor(this.draw() * (e.jitter_ms + 1)) : 0) } };
      case 'twice':
      case 'out_of_order':
        return { fault, webhooks: { faultId: fault.id, type: e.type } };
    }
  }
}
