// Entitlements: features (`feat_`), the features a product grants (`prodft_`), and each customer's
// active entitlements (`ent_`) that follow their subscriptions. A customer is entitled to the
// active features of the products of their subscriptions that are active, trialing or past due
// (the twin's reading: access lasts while Stripe still retries a payment). Whenever that set
// changes — a subscription created, moved, paused, resumed or ended, a feature attached to or
// removed from a product, a feature archived — the entitlement records follow and
// `entitlements.active_entitlement_summary.updated` is sent with the new list and the old one.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type Metadata, type MetadataPatch, type StripeObject } from './objects.js';
import { eachMatching, firstMatching, readPage, type ListPage, type ListWindow } from './pages.js';

export interface Feature extends StripeObject {
  object: 'entitlements.feature';
  active: boolean;
  livemode: false;
  lookup_key: string;
  metadata: Metadata;
  name: string;
}

export interface ProductFeature extends StripeObject {
  object: 'product_feature';
  entitlement_feature: Feature;
  livemode: false;
  /** The product it belongs to and its feature's id (kept for lookups; not part of Stripe's object). */
  product: string;
  feature: string;
}

export interface ActiveEntitlement extends StripeObject {
  object: 'entitlements.active_entitlement';
  feature: string;
  livemode: false;
  lookup_key: string;
  customer: string;
}

/** Subscription statuses that grant their products' features. */
const ENTITLING = new Set(['active', 'trialing', 'past_due']);

/** Set once a product grants a feature: until then no subscription change needs a look. */
const IN_USE = 'entitlements:in_use';

// --- features -----------------------------------------------------------------------------------

export function createFeature(ctx: TwinContext, input: { name: string; lookupKey: string; metadata?: MetadataPatch }): Feature {
  if (firstMatching(ctx, 'entitlements.feature', { lookup_key: input.lookupKey })) {
    throw invalidRequest(`A feature with lookup_key '${input.lookupKey}' already exists.`, 'lookup_key', 'resource_already_exists');
  }
  const feature: Feature = {
    id: newId(ctx, 'feature'),
    object: 'entitlements.feature',
    active: true,
    livemode: false,
    lookup_key: input.lookupKey,
    metadata: applyMetadata({}, input.metadata ?? null),
    name: input.name,
  };
  return save(ctx, 'feature', feature);
}

export function getFeature(ctx: TwinContext, id: string, param = 'id'): Feature {
  const feature = find<Feature>(ctx, 'feature', id);
  if (!feature) throw resourceMissing('feature', id, param);
  return feature;
}

export function updateFeature(ctx: TwinContext, id: string, input: { active?: boolean; name?: string; metadata?: MetadataPatch }): Feature {
  const before = getFeature(ctx, id);
  const feature = clone(before);
  if (input.active !== undefined) feature.active = input.active;
  if (input.name !== undefined) feature.name = input.name;
  if (input.metadata !== undefined) feature.metadata = applyMetadata(feature.metadata, input.metadata);
  if (Object.keys(previousAttributes(before, feature)).length === 0) return feature;
  save(ctx, 'feature', feature);
  // A product feature carries its feature: refreshed, and entitlements follow an archive or revival.
  for (const pf of eachMatching<ProductFeature>(ctx, 'product_feature', { feature: id })) {
    save(ctx, 'product_feature', { ...pf, entitlement_feature: feature });
  }
  if (before.active !== feature.active) syncEverySubscriber(ctx);
  return feature;
}

export function listFeatures(ctx: TwinContext, filter: { archived?: boolean; lookupKey?: string }, window: ListWindow): ListPage<Feature> {
  const equals: Record<string, string | boolean> = {};
  if (filter.archived !== undefined) equals.active = !filter.archived;
  if (filter.lookupKey !== undefined) equals.lookup_key = filter.lookupKey;
  return readPage<Feature>(ctx, 'entitlements.feature', equals, window);
}

// --- product features ---------------------------------------------------------------------------

function requireProduct(ctx: TwinContext, product: string): void {
  if (!find(ctx, 'product', product)) throw resourceMissing('product', product, 'product');
}

/** The product feature as Stripe answers it (without the twin's `product` key). */
export function productFeatureView(pf: ProductFeature): StripeObject {
  const { product: _product, feature: _feature, ...view } = pf;
  return view as StripeObject;
}

export function attachFeature(ctx: TwinContext, product: string, featureId: string): ProductFeature {
  requireProduct(ctx, product);
  const feature = getFeature(ctx, featureId, 'entitlement_feature');
  if (!feature.active) throw invalidRequest('An archived feature cannot be attached to a product.', 'entitlement_feature');
  if (firstMatching(ctx, 'product_feature', { product, feature: featureId })) {
    throw invalidRequest(`The feature ${featureId} is already attached to the product ${product}.`, 'entitlement_feature', 'resource_already_exists');
  }
  const pf: ProductFeature = {
    id: newId(ctx, 'product_feature'),
    object: 'product_feature',
    entitlement_feature: feature,
    livemode: false,
    product,
    feature: feature.id,
  };
  save(ctx, 'product_feature', pf);
  ctx.store.setMeta(IN_USE, '1');
  syncEverySubscriber(ctx);
  return pf;
}

