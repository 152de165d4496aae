// Search: pages and data sources (databases before 2025-09-03) whose title contains the query
// (case-insensitive), optionally filtered by object, most recently edited first (or as `sort` asks).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid } from '../wire/errors.js';
import { field } from '../wire/params.js';
import type { ApiVersion } from '../wire/version.js';
import { getDatabase, trashed } from './access.js';
import { pageTitle } from './properties.js';
import type { DataSource, Database, Page } from './records.js';
import { plainText } from './rich-text.js';

export type Hit =
  | { kind: 'page'; page: Page; order: number }
  | { kind: 'data_source'; ds: DataSource; order: number }
  | { kind: 'database'; db: Database; order: number };

export function search(ctx: TwinContext, body: Record<string, unknown>, api: ApiVersion): Hit[] {
  const query = field(body, 'query');
  if (query !== undefined && typeof query !== 'string') throw bodyInvalid('query', 'should be a string', query);
  const q = (query ?? '').trim().toLowerCase();
  const filter = field(body, 'filter');
  let only: string | undefined;
  if (filter !== undefined) {
    const value = field(filter, 'value');
    const allowed = api.dataSources ? ['page', 'data_source'] : ['page', 'database'];
    if (field(filter, 'property') !== 'object') throw bodyInvalid('filter.property', 'should be `"object"`', field(filter, 'property'));
    if (typeof value !== 'string' || !allowed.includes(value)) throw bodyInvalid('filter.value', `should be \`"${allowed[0]}"\` or \`"${allowed[1]}"\``, value);
    only = value;
  }
  const sort = field(body, 'sort');
  let direction = 'descending';
  if (sort !== undefined) {
    if (field(sort, 'timestamp') !== 'last_edited_time') throw bodyInvalid('sort.timestamp', 'should be `"last_edited_time"`', field(sort, 'timestamp'));
    const d = field(sort, 'direction');
    if (d !== 'ascending' && d !== 'descending') throw bodyInvalid('sort.direction', 'should be `"ascending"` or `"descending"`', d);
    direction = d;
  }
  const hits: Hit[] = [];
  let order = 0;
  if (only !== 'data_source' && only !== 'database') {
    for (const page of ctx.store.list<Page>('page')) {
      order++;
      if (!trashed(ctx, page.parent, page) && pageTitle(page).toLowerCase().includes(q)) hits.push({ kind: 'page', page, order });
    }
  }
  if (only !== 'page') {
    if (api.dataSources) {
      for (const ds of ctx.store.list<DataSource>('data_source')) {
        order++;
        const db = getDatabase(ctx, ds.database_id);
        if (!ds.in_trash && !trashed(ctx, db.parent, db) && plainText(ds.title).toLowerCase().includes(q)) hits.push({ kind: 'data_source', ds, order });
      }
    } else {
      for (const db of ctx.store.list<Database>('database')) {
        order++;
        if (!trashed(ctx, db.parent, db) && plainText(db.title).toLowerCase().includes(q)) hits.push({ kind: 'database', db, order });
      }
    }
  }
  const edited = (h: Hit) => (h.kind === 'page' ? h.page : h.kind === 'data_source' ? h.ds : h.db).last_edited_time;
  const sign = direction === 'ascending' ? 1 : -1;
  return hits.sort((a, b) => sign * (edited(a).localeCompare(edited(b)) || a.order - b.order));
}

export function hitId(h: Hit): string {
  return h.kind === 'page' ? h.page.id : h.kind === 'data_source' ? h.ds.id : h.db.id;
}
