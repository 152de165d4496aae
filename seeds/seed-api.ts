// The provider API of a twin as the expander uses it: synthetic requests handled in-process by a
// twin host opened on the seed file (no port), carrying the twin's own key, plus the host's
// advance for states that need time to pass.

import { HostError, type TwinHost } from '../twin-runtime/host.js';
import { parseBracketForm } from '../twin-runtime/form.js';
import type { TwinRequest } from '../twin-runtime/contract.js';
import { SeedExpansionError, type BodyEncoding, type SeedApi, type SeedCallOptions } from '../twin-runtime/seeding.js';

/** The worker is stopping: the generation is abandoned and picked up again at the next start. */
export class SeedAbortedError extends Error {}

/** Stripe-style bracket notation: {a: {b: 1}, c: [x, y]} → a[b]=1&c[0]=x&c[1]=y. */
export function encodeForm(value: unknown, prefix = ''): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => encodeForm(v, `${prefix}[${i}]`));
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => encodeForm(v, prefix ? `${prefix}[${k}]` : k));
  }
  return [`${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`];
}

export class HostSeedApi implements SeedApi {
  /** Provider calls made so far (the bench reports it). */
  calls = 0;

  constructor(
    private readonly server: TwinHost,
    private readonly defaults: { encoding: BodyEncoding; authorization: string },
    private readonly signal?: AbortSignal,
  ) {}

  private checkAborted(): void {
    if (this.signal?.aborted) throw new SeedAbortedError('Seed generation stopped.');
  }

  get clock() {
    return this.server.clock;
  }

  // biome-ignore lint/suspicious/noExplicitAny: an untyped caller (a twin's seed vocabulary) reads the JSON answer field by field
  async call<T = any>(method: string, path: string, body?: unknown, opts: SeedCallOptions = {}): Promise<{ status: number; body: T }> {
    this.checkAborted();
    // Let the control plane's other work run between calls of a long expansion.
    if (this.calls % 200 === 199) await new Promise((r) => setImmediate(r));
    const encoding = opts.encoding ?? this.defaults.encoding;
    let raw = '';
    if (body !== undefined) raw = encoding === 'json' ? JSON.stringify(body) : encodeForm(body).join('&');
    const queryString = opts.query ? new URLSearchParams(opts.query).toString() : '';
    const contentType = encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
    const req: TwinRequest = {
      method,
      path,
      params: {},
      queryString,
      query: parseBracketForm(queryString),
      headers: {
        authorization: this.defaults.authorization,
        'user-agent': 'twins-seed-expander',
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': contentType, 'content-length': String(Buffer.byteLength(raw)) } : {}),
        ...(opts.headers ?? {}),
      },
      rawBody: Buffer.from(raw),
      body: body === undefined ? {} : encoding === 'json' ? (JSON.parse(raw) as Record<string, unknown>) : parseBracketForm(raw),
      bodyKind: body === undefined ? 'none' : encoding,
    };
    this.calls++;
    const res = await this.server.handle(req);
    const parsed = typeof res.body === 'string' || Buffer.isBuffer(res.body) ? safeJson(String(res.body)) : res.body;
    if (res.status >= 400 && !(opts.accept ?? []).includes(res.status)) {
      throw new SeedExpansionError(`The ${this.server.twin.slug} twin refused ${method} ${path} with ${res.status}: ${describe(parsed)}.`);
    }
    return { status: res.status, body: parsed as T };
  }

  /** Move the environment clock to `to`, running every lifecycle event due on the way. */
  async advanceTo(to: Date): Promise<void> {
    this.checkAborted();
    try {
      await this.server.advance(to);
    } catch (e) {
      if (e instanceof HostError) throw new SeedExpansionError(`Advancing the clock to ${to.toISOString()} failed: ${e.message}.`);
      throw e;
    }
  }

  async advanceBy(ms: number): Promise<void> {
    await this.advanceTo(new Date(this.server.clock.nowMs() + ms));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const msg = (b.error as { message?: unknown } | null | undefined)?.message ?? b.message ?? b.error ?? b.detail;
    if (typeof msg === 'string') return msg;
  }
  return JSON.stringify(body)?.slice(0, 300) ?? 'no body';
}
