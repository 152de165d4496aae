// Outgoing deliveries (Stripe webhooks, GitHub hooks, Slack event callbacks): queued as `delivery`
// records, sent after the response that caused them, retried with backoff, every attempt kept.
// The twin signs each attempt itself (signatures carry the wall-clock time of the attempt).
// Every attempt obeys the egress policy (egress.ts): a refused one is recorded as refused and not
// retried. Redirects are not followed (as Stripe, GitHub and Slack do not): a 3xx is a failure.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatcher } from 'undici';
import type { WebhookShaping } from './faults.js';
import type { RecordStore } from './record-store.js';
import { EgressGuard, refusalMessage, undici } from './egress.js';
import { isStorageFull, STORAGE_FULL_RETRY_SECONDS } from './storage-full.js';
import { loadOnce } from './load-once.js';

export interface DeliveryAttempt {
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** Set when the egress policy refused the address: nothing was sent. */
  refused?: boolean;
}

export interface DeliveryRecord {
  id: string;
  /** What caused it, in the twin's words (`invoice.paid`, `issues`, `message`). */
  event: string;
  /** The twin's own id of the thing delivered (Stripe event id, GitHub delivery guid…). */
  source_id: string;
  /** Endpoint / hook id the delivery belongs to. */
  endpoint_id: string;
  url: string;
  /** Exact bytes sent (signatures cover them). */
  payload: string;
  /** Headers sent on every attempt besides the signature headers. */
  headers: Record<string, string>;
  /** Opaque to the runtime; the twin's signer reads it (e.g. the endpoint's signing secret). */
  signing_secret: string | null;
  /** The fault that shaped it (`<fault id> late|twice|out_of_order`), when one did. */
  fault?: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: DeliveryAttempt[];
  next_attempt_at: string | null;
  created_at: string;
}

export interface NewDelivery {
  event: string;
  source_id: string;
  endpoint_id: string;
  url: string;
  payload: string;
  headers?: Record<string, string>;
  signing_secret?: string | null;
}

type Signer = (d: DeliveryRecord, payload: string, wallNow: Date) => Record<string, string>;
/** The bytes of one attempt, for providers that stamp each attempt inside the body (Linear). */
type Stamper = (d: DeliveryRecord, wallNow: Date) => string;

export const DELIVERY_RESOURCE = 'delivery';
/** How long an `out_of_order` delivery waits for a later one to overtake it before it goes anyway. */
export const OUT_OF_ORDER_HOLD_MS = 30_000;

function backoffSchedule(): number[] {
  const raw = process.env.TWIN_DELIVERY_BACKOFF_MS ?? '1000,2000,4000,8000,16000';
  return raw
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isFinite(n) && n >= 0);
}

export class Deliveries {
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Timers of deliveries due now (not retries): idle() waits for these to start, too. */
  private readonly dueNow = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly schedule = backoffSchedule();
  private closed = false;
  private nextId: () => string;
  /** The checked agent, made with the first delivery: it loads undici, which a twin's start does not need. */
  private readonly dispatcher: () => Dispatcher | undefined;
  /** The webhook fault of the request running now, if one struck it. */
  private readonly shaping = new AsyncLocalStorage<WebhookShaping>();
  /** Deliveries held by an `out_of_order` fault, released once the next delivery has been attempted. */
  private held: { id: string; timer: NodeJS.Timeout }[] = [];
  /** Held deliveries to release when the delivery of the key has had its first attempt. */
  private readonly releaseAfter = new Map<string, string[]>();

  constructor(
    private readonly store: RecordStore,
    nextId: () => string,
    private readonly signer: Signer | undefined,
    private readonly timeoutMs = Number(process.env.TWIN_DELIVERY_TIMEOUT_MS ?? 5000),
    private readonly stamper?: Stamper,
    private readonly egress: EgressGuard = EgressGuard.fromEnv(),
  ) {
    this.nextId = nextId;
    this.dispatcher = loadOnce(() => egress.agent(timeoutMs));
  }

  /** Run `fn` (a request's route) with the deliveries it queues shaped by a webhook fault. */
  shaped<T>(shaping: WebhookShaping, fn: () => T | Promise<T>): Promise<T> {
    return this.shaping.run(shaping, async () => await fn());
  }

  /** Queue a delivery; it is attempted right after the current request finishes (unless a webhook fault shapes it). */
  send(d: NewDelivery): DeliveryRecord {
    const shaping = this.shaping.getStore();
    const record = this.queue(d, shaping);
    if (shaping?.type === 'twice') this.queue(d, shaping);
    return record;
  }

