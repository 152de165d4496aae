// Card tokens (`tok_`) and a customer's card sources (`card_`), the pre-PaymentMethods way many
// codebases still charge. A token is made from real card details (checked as a payment method's
// are: Luhn, expiry) and carries a `card` whose brand, funding, country, last4 and fingerprint come
// from the number; it can be used once — saved to a customer as a source or charged. Behind every
// card is an unattached payment method the charging model charges (the number never leaves it), so
// the test cards decline, dispute and fail refunds as they do on payment methods.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, deletedObject, find, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { newestFirst, eachMatching, readPage, type ListPage, type ListWindow } from './pages.js';
import { checkCardOnAttach, checkedCard, newCardPaymentMethod, type CardInput, type PaymentMethod } from './payment-methods.js';
import { shortcutNumber } from './test-cards.js';
import { getCustomer, patchCustomer } from './customers.js';

/** A card source's brand as the card object writes it. */
const BRAND_NAMES: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'MasterCard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
};

export const CARD_ADDRESS_FIELDS = ['address_city', 'address_country', 'address_line1', 'address_line2', 'address_state', 'address_zip'] as const;

export interface CardTokenInput extends CardInput {
  name?: string;
  address?: Partial<Record<(typeof CARD_ADDRESS_FIELDS)[number], string>>;
}

export interface SourceUpdate {
  name?: string | null;
  expMonth?: number;
  expYear?: number;
  metadata?: MetadataPatch;
}

const pmKey = (cardId: string) => `card-pm:${cardId}`;

/** A card object for a payment method's card (the record that keeps the number's facts). */
function cardFor(ctx: TwinContext, pm: PaymentMethod, name: string | null): StripeObject {
  const c = pm.card;
  const card: StripeObject = {
    id: newId(ctx, 'card'),
    object: 'card',
    address_city: null,
    address_country: null,
    address_line1: null,
    address_line1_check: null,
    address_line2: null,
    address_state: null,
    address_zip: null,
    address_zip_check: null,
    allow_redisplay: 'unspecified',
    brand: BRAND_NAMES[c.brand] ?? 'Unknown',
    country: c.country,
    customer: null,
    cvc_check: c.checks.cvc_check,
    dynamic_last4: null,
    exp_month: c.exp_month,
    exp_year: c.exp_year,
    fingerprint: c.fingerprint,
    funding: c.funding,
    last4: c.last4,
    metadata: {},
    name,
    regulated_status: 'unregulated',
    tokenization_method: null,
    wallet: null,
  };
  ctx.store.setMeta(pmKey(card.id), pm.id);
  return card;
}

/** `POST /v1/tokens` with `card`: the details checked, a single-use token answered. */
export function createCardToken(ctx: TwinContext, input: CardTokenInput): StripeObject {
  const { number, expMonth, expYear } = checkedCard(ctx, input, 'card');
  const pm = newCardPaymentMethod(ctx, number, { expMonth, expYear, cvcGiven: input.cvcGiven });
  const token: StripeObject = {
    id: newId(ctx, 'token'),
    object: 'token',
    card: { ...cardFor(ctx, pm, input.name ?? null), ...input.address },
    client_ip: null,
    created: ctx.clock.nowSeconds(),
    livemode: false,
    type: 'card',
    used: false,
  };
  return save(ctx, 'token', token);
}

export function getToken(ctx: TwinContext, id: string): StripeObject {
  const token = find(ctx, 'token', id);
  if (!token) throw resourceMissing('token', id, 'token');
  return token;
}

/**
 * The card a token stands for, the token spent (`used`); a test token (`tok_visa`) is a fresh card
 * each time. Stripe refuses a token used before.
 */
export function spendToken(ctx: TwinContext, id: string, param: string): StripeObject {
  const token = find(ctx, 'token', id);
  if (token) {
    if (token.used) throw invalidRequest(`You cannot use a Stripe token more than once: ${id}.`, param, 'token_already_used');
    save(ctx, 'token', { ...token, used: true });
    return clone(token.card);
  }
  const number = shortcutNumber(id);
  if (!number) throw resourceMissing('token', id, param);
  return cardFor(ctx, newCardPaymentMethod(ctx, number), null);
}

