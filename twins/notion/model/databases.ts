// Databases and their data sources (API 2025-09-03: a database holds data sources, each with a
// property schema; earlier versions see a database as its one data source). Create, retrieve,
// update (title, description, schema, trash), query pages with filters and sorts.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, validation } from '../wire/errors.js';
import { bodyId, field, isObject } from '../wire/params.js';
import type { ApiVersion } from '../wire/version.js';
import { getDataSource, getDatabase, getPage, insertChildren, notionUrl, refs, trashed, userRef } from './access.js';
import { parentView } from './blocks.js';
import { applySchema, schemaView } from './properties.js';
import { compileFilter, compileSorts } from './query.js';
import { newId, stamps, touch, type DataSource, type Database, type Page, type Parent } from './records.js';
import { plainText, richText } from './rich-text.js';
import { createView } from './views.js';
import { me } from './workspace.js';

function titleOf(ctx: TwinContext, raw: unknown, path: string) {
  return richText(raw, path, refs(ctx));
}

export function createDataSourceRecord(ctx: TwinContext, db: Database, title: DataSource['title'], properties: unknown, path: string): DataSource {
  const ds: DataSource = { id: newId(ctx), database_id: db.id, title, description: [], icon: null, properties: [], ...stamps(ctx, me(ctx).id) };
  ds.properties = applySchema(ctx, [], properties ?? { Name: { title: {} } }, (id) => getDataSource(ctx, id), true);
  void path;
  ctx.store.put('data_source', ds.id, ds);
  return ds;
}

export function createDatabase(ctx: TwinContext, body: Record<string, unknown>, api: ApiVersion): Database {
  const rawParent = field(body, 'parent');
  if (!isObject(rawParent)) throw bodyInvalid('parent', 'should be defined', rawParent);
  let parent: Parent;
  if (field(rawParent, 'page_id') !== undefined) {
    const page = getPage(ctx, bodyId(field(rawParent, 'page_id'), 'parent.page_id'));
    if (trashed(ctx, page.parent, page)) throw validation("Can't edit block that is archived. You must unarchive the block before editing.");
    parent = { type: 'page_id', page_id: page.id };
  } else if (field(rawParent, 'workspace') === true) parent = { type: 'workspace' };
  else throw bodyInvalid('parent', 'should be a `page_id` or `workspace` parent', rawParent);
  const properties = api.dataSources ? field(field(body, 'initial_data_source'), 'properties') : field(body, 'properties');
  if (!api.dataSources && properties === undefined) throw bodyInvalid('properties', 'should be defined', undefined);
  const title = titleOf(ctx, field(body, 'title'), 'title');
  const inline = field(body, 'is_inline');
  const db: Database = {
    id: newId(ctx),
    parent,
    title,
    description: titleOf(ctx, field(body, 'description'), 'description'),
    icon: field(body, 'icon') ?? null,
    cover: field(body, 'cover') ?? null,
    is_inline: inline === true,
    is_locked: false,
    data_source_ids: [],
    ...stamps(ctx, me(ctx).id),
  };
  ctx.store.put('database', db.id, db);
  const ds = createDataSourceRecord(ctx, db, title, properties, 'initial_data_source.properties');
  db.data_source_ids.push(ds.id);
  ctx.store.put('database', db.id, db);
  if (parent.type === 'page_id') insertChildren(ctx, parent.page_id, [db.id]);
  // Every database opens with a table view, as one made in Notion does.
  createView(ctx, { data_source_id: ds.id, name: 'Default view', type: 'table' });
  return db;
}

export function createDataSource(ctx: TwinContext, body: Record<string, unknown>): DataSource {
  const db = getDatabase(ctx, bodyId(field(field(body, 'parent'), 'database_id'), 'parent.database_id'));
  const ds = createDataSourceRecord(ctx, db, titleOf(ctx, field(body, 'title'), 'title'), field(body, 'properties'), 'properties');
  db.data_source_ids.push(ds.id);
  touch(ctx, db, me(ctx).id);
  ctx.store.put('database', db.id, db);
  return ds;
}

export function databaseView(ctx: TwinContext, db: Database, api: ApiVersion): Record<string, unknown> {
  const inTrash = trashed(ctx, db.parent, db);
  const base: Record<string, unknown> = {
    object: 'database',
    id: db.id,
    title: db.title,
    description: db.description,
    parent: parentView(db.parent, api),
    is_inline: db.is_inline,
    in_trash: inTrash,
    archived: inTrash,
    is_locked: db.is_locked,
    created_time: db.created_time,
    last_edited_time: db.last_edited_time,
    created_by: userRef(db.created_by),
    last_edited_by: userRef(db.last_edited_by),
    icon: db.icon,
    cover: db.cover,
    url: notionUrl('', db.id),
    public_url: null,
  };
  if (api.dataSources) {
    base.data_sources = db.data_source_ids.map((id) => ({ id, name: plainText(getDataSource(ctx, id).title) }));
    return base;
  }
  const ds = getDataSource(ctx, db.data_source_ids[0]!);
  base.properties = Object.fromEntries(ds.properties.map((p) => [p.name, schemaView(p)]));
  return base;
}

