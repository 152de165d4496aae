// Pages: create in a data source (or a database with one data source) or under a page, retrieve,
// update properties, icon, cover, lock, trash/restore; `pages.properties.retrieve` answers property
// items (paginated for title, rich text, people and relation as Notion does).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, NotionError, validation } from '../wire/errors.js';
import { bodyId, field, isObject, paginate, type PageRequest } from '../wire/params.js';
import type { ApiVersion } from '../wire/version.js';
import {
  childrenOf,
  getDataSource,
  getDatabase,
  getPage,
  insertChildren,
  notionUrl,
  peopleView,
  refs,
  savePage,
  setChildren,
  trashed,
  userRef,
} from './access.js';
import { createPageChildren, parentView } from './blocks.js';
import { findProperty, PAGE_TITLE_SCHEMA, pageTitle, propertiesView, valueView, writeValues } from './properties.js';
import { newId, stamps, touch, type DataSource, type Page, type Parent, type PropertySchema } from './records.js';
import { emitEvent } from './webhooks.js';
import { me } from './workspace.js';

export function schemaOf(ctx: TwinContext, page: Page): { schema: PropertySchema[]; dataSource: DataSource | null } {
  if (page.parent.type !== 'data_source_id') return { schema: PAGE_TITLE_SCHEMA, dataSource: null };
  const ds = getDataSource(ctx, page.parent.data_source_id);
  return { schema: ds.properties, dataSource: ds };
}

function resolveParent(ctx: TwinContext, raw: unknown, api: ApiVersion): { parent: Parent; dataSource: DataSource | null } {
  if (!isObject(raw)) throw bodyInvalid('parent', 'should be defined', raw);
  if (field(raw, 'data_source_id') !== undefined) {
    const ds = getDataSource(ctx, bodyId(field(raw, 'data_source_id'), 'parent.data_source_id'));
    return { parent: { type: 'data_source_id', data_source_id: ds.id, database_id: ds.database_id }, dataSource: ds };
  }
  if (field(raw, 'database_id') !== undefined) {
    const db = getDatabase(ctx, bodyId(field(raw, 'database_id'), 'parent.database_id'));
    if (db.data_source_ids.length !== 1) {
      throw validation(
        api.dataSources
          ? 'Databases with multiple data sources cannot be used as a parent: use a data_source_id parent.'
          : 'Databases with multiple data sources are not supported in this API version.',
      );
    }
    const ds = getDataSource(ctx, db.data_source_ids[0]!);
    return { parent: { type: 'data_source_id', data_source_id: ds.id, database_id: db.id }, dataSource: ds };
  }
  if (field(raw, 'page_id') !== undefined) {
    const page = getPage(ctx, bodyId(field(raw, 'page_id'), 'parent.page_id'));
    if (trashed(ctx, page.parent, page)) throw validation("Can't edit block that is archived. You must unarchive the block before editing.");
    return { parent: { type: 'page_id', page_id: page.id }, dataSource: null };
  }
  if (field(raw, 'workspace') === true) return { parent: { type: 'workspace' }, dataSource: null };
  throw bodyInvalid('parent', 'should be one of `page_id`, `database_id`, `data_source_id` or `workspace`', raw);
}

function eventParent(page: Page): Record<string, unknown> {
  const p = page.parent;
  if (p.type === 'data_source_id') return { id: p.database_id, type: 'database', data_source_id: p.data_source_id };
  if (p.type === 'page_id') return { id: p.page_id, type: 'page' };
  if (p.type === 'block_id') return { id: p.block_id, type: 'block' };
  return { id: null, type: 'space' };
}

export function createPage(ctx: TwinContext, body: Record<string, unknown>, api: ApiVersion): Page {
  const { parent, dataSource } = resolveParent(ctx, field(body, 'parent'), api);
  if (dataSource?.in_trash) throw validation("Can't edit block that is archived. You must unarchive the block before editing.");
  const by = me(ctx).id;
  const page: Page = {
    id: newId(ctx),
    parent,
    icon: field(body, 'icon') ?? null,
    cover: field(body, 'cover') ?? null,
    values: {},
    is_locked: false,
    ...stamps(ctx, by),
  };
  const schema = dataSource ? dataSource.properties : PAGE_TITLE_SCHEMA;
  let props = field(body, 'properties');
  // Under a page, `{title: […]}` is accepted as well as `{title: {title: […]}}`.
  if (!dataSource && isObject(props) && Array.isArray(field(props, 'title'))) props = { title: { title: field(props, 'title') } };
  writeValues(ctx, page, schema, props ?? {}, refs(ctx), dataSource?.id ?? null);
  if (dataSource) ctx.store.put('data_source', dataSource.id, dataSource); // options created on the way
  savePage(ctx, page);
  if (parent.type === 'page_id') insertChildren(ctx, parent.page_id, [page.id]);
  createPageChildren(ctx, page.id, field(body, 'children'));
  emitEvent(ctx, { type: 'page.created', entity: { id: page.id, type: 'page' }, data: { parent: eventParent(page) } });
  return page;
}

