// A product record with Stripe's defaults, shared by products.ts and by prices created with
// `product_data` (prices.ts), which would otherwise import each other.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { StripeObject } from './objects.js';

export type Product = StripeObject & { object: 'product' };

/** A product with Stripe's defaults, created now; callers fill in what was asked for. */
export function blankProduct(ctx: TwinContext, id: string): Product {
  const now = ctx.clock.nowSeconds();
  return {
    id,
    object: 'product',
    active: true,
    attributes: [],
    created: now,
    default_price: null,
    description: null,
    images: [],
    livemode: false,
    marketing_features: [],
    metadata: {},
    name: '',
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    type: 'service',
    unit_label: null,
    updated: now,
    url: null,
  };
}
