// Reading Stripe form parameters: `readParams` (the one input path of wire/input.ts: the spec's
// operation table and validator, unknown parameters refused as `parameter_unknown`), typed readers
// that answer with Stripe's wording for a bad value, and the metadata rules.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { assignSafely, ownValue } from '../../../twin-runtime/safe-input.js';
import { invalidRequest, missingParam } from './errors.js';
import { readOperationParams } from './input.js';
import type { MetadataPatch } from '../model/objects.js';

export type Params = Record<string, unknown>;

/** Allowed parameters: `true` accepts any value; a nested spec checks an object's (or each array element's) keys. */
export interface ParamSpec {
  [name: string]: true | ParamSpec;
}

/** The request's parameters: query for GET/DELETE, query + form body for POST (as Stripe accepts both). */
export function paramsOf(req: TwinRequest): Params {
  return assignSafely({}, req.query, req.method === 'GET' ? undefined : req.body);
}

/** Reject the first parameter `spec` does not name. `expand` is accepted everywhere. */
export function rejectUnknown(params: Params, spec: ParamSpec, prefix = ''): void {
  for (const [key, value] of Object.entries(params)) {
    const name = prefix ? `${prefix}[${key}]` : key;
    const rule = (ownValue(spec, key) as ParamSpec[string] | undefined) ?? (prefix === '' && key === 'expand' ? true : undefined);
    if (rule === undefined) {
      throw invalidRequest(`Received unknown parameter: ${name}`, name, 'parameter_unknown');
    }
    if (rule === true || value === '' || value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        if (v && typeof v === 'object') rejectUnknown(v as Params, rule, `${name}[${i}]`);
      });
    } else if (typeof value === 'object') {
      rejectUnknown(value as Params, rule, name);
    } else {
      throw invalidRequest('Invalid object', name);
    }
  }
}

/**
 * The request's parameters, read through Stripe's one input path (wire/input.ts): checked and
 * coerced against the route's operation in the spec table, unknown ones refused. A twin-only route
 * (no Stripe operation: the twin's own test helpers) names what it takes in `twinOnly`.
 */
export function readParams(req: TwinRequest, twinOnly?: ParamSpec): Params {
  if (twinOnly) {
    const p = paramsOf(req);
    rejectUnknown(p, twinOnly);
    return p;
  }
  return readOperationParams(req);
}

function paramName(prefix: string | undefined, key: string): string {
  return prefix ? `${prefix}[${key}]` : key;
}

export function has(p: Params, key: string): boolean {
  return p[key] !== undefined;
}

export function str(p: Params, key: string, prefix?: string): string | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalidRequest(`Invalid string: ${JSON.stringify(v)}`, paramName(prefix, key), 'parameter_invalid_string');
  return v;
}

export function requiredStr(p: Params, key: string, prefix?: string): string {
  const v = str(p, key, prefix);
  if (v === undefined || v === '') throw missingParam(paramName(prefix, key));
  return v;
}

/** A string that an empty value unsets (`description=` → null), as Stripe's "emptyable" params. */
export function emptyableStr(p: Params, key: string, prefix?: string): string | null | undefined {
  const v = str(p, key, prefix);
  if (v === undefined) return undefined;
  return v === '' ? null : v;
}

export function int(p: Params, key: string, prefix?: string): number | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw invalidRequest(`Invalid integer: ${typeof v === 'string' ? v : JSON.stringify(v)}`, paramName(prefix, key), 'parameter_invalid_integer');
  }
  return Number(v);
}

export function requiredInt(p: Params, key: string, prefix?: string): number {
  const v = int(p, key, prefix);
  if (v === undefined) throw missingParam(paramName(prefix, key));
  return v;
}

/** Decimal strings (`unit_amount_decimal`). */
export function decimal(p: Params, key: string, prefix?: string): string | undefined {
  const raw = p[key];
  if (raw === undefined) return undefined;
  // The spec types some decimals as numbers, and the validator has coerced those.
  const v = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
  if (typeof v !== 'string' || !/^-?\d+(\.\d+)?$/.test(v)) {
    throw invalidRequest(`Invalid decimal: ${String(v)}`, paramName(prefix, key));
  }
  return v;
}

export function bool(p: Params, key: string, prefix?: string): boolean | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw invalidRequest(`Invalid boolean: ${String(v)}`, paramName(prefix, key));
}

