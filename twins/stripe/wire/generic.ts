// Stripe's rules for the generic layer: every v1 operation of the `stripe` SDK that no hand-written
// route answers, in Stripe's own protocol — form parameters checked against the spec and refused as
// `invalid_request_error` with `param`, ids with the object's prefix, `created` from the environment
// clock, `{object: "list", data, has_more, url}` pages newest first with `starting_after` /
// `ending_before`, `No such <object>: '<id>'` 404s, `{id, object, deleted: true}` after a delete,
// and the same `around` as the hand-written routes (transaction, idempotency, expand, Request-Id).

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { classifyRest } from '../../../twin-runtime/generic/classify.js';
import { GenericEngine } from '../../../twin-runtime/generic/engine.js';
import { typeOf, type FillField, type Schema } from '../../../twin-runtime/generic/schema.js';
import type { OperationEntry } from '../../../twin-runtime/generic/spec-types.js';
import type { GenericAdapter, GenericCall, Outcome } from '../../../twin-runtime/generic/types.js';
import type { InputProblem } from '../../../twin-runtime/generic/validate.js';
import { invalidRequest, resourceMissing } from './errors.js';
import { STRIPE_INPUT_POLICY, inputRefusal } from './input.js';
import { createdRanges, readLimit } from './list.js';
import { paramsOf, str } from './params.js';
import { ok } from './pipeline.js';
import { requestContext } from './connect-scope.js';
import { searchResponse, type SearchFields } from './search.js';
import { KINDS, type StripeObject } from '../model/objects.js';

/** Id prefixes of Stripe objects (what the API gives them); others get an abbreviation of the name. */
const ID_PREFIX: Record<string, string> = {
  account: 'acct_',
  application_fee: 'fee_',
  apple_pay_domain: 'apwc_',
  balance_transaction: 'txn_',
  bank_account: 'ba_',
  'billing.alert': 'alrt_',
  'billing.credit_grant': 'credgr_',
  'billing.meter': 'mtr_',
  'billing_portal.configuration': 'bpc_',
  'billing_portal.session': 'bps_',
  card: 'card_',
  'checkout.session': 'cs_test_',
  'climate.order': 'climorder_',
  confirmation_token: 'ctoken_',
  credit_note: 'cn_',
  customer_balance_transaction: 'cbtxn_',
  customer_cash_balance_transaction: 'ccsbtxn_',
  dispute: 'dp_',
  'entitlements.feature': 'feat_',
  ephemeral_key: 'ephkey_',
  event: 'evt_',
  fee_refund: 'fr_',
  file: 'file_',
  file_link: 'link_',
  'financial_connections.account': 'fca_',
  'financial_connections.session': 'fcsess_',
  'forwarding.request': 'fwdreq_',
  'identity.verification_report': 'vr_',
  'identity.verification_session': 'vs_',
  invoiceitem: 'ii_',
  invoice_payment: 'inpay_',
  invoice_rendering_template: 'inrtem_',
  'issuing.authorization': 'iauth_',
  'issuing.card': 'ic_',
  'issuing.cardholder': 'ich_',
  'issuing.dispute': 'idp_',
  'issuing.transaction': 'ipi_',
  mandate: 'mandate_',
  payment_link: 'plink_',
  payment_method_configuration: 'pmc_',
  payment_method_domain: 'pmd_',
  payout: 'po_',
  person: 'person_',
  plan: 'plan_',
  product_feature: 'prodft_',
  promotion_code: 'promo_',
  quote: 'qt_',
  'radar.early_fraud_warning': 'issfr_',
  'radar.value_list': 'rsl_',
  'radar.value_list_item': 'rsli_',
  'reporting.report_run': 'frr_',
  review: 'prv_',
  setup_attempt: 'setatt_',
  shipping_rate: 'shr_',
  source: 'src_',
  subscription_schedule: 'sub_sched_',
  'tax.calculation': 'taxcalc_',
  'tax.registration': 'taxreg_',
  'tax.transaction': 'tax_',
  tax_code: 'txcd_',
  tax_id: 'txi_',
  tax_rate: 'txr_',
  'terminal.configuration': 'tmc_',
  'terminal.location': 'tml_',
  'terminal.reader': 'tmr_',
  'test_helpers.test_clock': 'clock_',
  token: 'tok_',
  topup: 'tu_',
  transfer: 'tr_',
  transfer_reversal: 'trr_',
  'treasury.financial_account': 'fa_',
  'treasury.inbound_transfer': 'ibt_',
  'treasury.outbound_payment': 'obp_',
  'treasury.outbound_transfer': 'obt_',
  'treasury.received_credit': 'rc_',
  'treasury.received_debit': 'rd_',
  'treasury.transaction': 'trxn_',
  webhook_endpoint: 'we_',
};

function idFor(call: GenericCall, object: string): string {
  if (object === 'coupon') return call.ctx.ids.next('', 8).toUpperCase();
  const prefix =
    ID_PREFIX[object] ??
    object
      .split('.')
      .pop()!
      .split('_')
      .map((w) => w[0])
      .join('') + '_';
  return call.ctx.ids.next(prefix, 24);
}

