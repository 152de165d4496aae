// Replay (issue 38): an environment's traffic as a replayable file, and that file sent into an
// environment started from the same state (seed, snapshot or empty, same clock start), answer by
// answer compared with the recorded ones. Twins draw ids from a seeded source kept in their file
// and stamp times from the environment clock, so a clean replay with each request's clock pinned
// to the recorded one answers byte for byte the same (but for the twins' own URLs, which are the
// environment's: the origin's are read as the target's).
//
// The recorded clock of a request is the environment clock at its arrival, computed from the
// environment's start and its advances: exact for a frozen clock; for a living one it is the
// arrival's instant, which the twin's reading (taken a moment later) matches to the second but
// not always to the millisecond.

import { z } from 'zod';
import { conflict } from '../http/errors.js';
import type { Db } from '../store/database.js';
import type { EnvironmentRow, EnvironmentStore } from '../store/environments.js';
import { UNANSWERED, type RequestLogRow, type RequestLogStore } from '../store/request-logs.js';
import type { EnvironmentService } from './environments.js';
import type { TwinAdminClient } from './twin-admin.js';

export const REPLAY_FORMAT = 'twins.replay/1';
/** Requests one file holds at most (export and replay). */
export const MAX_REPLAY_REQUESTS = 10_000;
/** Bytes of bodies one export holds at most: its file must fit the replay route's body limit (64 MiB) with room for the JSON around them. */
export const MAX_EXPORT_BODY_BYTES = 40 * 1024 * 1024;
const MAX_TEXT = 70_000;

/** Request headers never replayed: this hop's, and the ones the replayer sets itself. */
const UNREPLAYED_HEADERS = new Set([
  'host',
  'x-forwarded-host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'accept-encoding',
  'authorization',
  'expect',
]);

const exchangeSide = z.object({
  content_type: z.string().max(1000).nullable(),
  body: z.string().max(MAX_TEXT).nullable(),
  body_truncated: z.boolean(),
});

export const replayRequestSchema = z.object({
  index: z.number().int().min(0),
  twin_id: z.string().max(100),
  twin_slug: z.string().max(100),
  method: z.string().regex(/^[A-Z]{1,16}$/),
  path: z.string().startsWith('/').max(8000),
  query_string: z.string().max(8000),
  headers: z.record(z.string().max(200), z.union([z.string().max(8000), z.array(z.string().max(8000)).max(50)])),
  request: exchangeSide,
  clock: z.iso.datetime({ offset: true }).describe('The environment clock when the request arrived: replay pins the clock here before sending it.'),
  occurred_at: z.string().max(100),
  response: exchangeSide.extend({ status: z.number().int().nullable().describe('null: no answer was logged (in flight, or a connection a fault dropped).') }),
});

export const replayFileSchema = z
  .object({
    format: z.literal(REPLAY_FORMAT),
    environment_id: z.string().max(100),
    clock_mode: z.enum(['living', 'frozen']),
    clock_start: z.string().max(100),
    exported_at: z.string().max(100),
    twins: z.array(z.object({ twin_id: z.string().max(100), twin_slug: z.string().max(100), url: z.string().max(2000).nullable() })).max(100),
    requests: z.array(replayRequestSchema).max(MAX_REPLAY_REQUESTS),
  })
  .meta({ id: 'ReplayFile' });

export type ReplayFile = z.infer<typeof replayFileSchema>;
type ReplayRequest = z.infer<typeof replayRequestSchema>;

const answerSchema = z.object({ status: z.number().int().nullable(), content_type: z.string().nullable(), body: z.string().nullable() });

export const replayResultSchema = z
  .object({
    replayed: z.number().int().describe('Requests sent, the differing one included.'),
    first_difference: z
      .object({
        index: z.number().int(),
        request: replayRequestSchema.omit({ response: true }),
        expected: answerSchema,
        actual: answerSchema,
      })
      .nullable()
      .describe('The first request answered otherwise than recorded (status, content type or body); null when none was. Nothing after it is sent.'),
  })
  .meta({ id: 'ReplayResult' });

export type ReplayResult = z.infer<typeof replayResultSchema>;

interface ClockStep {
  /** Wall time (ms) from which it holds. */
  wall: number;
  /** The clock's instant at that wall time (ms). */
  instant: number;
}

/** The environment clock's instant at wall time `wall`, from its start and the advances before it. */
function clockAtWall(mode: EnvironmentRow['clock_mode'], steps: readonly ClockStep[], wall: number): number {
  let step = steps[0]!;
  for (const s of steps) if (s.wall <= wall) step = s;
  return mode === 'living' ? step.instant + (wall - step.wall) : step.instant;
}

