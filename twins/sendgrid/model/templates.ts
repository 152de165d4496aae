// Transactional templates and their versions (`/v3/templates`): legacy templates (ids are UUIDs,
// `<%body%>`/`<%subject%>` tags, `substitutions`) and dynamic ones (`d-` + 32 hex, handlebars
// rendered from `dynamic_template_data`). One active version per template is what mail send uses.

import { createRequire } from 'node:module';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SendGridError, plainError } from '../wire/errors.js';
import { own, type Json } from '../wire/params.js';
import { sgTime, uuid, type TemplateRecord, type TemplateVersionRecord } from './records.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';
import type { HelperOptions, RuntimeOptions } from 'handlebars';

/**
 * What one render may do: iterations of `{{#each}}` (and of sections over lists, which use it), and
 * characters produced by them (a nested loop's output counts again in each loop around it: the
 * copying is work too). Four nested `#each` over 100 items (100 million iterations from a small
 * send) rendered for minutes before; now they stop at the budget. SendGrid caps a message at 30 MB.
 */
export const RENDER_BUDGET = Object.freeze({ iterations: 100_000, characters: 30_000_000 });

/** A render past RENDER_BUDGET (mail send refuses the request with the reason). */
export class RenderBudgetExceeded extends Error {
  override name = 'RenderBudgetExceeded';
}

/** The budget of the render under way (renders are synchronous: one at a time). */
let spent: { iterations: number; characters: number } | undefined;

function spend(iterations: number, characters: number): void {
  if (!spent) return;
  spent.iterations += iterations;
  spent.characters += characters;
  if (spent.iterations > RENDER_BUDGET.iterations) {
    throw new RenderBudgetExceeded(`The template's {{#each}} loops ran more than ${RENDER_BUDGET.iterations.toLocaleString('en-US')} times in one render.`);
  }
  if (spent.characters > RENDER_BUDGET.characters) {
    throw new RenderBudgetExceeded(
      `The template's {{#each}} loops produced more than ${RENDER_BUDGET.characters.toLocaleString('en-US')} characters in one render.`,
    );
  }
}

/**
 * Handlebars kept apart from any global helpers, its `each` counting against the render's budget;
 * prototype access stays off (asked for explicitly at each render). Loaded on the first dynamic
 * template, not at twin start (requiring it costs more than the twin's start).
 */
// Named `require` so the image's staging (scripts/image/stage-app.mjs) sees the package it needs.
const require = createRequire(import.meta.url);
const hbs = loadOnce(() => {
  const instance = (require('handlebars') as typeof import('handlebars')).create();
  const each = instance.helpers.each as (this: unknown, context: unknown, options: HelperOptions) => string;
  instance.registerHelper('each', function (this: unknown, context: unknown, options: HelperOptions) {
    const fn = options.fn;
    const counted = (item: unknown, opts?: unknown) => {
      spend(1, 0);
      const out = fn(item, opts as never);
      spend(0, out.length);
      return out;
    };
    return each.call(this, context, { ...options, fn: counted as HelperOptions['fn'] });
  });
  return instance;
});
const MAX_TEMPLATE_CHARS = 1_048_576;

const notFound = (): SendGridError => plainError(404, 'Not Found');
const fieldError = (field: string, message: string) => new SendGridError(400, [{ field, message, help: null }]);

export function findTemplate(ctx: TwinContext, id: string): TemplateRecord | undefined {
  return ctx.store.get<TemplateRecord>('template', id);
}

export function requireTemplate(ctx: TwinContext, id: string): TemplateRecord {
  const t = findTemplate(ctx, id);
  if (!t) throw notFound();
  return t;
}

export function versionsOf(ctx: TwinContext, templateId: string): TemplateVersionRecord[] {
  return ctx.store.listByPrefix<TemplateVersionRecord>('template_version', `${templateId}/`).map((r) => r.body);
}

export function activeVersion(ctx: TwinContext, templateId: string): TemplateVersionRecord | undefined {
  return versionsOf(ctx, templateId).find((v) => v.active === 1);
}

