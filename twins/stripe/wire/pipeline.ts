// What every Stripe route runs through: one request at a time, inside a SQLite savepoint (a
// thrown StripeApiError rolls back whatever the request wrote, ids included, so a rejected request
// leaves no trace) of a group-committed transaction, `Idempotency-Key` replay, `expand[]` on the answer, Stripe's error body for
// anything unexpected, and the `Request-Id` header on every response.

import { randomBytes } from 'node:crypto';
import type { TwinContext, TwinHandler, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { base62 } from '../../../twin-runtime/ids.js';
import { StripeApiError, stripeError } from './errors.js';
import { expandPaths, paramsOf } from './params.js';
import { expandObject } from './expand.js';
import { lookupIdempotent, rememberIdempotent } from './idempotency.js';
import { setCurrentRequest } from './request-context.js';

/** A request id for answers given before a twin context exists (refused credentials). */
export function newRequestId(): string {
  return 'req_' + base62(randomBytes(14), 14);
}

function header(req: TwinRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Stamp the headers Stripe puts on every answer. */
export function withStripeHeaders(res: TwinResponse, requestId: string, req?: TwinRequest): TwinResponse {
  const headers: Record<string, string | string[]> = { ...(res.headers ?? {}), 'request-id': requestId };
  const version = req && header(req, 'stripe-version');
  if (version) headers['stripe-version'] = version;
  return { ...res, headers };
}

/**
 * Group commit. Requests are queued per twin and answered one at a time; the requests that arrive
 * together (same event-loop turn) share one SQLite transaction, each inside its own savepoint (a
 * failed request rolls back only its own writes). Responses are released after the COMMIT, so
 * nothing is acknowledged before it is durable, while a burst pays for one commit instead of one
 * per request.
 */
interface Job {
  run: () => Promise<TwinResponse>;
  resolve: (r: TwinResponse) => void;
  reject: (e: unknown) => void;
}

interface Queue {
  jobs: Job[];
  scheduled: boolean;
  running: boolean;
}

const queues = new WeakMap<TwinContext, Queue>();

/** Transaction-control statements, prepared once per database (exec would re-parse each time). */
interface TxStatements {
  begin: { run(): unknown };
  commit: { run(): unknown };
  rollback: { run(): unknown };
  savepoint: { run(): unknown };
  release: { run(): unknown };
  rollbackTo: { run(): unknown };
}
const txStatements = new WeakMap<object, TxStatements>();

function tx(ctx: TwinContext): TxStatements {
  const db = ctx.store.db;
  let s = txStatements.get(db);
  if (!s) {
    s = {
      begin: db.prepare('BEGIN'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT stripe_request'),
      release: db.prepare('RELEASE stripe_request'),
      rollbackTo: db.prepare('ROLLBACK TO stripe_request'),
    };
    txStatements.set(db, s);
  }
  return s;
}

function queueOf(ctx: TwinContext): Queue {
  let q = queues.get(ctx);
  if (!q) {
    q = { jobs: [], scheduled: false, running: false };
    queues.set(ctx, q);
  }
  return q;
}

function schedule(ctx: TwinContext, q: Queue): void {
  if (q.scheduled || q.running) return;
  q.scheduled = true;
  setImmediate(() => {
    q.scheduled = false;
    void drain(ctx, q);
  });
}

async function drain(ctx: TwinContext, q: Queue): Promise<void> {
  q.running = true;
  const db = ctx.store.db;
  const sql = tx(ctx);
  try {
    while (q.jobs.length > 0) {
      const batch = q.jobs.splice(0);
      const done: [Job, TwinResponse][] = [];
      try {
        sql.begin.run();
        for (const job of batch) {
          try {
            done.push([job, await job.run()]);
          } catch (e) {
            job.reject(e);
          }
        }
        sql.commit.run();
      } catch (e) {
        if (db.inTransaction) sql.rollback.run();
        for (const [job] of done) job.reject(e);
        continue;
      }
      for (const [job, res] of done) job.resolve(res);
    }
  } finally {
    q.running = false;
    if (q.jobs.length > 0) schedule(ctx, q);
  }
}

function submit(ctx: TwinContext, run: () => Promise<TwinResponse>): Promise<TwinResponse> {
  const q = queueOf(ctx);
  return new Promise((resolve, reject) => {
    q.jobs.push({ run, resolve, reject });
    schedule(ctx, q);
  });
}

/** Run `fn` inside a savepoint of the batch transaction; a throw undoes only this request. */
async function runInSavepoint(ctx: TwinContext, fn: () => Promise<TwinResponse>): Promise<TwinResponse> {
  const sql = tx(ctx);
  sql.savepoint.run();
  try {
    const res = await fn();
    sql.release.run();
    return res;
  } catch (e) {
    sql.rollbackTo.run();
    sql.release.run();
    throw e;
  }
}

async function answer(handler: TwinHandler, req: TwinRequest, ctx: TwinContext, requestId: string): Promise<TwinResponse> {
  const idempotencyKey = req.method === 'POST' ? header(req, 'idempotency-key') : undefined;
  setCurrentRequest({ id: requestId, idempotencyKey: idempotencyKey ?? null });
  try {
    const params = paramsOf(req);
    const endpoint = `${req.method} ${req.path}`;
    if (idempotencyKey) {
      const replay = lookupIdempotent(ctx, idempotencyKey, endpoint, params);
      if (replay) {
        return {
          ...replay.response,
          headers: { 'idempotent-replayed': 'true', 'original-request': replay.originalRequest, 'idempotency-key': idempotencyKey },
        };
      }
    }
    return await runInSavepoint(ctx, async () => {
      let res = await handler(req, ctx);
      const paths = expandPaths(params);
      if (paths.length > 0 && res.status < 300 && res.body && typeof res.body === 'object') {
        res = { ...res, body: expandObject(ctx, res.body, paths) };
      }
      if (idempotencyKey && res.status < 500) {
        rememberIdempotent(ctx, idempotencyKey, endpoint, params, requestId, res);
        res = { ...res, headers: { ...(res.headers ?? {}), 'idempotency-key': idempotencyKey } };
      }
      return res;
    });
  } catch (e) {
    if (e instanceof StripeApiError) return e.toResponse();
    return stripeError(500, {
      type: 'api_error',
      message: `An unexpected error occurred in the Stripe twin: ${(e as Error).message}`,
    });
  } finally {
    setCurrentRequest(null);
  }
}

/** Wrap a route handler in the pipeline. */
export function stripeRoute(handler: TwinHandler): TwinHandler {
  return (req, ctx) =>
    submit(ctx, async () => {
      // Deterministic (events store it), drawn outside the request's savepoint so a rejected
      // request does not hand its id to the next one.
      const requestId = ctx.ids.nextIn('request', 'req_', 14);
      return withStripeHeaders(await answer(handler, req, ctx, requestId), requestId, req);
    });
}

/** A 200 answer with a Stripe object or envelope. */
export function ok(body: unknown): TwinResponse {
  return { status: 200, body };
}
