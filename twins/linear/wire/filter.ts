// Linear's filters (`IssueFilter`, `UserFilter`…): comparators (`eq`, `neq`, `in`, `nin`, `lt`…
// `gte`, `null`, `contains`, `startsWith`… and their `IgnoreCase` forms), relation filters that nest
// (`state: {type: {eq: "started"}}`, `assignee: {isMe: {eq: true}}`), collection filters
// (`labels: {some: {name: {eq: "Bug"}}}`, `every`, `length`, or a plain filter meaning `some`),
// and `and`/`or` lists. Dates compare as instants; a duration (`-P2W`) counts from the clock.

import { ownValue } from '../../../twin-runtime/safe-input.js';
import { invalidInput } from './errors.js';
import type { Rec } from './types.js';

/** How the filter reads a field of a record of a GraphQL type (resolvers included). */
export interface FieldReader {
  /** `object` for to-one relations, `list` for collections, `scalar` otherwise; undefined when the type has no such field. */
  kind(typeName: string, field: string): { kind: 'scalar' | 'object' | 'list'; target: string } | undefined;
  read(typeName: string, rec: Rec, field: string): unknown;
  now(): number;
}

const DURATION = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** A comparable value: instants for dates and durations, else the value itself. */
function comparable(v: unknown, now: number): unknown {
  if (typeof v !== 'string') return v;
  const d = DURATION.exec(v);
  if (d && v !== 'P') {
    const [y, mo, w, day, h, mi, s] = d.slice(2).map((x) => Number(x ?? 0));
    const ms = ((((y! * 365 + mo! * 30 + w! * 7 + day!) * 24 + h!) * 60 + mi!) * 60 + s!) * 1000;
    return now + (d[1] ? -ms : ms);
  }
  if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) return Date.parse(v);
  return v;
}

function lower(v: unknown): string {
  return String(v ?? '').toLowerCase();
}

/** One comparator object against one value. */
export function compare(comparator: Rec, value: unknown, now: number): boolean {
  for (const [op, raw] of Object.entries(comparator)) {
    if (raw === undefined) continue;
    const a = comparable(value, now);
    const b = comparable(raw, now);
    let ok: boolean;
    switch (op) {
      case 'eq':
        ok = a === b || (value === null && raw === null);
        break;
      case 'neq':
        ok = a !== b;
        break;
      case 'in':
        ok = Array.isArray(raw) && raw.some((x) => comparable(x, now) === a);
        break;
      case 'nin':
        ok = Array.isArray(raw) && !raw.some((x) => comparable(x, now) === a);
        break;
      case 'lt':
        ok = value !== null && (a as number) < (b as number);
        break;
      case 'lte':
        ok = value !== null && (a as number) <= (b as number);
        break;
      case 'gt':
        ok = value !== null && (a as number) > (b as number);
        break;
      case 'gte':
        ok = value !== null && (a as number) >= (b as number);
        break;
      case 'null':
        ok = raw ? value === null || value === undefined : value !== null && value !== undefined;
        break;
      case 'eqIgnoreCase':
        ok = lower(value) === lower(raw);
        break;
      case 'neqIgnoreCase':
        ok = lower(value) !== lower(raw);
        break;
      case 'contains':
        ok = String(value ?? '').includes(String(raw));
        break;
      case 'containsIgnoreCase':
      case 'containsIgnoreCaseAndAccent':
        ok = lower(value).includes(lower(raw));
        break;
      case 'notContains':
        ok = !String(value ?? '').includes(String(raw));
        break;
      case 'notContainsIgnoreCase':
        ok = !lower(value).includes(lower(raw));
        break;
      case 'startsWith':
        ok = String(value ?? '').startsWith(String(raw));
        break;
      case 'startsWithIgnoreCase':
        ok = lower(value).startsWith(lower(raw));
        break;
      case 'notStartsWith':
        ok = !String(value ?? '').startsWith(String(raw));
        break;
      case 'endsWith':
        ok = String(value ?? '').endsWith(String(raw));
        break;
      case 'notEndsWith':
        ok = !String(value ?? '').endsWith(String(raw));
        break;
      default:
        throw invalidInput(`Unsupported comparator ${op}`);
    }
    if (!ok) return false;
  }
  return true;
}

/** Whether `rec` (of GraphQL type `typeName`) passes `filter`. */
export function matches(filter: Rec, rec: Rec, typeName: string, reader: FieldReader, depth = 0): boolean {
  if (depth > 12) throw invalidInput('Filter is nested too deeply');
  for (const key of Object.keys(filter)) {
    const sub = ownValue(filter, key) as Rec | Rec[] | undefined | null;
    if (sub === undefined || sub === null) continue;
    if (key === 'and' || key === 'or') {
      const list = Array.isArray(sub) ? sub : [];
      const results = list.map((f) => matches(f, rec, typeName, reader, depth + 1));
      if (key === 'and' ? !results.every(Boolean) : !results.some(Boolean)) return false;
      continue;
    }
    const field = reader.kind(typeName, key);
    if (!field) throw invalidInput(`Unknown filter field ${key}`);
    const value = reader.read(typeName, rec, key);
    const f = sub as Rec;
    if (field.kind === 'scalar') {
      if (!compare(f, value, reader.now())) return false;
    } else if (field.kind === 'object') {
      const related = value as Rec | null;
      for (const [op, v] of Object.entries(f)) {
        if (op === 'null') {
          if (v ? related !== null : related === null) return false;
        } else if (related === null || !matches({ [op]: v }, related, field.target, reader, depth + 1)) return false;
      }
    } else {
      const items = (value as Rec[]) ?? [];
      for (const [op, v] of Object.entries(f)) {
        if (v === undefined || v === null) continue;
        if (op === 'some') {
          if (!items.some((i) => matches(v as Rec, i, field.target, reader, depth + 1))) return false;
        } else if (op === 'every') {
          if (!items.every((i) => matches(v as Rec, i, field.target, reader, depth + 1))) return false;
        } else if (op === 'length') {
          if (!compare(v as Rec, items.length, reader.now())) return false;
        } else if (!items.some((i) => matches({ [op]: v }, i, field.target, reader, depth + 1))) return false;
      }
    }
  }
  return true;
}