export function getProductFeature(ctx: TwinContext, product: string, id: string): ProductFeature {
  const pf = find<ProductFeature>(ctx, 'product_feature', id);
  if (!pf || pf.product !== product) throw resourceMissing('product feature', id, 'id');
  return pf;
}

export function listProductFeatures(ctx: TwinContext, product: string, window: ListWindow): ListPage<ProductFeature> {
  requireProduct(ctx, product);
  return readPage<ProductFeature>(ctx, 'product_feature', { product }, window);
}

export function detachFeature(ctx: TwinContext, product: string, id: string): StripeObject {
  getProductFeature(ctx, product, id);
  ctx.store.delete('product_feature', id);
  syncEverySubscriber(ctx);
  return { id, object: 'product_feature', deleted: true };
}

// --- active entitlements ------------------------------------------------------------------------

export function getActiveEntitlement(ctx: TwinContext, id: string): ActiveEntitlement {
  const ent = find<ActiveEntitlement>(ctx, 'active_entitlement', id);
  if (!ent) throw resourceMissing('active entitlement', id, 'id');
  return ent;
}

/** The Active Entitlement as Stripe answers it (without the twin's `customer` key). */
export function activeEntitlementView(ent: ActiveEntitlement): StripeObject {
  const { customer: _customer, ...view } = ent;
  return view as StripeObject;
}

export function listActiveEntitlements(ctx: TwinContext, customer: string, window: ListWindow): ListPage<ActiveEntitlement> {
  if (!find(ctx, 'customer', customer)) throw resourceMissing('customer', customer, 'customer');
  return readPage<ActiveEntitlement>(ctx, 'entitlements.active_entitlement', { customer }, window);
}

/** The features a customer's entitling subscriptions grant, by feature id. */
function grantedFeatures(ctx: TwinContext, customer: string): Map<string, Feature> {
  const products = new Set<string>();
  for (const sub of eachMatching<StripeObject>(ctx, 'subscription', { customer })) {
    if (!ENTITLING.has(sub.status)) continue;
    for (const item of sub.items.data as StripeObject[]) {
      const product = item.price?.product;
      if (typeof product === 'string') products.add(product);
    }
  }
  const granted = new Map<string, Feature>();
  for (const product of products) {
    for (const pf of eachMatching<ProductFeature>(ctx, 'product_feature', { product })) {
      if (pf.entitlement_feature.active) granted.set(pf.entitlement_feature.id, pf.entitlement_feature);
    }
  }
  return granted;
}

const summaryList = (customer: string, ents: ActiveEntitlement[]) => ({
  object: 'list',
  data: ents.map(activeEntitlementView),
  has_more: false,
  url: `/v1/customer/${customer}/entitlements`,
});

/**
 * Bring a customer's active entitlements in line with their subscriptions; when they change, send
 * `entitlements.active_entitlement_summary.updated`. Costs nothing until a product grants a feature.
 */
export function syncEntitlements(ctx: TwinContext, customer: string): void {
  if (!ctx.store.getMeta(IN_USE)) return;
  const granted = grantedFeatures(ctx, customer);
  const held = [...eachMatching<ActiveEntitlement>(ctx, 'entitlements.active_entitlement', { customer })];
  const kept = held.filter((e) => granted.has(e.feature));
  const added: ActiveEntitlement[] = [];
  for (const [featureId, feature] of granted) {
    if (held.some((e) => e.feature === featureId)) continue;
    const ent: ActiveEntitlement = {
      id: newId(ctx, 'active_entitlement'),
      object: 'entitlements.active_entitlement',
      feature: featureId,
      livemode: false,
      lookup_key: feature.lookup_key,
      customer,
    };
    save(ctx, 'active_entitlement', ent);
    added.push(ent);
  }
  if (added.length === 0 && kept.length === held.length) return;
  for (const e of held) if (!granted.has(e.feature)) ctx.store.delete('entitlements.active_entitlement', e.id);
  const summary = { id: customer, object: 'entitlements.active_entitlement_summary', customer, livemode: false };
  emitEvent(ctx, 'entitlements.active_entitlement_summary.updated', { ...summary, entitlements: summaryList(customer, [...kept, ...added]) } as StripeObject, {
    entitlements: summaryList(customer, held),
  });
}

/** After a product's features change: every customer with a subscription follows. */
function syncEverySubscriber(ctx: TwinContext): void {
  const customers = new Set<string>();
  for (const sub of ctx.store.list<StripeObject>('subscription')) if (typeof sub.customer === 'string') customers.add(sub.customer);
  for (const customer of customers) syncEntitlements(ctx, customer);
}
