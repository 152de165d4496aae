// Saved filters: a named JQL query (checked as the search would check it) owned by its creator,
// renamed or re-queried by its owner, handed to another owner, marked favourite per user, found by
// name, deleted.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { fieldError, JiraError } from '../wire/errors.js';
import { searchIssues } from './issues.js';
import { numericId, type Filter } from './records.js';
import { viewer } from './workspace.js';

export interface FilterInput {
  name?: unknown;
  description?: unknown;
  jql?: unknown;
  favourite?: unknown;
}

export function requireFilter(ctx: TwinContext, id: string): Filter {
  const f = ctx.store.get<Filter>('filter', id);
  if (!f) throw new JiraError(400, [`The selected filter is not available to you, perhaps it has been deleted or had its permissions changed.`]);
  return f;
}

function checkedName(ctx: TwinContext, value: unknown, owner: string, self?: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw fieldError('filterName', 'You must specify a name for this filter.');
  if (value.length > 255) throw fieldError('filterName', 'The filter name must not be longer than 255 characters.');
  if (ctx.store.list<Filter>('filter').some((f) => f.id !== self && f.ownerAccountId === owner && f.name.toLowerCase() === value.toLowerCase()))
    throw fieldError('filterName', 'Filter with same name already exists.');
  return value;
}

function checkedJql(ctx: TwinContext, value: unknown): string {
  const jql = typeof value === 'string' ? value : '';
  // The query must be one the search accepts (its fields, operators and functions).
  searchIssues(ctx, jql);
  return jql;
}

function ownFilter(ctx: TwinContext, id: string): Filter {
  const f = requireFilter(ctx, id);
  if (f.ownerAccountId !== viewer(ctx).accountId) throw new JiraError(400, ['Only the owner of a filter can change it.']);
  return f;
}

export function createFilter(ctx: TwinContext, input: FilterInput): Filter {
  const me = viewer(ctx).accountId;
  const f: Filter = {
    id: numericId(ctx, 'filter'),
    name: checkedName(ctx, input.name, me),
    description: typeof input.description === 'string' ? input.description : '',
    jql: checkedJql(ctx, input.jql),
    ownerAccountId: me,
    favouriteOf: input.favourite === true ? [me] : [],
  };
  ctx.store.put('filter', f.id, f);
  return f;
}

export function updateFilter(ctx: TwinContext, id: string, input: FilterInput): Filter {
  const f = ownFilter(ctx, id);
  const me = viewer(ctx).accountId;
  const next: Filter = {
    ...f,
    name: input.name === undefined ? f.name : checkedName(ctx, input.name, f.ownerAccountId, f.id),
    description: typeof input.description === 'string' ? input.description : f.description,
    jql: input.jql === undefined ? f.jql : checkedJql(ctx, input.jql),
    favouriteOf:
      input.favourite === undefined ? f.favouriteOf : input.favourite === true ? [...new Set([...f.favouriteOf, me])] : f.favouriteOf.filter((a) => a !== me),
  };
  ctx.store.put('filter', f.id, next);
  return next;
}

export function deleteFilter(ctx: TwinContext, id: string): void {
  ctx.store.delete('filter', ownFilter(ctx, id).id);
}

export function setFavourite(ctx: TwinContext, id: string, on: boolean): Filter {
  const f = requireFilter(ctx, id);
  const me = viewer(ctx).accountId;
  const next = { ...f, favouriteOf: on ? [...new Set([...f.favouriteOf, me])] : f.favouriteOf.filter((a) => a !== me) };
  ctx.store.put('filter', f.id, next);
  return next;
}

export function changeOwner(ctx: TwinContext, id: string, accountId: unknown): void {
  const f = ownFilter(ctx, id);
  if (typeof accountId !== 'string' || !ctx.store.has('user', accountId)) throw new JiraError(400, ['The new owner does not exist.']);
  checkedName(ctx, f.name, accountId, f.id);
  ctx.store.put('filter', f.id, { ...f, ownerAccountId: accountId });
}