export interface ReplayServiceOptions {
  db: Db;
  store: EnvironmentStore;
  logs: RequestLogStore;
  environments: EnvironmentService;
  admin: TwinAdminClient;
}

export class ReplayService {
  constructor(private readonly o: ReplayServiceOptions) {}

  /** Where the clock stood from when: its start, then each succeeded advance's target from when it completed. */
  private clockSteps(env: EnvironmentRow): ClockStep[] {
    const advances = this.o.db
      .prepare("SELECT to_clock, completed_at FROM advances WHERE environment_id = ? AND status = 'succeeded' ORDER BY completed_at")
      .all(env.id) as { to_clock: string; completed_at: string }[];
    return [
      { wall: Date.parse(env.created_at), instant: Date.parse(env.clock_start) },
      ...advances.map((a) => ({ wall: Date.parse(a.completed_at), instant: Date.parse(a.to_clock) })),
    ];
  }

  /** The environment's traffic, oldest first, as a replay file (409 past MAX_REPLAY_REQUESTS). */
  export(orgId: string, environmentId: string): ReplayFile {
    const env = this.o.environments.environment(orgId, environmentId);
    const total = this.o.logs.count(env.id);
    if (total > MAX_REPLAY_REQUESTS) {
      throw conflict(`Environment ${environmentId} holds ${total} logged requests; an export holds at most ${MAX_REPLAY_REQUESTS}.`);
    }
    const bodies = (
      this.o.logs.db.prepare('SELECT body_bytes FROM request_log_environments WHERE environment_id = ?').get(env.id) as { body_bytes: number } | undefined
    )?.body_bytes;
    if ((bodies ?? 0) > MAX_EXPORT_BODY_BYTES) {
      throw conflict(
        `Environment ${environmentId} logged ${Math.round(bodies! / 1024 / 1024)} MiB of bodies; an export holds at most ${MAX_EXPORT_BODY_BYTES / 1024 / 1024} MiB (a file that large could not be replayed).`,
      );
    }
    const rows = this.o.logs.page(env.id, MAX_REPLAY_REQUESTS, 0).reverse();
    const steps = this.clockSteps(env);
    const view = this.o.environments.view(env);
    return {
      format: REPLAY_FORMAT,
      environment_id: env.id,
      clock_mode: env.clock_mode,
      clock_start: env.clock_start,
      exported_at: new Date().toISOString(),
      twins: view.twins.map((t) => ({ twin_id: t.id, twin_slug: t.twin_slug, url: t.url })),
      requests: rows.map((r, index) => this.record(r, index, env.clock_mode, steps)),
    };
  }

  private record(r: RequestLogRow, index: number, mode: EnvironmentRow['clock_mode'], steps: ClockStep[]): ReplayRequest {
    let headers: Record<string, string | string[]> = {};
    try {
      headers = JSON.parse(r.request_headers) as Record<string, string | string[]>;
    } catch {
      headers = {};
    }
    return {
      index,
      twin_id: r.environment_twin_id,
      twin_slug: r.twin_slug,
      method: r.method,
      path: r.path,
      query_string: r.query_string,
      headers,
      request: { content_type: r.request_content_type, body: r.request_body, body_truncated: r.request_body_truncated === 1 },
      clock: new Date(clockAtWall(mode, steps, Date.parse(r.occurred_at))).toISOString(),
      occurred_at: r.occurred_at,
      response: {
        status: r.status_code === UNANSWERED ? null : r.status_code,
        content_type: r.response_content_type,
        body: r.response_body,
        body_truncated: r.response_body_truncated === 1,
      },
    };
  }

