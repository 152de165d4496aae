// Routes of the 'environments' area for reading the request log live and in full: a server-sent
// event stream of new entries (authenticated with the Authorization header like every route, so
// the token never lands in a URL; a browser reads it with fetch, not EventSource) and one entry
// with its headers and bodies.

import { z } from 'zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpError, notFound } from '../http/errors.js';
import { intField, uuidString } from '../http/fields.js';
import { errorBody, errorResponses } from '../http/responses.js';
import { RequestValidationError } from '../http/validation.js';
import { idParam, requestLogSchema } from '../orchestration/schemas.js';
import { CURSOR_PATTERN, RequestLogFeed, type FeedRow } from '../store/request-log-feed.js';
import { UNANSWERED, type RequestLogRow } from '../store/request-logs.js';

const tags = ['environments'];

/**
 * How often an open stream looks for new entries. An entry is journaled before its answer leaves
 * and in SQLite within the log writer's read interval (25 ms) after, so it is on the wire within
 * about one poll.
 */
export const STREAM_POLL_MS = 250;
const HEARTBEAT_MS = 15_000;
/** A stream ends after this long; clients reconnect with Last-Event-ID, and the credential is checked again. */
export const STREAM_MAX_MS = 15 * 60_000;
/** Streams one organization may hold open at once. */
export const MAX_STREAMS_PER_ORGANIZATION = 16;
const BATCH = 200;

const streamQuery = z.object({
  tail: intField({ ge: 0, le: 1000 }).optional().describe('Send this many of the newest existing entries first (oldest first). Default 0: only new ones.'),
  after: z
    .string()
    .regex(CURSOR_PATTERN)
    .optional()
    .describe('Resume after this cursor (the `id` of an event received before); the `Last-Event-ID` header does the same.'),
});

const bodySchema = z.object({
  content_type: z.string().nullable(),
  body: z.string().nullable().describe('The body as text (credentials redacted), cut at 64 KiB.'),
  body_truncated: z.boolean(),
});

export const requestLogEntrySchema = requestLogSchema
  .extend({
    twin_slug: z.string(),
    actor: z.string().describe('`agent` (through the gateway), `seed` or `lifecycle`.'),
    request: bodySchema.extend({
      headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).describe('Request headers as received, credentials removed.'),
    }),
    response: bodySchema.describe("The twin's answer: its status is `status_code` (null: no answer was logged)."),
  })
  .meta({ id: 'RequestLogEntryDetail' });

const entryParams = z.object({ environment_id: idParam, log_id: uuidString() });

function listItem(r: RequestLogRow): z.infer<typeof requestLogSchema> {
  return {
    id: r.id,
    environment_id: r.environment_id,
    environment_twin_id: r.environment_twin_id,
    method: r.method,
    path: r.path,
    query_string: r.query_string,
    status_code: r.status_code === UNANSWERED ? null : r.status_code,
    duration_ms: r.duration_ms,
    occurred_at: r.occurred_at,
    fidelity: r.fidelity ?? null,
    fault: r.fault ?? null,
  };
}

function detail(r: RequestLogRow): z.infer<typeof requestLogEntrySchema> {
  let headers: Record<string, string | string[]> = {};
  try {
    headers = JSON.parse(r.request_headers) as Record<string, string | string[]>;
  } catch {
    headers = {};
  }
  return {
    ...listItem(r),
    twin_slug: r.twin_slug,
    actor: r.actor,
    request: { headers, content_type: r.request_content_type, body: r.request_body, body_truncated: r.request_body_truncated === 1 },
    response: { content_type: r.response_content_type, body: r.response_body, body_truncated: r.response_body_truncated === 1 },
  };
}

/** The cursor to resume after: `after`, else a Last-Event-ID header (422 when it is not a cursor). */
function resumeCursor(req: FastifyRequest, after: string | undefined): string | undefined {
  if (after !== undefined) return after;
  const header = req.headers['last-event-id'];
  if (typeof header !== 'string' || header === '') return undefined;
  if (!CURSOR_PATTERN.test(header)) {
    throw new RequestValidationError([
      {
        type: 'string_pattern_mismatch',
        loc: ['header', 'last-event-id'],
        msg: `String should match pattern '${CURSOR_PATTERN.source}'`,
        input: header,
        ctx: { pattern: CURSOR_PATTERN.source },
      },
    ]);
  }
  return header;
}

interface OpenStream {
  organizationId: string;
  end(reason: string): void;
}

