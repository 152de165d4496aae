// /v1/tokens (card tokens: create, retrieve) and a customer's card sources
// (/v1/customers/{customer}/sources: add a token's card, list, retrieve, update, delete).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { invalidRequest } from '../wire/errors.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { emptyableStr, obj, readMetadata, readParams, requiredStr, str, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import {
  CARD_ADDRESS_FIELDS,
  attachSource,
  createCardToken,
  deleteSource,
  getSource,
  getToken,
  listSources,
  updateSource,
  type CardTokenInput,
} from '../model/tokens.js';

/** A month or year the form sends as a string (`exp_month=12`). */
function expiry(p: Params, key: string, prefix?: string): number | undefined {
  const v = str(p, key, prefix);
  if (v === undefined) return undefined;
  const param = prefix ? `${prefix}[${key}]` : key;
  if (!/^\d{1,4}$/.test(v)) throw invalidRequest(`Invalid integer: ${v}`, param, 'parameter_invalid_integer');
  return Number(v);
}

function readCard(card: Params): CardTokenInput {
  const address: CardTokenInput['address'] = {};
  for (const k of CARD_ADDRESS_FIELDS) {
    const v = str(card, k, 'card');
    if (v !== undefined) address[k] = v;
  }
  return {
    number: str(card, 'number', 'card'),
    expMonth: expiry(card, 'exp_month', 'card'),
    expYear: expiry(card, 'exp_year', 'card'),
    cvcGiven: str(card, 'cvc', 'card') !== undefined,
    name: str(card, 'name', 'card'),
    address,
  };
}

export const tokenRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/tokens',
    handler: (req, ctx) => {
      const p = readParams(req);
      const card = obj(p, 'card');
      if (!card) throw invalidRequest('You must supply either a card, customer, PII data, bank account, or account legal entity to create a token.', 'card');
      return ok(createCardToken(ctx, readCard(card)));
    },
  },
  {
    method: 'GET',
    path: '/v1/tokens/{token}',
    handler: (req, ctx) => (readParams(req), ok(getToken(ctx, req.params.token!))),
  },
  {
    method: 'POST',
    path: '/v1/customers/{customer}/sources',
    handler: (req, ctx) => {
      const p = readParams(req);
      const card = attachSource(ctx, req.params.customer!, requiredStr(p, 'source'));
      const metadata = readMetadata(p);
      return ok(metadata === undefined ? card : updateSource(ctx, req.params.customer!, card.id, { metadata }));
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}/sources',
    handler: (req, ctx) => {
      const p = readParams(req);
      const customer = req.params.customer!;
      const url = `/v1/customers/${customer}/sources`;
      // Cards are the only sources the twin makes: a list of another kind is truly empty.
      const kind = str(p, 'object');
      if (kind !== undefined && kind !== 'card') return ok({ object: 'list', data: [], has_more: false, url });
      return ok(listEnvelope(listSources(ctx, customer, readListWindow(p)), url));
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}/sources/{id}',
    handler: (req, ctx) => (readParams(req), ok(getSource(ctx, req.params.customer!, req.params.id!))),
  },
  {
    method: 'POST',
    path: '/v1/customers/{customer}/sources/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        updateSource(ctx, req.params.customer!, req.params.id!, {
          name: emptyableStr(p, 'name'),
          expMonth: expiry(p, 'exp_month'),
          expYear: expiry(p, 'exp_year'),
          metadata: readMetadata(p),
        }),
      );
    },
  },
  {
    method: 'DELETE',
    path: '/v1/customers/{customer}/sources/{id}',
    handler: (req, ctx) => (readParams(req), ok(deleteSource(ctx, req.params.customer!, req.params.id!))),
  },
];