export function createTemplate(ctx: TwinContext, body: Json): TemplateRecord {
  const name = own(body, 'name');
  if (typeof name !== 'string' || name.trim() === '') throw fieldError('name', 'name is required');
  if (name.length > 100) throw fieldError('name', 'name must be 100 characters or fewer');
  const generation = own(body, 'generation') ?? 'legacy';
  if (generation !== 'legacy' && generation !== 'dynamic') throw fieldError('generation', "generation must be either 'legacy' or 'dynamic'");
  const id = generation === 'dynamic' ? `d-${ctx.ids.bytes(16).toString('hex')}` : uuid(ctx);
  const t: TemplateRecord = { id, name, generation, updated_at: sgTime(ctx) };
  ctx.store.put('template', id, t);
  return t;
}

export function renameTemplate(ctx: TwinContext, id: string, body: Json): TemplateRecord {
  const t = requireTemplate(ctx, id);
  const name = own(body, 'name');
  if (name !== undefined) {
    if (typeof name !== 'string' || name.trim() === '' || name.length > 100) throw fieldError('name', 'name must be a string of 1 to 100 characters');
    t.name = name;
  }
  t.updated_at = sgTime(ctx);
  ctx.store.put('template', id, t);
  return t;
}

/** Duplicate a template with its versions (`POST /v3/templates/{id}`), under a new name if given. */
export function duplicateTemplate(ctx: TwinContext, id: string, body: Json): TemplateRecord {
  const source = requireTemplate(ctx, id);
  const name = own(body, 'name') ?? `Duplicate: ${source.name}`.slice(0, 100);
  const copy = createTemplate(ctx, { name, generation: source.generation });
  for (const v of versionsOf(ctx, id)) {
    const version: TemplateVersionRecord = { ...v, id: uuid(ctx), template_id: copy.id, updated_at: sgTime(ctx) };
    ctx.store.put('template_version', `${copy.id}/${version.id}`, version);
  }
  return copy;
}

export function deleteTemplate(ctx: TwinContext, id: string): void {
  requireTemplate(ctx, id);
  for (const v of versionsOf(ctx, id)) ctx.store.delete('template_version', `${id}/${v.id}`);
  ctx.store.delete('template', id);
}

