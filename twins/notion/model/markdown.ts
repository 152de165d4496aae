// Pages as markdown (`GET/PATCH /v1/pages/{page_id}/markdown`): blocks render to Notion-flavoured
// markdown (headings, lists, to-dos, quotes, code fences, dividers, toggles as <details>, child
// pages as <page>), and markdown parses back into blocks with inline bold, italic, code,
// strikethrough and links. Updates (insert, replace, search-and-replace) rewrite the page's content.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, validation } from '../wire/errors.js';
import { field, isObject } from '../wire/params.js';
import { childrenOf, getPage, setChildren, trashed } from './access.js';
import { appendChildren, findBlock } from './blocks.js';
import { pageTitle } from './properties.js';
import type { Block } from './records.js';
import { plainText, type RichText } from './rich-text.js';

const MAX_MARKDOWN = 200_000;

function inline(rt: readonly RichText[]): string {
  return rt
    .map((r) => {
      let s = r.plain_text;
      if (r.type === 'equation') return `$${s}$`;
      const a = r.annotations;
      if (a.code) s = `\`${s}\``;
      if (a.bold) s = `**${s}**`;
      if (a.italic) s = `*${s}*`;
      if (a.strikethrough) s = `~~${s}~~`;
      if (r.href && r.type === 'text') s = `[${s}](${r.href})`;
      return s;
    })
    .join('');
}

function render(ctx: TwinContext, containerId: string, indent: string, out: string[], unknown: string[]): void {
  let number = 0;
  for (const id of childrenOf(ctx, containerId)) {
    const node = findBlock(ctx, id);
    if (node.kind === 'page') {
      if (!node.page.in_trash) out.push(`${indent}<page url="https://www.notion.so/${id.replace(/-/g, '')}">${pageTitle(node.page)}</page>`);
      continue;
    }
    if (node.kind === 'database') {
      if (!node.db.in_trash) out.push(`${indent}<database url="https://www.notion.so/${id.replace(/-/g, '')}">${plainText(node.db.title)}</database>`);
      continue;
    }
    const b = node.block;
    if (b.in_trash) continue;
    const c = b.content;
    const text = inline((c.rich_text as RichText[] | undefined) ?? []);
    number = b.type === 'numbered_list_item' ? number + 1 : 0;
    const nested = () => render(ctx, b.id, `${indent}\t`, out, unknown);
    switch (b.type) {
      case 'paragraph':
        out.push(`${indent}${text}`);
        nested();
        break;
      case 'heading_1':
        out.push(`${indent}# ${text}`);
        break;
      case 'heading_2':
        out.push(`${indent}## ${text}`);
        break;
      case 'heading_3':
        out.push(`${indent}### ${text}`);
        break;
      case 'bulleted_list_item':
        out.push(`${indent}- ${text}`);
        nested();
        break;
      case 'numbered_list_item':
        out.push(`${indent}${number}. ${text}`);
        nested();
        break;
      case 'to_do':
        out.push(`${indent}- [${c.checked ? 'x' : ' '}] ${text}`);
        nested();
        break;
      case 'quote':
        out.push(`${indent}> ${text}`);
        nested();
        break;
      case 'code':
        out.push(
          `${indent}\`\`\`${c.language === 'plain text' ? '' : String(c.language)}`,
          ...plainText(c.rich_text as RichText[])
            .split('\n')
            .map((l) => `${indent}${l}`),
          `${indent}\`\`\``,
        );
        break;
      case 'divider':
        out.push(`${indent}---`);
        break;
      case 'toggle':
        out.push(`${indent}<details>`, `${indent}<summary>${text}</summary>`);
        nested();
        out.push(`${indent}</details>`);
        break;
      case 'callout':
        out.push(`${indent}<callout>`, `${indent}\t${text}`);
        nested();
        out.push(`${indent}</callout>`);
        break;
      case 'equation':
        out.push(`${indent}$$${String(c.expression)}$$`);
        break;
      case 'bookmark':
      case 'embed':
        out.push(`${indent}<${b.type} url="${String(c.url)}"/>`);
        break;
      default:
        unknown.push(b.id);
    }
  }
}

