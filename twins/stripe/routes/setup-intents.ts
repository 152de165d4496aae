// /v1/setup_intents: create, retrieve, update, confirm, cancel, list. A card the issuer refuses
// answers 402 with the intent's failed state kept.

import type { TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { stripeError } from '../wire/errors.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, obj, oneOf, readMetadata, readParams, str, strArray, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import {
  SETUP_CANCELLATION_REASONS,
  SETUP_USAGES,
  cancelSetupIntent,
  confirmSetupIntent,
  createSetupIntent,
  getSetupIntent,
  listSetupIntents,
  updateSetupIntent,
  type SetupFields,
  type SetupOutcome,
} from '../model/setup-intents.js';

import { readPaymentMethodData } from './payment-methods.js';

function readSetupFields(p: Params): SetupFields {
  const data = obj(p, 'payment_method_data');
  return {
    paymentMethod: str(p, 'payment_method'),
    paymentMethodData: data && readPaymentMethodData(data),
    paymentMethodTypes: strArray(p, 'payment_method_types'),
  };
}

/** The intent, or Stripe's 402 `card_error` carrying it when the issuer refused the card. */
export function setupAnswer({ intent, decline }: SetupOutcome): TwinResponse {
  if (!decline) return ok(intent);
  return stripeError(402, { ...decline, extra: { ...decline.extra, setup_intent: intent } });
}

export const setupIntentRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/setup_intents',
    handler: (req, ctx) => {
      const p = readParams(req);
      const apm = obj(p, 'automatic_payment_methods');
      return setupAnswer(
        createSetupIntent(ctx, {
          customer: str(p, 'customer'),
          allowRedirects: apm && str(apm, 'allow_redirects', 'automatic_payment_methods'),
          description: str(p, 'description'),
          flowDirections: strArray(p, 'flow_directions'),
          metadata: readMetadata(p),
          usage: oneOf(p, 'usage', SETUP_USAGES),
          ...readSetupFields(p),
          confirm: bool(p, 'confirm'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/setup_intents',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        listEnvelope(listSetupIntents(ctx, { customer: str(p, 'customer'), paymentMethod: str(p, 'payment_method') }, readListWindow(p)), '/v1/setup_intents'),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/setup_intents/{intent}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getSetupIntent(ctx, req.params.intent!));
    },
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        updateSetupIntent(ctx, req.params.intent!, {
          customer: str(p, 'customer'),
          description: str(p, 'description'),
          metadata: readMetadata(p),
          ...readSetupFields(p),
        }),
      );
    },
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}/confirm',
    handler: (req, ctx) => setupAnswer(confirmSetupIntent(ctx, req.params.intent!, readSetupFields(readParams(req)))),
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}/cancel',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(cancelSetupIntent(ctx, req.params.intent!, oneOf(p, 'cancellation_reason', SETUP_CANCELLATION_REASONS) ?? null));
    },
  },
];
