// Data source queries: property filters for every common type, timestamp filters, compound
// `and`/`or` (nested up to two levels, as Notion allows) and sorts by property or timestamp.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, validation } from '../wire/errors.js';
import { canonicalId, field, isObject } from '../wire/params.js';
import { peopleView } from './access.js';
import { findProperty, rawValue } from './properties.js';
import type { Page, PropertySchema, SelectOption } from './records.js';
import { plainText, type RichText } from './rich-text.js';

type Pred = (page: Page) => boolean;
const TEXT = new Set(['title', 'rich_text', 'url', 'email', 'phone_number']);
const DAY = 86_400_000;

function text(page: Page, prop: PropertySchema, schema: PropertySchema[], ctx: TwinContext): string {
  const v = rawValue(page, prop, peopleView(ctx), schema);
  return Array.isArray(v) ? plainText(v as RichText[]) : typeof v === 'string' ? v : '';
}

function textCond(get: (p: Page) => string, cond: Record<string, unknown>): Pred {
  const [op, arg] = single(cond);
  const s = String(arg ?? '');
  switch (op) {
    case 'equals':
      return (p) => get(p) === s;
    case 'does_not_equal':
      return (p) => get(p) !== s;
    case 'contains':
      return (p) => get(p).toLowerCase().includes(s.toLowerCase());
    case 'does_not_contain':
      return (p) => !get(p).toLowerCase().includes(s.toLowerCase());
    case 'starts_with':
      return (p) => get(p).toLowerCase().startsWith(s.toLowerCase());
    case 'ends_with':
      return (p) => get(p).toLowerCase().endsWith(s.toLowerCase());
    case 'is_empty':
      return (p) => get(p) === '';
    case 'is_not_empty':
      return (p) => get(p) !== '';
  }
  throw unknownCondition(op);
}

function numberCond(get: (p: Page) => number | null, cond: Record<string, unknown>): Pred {
  const [op, arg] = single(cond);
  if (op === 'is_empty') return (p) => get(p) === null;
  if (op === 'is_not_empty') return (p) => get(p) !== null;
  if (typeof arg !== 'number') throw bodyInvalid(`filter.number.${op}`, 'should be a number', arg);
  const cmp: Record<string, (a: number) => boolean> = {
    equals: (a) => a === arg,
    does_not_equal: (a) => a !== arg,
    greater_than: (a) => a > arg,
    less_than: (a) => a < arg,
    greater_than_or_equal_to: (a) => a >= arg,
    less_than_or_equal_to: (a) => a <= arg,
  };
  const f = cmp[op];
  if (!f) throw unknownCondition(op);
  return (p) => {
    const v = get(p);
    return v === null ? op === 'does_not_equal' : f(v);
  };
}

function dateCond(ctx: TwinContext, get: (p: Page) => string | null, cond: Record<string, unknown>): Pred {
  const [op, arg] = single(cond);
  if (op === 'is_empty') return (p) => get(p) === null;
  if (op === 'is_not_empty') return (p) => get(p) !== null;
  const now = ctx.clock.nowMs();
  const range: Record<string, [number, number]> = {
    past_week: [now - 7 * DAY, now],
    past_month: [now - 30 * DAY, now],
    past_year: [now - 365 * DAY, now],
    next_week: [now, now + 7 * DAY],
    next_month: [now, now + 30 * DAY],
    next_year: [now, now + 365 * DAY],
    this_week: [now - 7 * DAY, now + 7 * DAY],
  };
  const r = range[op];
  if (r)
    return (p) => {
      const v = get(p);
      if (v === null) return false;
      const t = Date.parse(v);
      return t >= r[0] && t <= r[1];
    };
  if (typeof arg !== 'string' || Number.isNaN(Date.parse(arg))) throw bodyInvalid(`filter.date.${op}`, 'should be a valid ISO 8601 date string', arg);
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(arg);
  const t = Date.parse(arg);
  const day = (x: number) => Math.floor(x / DAY);
  const cmp: Record<string, (v: number) => boolean> = {
    equals: (v) => (dateOnly ? day(v) === day(t) : v === t),
    before: (v) => (dateOnly ? day(v) < day(t) : v < t),
    after: (v) => (dateOnly ? day(v) > day(t) : v > t),
    on_or_before: (v) => (dateOnly ? day(v) <= day(t) : v <= t),
    on_or_after: (v) => (dateOnly ? day(v) >= day(t) : v >= t),
  };
  const f = cmp[op];
  if (!f) throw unknownCondition(op);
  return (p) => {
    const v = get(p);
    return v !== null && f(Date.parse(v));
  };
}

