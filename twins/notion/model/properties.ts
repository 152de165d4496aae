// Data source property schemas and page property values of every common type: title, rich_text,
// number, select, multi_select, status, date, people, checkbox, url, email, phone_number,
// relation, formula (read-only, evaluated), created_time, last_edited_time, created_by,
// last_edited_by. Values are stored by property id; views answer Notion's shapes.

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, validation } from '../wire/errors.js';
import { bodyId, field, isObject } from '../wire/params.js';
import { attachedFile } from './file-uploads.js';
import { checkFormula, formulaResult, type FormulaValue } from './formula.js';
import type { DataSource, Page, PropertySchema, SelectOption } from './records.js';
import { COLORS, plainText, richText, type MentionNames, type RichText } from './rich-text.js';

export const PROPERTY_TYPES = [
  'title',
  'rich_text',
  'number',
  'select',
  'multi_select',
  'status',
  'date',
  'people',
  'checkbox',
  'url',
  'email',
  'phone_number',
  'relation',
  'formula',
  'created_time',
  'last_edited_time',
  'created_by',
  'last_edited_by',
  'files',
] as const;
const READ_ONLY = new Set(['formula', 'created_time', 'last_edited_time', 'created_by', 'last_edited_by']);
const NUMBER_FORMATS = ['number', 'number_with_commas', 'percent', 'dollar', 'euro', 'pound', 'yen', 'rupee', 'won', 'yuan'];

/** Notion's short property ids (`%3AUPp`-like): four URL-safe characters from the name and a counter. */
function propertyId(ctx: TwinContext, name: string): string {
  const h = createHash('sha256')
    .update(`${name}:${ctx.ids.sequence('property-id')}`)
    .digest('base64url');
  return encodeURIComponent(h.slice(0, 4));
}

function optionId(ctx: TwinContext): string {
  return ctx.ids.token(8);
}

function options(ctx: TwinContext, raw: unknown, path: string): SelectOption[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw bodyInvalid(path, 'should be an array', raw);
  const seen = new Set<string>();
  return raw.map((o, i) => {
    const name = field(o, 'name');
    if (typeof name !== 'string' || name === '' || name.includes(','))
      throw bodyInvalid(`${path}[${i}].name`, 'should be a non-empty string without commas', name);
    if (seen.has(name)) throw validation(`Duplicate option name: ${name}`);
    seen.add(name);
    const color = field(o, 'color');
    return { id: optionId(ctx), name, color: typeof color === 'string' && COLORS.includes(color) ? color : 'default', description: null };
  });
}

const DEFAULT_STATUS = [
  { name: 'Not started', color: 'default', group: 'To-do' },
  { name: 'In progress', color: 'blue', group: 'In progress' },
  { name: 'Done', color: 'green', group: 'Complete' },
];

/** The configuration of one property type from a schema request (`{select: {options}}`…). */
function config(ctx: TwinContext, type: string, raw: unknown, path: string, resolveDataSource: (id: string) => DataSource): Record<string, unknown> {
  switch (type) {
    case 'number': {
      const format = field(raw, 'format') ?? 'number';
      if (typeof format !== 'string' || !NUMBER_FORMATS.includes(format))
        throw bodyInvalid(`${path}.number.format`, `should be one of ${NUMBER_FORMATS.map((f) => `"${f}"`).join(', ')}`, format);
      return { format };
    }
    case 'select':
    case 'multi_select':
      return { options: options(ctx, field(raw, 'options'), `${path}.${type}.options`) };
    case 'status': {
      const opts = DEFAULT_STATUS.map((s) => ({ id: optionId(ctx), name: s.name, color: s.color, description: null }));
      const groups = ['To-do', 'In progress', 'Complete'].map((g, i) => ({
        id: optionId(ctx),
        name: g,
        color: ['gray', 'blue', 'green'][i]!,
        option_ids: opts.filter((_, j) => DEFAULT_STATUS[j]!.group === g).map((o) => o.id),
      }));
      return { options: opts, groups };
    }
    case 'relation': {
      const target = field(raw, 'data_source_id') ?? field(raw, 'database_id');
      const ds = resolveDataSource(bodyId(target, `${path}.relation.data_source_id`));
      return { data_source_id: ds.id, database_id: ds.database_id, type: 'single_property', single_property: {} };
    }
    case 'formula': {
      const expression = field(raw, 'expression');
      if (typeof expression !== 'string') throw bodyInvalid(`${path}.formula.expression`, 'should be defined', expression);
      try {
        checkFormula(expression);
      } catch (e) {
        throw validation(`Formula is invalid: ${(e as Error).message}.`);
      }
      return { expression };
    }
    default:
      return {};
  }
}

