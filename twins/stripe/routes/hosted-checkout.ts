// The hosted page a Checkout Session's `url` points at (`/c/pay/{id}`, no key), as a browser sees
// it: an HTML form with the card fields Stripe's page asks for (number, expiry, CVC, name, email).
// Submitting it (a plain `application/x-www-form-urlencoded` POST) creates the card from the
// number typed — so any test card behaves as it does in Stripe test mode (4242… pays,
// 4000 0000 0000 0341 attaches and declines every later charge, 4000 0000 0000 0002 is refused at
// once) — completes the session and redirects (303) to `success_url`. A refused card re-renders
// the page with Stripe's message (402) and leaves the session open; nothing it wrote is kept.
// A POST without a card number pays with 4242… (the twin's one-click shortcut).

import { esc, html } from './hosted-page.js';
import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { StripeApiError } from '../wire/errors.js';
import { find, type StripeObject } from '../model/objects.js';
import { applyPromotionCode, completeSession } from '../model/checkout.js';
import { newCardPaymentMethod } from '../model/payment-methods.js';
import { luhnValid } from '../model/test-cards.js';
import { formatAmount } from '../model/billing-cycle.js';

export function formValue(req: TwinRequest, name: string): string | undefined {
  const v = req.body[name];
  return typeof v === 'string' ? v.trim() : undefined;
}

function page(session: StripeObject, error?: string, status = 200): TwinResponse {
  const lines = ((session.line_items?.data ?? []) as StripeObject[]).map((li) => `<li>${esc(li.quantity)} × ${esc(li.description)}</li>`).join('');
  const action = session.mode === 'setup' ? 'Save card' : session.mode === 'subscription' ? 'Subscribe' : 'Pay';
  const form =
    session.status === 'open'
      ? `${error ? `<p role="alert" class="error">${esc(error)}</p>` : ''}` +
        `<form method="post">` +
        `<label>Email <input name="email" type="email" autocomplete="email" value="${esc(session.customer_details?.email ?? session.customer_email ?? '')}"></label>` +
        (session.allow_promotion_codes ? `<label>Promotion code <input name="promotion_code" autocomplete="off"></label>` : '') +
        CARD_FIELDS +
        `<button type="submit">${action}</button></form>`
      : `<p>This session is ${esc(session.status)}.</p>`;
  return html(
    status,
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>Checkout</title>` +
      `<h1>Twin checkout (${esc(session.mode)})</h1><ul>${lines}</ul>` +
      (session.amount_total !== null
        ? `<p class="total">Total: ${esc(formatAmount(session.amount_total, session.currency))}${session.total_details?.amount_discount ? ` (discount −${esc(formatAmount(session.total_details.amount_discount, session.currency))})` : ''}</p>`
        : '') +
      `${form}</html>`,
  );
}

/** `MM / YY`, `MM/YYYY`, `MMYY` → month and four-digit year, or undefined when unreadable. */
function parseExpiry(raw: string): { month: number; year: number } | undefined {
  const m = /^(\d{1,2})\s*\/?\s*(\d{2}|\d{4})$/.exec(raw.replace(/\s+/g, ' ').trim());
  if (!m) return undefined;
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  return month >= 1 && month <= 12 ? { month, year } : undefined;
}

/**
 * The card a hosted page's form typed (number, expiry, CVC, name, email) as a new card payment
 * method, refused as Stripe's page refuses it (402 `card_error`); undefined when no number was typed.
 */
export function cardFromForm(req: TwinRequest, ctx: TwinContext): string | undefined {
  const number = (formValue(req, 'card_number') ?? '').replace(/[\s-]/g, '');
  if (number === '') return undefined;
  const email = formValue(req, 'email') || undefined;
  const name = formValue(req, 'name') || undefined;
  if (!luhnValid(number)) throw new StripeApiError(402, { type: 'card_error', code: 'incorrect_number', message: 'Your card number is incorrect.' });
  const expiry = parseExpiry(formValue(req, 'card_expiry') ?? '');
  if (!expiry) throw new StripeApiError(402, { type: 'card_error', code: 'invalid_expiry_month', message: "Your card's expiration date is incomplete." });
  const now = ctx.clock.now();
  if (expiry.year < now.getUTCFullYear() || (expiry.year === now.getUTCFullYear() && expiry.month < now.getUTCMonth() + 1)) {
    throw new StripeApiError(402, { type: 'card_error', code: 'invalid_expiry_year', message: "Your card's expiration year is in the past." });
  }
  const cvc = formValue(req, 'card_cvc') ?? '';
  if (!/^\d{3,4}$/.test(cvc))
    throw new StripeApiError(402, { type: 'card_error', code: 'incomplete_cvc', message: "Your card's security code is incomplete." });
  return newCardPaymentMethod(ctx, number, {
    expMonth: expiry.month,
    expYear: expiry.year,
    billing: { ...(email ? { email } : {}), ...(name ? { name } : {}) },
  }).id;
}

/** The card fields of a hosted payment form. */
export const CARD_FIELDS =
  `<label>Card number <input name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required></label>` +
  `<label>Expiry <input name="card_expiry" autocomplete="cc-exp" placeholder="MM / YY" required></label>` +
  `<label>CVC <input name="card_cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required></label>` +
  `<label>Name on card <input name="name" autocomplete="cc-name"></label>`;

/** `GET /c/pay/{id}`. */
export function showHostedCheckout(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const s = find(ctx, 'checkout_session', req.params.id!);
  if (!s) return html(404, '<h1>Checkout session not found</h1>');
  return page(s);
}

/** `POST /c/pay/{id}`: the form submitted. */
export function submitHostedCheckout(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const s = find(ctx, 'checkout_session', req.params.id!);
  if (!s) return html(404, '<h1>Checkout session not found</h1>');
  if (s.status !== 'open') return html(409, '<p>This session is not open.</p>');
  const email = formValue(req, 'email') || undefined;
  const name = formValue(req, 'name') || undefined;
  let done: StripeObject;
  try {
    // A nested transaction is a savepoint: a refused card undoes the customer, card and intents.
    done = ctx.store.db.transaction(() => {
      // A promotion code typed on the page (sessions created with `allow_promotion_codes`).
      const code = formValue(req, 'promotion_code');
      if (code) applyPromotionCode(ctx, s.id, code);
      const paymentMethod = cardFromForm(req, ctx) ?? 'pm_card_visa';
      return completeSession(ctx, s.id, { paymentMethod, email: email || undefined, name: name || undefined });
    })();
  } catch (e) {
    if (e instanceof StripeApiError) return page(s, e.message, 402);
    throw e;
  }
  const target = (done.success_url as string | null)?.replace('{CHECKOUT_SESSION_ID}', done.id);
  return target ? { status: 303, headers: { location: target } } : html(200, '<p>Payment complete.</p>');
}
