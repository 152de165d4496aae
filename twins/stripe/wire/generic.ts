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
import type { GenericAdapter, GenericCall, GenericOperation, Outcome } from '../../../twin-runtime/generic/types.js';
import type { InputProblem } from '../../../twin-runtime/generic/validate.js';
import { invalidRequest, resourceMissing } from './errors.js';
import { STRIPE_INPUT_POLICY, inputRefusal } from './input.js';
import { createdRanges, readLimit } from './list.js';
import { paramsOf, str } from './params.js';
import { ok } from './pipeline.js';
import { requestContext } from './connect-scope.js';
import { searchResponse, type SearchFields } from './search.js';
import { KINDS, type StripeObject } from '../model/objects.js';
import { shortcutNumber } from '../model/test-cards.js';

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

/** The object a parameter of that name refers to (`price`, `default_tax_rates` → `tax_rate`), or undefined. */
interface Referent {
  resource: string;
  noun: string;
  /** Ids that name an object without a stored record (`pm_card_visa`). */
  shortcut?: (id: string) => boolean;
}

/** Parameter names that name another kind of object than their own name says. */
const REFERENCE_ALIASES: Record<string, string> = {
  on_behalf_of: 'account',
  destination: 'account',
  default_payment_method: 'payment_method',
  default_tax_rates: 'tax_rate',
  tax_rates: 'tax_rate',
  dynamic_tax_rates: 'tax_rate',
  shipping_rate: 'shipping_rate',
  promotion_code: 'promotion_code',
};

function referent(param: string): Referent | undefined {
  const name = REFERENCE_ALIASES[param] ?? param;
  const kind = (KINDS as Record<string, { resource: string; noun: string }>)[name];
  if (kind) return { resource: kind.resource, noun: kind.noun, shortcut: name === 'payment_method' ? (id) => shortcutNumber(id) !== undefined : undefined };
  return generic.resources.includes(name) ? { resource: name, noun: noun(name) } : undefined;
}

const referenceFieldCache = new WeakMap<GenericOperation, string[][]>();

/** Request fields (paths, `[]` for array items) whose name says they hold an object's id. */
function collectReferences(node: Schema, path: string[], out: string[][], depth: number): void {
  if (depth > 4) return;
  const s = generic.resolver.flatten(node);
  if (typeOf(s) === 'array' || s.items) {
    collectReferences(s.items ?? {}, [...path, '[]'], out, depth + 1);
    return;
  }
  for (const branch of s.anyOf ?? []) collectReferences(branch, path, out, depth + 1);
  for (const [name, sub] of Object.entries<Schema>(s.properties ?? {})) {
    const flat = generic.resolver.flatten(sub);
    const holdsId = typeOf(flat) === 'string' || (typeOf(flat) === 'array' && typeOf(generic.resolver.flatten(flat.items ?? {})) === 'string');
    if (holdsId && !flat.enum && referent(name) && !out.some((p) => p.join('.') === [...path, name].join('.'))) out.push([...path, name]);
    else if (!holdsId) collectReferences(sub, [...path, name], out, depth + 1);
  }
}

/** The string values at a reference path, with the parameter each is named by (`line_items[0][price]`). */
function valuesAt(body: unknown, path: string[]): [string, string][] {
  const out: [string, string][] = [];
  const walk = (v: unknown, i: number, param: string): void => {
    if (i === path.length) {
      if (typeof v === 'string' && v !== '') out.push([param, v]);
      else if (Array.isArray(v)) for (const [j, x] of v.entries()) walk(x, i, `${param}[${j}]`);
      return;
    }
    const step = path[i]!;
    if (step === '[]') {
      if (Array.isArray(v)) for (const [j, x] of v.entries()) walk(x, i + 1, `${param}[${j}]`);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (/^\d+$/.test(k)) walk(x, i + 1, `${param}[${k}]`);
      return;
    }
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, step))
      walk((v as Record<string, unknown>)[step], i + 1, param ? `${param}[${step}]` : step);
  };
  walk(body, 0, '');
  return out;
}

function requireObject(call: GenericCall, ref: Referent, id: string, param: string): void {
  if (ref.shortcut?.(id)) return;
  const found = call.ctx.store.get<StripeObject>(ref.resource, id);
  if (!found || found.deleted) throw resourceMissing(ref.noun, id, param);
}

/**
 * What the spec cannot tell the engine about Stripe (read from names only, no schema): money moves,
 * amounts Stripe computes, card details it tokenizes, calls it forwards. The stripe twin models the
 * ones it simulates by hand (refunds, quotes, payment links…), which then answer instead.
 */
const MONEY_CREATES = new Set([
  'charge',
  'refund',
  'payout',
  'transfer',
  'topup',
  'transfer_reversal',
  'fee_refund',
  'treasury.outbound_payment',
  'treasury.outbound_transfer',
  'treasury.inbound_transfer',
  'treasury.credit_reversal',
  'treasury.debit_reversal',
  'treasury.received_credit',
  'treasury.received_debit',
  'issuing.authorization',
  'issuing.transaction',
  'climate.order',
  'customer_cash_balance_transaction',
  'customer_balance_transaction',
  'balance_transaction',
  'application_fee',
  'credit_note',
  'billing.credit_grant',
]);
const MONEY_VERBS =
  /^(pay|capture|confirm|refund|reverse|increment_authorization|apply_customer_balance|process_|refund_payment|fund_|collect_payment_method|confirm_payment_intent|finalize_amount|approve)/;