  private queue(d: NewDelivery, shaping: WebhookShaping | undefined): DeliveryRecord {
    const delayMs = shaping?.type === 'late' ? (shaping.delayMs ?? 0) : 0;
    const record: DeliveryRecord = {
      id: this.nextId(),
      event: d.event,
      source_id: d.source_id,
      endpoint_id: d.endpoint_id,
      url: d.url,
      payload: d.payload,
      headers: d.headers ?? {},
      signing_secret: d.signing_secret ?? null,
      ...(shaping ? { fault: `${shaping.faultId} ${shaping.type}` } : {}),
      status: 'pending',
      attempts: [],
      next_attempt_at: new Date(Date.now() + delayMs).toISOString(),
      created_at: new Date().toISOString(),
    };
    this.store.put(DELIVERY_RESOURCE, record.id, record);
    if (shaping?.type === 'out_of_order') {
      this.hold(record.id);
      return record;
    }
    // A delivery overtakes those held before it: they go once it has been attempted.
    if (this.held.length > 0) {
      for (const h of this.held) clearTimeout(h.timer);
      this.releaseAfter.set(
        record.id,
        this.held.map((h) => h.id),
      );
      this.held = [];
    }
    this.later(record.id, delayMs);
    return record;
  }

  private hold(id: string): void {
    const timer = setTimeout(() => {
      this.held = this.held.filter((h) => h.id !== id);
      this.later(id, 0);
    }, OUT_OF_ORDER_HOLD_MS);
    timer.unref();
    this.held.push({ id, timer });
  }

  private release(afterId: string): void {
    const ids = this.releaseAfter.get(afterId);
    if (!ids) return;
    this.releaseAfter.delete(afterId);
    for (const id of ids) this.later(id, 0);
  }

  /** After a restart: pick up every delivery still pending. */
  resume(): void {
    for (const d of this.store.list<DeliveryRecord>(DELIVERY_RESOURCE)) {
      if (d.status !== 'pending') continue;
      const due = d.next_attempt_at ? Date.parse(d.next_attempt_at) - Date.now() : 0;
      this.later(d.id, Math.max(0, due));
    }
  }

  private later(id: string, ms: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.dueNow.delete(timer);
      const p = this.attempt(id)
        .catch((e: unknown) => {
          // Its outcome could not be written (a full disk): it stays pending and is tried again.
          if (!isStorageFull(e)) throw e;
          this.later(id, STORAGE_FULL_RETRY_SECONDS * 1000);
        })
        .finally(() => {
          this.inFlight.delete(p);
          this.release(id);
        });
      this.inFlight.add(p);
    }, ms);
    timer.unref();
    this.timers.add(timer);
    if (ms === 0) this.dueNow.add(timer);
  }

  private async attempt(id: string): Promise<void> {
    const d = this.store.get<DeliveryRecord>(DELIVERY_RESOURCE, id);
    if (d?.status !== 'pending') return;
    const started = Date.now();
    const body = this.stamper ? this.stamper(d, new Date(started)) : d.payload;
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      ...d.headers,
      ...(this.signer ? this.signer(d, body, new Date(started)) : {}),
    };
    let statusCode: number | null = null;
    let error: string | null = null;
    let refused = false;
    const why = await this.egress.check(d.url);
    if (why !== undefined) {
      refused = true;
      error = refusalMessage(this.egress.policy, why);
    } else {
      try {
        const { request } = undici();
        const res = await request(d.url, {
          method: 'POST',
          headers,
          body,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          dispatcher: this.dispatcher(),
        });
        statusCode = res.statusCode;
        await res.body.dump();
      } catch (e) {
        const cause = (e as { cause?: unknown }).cause;
        refused = (e as { refused?: boolean }).refused === true || (cause as { refused?: boolean } | undefined)?.refused === true;
        error = refused
          ? cause instanceof Error && (cause as { refused?: boolean }).refused
            ? cause.message
            : (e as Error).message
          : e instanceof Error
            ? e.message
            : String(e);
      }
    }
    if (this.closed && error) return; // shutting down: leave it pending for the next start
    const fresh = this.store.get<DeliveryRecord>(DELIVERY_RESOURCE, id) ?? d;
    fresh.attempts.push({
      attempted_at: new Date(started).toISOString(),
      status_code: statusCode,
      error,
      duration_ms: Date.now() - started,
      ...(refused ? { refused: true } : {}),
    });
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    // A refused address stays refused: no retries.
    const retryIn = refused ? undefined : this.schedule[fresh.attempts.length - 1];
    if (ok) {
      fresh.status = 'succeeded';
      fresh.next_attempt_at = null;
    } else if (retryIn === undefined) {
      fresh.status = 'failed';
      fresh.next_attempt_at = null;
    } else {
      fresh.next_attempt_at = new Date(Date.now() + retryIn).toISOString();
    }
    this.store.put(DELIVERY_RESOURCE, id, fresh);
    if (fresh.status === 'pending' && retryIn !== undefined) this.later(id, retryIn);
  }

  /** Wait for attempts under way and deliveries due now (used by tests and by a clean shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.dueNow.size > 0) {
      if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      else await new Promise((r) => setTimeout(r, 1));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // Held deliveries stay pending in the file: the next start's resume() sends them.
    for (const h of this.held) clearTimeout(h.timer);
    this.held = [];
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.dueNow.clear();
    await this.idle();
  }
}
