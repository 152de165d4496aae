// The page a finalized invoice's `hosted_invoice_url` points at (`/i/{id}`, no key), as the
// customer's browser sees it: the lines and amounts, and while the invoice is open a card form.
// Submitting it pays the invoice with the card typed (any test card behaves as in test mode; no
// number pays with 4242…), with the same charge, events and webhooks as `invoices.pay`. A refused
// card re-renders the page with Stripe's message (402); the decline is kept, as Stripe keeps it.

import { esc, html } from './hosted-page.js';
import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { StripeApiError } from '../wire/errors.js';
import { find, type StripeObject } from '../model/objects.js';
import { payInvoice } from '../model/invoice-payments.js';
import { formatAmount } from '../model/billing-cycle.js';
import { CARD_FIELDS, cardFromForm } from './hosted-checkout.js';

function page(inv: StripeObject, error?: string, status = 200): TwinResponse {
  const money = (n: number) => esc(formatAmount(n, inv.currency));
  const rows = (inv.lines.data as StripeObject[]).map((l) => `<tr><td>${esc(l.description)}</td><td>${money(l.amount)}</td></tr>`).join('');
  const discounts = (inv.total_discount_amounts as { amount: number }[]).reduce((s, d) => s + d.amount, 0);
  const form =
    inv.status === 'open'
      ? `${error ? `<p role="alert" class="error">${esc(error)}</p>` : ''}<form method="post">` +
        `<label>Email <input name="email" type="email" autocomplete="email" value="${esc(inv.customer_email ?? '')}"></label>` +
        `${CARD_FIELDS}<button type="submit">Pay ${money(inv.amount_remaining)}</button></form>`
      : `<p class="status">This invoice is ${esc(inv.status)}.</p>`;
  return html(
    status,
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>Invoice ${esc(inv.number)}</title>` +
      `<h1>Invoice ${esc(inv.number)}</h1><p>Status: ${esc(inv.status)}</p>` +
      (inv.due_date ? `<p>Due: ${esc(new Date(inv.due_date * 1000).toISOString().slice(0, 10))}</p>` : '') +
      `<table>${rows}</table>` +
      `<p>Subtotal: ${money(inv.subtotal)}${discounts ? `; discounts: −${money(discounts)}` : ''}; total: ${money(inv.total)}</p>` +
      `<p>Amount due: ${money(inv.amount_due)}; remaining: ${money(inv.amount_remaining)}</p>${form}</html>`,
  );
}

function hostedInvoice(ctx: TwinContext, id: string): StripeObject | undefined {
  const inv = find(ctx, 'invoice', id);
  return inv && inv.status !== 'draft' ? inv : undefined;
}

function submit(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const inv = hostedInvoice(ctx, req.params.id!);
  if (!inv) return html(404, '<h1>Invoice not found</h1>');
  if (inv.status !== 'open') return page(inv, undefined, 409);
  let declined: string | undefined;
  try {
    // A refused card typed on the page leaves nothing behind (savepoint); a decline is kept.
    ctx.store.db.transaction(() => {
      const paymentMethod = cardFromForm(req, ctx) ?? 'pm_card_visa';
      const { decline } = payInvoice(ctx, inv.id, { paymentMethod, offSession: false });
      declined = decline?.message;
    })();
  } catch (e) {
    if (e instanceof StripeApiError) return page(inv, e.message, 402);
    throw e;
  }
  const fresh = find(ctx, 'invoice', inv.id)!;
  return declined ? page(fresh, declined, 402) : page(fresh);
}

export const hostedInvoiceRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/i/{id}',
    public: true,
    handler: (req, ctx) => {
      const inv = hostedInvoice(ctx, req.params.id!);
      return inv ? page(inv) : html(404, '<h1>Invoice not found</h1>');
    },
  },
  { method: 'POST', path: '/i/{id}', public: true, handler: submit },
];
