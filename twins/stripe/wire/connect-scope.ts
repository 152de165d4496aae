// The `Stripe-Account: acct_…` header: a request made "as" a connected account. Every record such a
// request reads or writes lives in that account's own namespace of the record store — the resource
// name is prefixed with the account id (`acct_1…:customer`) — so a connected account's objects are
// invisible to the platform and to every other account (and the reverse) without any model knowing:
// the models keep using `ctx.store`, which for such a request is a view onto the account's records.
// Accounts themselves (and what only the platform owns: account links, application fees) stay in the
// platform's namespace. An unknown or deleted account id answers Stripe's 403 `account_invalid`.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import type { PageQuery, RecordStore } from '../../../twin-runtime/record-store.js';
import { StripeApiError } from './errors.js';

/** Where the platform's own account is kept (model/accounts.ts). */
export const PLATFORM_ACCOUNT_META = 'stripe:platform_account';

/** Records that belong to the platform whichever account a request speaks for. */
const PLATFORM_RESOURCES = new Set(['account', 'account_link', 'login_link', 'application_fee']);

/** Which account a scoped store speaks for, and the platform's own store behind it. */
const scopes = new WeakMap<RecordStore, { account: string; platform: RecordStore }>();

/** The record resource name `resource` has inside `account`'s namespace. */
export function scopedResource(account: string | null, resource: string): string {
  return account && !PLATFORM_RESOURCES.has(resource) ? `${account}:${resource}` : resource;
}

/** Views already made, by store and account (a view holds no state of its own, so one serves every request). */
const views = new WeakMap<RecordStore, Map<string, RecordStore>>();

/** A view of `store` holding only `account`'s records (the same database and transaction). */
function scopedStore(store: RecordStore, account: string): RecordStore {
  let byAccount = views.get(store);
  if (!byAccount) views.set(store, (byAccount = new Map()));
  const known = byAccount.get(account);
  if (known) return known;
  const r = (resource: string) => scopedResource(account, resource);
  const q = <T extends Pick<PageQuery, 'resource'>>(query: T): T => ({ ...query, resource: r(query.resource) });
  const view: RecordStore = Object.create(store);
  Object.assign(view, {
    get: (resource: string, id: string) => store.get(r(resource), id),
    has: (resource: string, id: string) => store.has(r(resource), id),
    put: (resource: string, id: string, body: unknown) => store.put(r(resource), id, body),
    delete: (resource: string, id: string) => store.delete(r(resource), id),
    list: (resource: string) => store.list(r(resource)),
    listRecords: (resource: string) => store.listRecords(r(resource)),
    listByPrefix: (resource: string, prefix: string) => store.listByPrefix(r(resource), prefix),
    count: (resource: string) => store.count(r(resource)),
    cursorOf: (resource: string, id: string) => store.cursorOf(r(resource), id),
    page: (query: PageQuery) => store.page(q(query)),
    countWhere: (query: Parameters<RecordStore['countWhere']>[0]) => store.countWhere(q(query)),
    getMeta: (key: string) => store.getMeta(`${account}:${key}`),
    setMeta: (key: string, value: string) => store.setMeta(`${account}:${key}`, value),
  });
  scopes.set(view, { account, platform: store });
  byAccount.set(account, view);
  return view;
}

/** The connected account a context speaks for (null: the platform itself). */
export function accountOf(ctx: TwinContext): string | null {
  return scopes.get(ctx.store)?.account ?? null;
}

/** The platform's own context behind a (possibly) scoped one. */
export function platformContext(ctx: TwinContext): TwinContext {
  const scope = scopes.get(ctx.store);
  return scope ? { ...ctx, store: scope.platform } : ctx;
}

/** `ctx` speaking for `account` (also the platform's own writes on an account: a transfer's payment). */
export function contextFor(ctx: TwinContext, account: string): TwinContext {
  const platform = platformContext(ctx);
  return { ...platform, store: scopedStore(platform.store, account) };
}

/** Stripe masks the key in its messages, keeping the last four characters. */
function maskedKey(key: string): string {
  const prefix = key.match(/^[a-z]+_[a-z]+_/)?.[0] ?? '';
  return prefix + '*'.repeat(Math.max(0, key.length - prefix.length - 4)) + key.slice(-4);
}

/** Stripe's 403 for an account the key may not act for (unknown, deleted, or not connected). */
export function accountInvalid(ctx: TwinContext, account: string): StripeApiError {
  return new StripeApiError(403, {
    type: 'invalid_request_error',
    code: 'account_invalid',
    message: `The provided key '${maskedKey(ctx.apiKey)}' does not have access to account '${account}' (or that account does not exist). Application access may have been revoked.`,
  });
}

/** Whether `id` names a live connected account of this platform. */
export function isConnectedAccount(ctx: TwinContext, id: string): boolean {
  return platformContext(ctx).store.has('account', id);
}

/** The platform's own account id, once `GET /v1/account` has made it (its header is the platform). */
function platformAccountId(ctx: TwinContext): string | undefined {
  const kept = ctx.store.getMeta(PLATFORM_ACCOUNT_META);
  return kept ? (JSON.parse(kept) as { id: string }).id : undefined;
}

function accountHeader(req: TwinRequest): string | undefined {
  const v = req.headers['stripe-account'];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The context a request runs in: the platform's, or with a `Stripe-Account` header that account's
 * (thrown `account_invalid` when the platform has no such account).
 */
export function requestContext(req: TwinRequest, ctx: TwinContext): TwinContext {
  const account = accountHeader(req)?.trim();
  if (!account) return ctx;
  if (isConnectedAccount(ctx, account)) return contextFor(ctx, account);
  if (account === platformAccountId(ctx)) return ctx;
  throw accountInvalid(ctx, account);
}

/** Routes whose handlers run in the request's account context. */
export function scopedRoutes<R extends TwinRoute>(routes: R[]): R[] {
  return routes.map((route) => (route.public ? route : { ...route, handler: (req, ctx) => route.handler(req, requestContext(req, ctx)) }));
}
