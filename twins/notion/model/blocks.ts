// Blocks and children: append (at the end or after a child, up to 100 per request and two levels
// of nested children), list, retrieve, update, delete (to the trash). Pages and databases show up
// among their parent's children as `child_page` / `child_database` blocks with the same id.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, notFound, validation } from '../wire/errors.js';
import { canonicalId, field, isObject } from '../wire/params.js';
import type { ApiVersion } from '../wire/version.js';
import { childrenOf, containerKind, getPage, insertChildren, refs, trashed, userRef } from './access.js';
import { pageTitle } from './properties.js';
import { attachedFile } from './file-uploads.js';
import { stamps, touch, newId, type Block, type Database, type Page, type Parent } from './records.js';
import { plainText, richText } from './rich-text.js';
import { emitEvent } from './webhooks.js';
import { me } from './workspace.js';

const TEXT_BLOCKS = [
  'paragraph',
  'heading_1',
  'heading_2',
  'heading_3',
  'bulleted_list_item',
  'numbered_list_item',
  'to_do',
  'toggle',
  'quote',
  'callout',
  'code',
];
const FILE_BLOCKS = ['image', 'file', 'pdf', 'video', 'audio'];
const OTHER_BLOCKS = ['divider', 'bookmark', 'equation', 'embed', ...FILE_BLOCKS, 'table_of_contents', 'breadcrumb'];
export const BLOCK_TYPES = [...TEXT_BLOCKS, ...OTHER_BLOCKS];
/** Blocks that may hold children of their own. */
const NESTING = new Set([
  'paragraph',
  'bulleted_list_item',
  'numbered_list_item',
  'to_do',
  'toggle',
  'quote',
  'callout',
  'heading_1',
  'heading_2',
  'heading_3',
]);

/** The content of one block type from a request (`{rich_text, color, checked…}`), defaults filled. */
function content(ctx: TwinContext, type: string, raw: unknown, path: string, previous?: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = previous ? { ...previous } : {};
  if (TEXT_BLOCKS.includes(type)) {
    const rt = field(raw, 'rich_text') ?? field(raw, 'text');
    if (rt !== undefined || !previous) out.rich_text = richText(rt, `${path}.rich_text`, refs(ctx));
    const color = field(raw, 'color');
    out.color = typeof color === 'string' ? color : (out.color ?? 'default');
    if (type === 'to_do') out.checked = typeof field(raw, 'checked') === 'boolean' ? field(raw, 'checked') : (out.checked ?? false);
    if (type.startsWith('heading_')) out.is_toggleable = field(raw, 'is_toggleable') === true || (out.is_toggleable ?? false);
    if (type === 'code') {
      const lang = field(raw, 'language');
      out.language = typeof lang === 'string' ? lang : (out.language ?? 'plain text');
      out.caption = field(raw, 'caption') !== undefined ? richText(field(raw, 'caption'), `${path}.caption`, refs(ctx)) : (out.caption ?? []);
    }
    if (type === 'callout') out.icon = field(raw, 'icon') ?? out.icon ?? { type: 'emoji', emoji: '💡' };
    return out;
  }
  switch (type) {
    case 'bookmark':
    case 'embed': {
      const url = field(raw, 'url');
      if (typeof url !== 'string' && !previous) throw bodyInvalid(`${path}.url`, 'should be defined', url);
      if (typeof url === 'string') out.url = url;
      if (type === 'bookmark')
        out.caption = field(raw, 'caption') !== undefined ? richText(field(raw, 'caption'), `${path}.caption`, refs(ctx)) : (out.caption ?? []);
      return out;
    }
    case 'equation': {
      const expression = field(raw, 'expression');
      if (typeof expression !== 'string' && !previous) throw bodyInvalid(`${path}.expression`, 'should be defined', expression);
      if (typeof expression === 'string') out.expression = expression;
      return out;
    }
    case 'image':
    case 'file':
    case 'pdf':
    case 'video':
    case 'audio': {
      const caption = field(raw, 'caption');
      if (field(raw, 'file_upload') !== undefined) {
        const attached = attachedFile(ctx, raw, path);
        delete out.external;
        out.type = attached.type;
        out.file = attached.file;
      } else {
        const url = field(field(raw, 'external'), 'url');
        if (typeof url !== 'string' && !previous) throw bodyInvalid(`${path}.external.url`, 'should be defined', url);
        if (typeof url === 'string') {
          delete out.file;
          out.type = 'external';
          out.external = { url };
        }
      }
      out.caption = caption !== undefined ? richText(caption, `${path}.caption`, refs(ctx)) : (out.caption ?? []);
      if (type === 'file') out.name = typeof field(raw, 'name') === 'string' ? field(raw, 'name') : (out.name ?? '');
      return out;
    }
    case 'table_of_contents':
      return { color: typeof field(raw, 'color') === 'string' ? field(raw, 'color') : 'default' };
    default:
      return {};
  }
}

