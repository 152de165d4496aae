// Notion's protocol around every request: `Authorization: Bearer <token>` (401 `unauthorized`),
// the `Notion-Version` header (wire/version.ts), a request id in the `x-notion-request-id` header
// and in every JSON object answered (`request_id`), JSON bodies with Notion's content type.

import type { RouteCall, RunRoute, TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { errorResponse, NotionError } from './errors.js';
import { admit, RateLimited } from './rate-limit.js';
import { apiVersion } from './version.js';

const ids = new WeakMap<TwinRequest, string>();

/** The request's id (a UUID, minted once per request). */
export function requestId(req: TwinRequest, ctx: TwinContext): string {
  let id = ids.get(req);
  if (!id) {
    const h = ctx.ids.bytes(16).toString('hex');
    id = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    ids.set(req, id);
  }
  return id;
}

export function isTwinHelper(req: TwinRequest): boolean {
  return req.path.startsWith('/v1/twin/');
}

export function authenticateNotion(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const header = req.headers.authorization;
  const token = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  if (token !== ctx.apiKey) return finish(errorResponse(new NotionError(401, 'unauthorized', 'API token is invalid.'), requestId(req, ctx)), req, ctx);
  if (!isTwinHelper(req)) {
    try {
      apiVersion(req);
    } catch (e) {
      return finish(errorResponse(e as NotionError, requestId(req, ctx)), req, ctx);
    }
  }
  return undefined;
}

function finish(res: TwinResponse, req: TwinRequest, ctx: TwinContext): TwinResponse {
  const id = requestId(req, ctx);
  const body = res.body;
  const withId =
    body && typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body) && !('request_id' in body)
      ? { ...(body as Record<string, unknown>), request_id: id }
      : body;
  return { ...res, headers: { 'content-type': 'application/json; charset=utf-8', ...(res.headers ?? {}), 'x-notion-request-id': id }, body: withId };
}

export async function aroundNotion(call: RouteCall, run: RunRoute): Promise<TwinResponse> {
  const { req, ctx } = call;
  // A body that is not JSON (or not a JSON object) is refused before any route reads it.
  const multipart = /^multipart\/form-data\b/i.test(String(req.headers['content-type'] ?? ''));
  if (req.rawBody.length > 0 && req.bodyKind !== 'json' && !multipart)
    return finish(errorResponse(new NotionError(400, 'invalid_json', 'Error parsing JSON body.'), requestId(req, ctx)), req, ctx);
  if (req.bodyKind === 'json' && !req.rawBody.toString('utf8').trimStart().startsWith('{')) {
    return finish(errorResponse(new NotionError(400, 'validation_error', 'body failed validation: body should be an object.'), requestId(req, ctx)), req, ctx);
  }
  if (!call.route.unmetered) {
    try {
      admit(ctx);
    } catch (e) {
      if (!(e instanceof RateLimited)) throw e;
      const res = errorResponse(e, requestId(req, ctx));
      return finish({ ...res, headers: { ...res.headers, 'retry-after': String(e.retryAfterSeconds) } }, req, ctx);
    }
  }
  return finish(await run(), req, ctx);
}

export function renderNotionError(e: unknown, req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  return e instanceof NotionError ? errorResponse(e, requestId(req, ctx)) : undefined;
}
