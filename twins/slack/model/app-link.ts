// How payloads reach the app: over Socket Mode (envelopes on the app's WebSocket connections,
// acknowledged by `envelope_id`, an events_api envelope not acknowledged in 3 s sent again with
// `retry_attempt`/`retry_reason`) or over HTTP (signed POSTs to the app's request URLs; events go
// through the runtime's deliveries with their retries, interactivity and commands are posted here
// because the app's answer — the response body — matters). One link per running twin.
//
// A call stages what it sends; the stage is flushed right after the call (its transaction) ends,
// and dropped when the call is refused (aroundSlack), so a rolled-back call sends nothing.

import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { parseJson } from '../../../twin-runtime/safe-input.js';
import { parseBracketForm } from '../../../twin-runtime/form.js';
import { EgressGuard, undici } from '../../../twin-runtime/egress.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';
import { slackSignature } from './signature.js';
import { getSetting } from './settings.js';

export type EnvelopeType = 'events_api' | 'interactive' | 'slash_commands';

/** The app's answer: the ack's `payload` (Socket Mode) or the response body (HTTP); undefined when none came. */
export type AppAnswer = Record<string, unknown> | undefined;
export type AnswerHandler = (ctx: TwinContext, answer: AppAnswer) => void;

export interface Outgoing {
  type: EnvelopeType;
  payload: Record<string, unknown>;
  /** HTTP mode: where and how it is posted (interactivity: `payload=<json>`; commands: the fields). */
  http?: { url: string; form: Record<string, string> };
  /** Run (as a request of its own) with the app's answer. */
  onAnswer?: AnswerHandler;
}

interface Pending {
  envelopeId: string;
  out: Outgoing;
  retryAttempt: number;
  retryReason: string;
  timer?: NodeJS.Timeout;
  on?: WebSocket;
}

/** How long an envelope waits for its ack before it is sent again (Slack: 3 s; tests shorten it). */
function ackTimeoutMs(): number {
  return Number(process.env.TWIN_SLACK_ACK_TIMEOUT_MS ?? 3000);
}
/** Retries of an unacknowledged events_api envelope (Slack retries 3 times). */
const MAX_RETRIES = 3;
/** How long an apps.connections.open URL may be used (wall clock). */
const TICKET_TTL_MS = 60_000;
const HTTP_TIMEOUT_MS = 3000;
/** The deployment's egress policy (TWINS_EGRESS) covers the app's URLs as it covers deliveries. */
const egress = EgressGuard.fromEnv();
/** Made with the app's first request (it loads undici, which the twin's start does not need). */
const egressAgent = loadOnce(() => egress.agent(HTTP_TIMEOUT_MS));

export class AppLink {
  private readonly connections = new Set<WebSocket>();
  private readonly tickets = new Map<string, number>();
  private readonly pending = new Map<string, Pending>();
  /** Envelopes waiting for a connection (Socket Mode on, no app connected). */
  private readonly waiting: Pending[] = [];
  private staged: { seq: number; out: Outgoing }[] = [];
  private nextSeq = 0;
  private flushScheduled = false;
  private rr = 0;
  /** Counters for tests and benchmarks. */
  readonly stats = { sent: 0, acked: 0, retried: 0, dropped: 0, http: 0 };

  constructor(private readonly ctx: TwinContext) {}

  get connectionCount(): number {
    return this.connections.size;
  }

  // ---- staging (inside a call) ---------------------------------------------------------------

  mark(): number {
    return this.nextSeq;
  }

  discardSince(mark: number): void {
    this.staged = this.staged.filter((s) => s.seq < mark);
  }

  /** Queue `out` for the app; it leaves when the current call is over. */
  stage(out: Outgoing): void {
    this.staged.push({ seq: this.nextSeq++, out });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const items = this.staged;
    this.staged = [];
    for (const { out } of items) {
      if (out.http) void this.post(out);
      else this.sendEnvelope({ envelopeId: randomUUID(), out, retryAttempt: 0, retryReason: '' });
    }
  }

  // ---- Socket Mode ---------------------------------------------------------------------------

  /** A one-time ticket for the WebSocket URL apps.connections.open answers. */
  issueTicket(): string {
    const now = Date.now();
    for (const [t, exp] of this.tickets) if (exp < now) this.tickets.delete(t);
    const ticket = randomUUID();
    this.tickets.set(ticket, now + TICKET_TTL_MS);
    return ticket;
  }

  redeemTicket(ticket: string | null): boolean {
    if (!ticket) return false;
    const exp = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    return exp !== undefined && exp >= Date.now();
  }