/** The word in "No such …" messages: the object name in words (`tax rate`, `billing alert`). */
const noun = (object: string) => object.replace(/[._]/g, ' ');

/**
 * The object a collection path names: `/v1/billing/alerts` → `billing.alert` (a namespace is the
 * static segments before the collection at the top), `/v1/customers/{customer}/cards` → `card`.
 */
function objectFromPath(collection: string): string {
  const segs = collection
    .replace(/^\/v1\//, '')
    .replace(/^test_helpers\//, '')
    .split('/');
  let i = segs.length - 1;
  while (i > 0 && segs[i]!.startsWith('{')) i--;
  const word = segs[i]!.replace(/ies$/, 'y')
    .replace(/(ss|x|ch|sh|us)es$/, '$1')
    .replace(/([^s])s$/, '$1');
  const before = segs.slice(0, i);
  return before.length && !before.some((x) => x.startsWith('{')) ? `${before[before.length - 1]}.${word}` : word;
}

/** Where an `act` verb leaves `status` (the enum value of the same stem: cancel → canceled). */
function statusAfter(verb: string, statuses: string[]): string | undefined {
  const special: Record<string, string[]> = {
    deactivate: ['inactive', 'deactivated'],
    unarchive: ['active'],
    reactivate: ['active'],
    approve: ['approved'],
    pay: ['paid'],
    void: ['void', 'voided'],
    finalize: ['finalized', 'open'],
    expire: ['expired'],
    reject: ['rejected'],
    close: ['closed'],
    mark_uncollectible: ['uncollectible'],
    cancel: ['canceled', 'cancelled'],
    archive: ['archived'],
    activate: ['active'],
  };
  for (const s of special[verb] ?? []) if (statuses.includes(s)) return s;
  const stem = verb.replace(/e$/, '');
  return statuses.find((s) => s.startsWith(stem));
}

/** `{id, object, deleted: true}` plus whatever else the operation's deleted schema names. */
function deletedStub(call: GenericCall, record: Record<string, unknown>): Record<string, unknown> {
  const stub: Record<string, unknown> = { id: record.id, object: record.object ?? call.op.resource, deleted: true };
  const answer = generic.artefacts.operation(call.op.entry.id).response as Schema | undefined;
  const props = answer ? (generic.resolver.objectSchema(answer)?.properties ?? {}) : {};
  for (const k of Object.keys(props)) if (!(k in stub) && k in record) stub[k] = record[k];
  return stub;
}

/** A list's `url`: the path asked, or the canonical one its schema pins (`/v1/balance/history` lists balance transactions). */
function listUrl(call: GenericCall, path: string): string {
  const answer = generic.artefacts.operation(call.op.entry.id).response as Schema | undefined;
  const pattern = answer ? generic.resolver.objectSchema(answer)?.properties?.url?.pattern : undefined;
  if (typeof pattern !== 'string' || new RegExp(pattern).test(path)) return path;
  const literal = /^\^(\/[\w/]+)$/.exec(pattern);
  return literal ? literal[1]! : path;
}

const PAGING = new Set(['limit', 'starting_after', 'ending_before', 'expand', 'created', 'page', 'query']);

export const stripeGenericAdapter: GenericAdapter = {
  slug: 'stripe',
  scopeMode: 'field',
  pagingParams: PAGING,
  // Stripe objects carry every field, null until set.
  optionalFields: true,
  // A `Stripe-Account` request keeps the generic records in that account's namespace too.
  pipeline: (_op, execute) => (req, ctx) => execute(req, requestContext(req, ctx)),

  classify(entry: OperationEntry, index) {
    const shape = classifyRest(entry, index);
    const resource = entry.response.object ?? objectFromPath(shape.collection);
    if (resource === 'list' || resource === 'search_result') return 'answers a list of another resource';
    return { action: shape.action, resource, scope: shape.scope, key: shape.key, keyField: 'id', verb: shape.verb };
  },

  input(req) {
    const params = paramsOf(req);
    return req.method === 'GET' ? { query: params, body: {}, coerceBody: true } : { query: {}, body: params, coerceBody: true };
  },

  // One Stripe policy for both kinds of route (wire/input.ts): unknown parameters refused.
  inputPolicy: STRIPE_INPUT_POLICY,

  refuse(_call, problem: InputProblem) {
    return inputRefusal(problem);
  },

  missing(call, key, param) {
    return resourceMissing(noun(call.op.resource), key, param ?? 'id');
  },

  conflict(call) {
    const word = noun(call.op.resource);
    return invalidRequest(`${word[0]!.toUpperCase()}${word.slice(1)} already exists.`, 'id', 'resource_already_exists');
  },

  checkReferences(call) {
    // The parents the path names (`/v1/customers/{customer}/…`), and the objects top-level
    // parameters name (`coupon=…` of a promotion code): each must exist, as Stripe checks.
    const named: [string, unknown][] = [...call.op.scope.map((p) => [p, call.params[p]] as [string, unknown]), ...Object.entries(call.body)];
    for (const [p, id] of named) {
      if (typeof id !== 'string' || id === '' || (p === 'id' && call.op.action === 'create')) continue;
      const kind = (KINDS as Record<string, { resource: string; noun: string }>)[p];
      const resource = kind?.resource ?? (generic.resources.includes(p) ? p : undefined);
      if (!resource || (resource === call.op.resource && p === 'id')) continue;
      const found = call.ctx.store.get<StripeObject>(resource, id);
      if (!found || found.deleted) throw resourceMissing(kind?.noun ?? noun(p), id, p);
    }
  },

  fill(call, field: FillField) {
    if (field.path.length !== 1) return undefined;
    const t = typeOf(field.schema);
    switch (field.name) {
      case 'id':
        return t === 'string' ? idFor(call, call.op.resource) : undefined;
      case 'created':
      case 'updated':
        return t === 'integer' ? call.ctx.clock.nowSeconds() : undefined;
      case 'metadata':
        return {};
      case 'code':
        // Promotion codes get a customer-facing code when none is given.
        return call.op.resource === 'promotion_code' ? call.ctx.ids.token(8).toUpperCase() : undefined;
      case 'active':
      case 'valid':
        return t === 'boolean' ? true : undefined;
      default:
        return undefined;
    }
  },

  reference(call, objectSchema, id) {
    const object = generic.resolver.flatten(objectSchema.properties?.object).enum?.[0];
    if (typeof object !== 'string') return undefined;
    const kind = (KINDS as Record<string, { resource: string }>)[object];
    return call.ctx.store.get(kind?.resource ?? object, id);
  },

  newKey(call, record) {
    if (typeof record.id !== 'string' || record.id === '') record.id = idFor(call, call.op.resource);
    return record.id as string;
  },

  /** An object the spec has no schema for still carries Stripe's common fields. */
  finish(call, record) {
    if (record.id === undefined) record.id = idFor(call, call.op.resource);
    if (record.object === undefined) record.object = call.op.resource;
    if (record.created === undefined && call.op.action !== 'set-one' && call.op.action !== 'get-one') record.created = call.ctx.clock.nowSeconds();
    if (record.livemode === undefined) record.livemode = false;
  },

  act(call, record) {
    const statuses = (() => {
      const s = generic.recordSchema(call.op);
      const prop = s ? generic.resolver.objectSchema(s)?.properties?.status : undefined;
      const flat = prop ? generic.resolver.flatten(prop) : undefined;
      return Array.isArray(flat?.enum) ? (flat!.enum as unknown[]).filter((x): x is string => typeof x === 'string') : [];
    })();
    const next = call.op.verb ? statusAfter(call.op.verb, statuses) : undefined;
    if (next) record.status = next;
    if (call.op.verb === 'activate' || call.op.verb === 'reactivate' || call.op.verb === 'unarchive') {
      if (typeof record.active === 'boolean') record.active = true;
    }
    if (call.op.verb === 'deactivate' || call.op.verb === 'archive') {
      if (typeof record.active === 'boolean') record.active = false;
    }
  },

  listWindow(call) {
    const p = { ...call.query, ...call.body };
    const after = str(p, 'starting_after');
    const before = str(p, 'ending_before');
    return {
      limit: readLimit(p),
      order: 'created',
      descending: true,
      ranges: createdRanges(p),
      after: after ? { key: after, param: 'starting_after' } : undefined,
      before: before ? { key: before, param: 'ending_before' } : undefined,
    };
  },

  render(call, outcome: Outcome): TwinResponse {
    const url = call.req.path;
    switch (outcome.kind) {
      case 'record':
        return ok(outcome.record);
      case 'deleted':
        // Most deletes answer a `deleted_*` stub (the fields its schema names); a few answer the
        // object itself (ephemeral keys).
        if (call.op.entry.response.deleted || call.op.entry.origin === 'sdk') return ok(deletedStub(call, outcome.record));
        return ok(outcome.record);
      case 'page': {
        const records = outcome.items.map((r) => r.body as StripeObject);
        if (call.op.action === 'search') {
          const s = generic.recordSchema(call.op);
          const props = s ? (generic.resolver.objectSchema(s)?.properties ?? {}) : {};
          const fields: SearchFields = {};
          for (const k of Object.keys(props)) if (k !== 'metadata') fields[k] = (o) => o[k];
          return searchResponse(call.req, call.ctx, { records }, url, fields, `${call.op.resource}s`);
        }
        return ok({ object: 'list', data: records, has_more: outcome.hasMore, url: listUrl(call, url) });
      }
      case 'answer':
        return ok(outcome.body);
      case 'none':
        return ok({});
    }
  },
};

/** Stripe's generic surface over the generated table in twins/stripe/spec/. */
export const generic = new GenericEngine(stripeGenericAdapter, loadArtefacts(import.meta.url));
