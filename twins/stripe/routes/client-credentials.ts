// /v1/customer_sessions and /v1/ephemeral_keys: credentials a server hands to its frontend.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { underParam } from '../wire/errors.js';
import { bool, obj, readParams, requiredStr, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import {
  CUSTOMER_SESSION_COMPONENTS,
  createCustomerSession,
  createEphemeralKey,
  deleteEphemeralKey,
  type CustomerSessionCreate,
} from '../model/client-credentials.js';

export const clientCredentialRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/customer_sessions',
    handler: (req, ctx) => {
      const p = readParams(req);
      const given = obj(p, 'components');
      if (!given) return ok(createCustomerSession(ctx, { customer: requiredStr(p, 'customer'), components: {} }));
      const components: CustomerSessionCreate['components'] = {};
      for (const name of CUSTOMER_SESSION_COMPONENTS) {
        const c = obj(given, name, 'components');
        if (!c) continue;
        components[name] = underParam(`components[${name}]`, () => ({ enabled: bool(c, 'enabled') ?? false, features: obj(c, 'features') }));
      }
      return ok(createCustomerSession(ctx, { customer: requiredStr(p, 'customer'), components }));
    },
  },
  {
    method: 'POST',
    path: '/v1/ephemeral_keys',
    handler: (req, ctx) => {
      const p = readParams(req);
      const version = req.headers['stripe-version'];
      return ok(
        createEphemeralKey(ctx, {
          customer: str(p, 'customer'),
          issuingCard: str(p, 'issuing_card'),
          verificationSession: str(p, 'verification_session'),
          apiVersion: Array.isArray(version) ? version[0] : version,
        }),
      );
    },
  },
  {
    method: 'DELETE',
    path: '/v1/ephemeral_keys/{key}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(deleteEphemeralKey(ctx, req.params.key!));
    },
  },
];