  /**
   * Send the file's requests, in order, into the environment, each with the clock pinned to its
   * recorded one (an advance of the environment when it is later), and compare each answer with
   * the recorded one. The environment's clock must be frozen (it moves only when replay moves it)
   * and not past the first request's.
   */
  async replay(orgId: string, environmentId: string, file: ReplayFile): Promise<ReplayResult> {
    const env = this.o.environments.environment(orgId, environmentId);
    if (env.clock_mode !== 'frozen') {
      throw conflict(
        `Environment ${environmentId} has a living clock; replay pins each request's clock, so it needs an environment created with "clock": "frozen".`,
      );
    }
    const truncated = file.requests.find((r) => r.request.body_truncated);
    if (truncated) throw conflict(`Request ${truncated.index} of the file was logged with its body cut at 64 KiB; it cannot be replayed as sent.`);
    const first = file.requests[0];
    if (first && Date.parse(first.clock) < Date.parse(env.clock)) {
      throw conflict(
        `The environment clock is at ${env.clock}, after the first request's ${first.clock}; start the environment from the same snapshot, or with clock_start at or before it.`,
      );
    }
    const targets = this.targets(env, file);
    const credentials = new Map<string, string>();
    for (const t of new Set(targets.values())) {
      credentials.set(t.id, (await this.o.environments.credential(orgId, t.id)).api_key);
    }
    let replayed = 0;
    for (const r of file.requests) {
      await this.pinClock(orgId, env.id, Date.parse(r.clock));
      const target = targets.get(r.twin_id)!;
      const origin = file.twins.find((t) => t.twin_id === r.twin_id)?.url ?? undefined;
      const actual = await this.send(r, target.url, credentials.get(target.id)!);
      replayed += 1;
      const expected = { status: r.response.status, content_type: r.response.content_type, body: r.response.body };
      if (!sameAnswer(expected, actual, r.response.body_truncated, origin, target.url)) {
        const { response: _response, ...request } = r;
        return { replayed, first_difference: { index: r.index, request, expected, actual } };
      }
    }
    return { replayed, first_difference: null };
  }

  /** Each of the file's twins → the environment's twin of the same kind in the same position (409 when there is none, or it is not ready). */
  private targets(env: EnvironmentRow, file: ReplayFile): Map<string, { id: string; url: string }> {
    const view = this.o.environments.view(env);
    const out = new Map<string, { id: string; url: string }>();
    const used = new Map<string, number>();
    const ids = new Set(file.requests.map((r) => r.twin_id));
    const origins = [...file.twins];
    for (const id of ids)
      if (!origins.some((t) => t.twin_id === id)) origins.push({ twin_id: id, twin_slug: file.requests.find((r) => r.twin_id === id)!.twin_slug, url: null });
    for (const o of origins) {
      if (!ids.has(o.twin_id)) continue;
      const n = used.get(o.twin_slug) ?? 0;
      const t = view.twins.filter((x) => x.twin_slug === o.twin_slug)[n];
      if (!t) throw conflict(`The file's ${o.twin_slug} twin ${o.twin_id} has no counterpart in environment ${env.id}; create it with the same twins.`);
      if (t.state !== 'ready' || !t.url) throw conflict(`Twin ${t.id} is ${t.state}; replay when every twin is ready.`);
      used.set(o.twin_slug, n + 1);
      out.set(o.twin_id, { id: t.id, url: t.url });
    }
    return out;
  }

  /** Move the (frozen) environment clock to `instant` when it is behind it. */
  private async pinClock(orgId: string, environmentId: string, instant: number): Promise<void> {
    const env = this.o.store.environmentById(environmentId)!;
    if (Date.parse(env.clock) >= instant) return;
    const out = await this.o.environments.advance(orgId, environmentId, new Date(instant));
    if (out.done) return;
    // A long advance runs on as a job: followed to its end.
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      const now = this.o.environments.advanceOf(orgId, environmentId, out.advance.id);
      if (now.status === 'succeeded') return;
      if (now.status === 'failed') throw conflict(`Replay could not move the clock to ${new Date(instant).toISOString()}: ${now.failure}`);
    }
  }

  private async send(r: ReplayRequest, base: string, key: string): Promise<{ status: number | null; content_type: string | null; body: string | null }> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers)) if (!UNREPLAYED_HEADERS.has(k.toLowerCase())) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    headers.authorization = `Bearer ${key}`;
    const url = `${base}${r.path}${r.query_string ? `?${r.query_string}` : ''}`;
    try {
      const res = await fetch(url, {
        method: r.method,
        headers,
        body: r.request.body === null || r.method === 'GET' || r.method === 'HEAD' ? undefined : r.request.body,
        redirect: 'manual',
      });
      const text = await res.text();
      return { status: res.status, content_type: res.headers.get('content-type'), body: text === '' ? null : text };
    } catch {
      return { status: null, content_type: null, body: null };
    }
  }
}

/** Status, content type and body equal, the origin's twin URL read as the target's; a body logged cut short is compared up to the cut. */
function sameAnswer(
  expected: { status: number | null; content_type: string | null; body: string | null },
  actual: { status: number | null; content_type: string | null; body: string | null },
  truncated: boolean,
  originUrl: string | undefined,
  targetUrl: string,
): boolean {
  if (expected.status !== actual.status || (expected.content_type ?? null) !== (actual.content_type ?? null)) return false;
  const want = originUrl && expected.body ? expected.body.replaceAll(originUrl, targetUrl) : expected.body;
  if (truncated) return !!actual.body && want !== null && actual.body.startsWith(want);
  return (want ?? null) === (actual.body ?? null);
}