/** The type named by a schema entry (`{type: "select", select: {…}}` or just `{select: {…}}`). */
function typeOf(raw: Record<string, unknown>, path: string): string {
  const declared = field(raw, 'type');
  const type = typeof declared === 'string' ? declared : PROPERTY_TYPES.find((t) => field(raw, t) !== undefined);
  if (!type || !(PROPERTY_TYPES as readonly string[]).includes(type)) throw bodyInvalid(`${path}.type`, 'should be a property type', declared);
  return type;
}

/**
 * Apply a properties request to a schema: new names add properties, `null` removes one, `{name}`
 * renames, a type key changes the type. The first title wins the id `title`; a schema has exactly one.
 */
export function applySchema(
  ctx: TwinContext,
  current: PropertySchema[],
  raw: unknown,
  resolveDataSource: (id: string) => DataSource,
  creating: boolean,
): PropertySchema[] {
  if (raw === undefined) return current;
  if (!isObject(raw)) throw bodyInvalid('properties', 'should be an object', raw);
  const next = current.map((p) => ({ ...p }));
  const keys = Object.keys(raw);
  if (keys.length > 100) throw validation('body failed validation: body.properties should have at most 100 properties.');
  for (const key of keys) {
    const value = raw[key];
    const path = `properties.${key}`;
    const idx = next.findIndex((p) => p.name === key || p.id === key);
    if (value === null) {
      if (idx === -1) throw validation(`${key} is not a property that exists.`);
      if (next[idx]!.type === 'title') throw validation('Cannot delete the title property.');
      next.splice(idx, 1);
      continue;
    }
    if (!isObject(value)) throw bodyInvalid(path, 'should be an object', value);
    const rename = field(value, 'name');
    const hasType = field(value, 'type') !== undefined || PROPERTY_TYPES.some((t) => field(value, t) !== undefined);
    const description = field(value, 'description');
    if (idx === -1) {
      if (!hasType) throw validation(`${key} is not a property that exists.`);
      const type = typeOf(value, path);
      if (type === 'title' && next.some((p) => p.type === 'title')) throw validation('Databases can only have one title property.');
      const name = typeof rename === 'string' && rename !== '' ? rename : key;
      next.push({
        id: type === 'title' ? 'title' : propertyId(ctx, name),
        name,
        type,
        description: typeof description === 'string' ? description : null,
        config: config(ctx, type, field(value, type), path, resolveDataSource),
      });
      continue;
    }
    const prop = next[idx]!;
    if (typeof rename === 'string' && rename !== '') {
      if (next.some((p, j) => j !== idx && p.name === rename)) throw validation(`A property named ${rename} already exists.`);
      prop.name = rename;
    }
    if (typeof description === 'string') prop.description = description;
    if (hasType) {
      const type = typeOf(value, path);
      if (type === 'title' && prop.type !== 'title') throw validation('Databases can only have one title property.');
      if (type !== prop.type || (type !== 'status' && field(value, type) !== undefined)) {
        const cfg = config(ctx, type, field(value, type), path, resolveDataSource);
        // Options keep their ids when named again (Notion matches options by name).
        if (Array.isArray(cfg.options) && Array.isArray(prop.config.options) && type === prop.type) {
          const old = prop.config.options as SelectOption[];
          cfg.options = (cfg.options as SelectOption[]).map((o) => old.find((x) => x.name === o.name) ?? o);
        }
        prop.type = type;
        prop.config = cfg;
      }
    }
  }
  if (creating && !next.some((p) => p.type === 'title')) throw validation('Title is not provided');
  return next;
}

export function schemaView(p: PropertySchema): Record<string, unknown> {
  return { id: p.id, name: p.name, description: p.description ?? '', type: p.type, [p.type]: p.config };
}

/** The property a request names (its name, or its id URL-encoded or not). */
export function findProperty(schema: PropertySchema[], key: string): PropertySchema | undefined {
  let decoded = key;
  try {
    decoded = decodeURIComponent(key);
  } catch {
    // a key with a stray % is only a name
  }
  return schema.find((p) => p.name === key) ?? schema.find((p) => p.id === key || decodeURIComponent(p.id) === decoded);
}

export interface PageRefs extends MentionNames {
  userExists(id: string): boolean;
  pageInDataSource(id: string, dataSourceId: string): boolean;
}

function option(ctx: TwinContext, prop: PropertySchema, raw: unknown, path: string, create: boolean): string | null {
  if (raw === null) return null;
  const id = field(raw, 'id');
  const name = field(raw, 'name');
  const opts = prop.config.options as SelectOption[];
  const found = opts.find((o) => (typeof id === 'string' && o.id === id) || (typeof name === 'string' && o.name === name));
  if (found) return found.id;
  if (!create || typeof name !== 'string' || name === '') {
    if (prop.type === 'status') throw validation(`Invalid status option. Status option "${String(name ?? id)}" does not exist".`);
    throw bodyInvalid(path, 'should be an existing option id or a name', raw);
  }
  if (name.includes(',')) throw validation(`Option names cannot contain commas: ${name}`);
  const color = field(raw, 'color');
  const made: SelectOption = {
    id: optionId(ctx),
    name,
    color: typeof color === 'string' && COLORS.includes(color) ? color : COLORS[(opts.length % (COLORS.length - 1)) + 1]!,
    description: null,
  };
  opts.push(made);
  return made.id;
}

