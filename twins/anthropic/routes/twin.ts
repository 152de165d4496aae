// Twin-only helpers (not Anthropic's API): script answers without the control plane's records API.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { addScripted, SCRIPTED_RESPONSE } from '../../../twin-runtime/llm/scripted.js';
import { invalid } from '../wire/errors.js';
import { jsonBody } from '../wire/params.js';

export const twinRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/twin/scripted_responses',
    unmetered: true,
    handler(req, ctx) {
      const id = ctx.ids.nextIn('scripted', 'sr_', 16);
      const s = addScripted(ctx.store, id, jsonBody(req));
      if (typeof s === 'string') throw invalid(s);
      return { status: 200, body: { id, type: SCRIPTED_RESPONSE, ...(ctx.store.get(SCRIPTED_RESPONSE, id) ?? {}) } };
    },
  },
  {
    method: 'GET',
    path: '/v1/twin/scripted_responses',
    unmetered: true,
    handler: (_req, ctx) => ({
      status: 200,
      body: { data: ctx.store.listRecords(SCRIPTED_RESPONSE).map((r) => ({ id: r.external_id, type: SCRIPTED_RESPONSE, ...r.body })) },
    }),
  },
];
