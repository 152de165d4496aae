// A billing twin with a verified webhook receiver, started before a test file's subtests and
// closed after them, plus `raw(path)`: the JSON the twin answers to a GET (the SDK turns decimal
// strings into Decimal objects, so schema checks read the raw body).

import type Stripe from 'stripe';
import { startBillingTwin, type BillingTwin } from './billing-helpers.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

export interface HookedTwin {
  bt: BillingTwin;
  stripe: Stripe;
  hooks: WebhookReceiver;
  /** `version`: the `Stripe-Version` to pin (the default version without it). */
  raw(path: string, version?: string): Promise<any>;
}

interface Lifecycle {
  before(fn: () => Promise<void>): void;
  teardown(fn: () => Promise<void>): void;
}

/** Fields are filled in `t.before`, so read them inside subtests. */
export function hookedBillingTwin(t: Lifecycle): HookedTwin {
  const h = {} as HookedTwin;
  t.before(async () => {
    h.bt = await startBillingTwin();
    h.stripe = h.bt.stripe;
    h.hooks = await startWebhookReceiver(h.stripe);
    h.raw = async (path, version) =>
      (
        await fetch(`${h.bt.twin.url}${path}`, { headers: { authorization: `Bearer ${h.bt.twin.apiKey}`, ...(version ? { 'stripe-version': version } : {}) } })
      ).json();
  });
  t.teardown(async () => {
    await h.hooks?.close();
    await h.bt?.close();
  });
  return h;
}