  /** A connected app socket: hello, heartbeat, acks; waiting envelopes go out on it. */
  attach(ws: WebSocket, appId: string): void {
    this.connections.add(ws);
    const heartbeat = setInterval(() => ws.ping(), 10_000);
    heartbeat.unref();
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(data.toString());
    });
    ws.on('close', () => {
      clearInterval(heartbeat);
      this.connections.delete(ws);
      // Envelopes in flight on this connection go out again on the next one.
      for (const p of this.pending.values()) {
        if (p.on !== ws) continue;
        clearTimeout(p.timer);
        this.pending.delete(p.envelopeId);
        this.waiting.push(p);
      }
    });
    ws.on('error', () => ws.terminate());
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.connections.size,
        debug_info: { host: 'applink-twin', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: appId },
      }),
    );
    const queued = this.waiting.splice(0);
    for (const p of queued) this.sendEnvelope(p);
  }

  /** Ask every connected app to reconnect (Slack's `disconnect` message), then close the sockets. */
  disconnectAll(reason: string): number {
    const all = [...this.connections];
    for (const ws of all) {
      ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-twin' } }));
      setTimeout(() => ws.close(1000), 1000).unref();
    }
    return all.length;
  }

  private pick(): WebSocket | undefined {
    const open = [...this.connections].filter((ws) => ws.readyState === ws.OPEN);
    if (open.length === 0) return undefined;
    return open[this.rr++ % open.length];
  }

  private sendEnvelope(p: Pending): void {
    const ws = this.pick();
    if (!ws) {
      this.waiting.push(p);
      return;
    }
    const { type, payload } = p.out;
    const acceptsResponse = type === 'slash_commands' || (type === 'interactive' && ['view_submission', 'block_suggestion'].includes(String(payload.type)));
    const message: Record<string, unknown> = { envelope_id: p.envelopeId, payload, type, accepts_response_payload: acceptsResponse };
    if (type === 'events_api') {
      message.retry_attempt = p.retryAttempt;
      message.retry_reason = p.retryReason;
    }
    p.on = ws;
    this.pending.set(p.envelopeId, p);
    ws.send(JSON.stringify(message));
    this.stats.sent++;
    p.timer = setTimeout(() => this.timedOut(p), ackTimeoutMs());
    p.timer.unref();
  }

  private timedOut(p: Pending): void {
    if (this.pending.get(p.envelopeId) !== p) return;
    this.pending.delete(p.envelopeId);
    // Interactivity is not retried: the person sees an error and the app's answer no longer counts.
    if (p.out.type !== 'events_api' || p.retryAttempt >= MAX_RETRIES) {
      this.stats.dropped++;
      return;
    }
    this.stats.retried++;
    this.sendEnvelope({ envelopeId: randomUUID(), out: p.out, retryAttempt: p.retryAttempt + 1, retryReason: 'timeout' });
  }

  private onMessage(text: string): void {
    let msg: unknown;
    try {
      msg = parseJson(text);
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object') return;
    const id = (msg as { envelope_id?: unknown }).envelope_id;
    if (typeof id !== 'string') return;
    const p = this.pending.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(id);
    this.stats.acked++;
    const payload = (msg as { payload?: unknown }).payload;
    this.answer(p.out, payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {});
  }

  private answer(out: Outgoing, answer: AppAnswer): void {
    const handler = out.onAnswer;
    if (!handler) return;
    const ctx = this.ctx;
    const run = () => handler(ctx, answer);
    if (ctx.later) void ctx.later(run).catch(() => {});
    else run();
  }

  // ---- HTTP ----------------------------------------------------------------------------------

  private async post(out: Outgoing): Promise<void> {
    const { url, form } = out.http!;
    const body = new URLSearchParams(form).toString();
    const secret = getSetting(this.ctx, 'events').signing_secret;
    const timestamp = Math.floor(Date.now() / 1000);
    this.stats.http++;
    if ((await egress.check(url)) !== undefined) {
      this.stats.dropped++;
      return;
    }
    try {
      const res = await undici().request(url, {
        dispatcher: egressAgent(),
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(secret, timestamp, body),
          'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        },
        body,
        headersTimeout: HTTP_TIMEOUT_MS,
        bodyTimeout: HTTP_TIMEOUT_MS,
      });
      const text = (await res.body.text()).slice(0, 1_000_000);
      if (res.statusCode < 200 || res.statusCode >= 300) return;
      this.answer(out, readAnswer(text, String(res.headers['content-type'] ?? '')));
    } catch {
      this.stats.dropped++;
    }
  }

  close(): void {
    for (const ws of this.connections) ws.terminate();
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
  }
}

/**
 * Slack's `url_verification` handshake for a new events request URL: a signed POST of
 * `{token, challenge, type}`; the app must answer 200 with the challenge (as JSON `{challenge}`,
 * a form, or the bare text) within 3 s.
 */
export async function verifyRequestUrl(url: string, secret: string, verificationToken: string, challenge: string): Promise<boolean> {
  const body = JSON.stringify({ token: verificationToken, challenge, type: 'url_verification' });
  const timestamp = Math.floor(Date.now() / 1000);
  if ((await egress.check(url)) !== undefined) return false;
  try {
    const res = await undici().request(url, {
      dispatcher: egressAgent(),
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': slackSignature(secret, timestamp, body),
        'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      },
      body,
      headersTimeout: HTTP_TIMEOUT_MS,
      bodyTimeout: HTTP_TIMEOUT_MS,
    });
    const text = (await res.body.text()).slice(0, 10_000);
    if (res.statusCode !== 200) return false;
    return readAnswer(text, String(res.headers['content-type'] ?? ''))?.challenge === challenge || text.trim() === challenge;
  } catch {
    return false;
  }
}

/** A response body as an answer: JSON, a form, or plain text (a slash command's text reply). */
function readAnswer(text: string, contentType: string): AppAnswer {
  if (text.trim() === '') return {};
  if (contentType.includes('x-www-form-urlencoded')) return parseBracketForm(text, 'body');
  try {
    const v = parseJson(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // plain text
  }
  return { text };
}

const links = new WeakMap<TwinContext, AppLink>();

export function appLink(ctx: TwinContext): AppLink {
  let link = links.get(ctx);
  if (!link) links.set(ctx, (link = new AppLink(ctx)));
  return link;
}

/** Whether payloads go over Socket Mode. */
export function socketMode(ctx: TwinContext): boolean {
  return getSetting(ctx, 'app').socket_mode;
}