function nullableString(raw: unknown, path: string): string | null {
  if (raw === null) return null;
  if (typeof raw !== 'string') throw bodyInvalid(path, 'should be a string or `null`', raw);
  return raw === '' ? null : raw;
}

function dateValue(raw: unknown, path: string): Record<string, unknown> | null {
  if (raw === null) return null;
  const start = field(raw, 'start');
  if (typeof start !== 'string' || Number.isNaN(Date.parse(start))) throw bodyInvalid(`${path}.start`, 'should be a valid ISO 8601 date string', start);
  const end = field(raw, 'end');
  if (end !== undefined && end !== null && (typeof end !== 'string' || Number.isNaN(Date.parse(end))))
    throw bodyInvalid(`${path}.end`, 'should be a valid ISO 8601 date string', end);
  const tz = field(raw, 'time_zone');
  return { start, end: typeof end === 'string' ? end : null, time_zone: typeof tz === 'string' ? tz : null };
}

/**
 * Write a request's property values onto a page (`{Name: {title: […]}, Status: {status: {name}}}`)
 * against its data source's schema; select and multi-select options are created when new (the
 * schema is changed in place: the caller saves it). Answers the ids written.
 */
export function writeValues(ctx: TwinContext, page: Page, schema: PropertySchema[], raw: unknown, refs: PageRefs, dataSourceId: string | null): string[] {
  if (raw === undefined) return [];
  if (!isObject(raw)) throw bodyInvalid('properties', 'should be an object', raw);
  const written: string[] = [];
  for (const key of Object.keys(raw)) {
    const prop = findProperty(schema, key);
    if (!prop) throw validation(`${key} is not a property that exists.`);
    const path = `properties.${key}`;
    let value = raw[key];
    // A bare array is a title or rich text (`{Name: [{text: …}]}` as the SDK's helpers allow).
    if (Array.isArray(value) && (prop.type === 'title' || prop.type === 'rich_text')) value = { [prop.type]: value };
    if (!isObject(value)) throw bodyInvalid(path, 'should be an object', value);
    if (READ_ONLY.has(prop.type)) throw validation(`${prop.name} is a ${prop.type} property and cannot be updated.`);
    const declared = field(value, 'type');
    if (declared !== undefined && declared !== prop.type) throw validation(`${prop.name} is expected to be ${prop.type}.`);
    const v = field(value, prop.type);
    if (v === undefined) throw validation(`${prop.name} is expected to be ${prop.type}.`);
    const at = `${path}.${prop.type}`;
    let stored: unknown;
    switch (prop.type) {
      case 'title':
      case 'rich_text':
        stored = richText(v, at, refs);
        break;
      case 'number':
        if (v !== null && (typeof v !== 'number' || !Number.isFinite(v))) throw bodyInvalid(at, 'should be a number or `null`', v);
        stored = v;
        break;
      case 'checkbox':
        if (typeof v !== 'boolean') throw bodyInvalid(at, 'should be a boolean', v);
        stored = v;
        break;
      case 'select':
      case 'status':
        stored = option(ctx, prop, v, at, prop.type === 'select');
        break;
      case 'multi_select':
        if (!Array.isArray(v)) throw bodyInvalid(at, 'should be an array', v);
        stored = [...new Set(v.map((o, i) => option(ctx, prop, o, `${at}[${i}]`, true)))];
        break;
      case 'date':
        stored = dateValue(v, at);
        break;
      case 'url':
      case 'email':
      case 'phone_number':
        stored = nullableString(v, at);
        break;
      case 'people': {
        if (!Array.isArray(v)) throw bodyInvalid(at, 'should be an array', v);
        stored = v.map((u, i) => {
          const id = bodyId(field(u, 'id'), `${at}[${i}].id`);
          if (!refs.userExists(id)) throw validation(`Could not find user with ID: ${id}.`);
          return id;
        });
        break;
      }
      case 'relation': {
        if (!Array.isArray(v)) throw bodyInvalid(at, 'should be an array', v);
        if (v.length > 100) throw validation(`body failed validation: ${at}.length should be ≤ \`100\`, instead was \`${v.length}\`.`);
        const target = String(prop.config.data_source_id);
        stored = v.map((r, i) => {
          const id = bodyId(field(r, 'id'), `${at}[${i}].id`);
          if (!refs.pageInDataSource(id, target)) throw validation(`Relation page ${id} is not in the related data source.`);
          return id;
        });
        break;
      }
      case 'files':
        if (!Array.isArray(v)) throw bodyInvalid(at, 'should be an array', v);
        if (v.length > 100) throw validation(`body failed validation: ${at}.length should be ≤ \`100\`, instead was \`${v.length}\`.`);
        stored = v.map((f, i) => {
          const name = typeof field(f, 'name') === 'string' ? String(field(f, 'name')) : '';
          if (field(f, 'file_upload') !== undefined) return { name, ...attachedFile(ctx, f, `${at}[${i}]`) };
          const url = field(field(f, 'external'), 'url');
          if (typeof url !== 'string') throw bodyInvalid(`${at}[${i}].external.url`, 'should be defined', url);
          return { name, type: 'external', external: { url } };
        });
        break;
    }
    page.values[prop.id] = stored;
    written.push(prop.id);
  }
  void dataSourceId;
  return written;
}

