// Rich text as Notion stores and answers it: every item gets `annotations` (all false, colour
// `default` unless given), `plain_text` and `href`. Text, mention (user, page, database, date) and
// equation items are accepted; content is limited to 2000 characters per item as Notion limits it.

import { bodyInvalid, validation } from '../wire/errors.js';
import { canonicalId, field, isObject } from '../wire/params.js';

export interface RichText {
  type: 'text' | 'mention' | 'equation';
  text?: { content: string; link: { url: string } | null };
  mention?: Record<string, unknown>;
  equation?: { expression: string };
  annotations: Annotations;
  plain_text: string;
  href: string | null;
}

interface Annotations {
  bold: boolean;
  italic: boolean;
  strikethrough: boolean;
  underline: boolean;
  code: boolean;
  color: string;
}

const FLAGS = ['bold', 'italic', 'strikethrough', 'underline', 'code'] as const;
export const COLORS = ['default', 'gray', 'brown', 'orange', 'yellow', 'green', 'blue', 'purple', 'pink', 'red'];
const ALL_COLORS = [...COLORS, ...COLORS.slice(1).map((c) => `${c}_background`)];

function annotations(raw: unknown): Annotations {
  const a: Annotations = { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' };
  if (!isObject(raw)) return a;
  for (const f of FLAGS) if (field(raw, f) === true) a[f] = true;
  const color = field(raw, 'color');
  if (typeof color === 'string' && ALL_COLORS.includes(color)) a.color = color;
  return a;
}

/** Display names for mentions (users by id, pages by id). */
export interface MentionNames {
  user(id: string): string | undefined;
  page(id: string): string | undefined;
}

function one(raw: unknown, path: string, names: MentionNames): RichText {
  if (!isObject(raw)) throw bodyInvalid(path, 'should be an object', raw);
  const ann = annotations(field(raw, 'annotations'));
  const text = field(raw, 'text');
  const type =
    field(raw, 'type') ??
    (text !== undefined ? 'text' : field(raw, 'mention') !== undefined ? 'mention' : field(raw, 'equation') !== undefined ? 'equation' : undefined);
  if (type === 'text') {
    const content = field(text, 'content');
    if (typeof content !== 'string') throw bodyInvalid(`${path}.text.content`, 'should be defined', content);
    if (content.length > 2000) throw validation(`body failed validation: ${path}.text.content.length should be ≤ \`2000\`, instead was \`${content.length}\`.`);
    const linkUrl = field(field(text, 'link'), 'url');
    const link = typeof linkUrl === 'string' ? { url: linkUrl } : null;
    return { type: 'text', text: { content, link }, annotations: ann, plain_text: content, href: link?.url ?? null };
  }
  if (type === 'equation') {
    const expression = field(field(raw, 'equation'), 'expression');
    if (typeof expression !== 'string') throw bodyInvalid(`${path}.equation.expression`, 'should be defined', expression);
    return { type: 'equation', equation: { expression }, annotations: ann, plain_text: expression, href: null };
  }
  if (type === 'mention') {
    const m = field(raw, 'mention');
    const userId = canonicalId(field(field(m, 'user'), 'id'));
    if (userId)
      return {
        type: 'mention',
        mention: { type: 'user', user: { object: 'user', id: userId } },
        annotations: ann,
        plain_text: `@${names.user(userId) ?? 'Anonymous'}`,
        href: null,
      };
    const pageId = canonicalId(field(field(m, 'page'), 'id'));
    if (pageId)
      return {
        type: 'mention',
        mention: { type: 'page', page: { id: pageId } },
        annotations: ann,
        plain_text: names.page(pageId) ?? 'Untitled',
        href: `https://www.notion.so/${pageId.replace(/-/g, '')}`,
      };
    const dbId = canonicalId(field(field(m, 'database'), 'id'));
    if (dbId)
      return {
        type: 'mention',
        mention: { type: 'database', database: { id: dbId } },
        annotations: ann,
        plain_text: names.page(dbId) ?? 'Untitled',
        href: `https://www.notion.so/${dbId.replace(/-/g, '')}`,
      };
    const start = field(field(m, 'date'), 'start');
    if (typeof start === 'string') {
      const end = field(field(m, 'date'), 'end');
      return {
        type: 'mention',
        mention: { type: 'date', date: { start, end: typeof end === 'string' ? end : null, time_zone: null } },
        annotations: ann,
        plain_text: typeof end === 'string' ? `${start} → ${end}` : start,
        href: null,
      };
    }
    throw bodyInvalid(`${path}.mention`, 'should be a user, page, database or date mention', m);
  }
  throw bodyInvalid(`${path}.type`, 'should be `text`, `mention` or `equation`', type);
}

/** A rich text array from a request (at most 100 items). */
export function richText(raw: unknown, path: string, names: MentionNames): RichText[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw bodyInvalid(path, 'should be an array', raw);
  if (raw.length > 100) throw validation(`body failed validation: ${path}.length should be ≤ \`100\`, instead was \`${raw.length}\`.`);
  return raw.map((r, i) => one(r, `${path}[${i}]`, names));
}

export function plainText(rt: readonly RichText[] | undefined): string {
  return (rt ?? []).map((r) => r.plain_text).join('');
}

/** A plain string as one text item (seeds, the starting workspace). */
export function textOf(content: string): RichText[] {
  return [{ type: 'text', text: { content, link: null }, annotations: annotations(undefined), plain_text: content, href: null }];
}
