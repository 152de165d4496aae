// /v1/setup_intents: create, retrieve, update, confirm, cancel, list.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listResponse } from '../wire/list.js';
import { LIST_PARAMS, readParams } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import {
  SETI_CANCEL_SPEC,
  SETI_CONFIRM_SPEC,
  SETI_CREATE_SPEC,
  SETI_UPDATE_SPEC,
  cancelSetupIntent,
  confirmSetupIntent,
  createSetupIntent,
  getSetupIntent,
  listSetupIntents,
  updateSetupIntent,
} from '../model/setup-intents.js';
import { RETRIEVE_SPEC } from './payment-intents.js';

export const setupIntentRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/setup_intents',
    handler: (req, ctx) => createSetupIntent(ctx, readParams(req, SETI_CREATE_SPEC)),
  },
  {
    method: 'GET',
    path: '/v1/setup_intents',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, customer: true, payment_method: true, attach_to_self: true });
      return listResponse(req, ctx, listSetupIntents(ctx, p), '/v1/setup_intents');
    },
  },
  {
    method: 'GET',
    path: '/v1/setup_intents/{intent}',
    handler: (req, ctx) => {
      readParams(req, RETRIEVE_SPEC);
      return ok(getSetupIntent(ctx, req.params.intent!));
    },
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}',
    handler: (req, ctx) => ok(updateSetupIntent(ctx, req.params.intent!, readParams(req, SETI_UPDATE_SPEC))),
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}/confirm',
    handler: (req, ctx) => confirmSetupIntent(ctx, req.params.intent!, readParams(req, { ...SETI_CONFIRM_SPEC, client_secret: true })),
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}/cancel',
    handler: (req, ctx) => ok(cancelSetupIntent(ctx, req.params.intent!, readParams(req, SETI_CANCEL_SPEC))),
  },
];