const EMPTY: Record<string, unknown> = {
  title: [],
  rich_text: [],
  number: null,
  select: null,
  multi_select: [],
  status: null,
  date: null,
  people: [],
  checkbox: false,
  url: null,
  email: null,
  phone_number: null,
  relation: [],
  files: [],
};

function optionView(prop: PropertySchema, id: unknown): Record<string, unknown> | null {
  const o = (prop.config.options as SelectOption[] | undefined)?.find((x) => x.id === id);
  return o ? { id: o.id, name: o.name, color: o.color } : null;
}

/** Raw value of one property for filters, sorts and formulas. */
export function rawValue(page: Page, prop: PropertySchema, people: (id: string) => Record<string, unknown>, schema: PropertySchema[]): unknown {
  switch (prop.type) {
    case 'created_time':
      return page.created_time;
    case 'last_edited_time':
      return page.last_edited_time;
    case 'created_by':
      return page.created_by;
    case 'last_edited_by':
      return page.last_edited_by;
    case 'formula':
      return formulaResult(String(prop.config.expression), (name) => formulaInput(page, schema, name, people));
    default:
      return page.values[prop.id] ?? EMPTY[prop.type] ?? null;
  }
}

function formulaInput(page: Page, schema: PropertySchema[], name: string, people: (id: string) => Record<string, unknown>): FormulaValue {
  const p = schema.find((x) => x.name === name);
  if (!p || p.type === 'formula') return null;
  const v = rawValue(page, p, people, schema);
  switch (p.type) {
    case 'title':
    case 'rich_text':
      return plainText(v as RichText[]);
    case 'select':
    case 'status':
      return (optionView(p, v)?.name as string | undefined) ?? null;
    case 'multi_select':
      return (v as string[]).map((id) => optionView(p, id)?.name).join(',');
    case 'date':
      return v ? { date: String((v as { start: string }).start) } : null;
    case 'created_time':
    case 'last_edited_time':
      return { date: String(v) };
    case 'people':
    case 'relation':
      return (v as string[]).join(',');
    default:
      return v as FormulaValue;
  }
}

/** `{id, type, <type>: value}` for one property of a page. */
export function valueView(
  page: Page,
  prop: PropertySchema,
  people: (id: string) => Record<string, unknown>,
  schema: PropertySchema[],
): Record<string, unknown> {
  const v = rawValue(page, prop, people, schema);
  const base = { id: prop.id, type: prop.type };
  switch (prop.type) {
    case 'select':
    case 'status':
      return { ...base, [prop.type]: optionView(prop, v) };
    case 'multi_select':
      return { ...base, multi_select: (v as string[]).map((id) => optionView(prop, id)).filter(Boolean) };
    case 'people':
      return { ...base, people: (v as string[]).map(people) };
    case 'created_by':
    case 'last_edited_by':
      return { ...base, [prop.type]: people(String(v)) };
    case 'relation':
      return { ...base, relation: (v as string[]).map((id) => ({ id })), has_more: false };
    default:
      return { ...base, [prop.type]: v };
  }
}

/** The properties object of a page: every property of its schema, keyed by name. */
export function propertiesView(
  page: Page,
  schema: PropertySchema[],
  people: (id: string) => Record<string, unknown>,
  only?: Set<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of schema)
    if (!only || only.has(p.id))
      Object.defineProperty(out, p.name, { value: valueView(page, p, people, schema), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The single `title` property of a page whose parent is a page or the workspace. */
export const PAGE_TITLE_SCHEMA: PropertySchema[] = [{ id: 'title', name: 'title', type: 'title', description: null, config: {} }];

export function pageTitle(page: Page): string {
  return plainText(page.values.title as RichText[] | undefined);
}

/** A relation id in a request, dashed or not. */
