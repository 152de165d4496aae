// A customer's tax ids (`txi_`): `tax_id_data` on a customer create and /v1/customers/{id}/tax_ids.
// Each type's value is checked against its format (Stripe's `tax_id_invalid`, "Invalid value for
// eu_vat."); types the twin has no pattern for are taken as given. Types Stripe verifies with a
// government register (EU, UK and Swiss VAT, Australian ABN) start `pending`; Stripe's test values
// ending in 000000000 verify and 111111111 fail (`customer.tax_id.updated`), others stay pending.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { clone, deletedObject, find, newId, previousAttributes, save, type StripeObject } from './objects.js';
import { eachMatching, newestFirst, readPage, type ListPage, type ListWindow } from './pages.js';
import { getCustomer } from './customers.js';

export interface TaxIdInput {
  type: string;
  value: string;
}

/** EU VAT numbers by their country prefix (Greece is EL, Northern Ireland XI). */
const EU_VAT: Record<string, RegExp> = {
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^\d{9}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  EL: /^\d{9}$/,
  ES: /^[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^\d{8}$/,
  FR: /^[A-HJ-NP-Z0-9]{2}\d{9}$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}(\d{3})?$/,
  IE: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^\d{11}$/,
  LT: /^(\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^\d{2,10}$/,
  SE: /^\d{12}$/,
  SI: /^\d{8}$/,
  SK: /^\d{10}$/,
  XI: /^(\d{9}|\d{12})$/,
};

/** Formats of the other common types (Stripe's documented examples match them). */
const FORMATS: Record<string, RegExp> = {
  gb_vat: /^GB(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  au_abn: /^\d{11}$/,
  au_arn: /^\d{12}$/,
  us_ein: /^\d{2}-?\d{7}$/,
  ca_bn: /^\d{9}$/,
  ca_gst_hst: /^\d{9}RT\d{4}$/,
  ca_qst: /^\d{10}TQ\d{4}$/,
  ch_vat: /^CHE-?\d{3}\.?\d{3}\.?\d{3} ?(MWST|TVA|IVA)$/,
  ch_uid: /^CHE-?\d{3}\.?\d{3}\.?\d{3}$/,
  in_gst: /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/,
  jp_cn: /^\d{13}$/,
  no_vat: /^\d{9}MVA$/,
  nz_gst: /^\d{8,9}$/,
  za_vat: /^4\d{9}$/,
  sg_uen: /^(\d{8,9}[A-Z]|[TSR]\d{2}[A-Z]{2}\d{4}[A-Z])$/,
  br_cnpj: /^\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}$/,
  br_cpf: /^\d{3}\.\d{3}\.\d{3}-\d{2}$/,
  mx_rfc: /^[A-Z&Ñ]{3,4}\d{6}[A-Z0-9]{3}$/,
  es_cif: /^[A-Z]\d{7}[A-Z0-9]$/,
  eu_oss_vat: /^EU\d{9}$/,
};

/** Types Stripe checks against a government register. */
const VERIFIED_TYPES = new Set(['eu_vat', 'gb_vat', 'au_abn', 'ch_vat']);

/** The country a tax id is of (an EU VAT number's from its prefix), or null. */
function countryOf(type: string, value: string): string | null {
  if (type === 'eu_vat') {
    const prefix = value.slice(0, 2);
    return prefix === 'EL' ? 'GR' : prefix === 'XI' ? 'GB' : prefix;
  }
  if (type === 'eu_oss_vat') return null;
  return type.slice(0, 2).toUpperCase();
}

function validFormat(type: string, value: string): boolean {
  const compact = value.replace(/\s+/g, '').toUpperCase();
  if (compact === '') return false;
  if (type === 'eu_vat') {
    const rule = EU_VAT[compact.slice(0, 2)];
    return rule?.test(compact.slice(2)) ?? false;
  }
  const rule = FORMATS[type];
  return rule === undefined || rule.test(type === 'ch_vat' ? value.trim().toUpperCase() : compact);
}

/** What Stripe's register check answers for a test-mode value (pending unless a test value decides it). */
function verificationOutcome(value: string): 'verified' | 'unverified' | undefined {
  const digits = value.replace(/\D/g, '');
  if (digits.endsWith('000000000')) return 'verified';
  if (digits.endsWith('111111111')) return 'unverified';
  return undefined;
}

/**
 * Add a tax id to a customer (`param`: where the request named it, `tax_id_data[0]` on a customer
 * create). Answers the id as the create answers it (`pending`); a test value's verdict follows.
 */
export function createTaxId(ctx: TwinContext, customerId: string, input: TaxIdInput, param?: string): StripeObject {
  const at = (key: string) => (param ? `${param}[${key}]` : key);
  if (!validFormat(input.type, input.value)) throw invalidRequest(`Invalid value for ${input.type}.`, at('value'), 'tax_id_invalid');
  const verified = VERIFIED_TYPES.has(input.type);
  const taxId: StripeObject = {
    id: newId(ctx, 'tax_id'),
    object: 'tax_id',
    country: countryOf(input.type, input.value.replace(/\s+/g, '').toUpperCase()),
    created: ctx.clock.nowSeconds(),
    customer: customerId,
    customer_account: null,
    livemode: false,
    owner: { customer: customerId, type: 'customer' },
    type: input.type,
    value: input.value,
    verification: verified ? { status: 'pending', verified_address: null, verified_name: null } : null,
  };
  save(ctx, 'tax_id', taxId);
  emitEvent(ctx, 'customer.tax_id.created', taxId);
  const outcome = verified ? verificationOutcome(input.value) : undefined;
  if (outcome) {
    const checked = clone(taxId);
    checked.verification.status = outcome;
    save(ctx, 'tax_id', checked);
    emitEvent(ctx, 'customer.tax_id.updated', checked, previousAttributes(taxId, checked));
  }
  return taxId;
}

/** A tax id of the customer, or Stripe's 404 (another customer's is not found either). */
export function getTaxId(ctx: TwinContext, customerId: string, id: string): StripeObject {
  getCustomer(ctx, customerId);
  const taxId = find(ctx, 'tax_id', id);
  if (!taxId || taxId.customer !== customerId) throw resourceMissing('tax id', id, 'id');
  return taxId;
}

export function deleteTaxId(ctx: TwinContext, customerId: string, id: string): StripeObject {
  const taxId = getTaxId(ctx, customerId, id);
  ctx.store.delete('tax_id', id);
  emitEvent(ctx, 'customer.tax_id.deleted', taxId);
  return deletedObject(taxId);
}

/** One page of the customer's tax ids, newest first. */
export function listTaxIds(ctx: TwinContext, customerId: string, window: ListWindow): ListPage<StripeObject> {
  getCustomer(ctx, customerId);
  return readPage<StripeObject>(ctx, 'tax_id', { customer: customerId }, window);
}

/** How many tax ids a customer embeds when `expand[]=tax_ids` asks (Stripe's list page). */
const EMBEDDED_TAX_IDS = 10;

/** A customer's tax ids as the includable `tax_ids` list (`expand[]=tax_ids`): newest first. */
export function customerTaxIdList(ctx: TwinContext, customerId: string): Record<string, unknown> {
  const all = newestFirst([...eachMatching<StripeObject>(ctx, 'tax_id', { customer: customerId })]);
  return {
    object: 'list',
    data: all.slice(0, EMBEDDED_TAX_IDS),
    has_more: all.length > EMBEDDED_TAX_IDS,
    total_count: all.length,
    url: `/v1/customers/${customerId}/tax_ids`,
  };
}