export function dataSourceView(ctx: TwinContext, ds: DataSource): Record<string, unknown> {
  const db = getDatabase(ctx, ds.database_id);
  const inTrash = ds.in_trash || trashed(ctx, db.parent, db);
  return {
    object: 'data_source',
    id: ds.id,
    created_time: ds.created_time,
    last_edited_time: ds.last_edited_time,
    created_by: userRef(ds.created_by),
    last_edited_by: userRef(ds.last_edited_by),
    properties: Object.fromEntries(ds.properties.map((p) => [p.name, schemaView(p)])),
    parent: { type: 'database_id', database_id: db.id },
    database_parent: parentView(db.parent, { version: '', dataSources: true }),
    title: ds.title,
    description: ds.description,
    icon: ds.icon,
    cover: null,
    archived: inTrash,
    in_trash: inTrash,
    is_inline: db.is_inline,
    url: notionUrl('', ds.id),
    public_url: null,
  };
}

function trashFlagOf(body: Record<string, unknown>): boolean | undefined {
  const flag = field(body, 'in_trash') ?? field(body, 'archived');
  if (flag !== undefined && typeof flag !== 'boolean') throw bodyInvalid('in_trash', 'should be a boolean', flag);
  return flag;
}

export function updateDataSource(ctx: TwinContext, ds: DataSource, body: Record<string, unknown>): DataSource {
  if (field(body, 'title') !== undefined) ds.title = titleOf(ctx, field(body, 'title'), 'title');
  if (field(body, 'description') !== undefined) ds.description = titleOf(ctx, field(body, 'description'), 'description');
  if (field(body, 'icon') !== undefined) ds.icon = field(body, 'icon');
  ds.properties = applySchema(ctx, ds.properties, field(body, 'properties'), (id) => getDataSource(ctx, id), false);
  const flag = trashFlagOf(body);
  if (flag !== undefined) ds.in_trash = flag;
  touch(ctx, ds, me(ctx).id);
  ctx.store.put('data_source', ds.id, ds);
  return ds;
}

export function updateDatabase(ctx: TwinContext, id: string, body: Record<string, unknown>, api: ApiVersion): Database {
  const db = getDatabase(ctx, id);
  if (field(body, 'title') !== undefined) db.title = titleOf(ctx, field(body, 'title'), 'title');
  if (field(body, 'description') !== undefined) db.description = titleOf(ctx, field(body, 'description'), 'description');
  if (typeof field(body, 'is_inline') === 'boolean') db.is_inline = field(body, 'is_inline') as boolean;
  if (typeof field(body, 'is_locked') === 'boolean') db.is_locked = field(body, 'is_locked') as boolean;
  if (field(body, 'icon') !== undefined) db.icon = field(body, 'icon');
  if (field(body, 'cover') !== undefined) db.cover = field(body, 'cover');
  const flag = trashFlagOf(body);
  if (flag !== undefined) db.in_trash = flag;
  if (field(body, 'properties') !== undefined) {
    if (api.dataSources) throw validation('body failed validation: body.properties is not accepted for databases in this API version: update the data source.');
    updateDataSource(ctx, getDataSource(ctx, db.data_source_ids[0]!), { properties: field(body, 'properties') });
  }
  touch(ctx, db, me(ctx).id);
  ctx.store.put('database', db.id, db);
  return db;
}

/** The live pages of a data source matching the filter, in the sort's order (creation order otherwise). */
export function queryPages(ctx: TwinContext, ds: DataSource, body: Record<string, unknown>): Page[] {
  const filter = field(body, 'filter');
  const pred = filter === undefined || (isObject(filter) && Object.keys(filter).length === 0) ? undefined : compileFilter(ctx, ds.properties, filter);
  const cmp = compileSorts(ctx, ds.properties, field(body, 'sorts'));
  const inTrash = (field(body, 'in_trash') ?? field(body, 'archived')) === true;
  const pages = ctx.store.list<Page>('page').filter((p) => p.parent.type === 'data_source_id' && p.parent.data_source_id === ds.id && p.in_trash === inTrash);
  const hits = pred ? pages.filter(pred) : pages;
  return cmp ? [...hits].sort(cmp) : hits;
}