function typeOfBlock(raw: Record<string, unknown>, path: string): string {
  const declared = field(raw, 'type');
  const type = typeof declared === 'string' ? declared : BLOCK_TYPES.find((t) => field(raw, t) !== undefined);
  if (!type || !BLOCK_TYPES.includes(type)) {
    throw bodyInvalid(`${path}.type`, `should be one of ${BLOCK_TYPES.map((t) => `\`"${t}"\``).join(', ')}`, declared ?? Object.keys(raw)[0]);
  }
  return type;
}

/** Create blocks under a page or block from request children (recursively); answers the new ids. */
function createBlocks(ctx: TwinContext, parent: Parent, list: unknown, path: string, depth: number): string[] {
  if (!Array.isArray(list)) throw bodyInvalid(path, 'should be an array', list);
  if (list.length > 100) throw validation(`body failed validation: ${path}.length should be ≤ \`100\`, instead was \`${list.length}\`.`);
  const by = me(ctx).id;
  return list.map((raw, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(raw)) throw bodyInvalid(at, 'should be an object', raw);
    const type = typeOfBlock(raw, at);
    const body = field(raw, type);
    const block: Block = { id: newId(ctx), parent, type, content: content(ctx, type, body, `${at}.${type}`), ...stamps(ctx, by) };
    ctx.store.put('block', block.id, block);
    const nested = field(body, 'children');
    if (nested !== undefined) {
      if (depth >= 2) throw validation(`body failed validation: ${at}.${type}.children should be not present, instead was \`[…]\`.`);
      if (!NESTING.has(type)) throw validation(`Block type ${type} does not support children.`);
      const ids = createBlocks(ctx, { type: 'block_id', block_id: block.id }, nested, `${at}.${type}.children`, depth + 1);
      insertChildren(ctx, block.id, ids);
    }
    return block.id;
  });
}

/** `page.content_updated` for the page that holds these blocks (however deeply). */
function contentUpdated(ctx: TwinContext, parent: Parent, blockIds: string[]): void {
  let p: Parent = parent;
  for (let depth = 0; p.type === 'block_id' && depth < 64; depth++) {
    const b = ctx.store.get<Block>('block', p.block_id);
    if (!b) return;
    p = b.parent;
  }
  if (p.type !== 'page_id') return;
  emitEvent(ctx, {
    type: 'page.content_updated',
    entity: { id: p.page_id, type: 'page' },
    data: { parent: { id: p.page_id, type: 'page' }, updated_blocks: blockIds.map((id) => ({ id, type: 'block' })) },
  });
}

function parentFor(ctx: TwinContext, containerId: string): Parent {
  const kind = containerKind(ctx, containerId);
  if (kind === 'page') return { type: 'page_id', page_id: containerId };
  if (kind === 'block') {
    const block = ctx.store.get<Block>('block', containerId)!;
    if (!NESTING.has(block.type)) throw validation(`Block type ${block.type} does not support children.`);
    return { type: 'block_id', block_id: containerId };
  }
  throw notFound('block', containerId);
}

/** Append children to a page or block; answers the appended blocks (top level only, as Notion does). */
export function appendChildren(ctx: TwinContext, containerId: string, children: unknown, after: unknown): string[] {
  const parent = parentFor(ctx, containerId);
  const holder = ctx.store.get<Page>('page', containerId) ?? ctx.store.get<Block>('block', containerId)!;
  if (trashed(ctx, holder.parent, holder)) throw validation("Can't edit block that is archived. You must unarchive the block before editing.");
  let afterId: string | undefined;
  if (after !== undefined) {
    afterId = canonicalId(after);
    if (!afterId || !childrenOf(ctx, containerId).includes(afterId)) throw validation(`Block ${String(after)} is not a child of ${containerId}.`);
  }
  if (children === undefined) throw bodyInvalid('children', 'should be defined', undefined);
  const ids = createBlocks(ctx, parent, children, 'children', 0);
  insertChildren(ctx, containerId, ids, afterId);
  touch(ctx, holder, me(ctx).id);
  ctx.store.put(parent.type === 'page_id' ? 'page' : 'block', containerId, holder);
  contentUpdated(ctx, parent, ids);
  return ids;
}

/** Create the first children of a new page (pages.create `children`). */
export function createPageChildren(ctx: TwinContext, pageId: string, children: unknown): void {
  if (children === undefined) return;
  insertChildren(ctx, pageId, createBlocks(ctx, { type: 'page_id', page_id: pageId }, children, 'children', 0));
}

