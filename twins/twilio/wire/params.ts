// Reading Twilio's parameters: PascalCase names from the form body or the query string, a repeated
// name (`MediaUrl`, `StatusCallbackEvent`) as a list; E.164 numbers; Twilio's dates.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { badParam } from './errors.js';

export function param(req: TwinRequest, name: string): unknown {
  return ownValue(req.body, name) ?? ownValue(req.query, name);
}

/** One string value (the first of a repeated name); undefined when absent. */
export function str(req: TwinRequest, name: string): string | undefined {
  const v = param(req, name);
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
  if (typeof v === 'object') return undefined;
  return String(v);
}

/**
 * Every value of a repeated name (`MediaUrl=a&MediaUrl=b`, as the SDK sends lists) from the form
 * body, else the query string. The runtime's parsed body keeps the last of equal keys, so lists
 * are read from the raw text (already within the runtime's size and parameter limits).
 */
export function list(req: TwinRequest, name: string, splitSpaces = false): string[] {
  const fromBody = req.bodyKind === 'form' ? repeated(req, 'body').getAll(name) : [];
  let values = fromBody.length ? fromBody : repeated(req, 'query').getAll(name);
  if (values.length === 0 && req.bodyKind === 'json') {
    const v = ownValue(req.body, name);
    values = (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).filter((x) => typeof x !== 'object').map(String);
  }
  return splitSpaces ? values.flatMap((x) => x.split(/\s+/)).filter(Boolean) : values;
}

const parsedRaw = new WeakMap<TwinRequest, { body?: URLSearchParams; query?: URLSearchParams }>();

function repeated(req: TwinRequest, part: 'body' | 'query'): URLSearchParams {
  let entry = parsedRaw.get(req);
  if (!entry) parsedRaw.set(req, (entry = {}));
  return (entry[part] ??= new URLSearchParams(part === 'body' ? req.rawBody.toString('utf8') : req.queryString));
}

export function bool(req: TwinRequest, name: string): boolean | undefined {
  const v = str(req, name);
  if (v === undefined) return undefined;
  return v.toLowerCase() === 'true';
}

export function int(req: TwinRequest, name: string, fallback: number, min: number, max: number, code = 20001): number {
  const v = str(req, name);
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw badParam(code, `Invalid ${name}: ${v}`);
  return n;
}

export const E164 = /^\+[1-9]\d{1,14}$/;

/** An http(s) URL a callback may be sent to, or a 21609-style refusal. */
export function callbackUrl(req: TwinRequest, name: string, code = 21609): string | undefined {
  const v = str(req, name);
  if (v === undefined || v === '') return undefined;
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return v;
  } catch {
    // fall through
  }
  throw badParam(code, `The ${name} URL ${v} is not a valid URL.`);
}
