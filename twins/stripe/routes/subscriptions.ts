// /v1/subscriptions (create, retrieve, update, cancel, list, search) and /v1/subscription_items
// (applied through the subscription update).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listResponse, searchResponse } from '../wire/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, readParams, requiredStr, type ParamSpec } from '../wire/params.js';
import { resourceMissing } from '../wire/errors.js';
import { find, type StripeObject } from '../model/objects.js';
import {
  CANCEL_PARAMS,
  CREATE_PARAMS,
  LIST_FILTERS,
  UPDATE_PARAMS,
  cancelSubscriptionByRequest,
  createSubscription,
  filterSubscriptions,
  loadSubscription,
  updateSubscription,
} from '../model/subscriptions.js';

/** Fields Stripe's search query language accepts for subscriptions. */
const SUBSCRIPTION_SEARCH_FIELDS = {
  created: (o: StripeObject) => o.created,
  status: (o: StripeObject) => o.status,
};
/** `POST /v1/subscription_items[/{id}]` parameters (applied through the subscription update). */
const ITEM_PARAMS: ParamSpec = {
  subscription: true,
  price: true,
  quantity: true,
  metadata: true,
  proration_behavior: true,
  proration_date: true,
  payment_behavior: true,
  tax_rates: true,
  discounts: true,
};

export const subscriptionRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/subscriptions', handler: (req, ctx) => ok(createSubscription(ctx, readParams(req, CREATE_PARAMS))) },
  {
    method: 'GET',
    path: '/v1/subscriptions/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      return searchResponse(req, ctx, ctx.store.list<StripeObject>('subscription'), '/v1/subscriptions/search', SUBSCRIPTION_SEARCH_FIELDS, 'subscriptions');
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, ...LIST_FILTERS });
      return listResponse(req, ctx, filterSubscriptions(ctx, p), '/v1/subscriptions');
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(loadSubscription(ctx, req.params.id!));
    },
  },
  { method: 'POST', path: '/v1/subscriptions/{id}', handler: (req, ctx) => ok(updateSubscription(ctx, req.params.id!, readParams(req, UPDATE_PARAMS))) },
  { method: 'DELETE', path: '/v1/subscriptions/{id}', handler: (req, ctx) => ok(cancelSubscriptionByRequest(ctx, req.params.id!, readParams(req, CANCEL_PARAMS))) },
  {
    method: 'GET',
    path: '/v1/subscription_items',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, subscription: true });
      const sub = loadSubscription(ctx, requiredStr(p, 'subscription'), 'subscription');
      return ok(listBody(p, [...(sub.items.data as StripeObject[])].reverse(), '/v1/subscription_items'));
    },
  },
  {
    method: 'POST',
    path: '/v1/subscription_items',
    handler: (req, ctx) => {
      const p = readParams(req, ITEM_PARAMS);
      const subId = requiredStr(p, 'subscription');
      const { subscription: _s, proration_behavior: pb, proration_date: _d, payment_behavior: _b, ...item } = p;
      const sub = updateSubscription(ctx, subId, { items: [item], ...(pb !== undefined ? { proration_behavior: pb } : {}) });
      const items = sub.items.data as StripeObject[];
      return ok(items[items.length - 1]);
    },
  },
  {
    method: 'POST',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      const p = readParams(req, ITEM_PARAMS);
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      const { proration_behavior: pb, proration_date: _d, payment_behavior: _b, subscription: _s, ...change } = p;
      const sub = updateSubscription(ctx, item.subscription, { items: [{ ...change, id: item.id }], ...(pb !== undefined ? { proration_behavior: pb } : {}) });
      return ok((sub.items.data as StripeObject[]).find((i) => i.id === item.id));
    },
  },
  {
    method: 'DELETE',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      readParams(req, { proration_behavior: true, proration_date: true, clear_usage: true });
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      updateSubscription(ctx, item.subscription, { items: [{ id: item.id, deleted: 'true' }] });
      return ok({ id: item.id, object: 'subscription_item', deleted: true });
    },
  },
  {
    method: 'GET',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      return ok(item);
    },
  },
];