export function oneOf<T extends string>(p: Params, key: string, values: readonly T[], prefix?: string): T | undefined {
  const v = str(p, key, prefix);
  if (v === undefined) return undefined;
  if (!(values as readonly string[]).includes(v)) {
    const list = values.length > 1 ? `${values.slice(0, -1).join(', ')}, or ${values[values.length - 1]}` : values[0];
    throw invalidRequest(`Invalid ${paramName(prefix, key)}: must be one of ${list}`, paramName(prefix, key));
  }
  return v as T;
}

export function obj(p: Params, key: string, prefix?: string): Params | undefined {
  const v = p[key];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw invalidRequest('Invalid object', paramName(prefix, key));
  }
  return v as Params;
}

export function strArray(p: Params, key: string, prefix?: string): string[] | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (v === '') return [];
  const arr = Array.isArray(v) ? v : typeof v === 'object' && v !== null ? Object.values(v) : [v];
  if (!arr.every((x) => typeof x === 'string')) throw invalidRequest(`Invalid array`, paramName(prefix, key));
  return arr as string[];
}

export function objArray(p: Params, key: string, prefix?: string): Params[] | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (v === '') return [];
  const arr = Array.isArray(v) ? v : typeof v === 'object' && v !== null ? Object.values(v) : undefined;
  if (!arr?.every((x) => x && typeof x === 'object')) throw invalidRequest(`Invalid array`, paramName(prefix, key));
  return arr as Params[];
}

/** `expand[]` paths of the request (also accepts a single `expand=a`). */
export function expandPaths(p: Params): string[] {
  return strArray(p, 'expand') ?? [];
}

/** Three-letter lower-case ISO currency. */
/** ISO 4217 currency codes as the platform's ICU knows them: `zzz` is no currency. */
const ISO_CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()));

export function currency(p: Params, key = 'currency', prefix?: string): string | undefined {
  const v = str(p, key, prefix);
  if (v === undefined) return undefined;
  const c = v.toLowerCase();
  if (!/^[a-z]{3}$/.test(c) || !ISO_CURRENCIES.has(c))
    throw invalidRequest(`Invalid currency: ${v}. Stripe currently supports these currencies: usd, eur, gbp, …`, paramName(prefix, key));
  return c;
}

export function requiredCurrency(p: Params, key = 'currency', prefix?: string): string {
  const c = currency(p, key, prefix);
  if (c === undefined) throw missingParam(paramName(prefix, key));
  return c;
}

export type { Metadata, MetadataPatch } from '../model/objects.js';

const METADATA_KEY_MAX = 40;
const METADATA_VALUE_MAX = 500;

/**
 * `metadata` with Stripe's per-key rules: keys of up to 40 characters (no square brackets, not
 * empty), values up to 500 characters. How many keys the result may hold is the model's rule
 * (`applyMetadata` in model/objects.ts).
 */
export function readMetadata(p: Params): MetadataPatch | undefined {
  const v = p.metadata;
  if (v === undefined) return undefined;
  if (v === '' || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw invalidRequest('Invalid metadata: metadata must be a set of key-value pairs', 'metadata');
  }
  const out: Record<string, string | null> = {};
  for (const [key, raw] of Object.entries(v as Params)) {
    const param = `metadata[${key}]`;
    if (key.length > METADATA_KEY_MAX) {
      throw invalidRequest(
        `Metadata keys can have up to ${METADATA_KEY_MAX} characters, but you passed in a key that is ${key.length} characters. Invalid key: '${key}'`,
        param,
      );
    }
    if (key.length === 0 || /[[\]]/.test(key)) {
      throw invalidRequest(`Metadata keys cannot be empty or contain '[' or ']'. Invalid key: '${key}'`, param);
    }
    if (raw !== null && typeof raw === 'object') {
      throw invalidRequest(`Invalid value for metadata key '${key}': metadata values must be strings.`, param);
    }
    const value = raw === null || raw === undefined ? '' : String(raw);
    if (value.length > METADATA_VALUE_MAX) {
      throw invalidRequest(
        `Metadata values can have up to ${METADATA_VALUE_MAX} characters, but you passed in a value that is ${value.length} characters. Invalid value: '${value.slice(0, 40)}…'`,
        param,
      );
    }
    out[key] = value === '' ? null : value;
  }
  return out;
}