export function updatePage(ctx: TwinContext, id: string, body: Record<string, unknown>): Page {
  const page = getPage(ctx, id);
  const trashFlag = field(body, 'in_trash') ?? field(body, 'archived');
  if (trashFlag !== undefined && typeof trashFlag !== 'boolean') throw bodyInvalid('in_trash', 'should be a boolean', trashFlag);
  const wasTrashed = trashed(ctx, page.parent, page);
  const edits = ['properties', 'icon', 'cover', 'is_locked'].some((k) => field(body, k) !== undefined);
  if (wasTrashed && edits && trashFlag !== false) throw validation("Can't edit block that is archived. You must unarchive the block before editing.");
  if (page.is_locked && field(body, 'properties') !== undefined && field(body, 'is_locked') !== false)
    throw new NotionError(400, 'validation_error', 'Page is locked and cannot be edited.');
  if (typeof trashFlag === 'boolean') page.in_trash = trashFlag;
  const { schema, dataSource } = schemaOf(ctx, page);
  const written = writeValues(ctx, page, schema, field(body, 'properties'), refs(ctx), dataSource?.id ?? null);
  if (dataSource && written.length) ctx.store.put('data_source', dataSource.id, dataSource);
  if (field(body, 'icon') !== undefined) page.icon = field(body, 'icon');
  if (field(body, 'cover') !== undefined) page.cover = field(body, 'cover');
  if (typeof field(body, 'is_locked') === 'boolean') page.is_locked = field(body, 'is_locked') as boolean;
  touch(ctx, page, me(ctx).id);
  savePage(ctx, page);
  if (written.length)
    emitEvent(ctx, {
      type: 'page.properties_updated',
      entity: { id: page.id, type: 'page' },
      data: { parent: eventParent(page), updated_properties: written },
    });
  if (typeof trashFlag === 'boolean' && trashFlag !== wasTrashed)
    emitEvent(ctx, { type: trashFlag ? 'page.deleted' : 'page.undeleted', entity: { id: page.id, type: 'page' }, data: { parent: eventParent(page) } });
  return page;
}

export function pageView(ctx: TwinContext, page: Page, api: ApiVersion, filterProperties?: string[]): Record<string, unknown> {
  const { schema } = schemaOf(ctx, page);
  const inTrash = trashed(ctx, page.parent, page);
  let only: Set<string> | undefined;
  if (filterProperties?.length) only = new Set(filterProperties.map((k) => findProperty(schema, k)?.id).filter((x): x is string => !!x));
  return {
    object: 'page',
    id: page.id,
    created_time: page.created_time,
    last_edited_time: page.last_edited_time,
    created_by: userRef(page.created_by),
    last_edited_by: userRef(page.last_edited_by),
    cover: page.cover,
    icon: page.icon,
    parent: parentView(page.parent, api),
    archived: inTrash,
    in_trash: inTrash,
    is_locked: page.is_locked,
    properties: propertiesView(page, schema, peopleView(ctx), only),
    url: notionUrl(pageTitle(page), page.id),
    public_url: null,
  };
}

const PAGINATED = new Set(['title', 'rich_text', 'people', 'relation']);

/** `GET /v1/pages/{page_id}/properties/{property_id}`: a property item, or a list of them. */
export function propertyItem(ctx: TwinContext, page: Page, propertyId: string, pageReq: PageRequest): Record<string, unknown> {
  const { schema } = schemaOf(ctx, page);
  const prop = findProperty(schema, propertyId);
  if (!prop) throw new NotionError(404, 'object_not_found', `Could not find property with ID: ${propertyId}.`);
  const value = valueView(page, prop, peopleView(ctx), schema);
  if (!PAGINATED.has(prop.type)) return { object: 'property_item', ...value };
  const items = (prop.type === 'relation' ? (value.relation as unknown[]) : (value[prop.type] as unknown[])).map((v, i) => ({ i, v }));
  const list = paginate(
    items,
    pageReq,
    (x) => String(x.i),
    (x) => ({ object: 'property_item', id: prop.id, type: prop.type, [prop.type]: x.v }),
    'property_item',
  );
  return { ...list, property_item: { id: prop.id, next_url: null, type: prop.type, [prop.type]: {} } };
}

/** `POST /v1/pages/{page_id}/move`: under another page, or into a data source (values of properties it lacks are dropped). */
export function movePage(ctx: TwinContext, id: string, body: Record<string, unknown>, api: ApiVersion): Page {
  const page = getPage(ctx, id);
  const raw = field(body, 'parent');
  if (!isObject(raw) || (field(raw, 'page_id') === undefined && field(raw, 'data_source_id') === undefined))
    throw bodyInvalid('parent', 'should be a `page_id` or `data_source_id` parent', raw);
  const { parent, dataSource } = resolveParent(ctx, raw, api);
  if (parent.type === 'page_id') {
    for (let p: Page | undefined = getPage(ctx, parent.page_id), d = 0; p && d < 64; d++) {
      if (p.id === page.id) throw validation('A page cannot be moved under itself.');
      p = p.parent.type === 'page_id' ? ctx.store.get<Page>('page', p.parent.page_id) : undefined;
    }
  }
  if (page.parent.type === 'page_id')
    setChildren(
      ctx,
      page.parent.page_id,
      childrenOf(ctx, page.parent.page_id).filter((c) => c !== page.id),
    );
  const title = page.values.title ?? Object.entries(page.values).find(([k]) => schemaOf(ctx, page).schema.find((p) => p.id === k)?.type === 'title')?.[1];
  const keep = new Set((dataSource ? dataSource.properties : PAGE_TITLE_SCHEMA).map((p) => p.id));
  page.values = Object.fromEntries(Object.entries(page.values).filter(([k]) => keep.has(k)));
  page.values.title = title ?? [];
  page.parent = parent;
  if (parent.type === 'page_id') insertChildren(ctx, parent.page_id, [page.id]);
  touch(ctx, page, me(ctx).id);
  savePage(ctx, page);
  emitEvent(ctx, { type: 'page.moved', entity: { id: page.id, type: 'page' }, data: { parent: eventParent(page) } });
  return page;
}