function templateText(body: Json, field: string, required: boolean): string | undefined {
  const v = own(body, field);
  if (v === undefined) {
    if (required) throw fieldError(field, `${field} is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw fieldError(field, `${field} must be a string`);
  if (v.length > MAX_TEMPLATE_CHARS) throw fieldError(field, `${field} must be 1048576 characters or fewer`);
  return v;
}

/** A dynamic template's handlebars must compile, as SendGrid refuses to save a broken one. */
function checkHandlebars(t: TemplateRecord, field: string, source: string | undefined): void {
  if (t.generation !== 'dynamic' || !source) return;
  try {
    hbs().precompile(source);
  } catch (e) {
    throw fieldError(field, `Handlebars syntax error: ${(e as Error).message.split('\n')[0]}`);
  }
}

function writeVersion(ctx: TwinContext, t: TemplateRecord, v: TemplateVersionRecord, body: Json, creating: boolean): TemplateVersionRecord {
  const name = templateText(body, 'name', creating);
  const subject = templateText(body, 'subject', creating && t.generation === 'legacy');
  const html = templateText(body, 'html_content', false);
  const plain = templateText(body, 'plain_content', false);
  checkHandlebars(t, 'subject', subject);
  checkHandlebars(t, 'html_content', html);
  checkHandlebars(t, 'plain_content', plain);
  if (name !== undefined) v.name = name;
  if (subject !== undefined) v.subject = subject;
  if (html !== undefined) v.html_content = html;
  if (plain !== undefined) v.plain_content = plain;
  const gen = own(body, 'generate_plain_content');
  if (typeof gen === 'boolean') v.generate_plain_content = gen;
  const editor = own(body, 'editor');
  if (editor === 'code' || editor === 'design') v.editor = editor;
  const test = own(body, 'test_data');
  if (typeof test === 'string') v.test_data = test;
  const active = own(body, 'active');
  const others = versionsOf(ctx, t.id).filter((o) => o.id !== v.id);
  // The first version of a template is its active one; `active: 1` moves the mark here.
  if (active === 1 || (creating && !others.some((o) => o.active === 1))) activate(ctx, t, v, others);
  else if (active === 0) v.active = 0;
  v.updated_at = sgTime(ctx);
  ctx.store.put('template_version', `${t.id}/${v.id}`, v);
  t.updated_at = v.updated_at;
  ctx.store.put('template', t.id, t);
  return v;
}

function activate(ctx: TwinContext, t: TemplateRecord, v: TemplateVersionRecord, others: TemplateVersionRecord[]): void {
  for (const o of others) {
    if (o.active !== 1) continue;
    o.active = 0;
    ctx.store.put('template_version', `${t.id}/${o.id}`, o);
  }
  v.active = 1;
}

export function createVersion(ctx: TwinContext, templateId: string, body: Json): TemplateVersionRecord {
  const t = requireTemplate(ctx, templateId);
  const v: TemplateVersionRecord = {
    id: uuid(ctx),
    template_id: t.id,
    active: 0,
    name: '',
    subject: '',
    html_content: '',
    plain_content: '',
    generate_plain_content: true,
    editor: 'code',
    test_data: null,
    thumbnail_url: '',
    updated_at: sgTime(ctx),
  };
  return writeVersion(ctx, t, v, body, true);
}

export function requireVersion(ctx: TwinContext, templateId: string, versionId: string): { template: TemplateRecord; version: TemplateVersionRecord } {
  const template = requireTemplate(ctx, templateId);
  const version = ctx.store.get<TemplateVersionRecord>('template_version', `${templateId}/${versionId}`);
  if (!version) throw notFound();
  return { template, version };
}

export function updateVersion(ctx: TwinContext, templateId: string, versionId: string, body: Json): TemplateVersionRecord {
  const { template, version } = requireVersion(ctx, templateId, versionId);
  return writeVersion(ctx, template, version, body, false);
}

export function activateVersion(ctx: TwinContext, templateId: string, versionId: string): TemplateVersionRecord {
  const { template, version } = requireVersion(ctx, templateId, versionId);
  activate(
    ctx,
    template,
    version,
    versionsOf(ctx, templateId).filter((o) => o.id !== versionId),
  );
  version.updated_at = sgTime(ctx);
  ctx.store.put('template_version', `${templateId}/${versionId}`, version);
  return version;
}

export function deleteVersion(ctx: TwinContext, templateId: string, versionId: string): void {
  requireVersion(ctx, templateId, versionId);
  ctx.store.delete('template_version', `${templateId}/${versionId}`);
}

const MAX_COMPILED = 256;
const compiled = new Map<string, (data: Record<string, unknown>, options?: RuntimeOptions) => string>();

const NO_PROTOTYPES = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false } as const;

/**
 * Render handlebars against the personalization's data within RENDER_BUDGET (past it:
 * RenderBudgetExceeded); a template that fails otherwise renders as written.
 */
export function renderHandlebars(source: string, data: Record<string, unknown>): string {
  spent = { iterations: 0, characters: 0 };
  try {
    let render = compiled.get(source);
    if (!render) {
      render = hbs().compile(source, { strict: false });
      // A bounded cache: a send with 1000 personalizations compiles its template once.
      if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
      compiled.set(source, render);
    }
    const out = render(data, NO_PROTOTYPES);
    if (out.length > RENDER_BUDGET.characters)
      throw new RenderBudgetExceeded(`The rendered template has more than ${RENDER_BUDGET.characters.toLocaleString('en-US')} characters.`);
    return out;
  } catch (e) {
    if (e instanceof RenderBudgetExceeded) throw e;
    // Past the longest string JavaScript can build: the budget, reached without a loop.
    if (e instanceof RangeError) throw new RenderBudgetExceeded('The rendered template is longer than a message can be.');
    return source;
  } finally {
    spent = undefined;
  }
}

export function versionView(v: TemplateVersionRecord): Json {
  return {
    id: v.id,
    template_id: v.template_id,
    active: v.active,
    name: v.name,
    subject: v.subject,
    html_content: v.html_content,
    plain_content: v.plain_content,
    generate_plain_content: v.generate_plain_content,
    editor: v.editor,
    thumbnail_url: v.thumbnail_url,
    ...(v.test_data !== null ? { test_data: v.test_data } : {}),
    updated_at: v.updated_at,
  };
}

export function templateView(ctx: TwinContext, t: TemplateRecord): Json {
  return { id: t.id, name: t.name, generation: t.generation, updated_at: t.updated_at, versions: versionsOf(ctx, t.id).map(versionView) };
}
