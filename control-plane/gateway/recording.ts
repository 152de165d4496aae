// What the gateway keeps of one request: the contract's log fields plus the request and response
// bodies (capped), their content types and the request headers with credentials removed; provider
// credentials in the query string and the request body (each twin's own list) are redacted.

import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestLogInput } from '../store/request-logs.js';
import type { RedactionRules } from '../../twin-runtime/contract.js';
import type { FidelityLevel } from '../../twin-runtime/fidelity.js';

export const BODY_CAP_BYTES = 64 * 1024;

/**
 * `status_code` of a request the gateway logged before sending it to the twin and whose answer is
 * not (yet) logged: in flight, or cut off by a crash. The API shows it as `status_code: null`.
 */
export const UNANSWERED = 0;

/** What a redacted value is replaced with (the key stays, so tests can still see it was sent). */
export const REDACTED = '[REDACTED]';
const REDACTED_FORM = encodeURIComponent(REDACTED);

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
  for (const k in headers) {
    const v = headers[k];
    if (v === undefined || CREDENTIAL_HEADERS.has(k)) continue;
    out[k] = v;
  }
  return JSON.stringify(out);
}

/**
 * The body's bytes, cut at the cap on a character boundary (a UTF-8 character split by the cap is
 * dropped). Kept as bytes: they are decoded once, where the row is stored.
 */
export function capBody(body: Buffer | undefined): { bytes: Buffer | null; truncated: 0 | 1 } {
  if (!body || body.length === 0) return { bytes: null, truncated: 0 };
  if (body.length <= BODY_CAP_BYTES) return { bytes: body, truncated: 0 };
  return { bytes: body.subarray(0, utf8Boundary(body, BODY_CAP_BYTES)), truncated: 1 };
}

/** `end`, or the start of the character `end` would split. */
function utf8Boundary(bytes: Buffer, end: number): number {
  let lead = end - 1;
  while (lead > 0 && lead > end - 4 && (bytes[lead]! & 0xc0) === 0x80) lead--;
  const first = bytes[lead]!;
  const width = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return lead + width > end ? lead : end;
}

function decodeFormKey(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** `a=1&token=x` → `a=1&token=%5BREDACTED%5D` for the names listed (keys compared decoded). */
export function redactForm(text: string, names: ReadonlySet<string>): string {
  if (names.size === 0 || text === '') return text;
  let changed = false;
  const parts = text.split('&');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    const key = decodeFormKey(eq === -1 ? part : part.slice(0, eq));
    if (names.has(key) && part.slice(eq + 1) !== REDACTED_FORM) {
      parts[i] = `${eq === -1 ? part : part.slice(0, eq)}=${REDACTED_FORM}`;
      changed = true;
    }
  }
  return changed ? parts.join('&') : text;
}

/** Every property with a listed name, at any depth of a JSON document, gets the marker. */
export function redactJson(text: string, names: ReadonlySet<string>): string {
  if (names.size === 0) return text;
  // Cheap test first: most bodies name none of the keys.
  let mentioned = false;
  for (const n of names) if (text.includes(`"${n}"`)) mentioned = true;
  if (!mentioned) return text;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return text;
  }
  let changed = false;
  const walk = (v: unknown, depth: number): void => {
    if (depth > 64 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const item of v) walk(item, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (names.has(k) && typeof o[k] !== 'object') {
        o[k] = REDACTED;
        changed = true;
      } else walk(o[k], depth + 1);
    }
  };
  walk(doc, 0);
  return changed ? JSON.stringify(doc) : text;
}

/** A twin's rules as sets, built once per route. */
export interface CompiledRedaction {
  query: ReadonlySet<string>;
  body: ReadonlySet<string>;
}

export function compileRedaction(rules: RedactionRules | undefined): CompiledRedaction {
  return { query: new Set(rules?.query ?? []), body: new Set(rules?.body ?? []) };
}

const NO_REDACTION = compileRedaction(undefined);

function redactBody(text: string | null, contentType: string | undefined, rules: CompiledRedaction): string | null {
  if (text === null || rules.body.size === 0) return text;
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json')) return redactJson(text, rules.body);
  if (ct.includes('x-www-form-urlencoded') || ct === '') return redactForm(text, rules.body);
  return text;
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
  redaction?: CompiledRedaction;
  /** The twin's Twin-Fidelity header (none: an answer of the gateway's own). */
  fidelity?: FidelityLevel;
  /** The twin's Twin-Fault header: the injected fault that made, delayed or dropped the answer. */
  fault?: string;
}

/** A log row as the gateway captures it: the bodies still as the bytes that crossed the wire. */
export type CapturedRow = RequestLogInput;

export function toLogRow(x: RecordedExchange): CapturedRow {
  const rules = x.redaction ?? NO_REDACTION;
  const req = capBody(x.requestBody);
  const res = capBody(x.responseBody);
  const reqType = x.requestHeaders['content-type'];
  // Only a twin with body rules needs the request body as text (to find its credentials).
  const requestBody = rules.body.size > 0 && req.bytes ? redactBody(req.bytes.toString('utf8'), reqType, rules) : req.bytes;
  const requestBytes = requestBody === null ? 0 : typeof requestBody === 'string' ? Buffer.byteLength(requestBody) : requestBody.length;
  return {
    id: randomUUID(),
    organization_id: x.organizationId,
    environment_id: x.environmentId,
    environment_twin_id: x.twinId,
    twin_slug: x.twinSlug,
    actor: 'agent',
    method: x.method,
    path: x.path,
    query_string: redactForm(x.queryString, rules.query),
    status_code: x.statusCode,
    duration_ms: Math.max(0, Math.round(x.durationMs)),
    occurred_at: x.occurredAt,
    request_headers: headersWithoutCredentials(x.requestHeaders),
    request_content_type: reqType ?? null,
    request_body: requestBody,
    request_body_truncated: req.truncated,
    response_content_type: x.responseContentType ?? null,
    response_body: res.bytes,
    response_body_truncated: res.truncated,
    body_bytes: requestBytes + (res.bytes?.length ?? 0),
    fidelity: x.fidelity ?? null,
    fault: x.fault ?? null,
  };
}

/**
 * The answer's row for a request logged before it was forwarded (`opened`, UNANSWERED): the same
 * row (id, arrival time, request) with the answer, marked as completing it.
 */
export function answeredRow(
  opened: CapturedRow,
  x: Pick<RecordedExchange, 'statusCode' | 'durationMs' | 'responseContentType' | 'responseBody' | 'fidelity' | 'fault'>,
): CapturedRow {
  const res = capBody(x.responseBody);
  return {
    ...opened,
    status_code: x.statusCode,
    duration_ms: Math.max(0, Math.round(x.durationMs)),
    response_content_type: x.responseContentType ?? null,
    response_body: res.bytes,
    response_body_truncated: res.truncated,
    body_bytes: (opened.body_bytes ?? 0) + (res.bytes?.length ?? 0),
    completes: 1,
    fidelity: x.fidelity ?? null,
    fault: x.fault ?? null,
  };
}
