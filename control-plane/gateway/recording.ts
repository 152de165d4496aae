// What the gateway keeps of one request: the contract's log fields plus the request and response
// bodies (capped), their content types and the request headers with credentials removed.

import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestLogRow } from '../store/request-logs.js';

export const BODY_CAP_BYTES = 64 * 1024;

/** Headers that carry credentials or secrets; never stored. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-twin-admin-secret',
  'stripe-signature',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-slack-signature',
]);

export function headersWithoutCredentials(headers: IncomingHttpHeaders): string {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || CREDENTIAL_HEADERS.has(k)) continue;
    out[k] = v;
  }
  return JSON.stringify(out);
}

/** The body as text, cut at the cap (on a byte boundary; a split character is dropped). */
export function capBody(body: Buffer | undefined): { text: string | null; truncated: 0 | 1 } {
  if (!body || body.length === 0) return { text: null, truncated: 0 };
  if (body.length <= BODY_CAP_BYTES) return { text: body.toString('utf8'), truncated: 0 };
  return { text: body.subarray(0, BODY_CAP_BYTES).toString('utf8').replace(/\uFFFD$/, ''), truncated: 1 };
}

export interface RecordedExchange {
  organizationId: string;
  environmentId: string;
  twinId: string;
  twinSlug: string;
  method: string;
  path: string;
  queryString: string;
  statusCode: number;
  durationMs: number;
  occurredAt: string;
  requestHeaders: IncomingHttpHeaders;
  requestBody?: Buffer;
  responseContentType?: string;
  responseBody?: Buffer;
}

export function toLogRow(x: RecordedExchange): RequestLogRow {
  const req = capBody(x.requestBody);
  const res = capBody(x.responseBody);
  const reqType = x.requestHeaders['content-type'];
  return {
    id: randomUUID(),
    organization_id: x.organizationId,
    environment_id: x.environmentId,
    environment_twin_id: x.twinId,
    twin_slug: x.twinSlug,
    actor: 'agent',
    method: x.method,
    path: x.path,
    query_string: x.queryString,
    status_code: x.statusCode,
    duration_ms: Math.max(0, Math.round(x.durationMs)),
    occurred_at: x.occurredAt,
    request_headers: headersWithoutCredentials(x.requestHeaders),
    request_content_type: reqType ?? null,
    request_body: req.text,
    request_body_truncated: req.truncated,
    response_content_type: x.responseContentType ?? null,
    response_body: res.text,
    response_body_truncated: res.truncated,
  };
}