function parentView(p: Parent, api: ApiVersion): Record<string, unknown> {
  switch (p.type) {
    case 'workspace':
      return { type: 'workspace', workspace: true };
    case 'page_id':
      return { type: 'page_id', page_id: p.page_id };
    case 'block_id':
      return { type: 'block_id', block_id: p.block_id };
    case 'data_source_id':
      return api.dataSources
        ? { type: 'data_source_id', data_source_id: p.data_source_id, database_id: p.database_id }
        : { type: 'database_id', database_id: p.database_id };
  }
}

export { parentView };

function hasLiveChildren(ctx: TwinContext, id: string): boolean {
  return childrenOf(ctx, id).some((c) => {
    const x = ctx.store.get<Block>('block', c) ?? ctx.store.get<Page>('page', c) ?? ctx.store.get<Database>('database', c);
    return !!x && !x.in_trash;
  });
}

type Node = { kind: 'block'; block: Block } | { kind: 'page'; page: Page } | { kind: 'database'; db: Database };

/** A block, or the page or database that answers as a `child_page` / `child_database` block. */
export function findBlock(ctx: TwinContext, id: string): Node {
  const block = ctx.store.get<Block>('block', id);
  if (block) return { kind: 'block', block };
  const page = ctx.store.get<Page>('page', id);
  if (page) return { kind: 'page', page };
  const db = ctx.store.get<Database>('database', id);
  if (db) return { kind: 'database', db };
  throw notFound('block', id);
}

export function blockView(ctx: TwinContext, node: Node, api: ApiVersion): Record<string, unknown> {
  const s = node.kind === 'block' ? node.block : node.kind === 'page' ? node.page : node.db;
  const inTrash = trashed(ctx, s.parent, s);
  const common = {
    object: 'block',
    id: s.id,
    parent: parentView(s.parent, api),
    created_time: s.created_time,
    last_edited_time: s.last_edited_time,
    created_by: userRef(s.created_by),
    last_edited_by: userRef(s.last_edited_by),
    has_children: hasLiveChildren(ctx, s.id),
    archived: inTrash,
    in_trash: inTrash,
  };
  if (node.kind === 'page') return { ...common, type: 'child_page', child_page: { title: pageTitle(node.page) } };
  if (node.kind === 'database') return { ...common, has_children: false, type: 'child_database', child_database: { title: plainText(node.db.title) } };
  return { ...common, type: node.block.type, [node.block.type]: node.block.content };
}

/** The live children of a container, in order, as nodes. */
export function listChildren(ctx: TwinContext, containerId: string): Node[] {
  if (!containerKind(ctx, containerId)) throw notFound('block', containerId);
  const out: Node[] = [];
  for (const id of childrenOf(ctx, containerId)) {
    const node = findBlock(ctx, id);
    const s = node.kind === 'block' ? node.block : node.kind === 'page' ? node.page : node.db;
    if (!s.in_trash) out.push(node);
  }
  return out;
}

/** Update a block's content (`{paragraph: {rich_text}}`) or move it to / out of the trash. */
export function updateBlock(ctx: TwinContext, id: string, body: Record<string, unknown>, setTrash: (node: Node, inTrash: boolean) => void): Node {
  const node = findBlock(ctx, id);
  const trashFlag = field(body, 'in_trash') ?? field(body, 'archived');
  if (trashFlag !== undefined && typeof trashFlag !== 'boolean') throw bodyInvalid('in_trash', 'should be a boolean', trashFlag);
  if (node.kind !== 'block') {
    if (typeof trashFlag === 'boolean') setTrash(node, trashFlag);
    return findBlock(ctx, id);
  }
  const block = node.block;
  if (trashed(ctx, block.parent, block) && trashFlag !== false)
    throw validation("Can't edit block that is archived. You must unarchive the block before editing.");
  const update = field(body, block.type);
  const other = BLOCK_TYPES.find((t) => t !== block.type && field(body, t) !== undefined);
  if (other) throw validation(`Block type ${other} does not match existing block type ${block.type}.`);
  if (update !== undefined) {
    if (!isObject(update)) throw bodyInvalid(block.type, 'should be an object', update);
    block.content = content(ctx, block.type, update, block.type, block.content);
  }
  if (typeof trashFlag === 'boolean') block.in_trash = trashFlag;
  touch(ctx, block, me(ctx).id);
  ctx.store.put('block', block.id, block);
  contentUpdated(ctx, block.parent, [block.id]);
  return { kind: 'block', block };
}

export { getPage };
