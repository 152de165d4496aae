// Retry settings (Billing → Revenue recovery on Stripe's dashboard): how many times and when a
// failed invoice payment is retried, and what happens after the last retry. Kept in the twin's meta
// table; routes/billing-settings.ts reads and changes them.

import type { TwinContext } from '../../../twin-runtime/contract.js';

export type SubscriptionAfterFinalFailure = 'cancel' | 'unpaid' | 'past_due';

export interface RetrySettings {
  /** Days after the previous attempt each retry happens (Stripe's custom schedule, up to 8). */
  retry_days: number[];
  /** What happens to the subscription when the last retry fails. */
  subscription_after_final_failure: SubscriptionAfterFinalFailure;
  /** What happens to the invoice then. */
  invoice_after_final_failure: 'past_due' | 'uncollectible';
}

export const DEFAULT_RETRY_SETTINGS: RetrySettings = {
  retry_days: [3, 5, 7],
  subscription_after_final_failure: 'cancel',
  invoice_after_final_failure: 'past_due',
};

const SETTINGS_KEY = 'stripe:billing_retry_settings';

export function retrySettings(ctx: TwinContext): RetrySettings {
  const raw = ctx.store.getMeta(SETTINGS_KEY);
  return raw ? { ...DEFAULT_RETRY_SETTINGS, ...(JSON.parse(raw) as Partial<RetrySettings>) } : { ...DEFAULT_RETRY_SETTINGS };
}

export function saveRetrySettings(ctx: TwinContext, s: RetrySettings): void {
  ctx.store.setMeta(SETTINGS_KEY, JSON.stringify(s));
}
