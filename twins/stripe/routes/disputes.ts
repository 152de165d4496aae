// /v1/disputes: retrieve, update (evidence, submit), close, list.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, obj, readMetadata, readParams, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { EVIDENCE_FIELDS, closeDispute, getDispute, listDisputes, updateDispute, type Evidence } from '../model/disputes.js';

function readEvidence(p: Record<string, unknown>): Evidence | undefined {
  const e = obj(p, 'evidence');
  if (e === undefined) return undefined;
  const out: Evidence = {};
  for (const f of EVIDENCE_FIELDS) {
    const v = str(e, f, 'evidence');
    if (v !== undefined) out[f] = v;
  }
  return out;
}

export const disputeRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/disputes',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listDisputes(ctx, { charge: str(p, 'charge'), paymentIntent: str(p, 'payment_intent') }, readListWindow(p)), '/v1/disputes'));
    },
  },
  {
    method: 'GET',
    path: '/v1/disputes/{dispute}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getDispute(ctx, req.params.dispute!));
    },
  },
  {
    method: 'POST',
    path: '/v1/disputes/{dispute}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updateDispute(ctx, req.params.dispute!, { evidence: readEvidence(p), metadata: readMetadata(p), submit: bool(p, 'submit') }));
    },
  },
  {
    method: 'POST',
    path: '/v1/disputes/{dispute}/close',
    handler: (req, ctx) => {
      readParams(req);
      return ok(closeDispute(ctx, req.params.dispute!));
    },
  },
];
