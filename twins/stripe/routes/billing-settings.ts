// Twin-only: /v1/test_helpers/billing_settings, the dashboard's revenue-recovery retry settings.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { readParams, str, type ParamSpec } from '../wire/params.js';
import { invalidRequest } from '../wire/errors.js';
import { retrySettings, saveRetrySettings, type RetrySettings } from '../model/billing-settings.js';

const SETTINGS_PARAMS: ParamSpec = { retry_days: true, subscription_after_final_failure: true, invoice_after_final_failure: true };

/**
 * Twin-only: the dashboard's "Revenue recovery → Retries" settings. GET answers them; POST changes
 * `retry_days[]` (days after each failed attempt), `subscription_after_final_failure`
 * (`cancel` | `unpaid` | `past_due`) and `invoice_after_final_failure` (`past_due` | `uncollectible`).
 */
export const billingSettingsRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/test_helpers/billing_settings',
    handler: (req, ctx) => (readParams(req, {}), ok({ object: 'twin.billing_settings', ...retrySettings(ctx) })),
  },
  {
    method: 'POST',
    path: '/v1/test_helpers/billing_settings',
    handler: (req, ctx) => {
      const p = readParams(req, SETTINGS_PARAMS);
      const s: RetrySettings = { ...retrySettings(ctx) };
      if (p.retry_days !== undefined) {
        const raw = p.retry_days === '' ? [] : Array.isArray(p.retry_days) ? p.retry_days : Object.values(p.retry_days as object);
        const days = raw.map(Number);
        if (days.length > 8 || days.some((d) => !Number.isInteger(d) || d < 1 || d > 30)) {
          throw invalidRequest('retry_days must list up to 8 whole numbers of days between 1 and 30.', 'retry_days');
        }
        s.retry_days = days;
      }
      const sub = str(p, 'subscription_after_final_failure');
      if (sub !== undefined) {
        if (!['cancel', 'unpaid', 'past_due'].includes(sub))
          throw invalidRequest('Invalid subscription_after_final_failure: must be one of cancel, unpaid, or past_due', 'subscription_after_final_failure');
        s.subscription_after_final_failure = sub as RetrySettings['subscription_after_final_failure'];
      }
      const inv = str(p, 'invoice_after_final_failure');
      if (inv !== undefined) {
        if (!['past_due', 'uncollectible'].includes(inv))
          throw invalidRequest('Invalid invoice_after_final_failure: must be one of past_due, or uncollectible', 'invoice_after_final_failure');
        s.invoice_after_final_failure = inv as RetrySettings['invoice_after_final_failure'];
      }
      saveRetrySettings(ctx, s);
      return ok({ object: 'twin.billing_settings', ...s });
    },
  },
];
