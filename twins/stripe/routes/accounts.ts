// Connect: /v1/accounts (create, retrieve, update, list, delete), /v1/account (the account the
// request speaks for: the platform's own, or with `Stripe-Account` the connected one) and
// /v1/account_links.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, currency, emptyableStr, int, obj, oneOf, readMetadata, readParams, requiredStr, str, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { missingParam } from '../wire/errors.js';
import { accountOf } from '../wire/connect-scope.js';
import {
  ACCOUNT_TYPES,
  BUSINESS_TYPES,
  DASHBOARD_TYPES,
  FEE_PAYERS,
  LOSS_PAYERS,
  REQUIREMENT_COLLECTORS,
  createAccount,
  deleteAccount,
  getAccount,
  getCapability,
  listAccounts,
  listCapabilities,
  requestCapability,
  platformAccount,
  updateAccount,
  type AccountFields,
  type BusinessProfileInput,
} from '../model/accounts.js';
import { ACCOUNT_LINK_TYPES, createAccountLink, createLoginLink } from '../model/account-links.js';

function readProfile(p: Params): BusinessProfileInput | undefined {
  const bp = obj(p, 'business_profile');
  if (!bp) return undefined;
  const at = 'business_profile';
  return {
    name: emptyableStr(bp, 'name', at),
    url: emptyableStr(bp, 'url', at),
    mcc: emptyableStr(bp, 'mcc', at),
    productDescription: emptyableStr(bp, 'product_description', at),
    supportEmail: emptyableStr(bp, 'support_email', at),
    supportPhone: emptyableStr(bp, 'support_phone', at),
    supportUrl: emptyableStr(bp, 'support_url', at),
  };
}

/** `capabilities[card_payments][requested]=true` → `{card_payments: true}`. */
function readCapabilities(p: Params): Record<string, boolean> | undefined {
  const caps = obj(p, 'capabilities');
  if (!caps) return undefined;
  const out: Record<string, boolean> = {};
  for (const name of Object.keys(caps)) {
    const c = obj(caps, name, 'capabilities') ?? {};
    out[name] = bool(c, 'requested', `capabilities[${name}]`) ?? false;
  }
  return out;
}

function readFields(p: Params): AccountFields {
  const tos = obj(p, 'tos_acceptance');
  return {
    email: emptyableStr(p, 'email'),
    businessType: p.business_type === '' ? null : oneOf(p, 'business_type', BUSINESS_TYPES),
    businessProfile: readProfile(p),
    defaultCurrency: currency(p, 'default_currency'),
    capabilities: readCapabilities(p),
    metadata: readMetadata(p),
    tosAcceptance: tos && {
      date: int(tos, 'date', 'tos_acceptance'),
      ip: str(tos, 'ip', 'tos_acceptance'),
      userAgent: str(tos, 'user_agent', 'tos_acceptance'),
    },
  };
}

export const accountRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/accounts',
    handler: (req, ctx) => {
      const p = readParams(req);
      const c = obj(p, 'controller');
      const at = 'controller';
      return ok(
        createAccount(ctx, {
          ...readFields(p),
          type: oneOf(p, 'type', ACCOUNT_TYPES),
          country: str(p, 'country'),
          controller: c && {
            fees: { payer: oneOf(obj(c, 'fees', at) ?? {}, 'payer', FEE_PAYERS, `${at}[fees]`) },
            losses: { payments: oneOf(obj(c, 'losses', at) ?? {}, 'payments', LOSS_PAYERS, `${at}[losses]`) },
            requirementCollection: oneOf(c, 'requirement_collection', REQUIREMENT_COLLECTORS, at),
            stripeDashboard: { type: oneOf(obj(c, 'stripe_dashboard', at) ?? {}, 'type', DASHBOARD_TYPES, `${at}[stripe_dashboard]`) },
          },
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/accounts',
    handler: (req, ctx) => ok(listEnvelope(listAccounts(ctx, readListWindow(readParams(req))), '/v1/accounts')),
  },
  {
    method: 'GET',
    path: '/v1/accounts/{account}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getAccount(ctx, req.params.account!));
    },
  },
  {
    method: 'POST',
    path: '/v1/accounts/{account}',
    handler: (req, ctx) => ok(updateAccount(ctx, req.params.account!, readFields(readParams(req)))),
  },
  {
    method: 'DELETE',
    path: '/v1/accounts/{account}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(deleteAccount(ctx, req.params.account!));
    },
  },
  {
    method: 'GET',
    path: '/v1/accounts/{account}/capabilities',
    handler: (req, ctx) => {
      readParams(req);
      const data = listCapabilities(ctx, req.params.account!);
      return ok({ object: 'list', data, has_more: false, url: `/v1/accounts/${req.params.account}/capabilities` });
    },
  },
  {
    method: 'GET',
    path: '/v1/accounts/{account}/capabilities/{capability}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getCapability(ctx, req.params.account!, req.params.capability!));
    },
  },
  {
    method: 'POST',
    path: '/v1/accounts/{account}/capabilities/{capability}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(requestCapability(ctx, req.params.account!, req.params.capability!, bool(p, 'requested')));
    },
  },
  {
    method: 'POST',
    path: '/v1/accounts/{account}/login_links',
    handler: (req, ctx) => {
      readParams(req);
      return ok(createLoginLink(ctx, req.params.account!));
    },
  },
  {
    method: 'GET',
    path: '/v1/account',
    handler: (req, ctx) => {
      readParams(req);
      const connected = accountOf(ctx);
      return ok(connected ? getAccount(ctx, connected) : platformAccount(ctx));
    },
  },
  {
    method: 'POST',
    path: '/v1/account_links',
    handler: (req, ctx) => {
      const p = readParams(req);
      const account = requiredStr(p, 'account');
      const type = oneOf(p, 'type', ACCOUNT_LINK_TYPES);
      if (!type) throw missingParam('type');
      return ok(
        createAccountLink(ctx, {
          account,
          type,
          refreshUrl: str(p, 'refresh_url'),
          returnUrl: str(p, 'return_url'),
        }),
      );
    },
  },
];
