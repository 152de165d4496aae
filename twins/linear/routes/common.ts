// Helpers the resolver tables share: the acting user, payload shapes of mutations
// (`{success, lastSyncId, <entity>}`), typed reads of GraphQL arguments and lookups by id.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { notFound } from '../wire/errors.js';
import type { Args, Rec } from '../wire/types.js';
import type { User } from '../model/records.js';
import { viewer } from '../model/workspace.js';

export function actor(ctx: TwinContext): User {
  return viewer(ctx);
}

/** `{success: true, lastSyncId, …}` as every Linear mutation payload carries. */
export function payload(ctx: TwinContext, fields: Record<string, unknown>): Rec {
  return { success: true, lastSyncId: ctx.ids.sequence('sync'), ...fields };
}

export function input<T>(args: Args): T {
  return (args.input ?? {}) as T;
}

export function str(args: Args, name: string): string {
  const v = args[name];
  return typeof v === 'string' ? v : '';
}

/** A record by id, or Linear's `Entity not found` error naming the type. */
export function byId<T extends Rec>(ctx: TwinContext, resource: string, typeName: string, id: string): T {
  const rec = ctx.store.get<T>(resource, id);
  if (!rec) throw notFound(typeName);
  return rec;
}

export function related<T extends Rec>(ctx: TwinContext, resource: string, id: unknown): T | null {
  return typeof id === 'string' ? (ctx.store.get<T>(resource, id) ?? null) : null;
}

export function all(ctx: TwinContext, resource: string): Rec[] {
  return ctx.store.list<Rec>(resource);
}