function listCond(get: (p: Page) => string[], cond: Record<string, unknown>, resolve: (x: unknown) => string | undefined): Pred {
  const [op, arg] = single(cond);
  if (op === 'is_empty') return (p) => get(p).length === 0;
  if (op === 'is_not_empty') return (p) => get(p).length > 0;
  const wanted = resolve(arg);
  if (op === 'contains') return (p) => wanted !== undefined && get(p).includes(wanted);
  if (op === 'does_not_contain') return (p) => wanted === undefined || !get(p).includes(wanted);
  throw unknownCondition(op);
}

function single(cond: Record<string, unknown>): [string, unknown] {
  const keys = Object.keys(cond);
  if (keys.length !== 1) throw validation('body failed validation: a filter condition should name exactly one operator.');
  return [keys[0]!, cond[keys[0]!]];
}

function unknownCondition(op: string) {
  return validation(`body failed validation: \`${op}\` is not a supported filter condition.`);
}

function optionByName(prop: PropertySchema, name: unknown): string | undefined {
  return (prop.config.options as SelectOption[]).find((o) => o.name === name)?.id;
}

function propertyFilter(ctx: TwinContext, schema: PropertySchema[], f: Record<string, unknown>): Pred {
  const key = field(f, 'property');
  const prop = typeof key === 'string' ? findProperty(schema, key) : undefined;
  if (!prop) throw validation(`Could not find property with name or id: ${String(key)}`);
  const condKey = Object.keys(f).find((k) => k !== 'property' && k !== 'type');
  const cond = condKey ? f[condKey] : undefined;
  if (!condKey || !isObject(cond)) throw bodyInvalid('filter', 'should have a condition', f);
  const compatible =
    condKey === prop.type ||
    (TEXT.has(condKey) && TEXT.has(prop.type)) ||
    (condKey === 'date' && (prop.type === 'created_time' || prop.type === 'last_edited_time')) ||
    (condKey === 'people' && (prop.type === 'created_by' || prop.type === 'last_edited_by'));
  if (!compatible) throw validation(`database property ${prop.type} does not match filter ${condKey}`);
  const raw = (p: Page) => rawValue(p, prop, peopleView(ctx), schema);
  switch (prop.type) {
    case 'title':
    case 'rich_text':
    case 'url':
    case 'email':
    case 'phone_number':
      return textCond((p) => text(p, prop, schema, ctx), cond);
    case 'number':
      return numberCond((p) => raw(p) as number | null, cond);
    case 'checkbox': {
      const [op, arg] = single(cond);
      if (typeof arg !== 'boolean') throw bodyInvalid(`filter.checkbox.${op}`, 'should be a boolean', arg);
      if (op === 'equals') return (p) => raw(p) === arg;
      if (op === 'does_not_equal') return (p) => raw(p) !== arg;
      throw unknownCondition(op);
    }
    case 'select':
    case 'status': {
      const [op, arg] = single(cond);
      if (op === 'is_empty') return (p) => raw(p) === null;
      if (op === 'is_not_empty') return (p) => raw(p) !== null;
      const id = optionByName(prop, arg);
      if (op === 'equals') return (p) => id !== undefined && raw(p) === id;
      if (op === 'does_not_equal') return (p) => id === undefined || raw(p) !== id;
      throw unknownCondition(op);
    }
    case 'multi_select':
      return listCond(
        (p) => raw(p) as string[],
        cond,
        (n) => optionByName(prop, n),
      );
    case 'people':
    case 'relation':
      return listCond((p) => raw(p) as string[], cond, canonicalId);
    case 'created_by':
    case 'last_edited_by':
      return listCond((p) => [String(raw(p))], cond, canonicalId);
    case 'date':
      return dateCond(ctx, (p) => (raw(p) as { start: string } | null)?.start ?? null, cond);
    case 'created_time':
    case 'last_edited_time':
      return dateCond(ctx, (p) => String(raw(p)), cond);
    case 'formula': {
      const sub = Object.keys(cond)[0];
      const inner = sub ? cond[sub] : undefined;
      if (!isObject(inner)) throw bodyInvalid('filter.formula', 'should have a condition', cond);
      const result = (p: Page) => raw(p) as Record<string, unknown>;
      if (sub === 'string') return textCond((p) => String(result(p).string ?? ''), inner);
      if (sub === 'number') return numberCond((p) => (result(p).number as number | null | undefined) ?? null, inner);
      if (sub === 'checkbox') return (p) => result(p).boolean === field(inner, 'equals');
      if (sub === 'date') return dateCond(ctx, (p) => (result(p).date as { start: string } | undefined)?.start ?? null, inner);
      throw unknownCondition(String(sub));
    }
  }
  throw validation(`Filtering on ${prop.type} properties is not supported.`);
}

