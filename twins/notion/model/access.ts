// Looking objects up by id (pages, databases, data sources, blocks), the order of a container's
// children, and the name lookups rich text mentions and property values need.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { notFound } from '../wire/errors.js';
import type { Block, Children, DataSource, Database, Page, Parent, User } from './records.js';
import type { PageRefs } from './properties.js';
import { pageTitle } from './properties.js';
import { plainText } from './rich-text.js';
import { userView } from './workspace.js';

export function getPage(ctx: TwinContext, id: string): Page {
  const p = ctx.store.get<Page>('page', id);
  if (!p) throw notFound('page', id);
  return p;
}

export function getDatabase(ctx: TwinContext, id: string): Database {
  const d = ctx.store.get<Database>('database', id);
  if (!d) throw notFound('database', id);
  return d;
}

export function getDataSource(ctx: TwinContext, id: string): DataSource {
  const d = ctx.store.get<DataSource>('data_source', id);
  if (!d) throw notFound('data_source', id);
  return d;
}

export function savePage(ctx: TwinContext, p: Page): void {
  ctx.store.put('page', p.id, p);
}

export function childrenOf(ctx: TwinContext, containerId: string): string[] {
  return ctx.store.get<Children>('children', containerId)?.ids ?? [];
}

export function setChildren(ctx: TwinContext, containerId: string, ids: string[]): void {
  ctx.store.put('children', containerId, { ids } satisfies Children);
}

/** Append ids to a container's children, after `after` when given (it must be a child). */
export function insertChildren(ctx: TwinContext, containerId: string, ids: string[], after?: string): void {
  const current = childrenOf(ctx, containerId);
  const at = after === undefined ? current.length : current.indexOf(after) + 1;
  setChildren(ctx, containerId, [...current.slice(0, at), ...ids, ...current.slice(at)]);
}

/** Is this id a page, block or database (anything that holds children)? */
export function containerKind(ctx: TwinContext, id: string): 'page' | 'block' | 'database' | undefined {
  if (ctx.store.has('page', id)) return 'page';
  if (ctx.store.has('block', id)) return 'block';
  if (ctx.store.has('database', id)) return 'database';
  return undefined;
}

/** Trashed itself or under a trashed page or block. */
export function trashed(ctx: TwinContext, parent: Parent, self: { in_trash: boolean }): boolean {
  if (self.in_trash) return true;
  let p: Parent | undefined = parent;
  for (let depth = 0; p && depth < 64; depth++) {
    const id: string | undefined = p.type === 'page_id' ? p.page_id : p.type === 'block_id' ? p.block_id : undefined;
    if (!id) return false;
    const holder: Page | Block | undefined = ctx.store.get<Page>('page', id) ?? ctx.store.get<Block>('block', id);
    if (!holder) return false;
    if (holder.in_trash) return true;
    p = holder.parent;
  }
  return false;
}

export function refs(ctx: TwinContext): PageRefs {
  return {
    user: (id) => ctx.store.get<User>('user', id)?.name,
    page: (id) => {
      const page = ctx.store.get<Page>('page', id);
      if (page) return pageTitle(page) || 'Untitled';
      const db = ctx.store.get<Database>('database', id);
      return db ? plainText(db.title) || 'Untitled' : undefined;
    },
    userExists: (id) => ctx.store.has('user', id),
    pageInDataSource: (id, dataSourceId) => {
      const page = ctx.store.get<Page>('page', id);
      return !!page && page.parent.type === 'data_source_id' && page.parent.data_source_id === dataSourceId;
    },
  };
}

/** A user as a people property answers it; an unknown id as a bare reference. */
export function peopleView(ctx: TwinContext): (id: string) => Record<string, unknown> {
  return (id) => {
    const u = ctx.store.get<User>('user', id);
    return u ? userView(ctx, u) : { object: 'user', id };
  };
}

export const userRef = (id: string): Record<string, unknown> => ({ object: 'user', id });

/** Notion's page URL: the title's words and the id without dashes. */
export function notionUrl(title: string, id: string): string {
  const slug = title.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `https://www.notion.so/${slug ? `${slug}-` : ''}${id.replace(/-/g, '')}`;
}