export function pageMarkdown(ctx: TwinContext, pageId: string): Record<string, unknown> {
  getPage(ctx, pageId);
  const out: string[] = [];
  const unknown: string[] = [];
  render(ctx, pageId, '', out, unknown);
  const markdown = out.join('\n');
  return {
    object: 'page_markdown',
    id: pageId,
    markdown: markdown.slice(0, MAX_MARKDOWN),
    truncated: markdown.length > MAX_MARKDOWN,
    unknown_block_ids: unknown,
  };
}

/** Inline markdown → rich text request items (bold, italic, code, strikethrough, links). */
function inlineItems(s: string): unknown[] {
  const items: unknown[] = [];
  const re = /\*\*([^*]+)\*\*|~~([^~]+)~~|`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|\*([^*]+)\*/g;
  let last = 0;
  const text = (content: string, annotations: Record<string, boolean> = {}, url?: string) => {
    for (let i = 0; i < content.length; i += 2000)
      items.push({ type: 'text', text: { content: content.slice(i, i + 2000), link: url ? { url } : null }, annotations });
  };
  for (const m of s.matchAll(re)) {
    if (m.index! > last) text(s.slice(last, m.index));
    if (m[1] !== undefined) text(m[1], { bold: true });
    else if (m[2] !== undefined) text(m[2], { strikethrough: true });
    else if (m[3] !== undefined) text(m[3], { code: true });
    else if (m[4] !== undefined) text(m[4], {}, m[5]);
    else if (m[6] !== undefined) text(m[6], { italic: true });
    last = m.index! + m[0].length;
  }
  if (last < s.length) text(s.slice(last));
  return items;
}

/** Markdown → block requests (top level; a tab-indented line nests under the list item above). */
export function markdownBlocks(markdown: string): Record<string, unknown>[] {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  const blocks: Record<string, unknown>[] = [];
  const rt = (s: string) => ({ rich_text: inlineItems(s) });
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const nestedLine = /^(?:\t| {2,4})(.*)$/.exec(raw);
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('```')) {
      const language = line.slice(3).trim() || 'plain text';
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trim().startsWith('```'); i++) body.push(lines[i]!);
      blocks.push({ code: { ...rt(body.join('\n')), language } });
      continue;
    }
    let block: Record<string, unknown>;
    let m: RegExpExecArray | null;
    if ((m = /^(#{1,3})\s+(.*)$/.exec(line))) block = { [`heading_${m[1]!.length}`]: rt(m[2]!) };
    else if ((m = /^[-*]\s+\[([ xX])\]\s+(.*)$/.exec(line))) block = { to_do: { ...rt(m[2]!), checked: m[1] !== ' ' } };
    else if ((m = /^[-*]\s+(.*)$/.exec(line))) block = { bulleted_list_item: rt(m[1]!) };
    else if ((m = /^\d+\.\s+(.*)$/.exec(line))) block = { numbered_list_item: rt(m[1]!) };
    else if ((m = /^>\s?(.*)$/.exec(line))) block = { quote: rt(m[1]!) };
    else if (/^(?:---+|\*\*\*+)$/.test(line)) block = { divider: {} };
    else if ((m = /^\$\$(.+)\$\$$/.exec(line))) block = { equation: { expression: m[1]! } };
    else block = { paragraph: rt(line) };
    const parent = blocks[blocks.length - 1];
    const parentType = parent ? Object.keys(parent)[0]! : '';
    if (nestedLine && parent && ['bulleted_list_item', 'numbered_list_item', 'to_do', 'quote', 'paragraph'].includes(parentType)) {
      const holder = parent[parentType] as Record<string, unknown>;
      holder.children = [...((holder.children as unknown[]) ?? []), block];
    } else blocks.push(block);
  }
  return blocks;
}

function requireString(v: unknown, path: string): string {
  if (typeof v !== 'string') throw bodyInvalid(path, 'should be a string', v);
  if (v.length > MAX_MARKDOWN) throw validation(`body failed validation: body.${path}.length should be ≤ \`${MAX_MARKDOWN}\`, instead was \`${v.length}\`.`);
  return v;
}

/** Rewrite the page's content from an update request; answers the page as markdown. */
export function updatePageMarkdown(ctx: TwinContext, pageId: string, body: Record<string, unknown>): Record<string, unknown> {
  const page = getPage(ctx, pageId);
  if (trashed(ctx, page.parent, page)) throw validation("Can't edit block that is archived. You must unarchive the block before editing.");
  const current = String(pageMarkdown(ctx, pageId).markdown);
  const type = field(body, 'type');
  const args = field(body, typeof type === 'string' ? type : '');
  if (!isObject(args)) throw bodyInvalid(String(type ?? 'type'), 'should be defined', args);
  const allowDeleting = field(args, 'allow_deleting_content') === true;
  let next: string;
  switch (type) {
    case 'insert_content': {
      const content = requireString(field(args, 'content'), 'insert_content.content');
      const after = field(args, 'after');
      if (typeof after === 'string') {
        const at = current.indexOf(after);
        if (at === -1) throw validation(`No content matches the \`after\` selection: ${after}`);
        const end = current.indexOf('\n', at + after.length);
        next = end === -1 ? `${current}\n${content}` : `${current.slice(0, end)}\n${content}${current.slice(end)}`;
      } else next = field(field(args, 'position'), 'type') === 'start' ? `${content}\n${current}` : `${current}\n${content}`;
      break;
    }
    case 'replace_content':
      next = requireString(field(args, 'new_str'), 'replace_content.new_str');
      break;
    case 'replace_content_range': {
      const range = requireString(field(args, 'content_range'), 'replace_content_range.content_range');
      const at = current.indexOf(range);
      if (at === -1) throw validation(`No content matches the range: ${range}`);
      next = current.slice(0, at) + requireString(field(args, 'content'), 'replace_content_range.content') + current.slice(at + range.length);
      break;
    }
    case 'update_content': {
      const updates = field(args, 'content_updates');
      if (!Array.isArray(updates) || updates.length === 0 || updates.length > 100)
        throw bodyInvalid('update_content.content_updates', 'should be a list of 1 to 100 updates', updates);
      next = current;
      updates.forEach((u, i) => {
        const oldStr = requireString(field(u, 'old_str'), `update_content.content_updates[${i}].old_str`);
        const newStr = requireString(field(u, 'new_str'), `update_content.content_updates[${i}].new_str`);
        if (!next.includes(oldStr)) throw validation(`No content matches old_str: ${oldStr}`);
        next = field(u, 'replace_all_matches') === true ? next.split(oldStr).join(newStr) : next.replace(oldStr, () => newStr);
      });
      break;
    }
    default:
      throw bodyInvalid('type', 'should be one of `insert_content`, `replace_content_range`, `update_content`, `replace_content`', type);
  }
  const keep = childrenOf(ctx, pageId).filter((id) => !ctx.store.has('block', id));
  const dropping = childrenOf(ctx, pageId).filter((id) => ctx.store.has('block', id) && !ctx.store.get<Block>('block', id)!.in_trash);
  if (type !== 'insert_content' && dropping.length > 0 && !allowDeleting && next.length < current.length / 2) {
    throw validation('This update would delete content: set allow_deleting_content to true to allow it.');
  }
  for (const id of dropping) {
    const b = ctx.store.get<Block>('block', id)!;
    b.in_trash = true;
    ctx.store.put('block', id, b);
  }
  // Child pages and databases stay; the text content is replaced by the new markdown's blocks.
  setChildren(ctx, pageId, keep);
  const blocks = markdownBlocks(
    next
      .split('\n')
      .filter((l) => !/^\s*<(?:page|database) url=/.test(l))
      .join('\n'),
  );
  for (let i = 0; i < blocks.length; i += 100) appendChildren(ctx, pageId, blocks.slice(i, i + 100), undefined);
  return pageMarkdown(ctx, pageId);
}