/** A predicate for a query's filter (undefined: every page). */
export function compileFilter(ctx: TwinContext, schema: PropertySchema[], f: unknown, depth = 0): Pred {
  if (!isObject(f)) throw bodyInvalid('filter', 'should be an object', f);
  const and = field(f, 'and');
  const or = field(f, 'or');
  if (and !== undefined || or !== undefined) {
    if (depth >= 3) throw validation('body failed validation: body.filter compound filters can be nested at most two levels deep.');
    const list = and ?? or;
    if (!Array.isArray(list)) throw bodyInvalid(and !== undefined ? 'filter.and' : 'filter.or', 'should be an array', list);
    if (list.length > 100) throw validation('body failed validation: body.filter should have at most 100 conditions.');
    const preds = list.map((x) => compileFilter(ctx, schema, x, depth + 1));
    return and !== undefined ? (p) => preds.every((q) => q(p)) : (p) => preds.some((q) => q(p));
  }
  const ts = field(f, 'timestamp');
  if (ts === 'created_time' || ts === 'last_edited_time') {
    const cond = field(f, ts);
    if (!isObject(cond)) throw bodyInvalid(`filter.${ts}`, 'should be defined', cond);
    return dateCond(ctx, (p) => p[ts], cond);
  }
  return propertyFilter(ctx, schema, f);
}

type Cmp = (a: Page, b: Page) => number;

function sortKey(ctx: TwinContext, schema: PropertySchema[], prop: PropertySchema, p: Page): string | number | null {
  const v = rawValue(p, prop, peopleView(ctx), schema);
  switch (prop.type) {
    case 'title':
    case 'rich_text':
      return plainText(v as RichText[]) || null;
    case 'number':
      return v as number | null;
    case 'checkbox':
      return v ? 1 : 0;
    case 'select':
    case 'status': {
      const idx = (prop.config.options as SelectOption[]).findIndex((o) => o.id === v);
      return idx === -1 ? null : idx;
    }
    case 'date':
      return (v as { start: string } | null)?.start ?? null;
    case 'formula': {
      const r = v as Record<string, unknown>;
      const x = r[String(r.type)];
      return typeof x === 'number' || typeof x === 'string' ? x : null;
    }
    default:
      return typeof v === 'string' || typeof v === 'number' ? v : Array.isArray(v) ? v.length : null;
  }
}

/** A comparator for `sorts` (empty values last, as Notion sorts them). */
export function compileSorts(ctx: TwinContext, schema: PropertySchema[], sorts: unknown): Cmp | undefined {
  if (sorts === undefined) return undefined;
  if (!Array.isArray(sorts)) throw bodyInvalid('sorts', 'should be an array', sorts);
  if (sorts.length > 100) throw validation('body failed validation: body.sorts should have at most 100 items.');
  const cmps: Cmp[] = sorts.map((s, i) => {
    const dir = field(s, 'direction');
    if (dir !== 'ascending' && dir !== 'descending') throw bodyInvalid(`sorts[${i}].direction`, 'should be `"ascending"` or `"descending"`', dir);
    const sign = dir === 'ascending' ? 1 : -1;
    const ts = field(s, 'timestamp');
    if (ts === 'created_time' || ts === 'last_edited_time') return (a, b) => sign * a[ts].localeCompare(b[ts]);
    const key = field(s, 'property');
    const prop = typeof key === 'string' ? findProperty(schema, key) : undefined;
    if (!prop) throw validation(`Could not find sort property with name or id: ${String(key)}`);
    // Each page's key is worked out once per query, not once per comparison.
    const keys = new Map<string, string | number | null>();
    const keyOf = (p: Page) => {
      if (!keys.has(p.id)) keys.set(p.id, sortKey(ctx, schema, prop, p));
      return keys.get(p.id)!;
    };
    return (a, b) => {
      const x = keyOf(a);
      const y = keyOf(b);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
    };
  });
  return (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}