const COMPUTED = new Map<string, string>([
  ['invoice', 'Stripe computes its amounts and lines.'],
  ['tax.calculation', 'Stripe computes the tax.'],
  ['tax.transaction', 'Stripe computes the tax.'],
  ['token', 'Stripe tokenizes the card or account details (brand, last4, fingerprint), which the twin does not derive.'],
  ['source', 'Stripe tokenizes the payment details, which the twin does not derive.'],
  ['forwarding.request', 'Stripe forwards the request to a third party.'],
  ['billing.meter_event', 'Stripe aggregates meter events into usage.'],
]);

function notSimulated(op: GenericOperation): string | undefined {
  const writes = op.action === 'create' || op.action === 'upsert' || op.action === 'set-one';
  if (op.action === 'act' && op.verb && MONEY_VERBS.test(op.verb)) return 'It moves money, which only the modelled flows do.';
  if (writes && MONEY_CREATES.has(op.resource)) return 'It moves money, which only the modelled flows do.';
  if (writes && COMPUTED.has(op.resource)) return COMPUTED.get(op.resource);
  return undefined;
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
    // Stripe updates by POST: a POST to a path whose GET answers one object sets that object
    // (`/v1/tax/settings`, a customer's `cash_balance`), it creates nothing.
    if (shape.action === 'create' && index.get('GET', entry.path)?.response.kind === 'object') shape.action = 'set-one';
    const resource = entry.response.object ?? objectFromPath(shape.collection);
    if (resource === 'list' || resource === 'search_result') return 'answers a list of another resource';
    return { action: shape.action, resource, scope: shape.scope, key: shape.key, keyField: 'id', verb: shape.verb };
  },

  input(req) {
    const params = paramsOf(req);
    return req.method === 'GET' ? { query: params, body: {}, coerceBody: true } : { query: {}, body: params, coerceBody: true };
  },

  // Operations Stripe removed before the SDK's API version (scripts/gen/sources/stripe.ts marks
  // them): their URLs get Stripe's answer today (an invoice named `upcoming`, an unknown URL).
  unrouted: (entry) => entry.excluded?.startsWith('removed from the API') ?? false,

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
    // The parents the path names (`/v1/customers/{customer}/…`), and the objects parameters name
    // at any depth (`coupon=…` of a promotion code, `line_items[0][price]`): each must exist, as
    // Stripe checks ("No such price: 'price_x'", param `line_items[0][price]`).
    for (const p of call.op.scope) {
      const ref = referent(p);
      const id = call.params[p];
      if (ref && typeof id === 'string' && id !== '') requireObject(call, ref, id, p);
    }
    const paths = stripeGenericAdapter.referenceFields!(call.op);
    for (const path of paths) {
      const ref = referent(path[path.length - 1]!)!;
      for (const [param, id] of valuesAt(call.body, path)) requireObject(call, ref, id, param);
    }
    // Top-level parameters the spec does not describe (operations only the SDK names).
    for (const [p, id] of Object.entries(call.body)) {
      if (typeof id !== 'string' || id === '' || p === 'id' || paths.some((path) => path.length === 1 && path[0] === p)) continue;
      const ref = referent(p);
      if (ref && !(ref.resource === call.op.resource && call.op.action === 'create')) requireObject(call, ref, id, p);
    }
  },

  checksParent: (_op, param) => referent(param) !== undefined,

  referenceFields(op) {
    let found = referenceFieldCache.get(op);
    if (!found) {
      const piece = generic.artefacts.operation(op.entry.id);
      found = [];
      const body = piece.request.body?.schema as Schema | undefined;
      if (body && op.entry.method !== 'GET') collectReferences(body, [], found, 0);
      // A create names its own id (`id=` of a coupon), never a reference.
      found = found.filter((path) => !(path.length === 1 && path[0] === 'id'));
      referenceFieldCache.set(op, found);
    }
    return found;
  },

  modelKinds: new Set(Object.values(KINDS).map((k) => k.resource)),

  unsupported(op) {
    return notSimulated(op);
  },

  makes(_op, field, kind) {
    // Ids with the object's prefix; client secrets as Stripe makes them (`<id>_secret_<random>`, finish).
    return kind === 'key' || (kind === 'secret' && field === 'client_secret');
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
    if (record.client_secret === '' && typeof record.id === 'string') record.client_secret = `${record.id}_secret_${call.ctx.ids.token(24)}`;
    if (record.object === undefined) record.object = call.op.resource;
    if (record.created === undefined && call.op.action !== 'set-one' && call.op.action !== 'get-one') record.created = call.ctx.clock.nowSeconds();
    if (record.livemode === undefined) record.livemode = false;
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