/** The payment method behind a card (what a charge on it charges). */
export function cardPaymentMethod(ctx: TwinContext, card: StripeObject): PaymentMethod {
  const pm = find<PaymentMethod>(ctx, 'payment_method', ctx.store.getMeta(pmKey(card.id)) ?? '');
  if (!pm) throw resourceMissing('source', card.id, 'source');
  return pm;
}

/** A source of the customer, or Stripe's 404. */
export function getSource(ctx: TwinContext, customerId: string, id: string, param = 'id'): StripeObject {
  getCustomer(ctx, customerId);
  const card = find(ctx, 'card', id);
  if (!card || card.customer !== customerId) throw resourceMissing('source', id, param);
  return card;
}

/**
 * Save a token's card as a source of the customer (`customer.source.created`). The issuer answers
 * as it does when a payment method is attached: some test cards are refused already here.
 */
export function saveSource(ctx: TwinContext, customerId: string, tokenId: string, param = 'source'): StripeObject {
  const card = { ...spendToken(ctx, tokenId, param), customer: customerId };
  const refused = checkCardOnAttach(cardPaymentMethod(ctx, card));
  if (refused) throw new StripeApiError(402, { type: 'card_error', ...refused, param });
  save(ctx, 'card', card);
  emitEvent(ctx, 'customer.source.created', card);
  return card;
}

/** `POST /v1/customers/{id}/sources`: save the card; the customer's first becomes its `default_source`. */
export function attachSource(ctx: TwinContext, customerId: string, tokenId: string): StripeObject {
  const customer = getCustomer(ctx, customerId);
  const card = saveSource(ctx, customerId, tokenId);
  if (!customer.default_source) patchCustomer(ctx, customerId, { default_source: card.id });
  return card;
}

export function updateSource(ctx: TwinContext, customerId: string, id: string, input: SourceUpdate): StripeObject {
  const before = getSource(ctx, customerId, id);
  const card = clone(before);
  if (input.name !== undefined) card.name = input.name;
  if (input.expMonth !== undefined) card.exp_month = input.expMonth;
  if (input.expYear !== undefined) card.exp_year = input.expYear;
  if (input.metadata !== undefined) card.metadata = applyMetadata(card.metadata, input.metadata);
  const prev = previousAttributes(before, card);
  if (Object.keys(prev).length > 0) {
    save(ctx, 'card', card);
    emitEvent(ctx, 'customer.source.updated', card, prev);
  }
  return card;
}

/** Remove a source; a removed default gives way to the newest remaining one (or none). */
export function deleteSource(ctx: TwinContext, customerId: string, id: string): StripeObject {
  const card = getSource(ctx, customerId, id);
  ctx.store.delete('card', id);
  emitEvent(ctx, 'customer.source.deleted', card);
  if (getCustomer(ctx, customerId).default_source === id) {
    const next = newestFirst([...eachMatching<StripeObject>(ctx, 'card', { customer: customerId })])[0];
    patchCustomer(ctx, customerId, { default_source: next?.id ?? null });
  }
  return { ...deletedObject(card), customer: customerId };
}

/** One page of the customer's sources (cards), newest first. */
export function listSources(ctx: TwinContext, customerId: string, window: ListWindow): ListPage<StripeObject> {
  getCustomer(ctx, customerId);
  return readPage<StripeObject>(ctx, 'card', { customer: customerId }, window);
}

/** How many sources a customer embeds when `expand[]=sources` asks. */
const EMBEDDED_SOURCES = 10;

/** A customer's sources as the includable `sources` list (`expand[]=sources`). */
export function customerSourceList(ctx: TwinContext, customerId: string): Record<string, unknown> {
  const all = newestFirst([...eachMatching<StripeObject>(ctx, 'card', { customer: customerId })]);
  return {
    object: 'list',
    data: all.slice(0, EMBEDDED_SOURCES),
    has_more: all.length > EMBEDDED_SOURCES,
    total_count: all.length,
    url: `/v1/customers/${customerId}/sources`,
  };
}