function sseEvent(event: string, data: unknown, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

const routes: FastifyPluginAsyncZod = async (app) => {
  const envs = () => app.services.orchestration.environments;
  const feed = new RequestLogFeed(app.services.db);
  const open = new Set<OpenStream>();
  // Streams never end on their own before the server closes: end them first.
  (app as unknown as FastifyInstance).addHook('preClose', async () => {
    for (const s of [...open]) s.end('shutdown');
  });

  app.get(
    '/environments/:environment_id/logs/stream',
    {
      schema: {
        tags,
        operationId: 'streamRequestLogs',
        summary: 'Follow the request log live (server-sent events)',
        description:
          'A `text/event-stream` of the requests the environment\'s twins serve from now on: first `event: ready` with `{"cursor"}`, ' +
          'then one `event: request` per logged request (`data` is a request log entry, `id` its cursor) within about 0.3 s of the answer, ' +
          'and a comment line every 15 s. `tail` sends that many existing entries first; `after` or the `Last-Event-ID` header resumes after a cursor ' +
          '(nothing is skipped). Authenticate with the Authorization header (read it with fetch; EventSource cannot send it). ' +
          `The stream ends after ${STREAM_MAX_MS / 60_000} minutes (reconnect with Last-Event-ID) or with \`event: end\` when the environment is deleted. ` +
          `At most ${MAX_STREAMS_PER_ORGANIZATION} streams per organization are open at once (429).`,
        params: z.object({ environment_id: idParam }),
        querystring: streamQuery,
        response: {
          200: {
            description: 'Server-sent events: `ready`, then `request` events whose `data` is a RequestLog entry and whose `id` is its cursor.',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses(401, 404),
          429: errorBody,
        },
      },
    },
    async (req, reply) => {
      const { orgId } = req.principal;
      const env = envs().environment(orgId, req.params.environment_id);
      const resume = resumeCursor(req, req.query.after);
      if ([...open].filter((s) => s.organizationId === orgId).length >= MAX_STREAMS_PER_ORGANIZATION) {
        throw new HttpError(429, `This organization already follows ${MAX_STREAMS_PER_ORGANIZATION} request logs at once; close one first.`);
      }
      // An answered request's entry not yet in SQLite (journaled, applied within ~25 ms) comes after
      // the cursor, so the poll still sends it: none is skipped.
      const backlog: FeedRow[] = resume === undefined ? feed.newest(env.id, req.query.tail ?? 0) : [];
      let cursor = resume ?? feed.head(env.id);

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      res.flushHeaders();
      let waitingForDrain = false;
      const send = (chunk: string) => {
        if (!res.write(chunk)) waitingForDrain = true;
      };
      res.on('drain', () => {
        waitingForDrain = false;
      });
      send(`retry: 1000\n\n`);
      send(sseEvent('ready', { cursor }));
      for (const row of backlog) send(sseEvent('request', listItem(row), row.cursor));

      const poll = setInterval(() => {
        if (waitingForDrain) return; // a slow reader: the cursor waits, nothing is skipped
        const rows = feed.entriesAfter(env.id, cursor, BATCH);
        for (const row of rows) {
          send(sseEvent('request', listItem(row), row.cursor));
          cursor = row.cursor;
        }
      }, STREAM_POLL_MS);
      const heartbeat = setInterval(() => {
        if (!app.services.orchestration.store.environment(orgId, env.id)) {
          stream.end('deleted');
          return;
        }
        send(': keep-alive\n\n');
      }, HEARTBEAT_MS);
      const lifetime = setTimeout(() => stream.end('expired'), STREAM_MAX_MS);
      const stream: OpenStream = {
        organizationId: orgId,
        end(reason) {
          if (!open.delete(stream)) return;
          clearInterval(poll);
          clearInterval(heartbeat);
          clearTimeout(lifetime);
          if (!res.writableEnded) res.end(sseEvent('end', { reason, cursor }));
        },
      };
      open.add(stream);
      req.raw.on('close', () => stream.end('closed'));
      res.on('close', () => stream.end('closed'));
    },
  );

  app.get(
    '/environments/:environment_id/logs/:log_id',
    {
      schema: {
        tags,
        operationId: 'getRequestLog',
        summary: 'Retrieve one logged request with its headers and bodies',
        description:
          "One entry of the request log in full: the request's headers (credentials removed), its body and the twin's response body " +
          '(as text, each cut at 64 KiB with `body_truncated`), their content types and the response status.',
        params: entryParams,
        response: { 200: requestLogEntrySchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const env = envs().environment(req.principal.orgId, req.params.environment_id);
      const row = feed.entry(env.id, req.params.log_id);
      if (!row) throw notFound(`Request log entry ${req.params.log_id} not found in environment ${env.id}.`);
      return detail(row);
    },
  );
};

export default routes;
