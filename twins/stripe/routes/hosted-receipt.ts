// The receipt page a charge's `receipt_url` points at (`/receipts/payment/{charge}`, no key), as
// the customer's browser sees it: what was paid, with which card, when, and what was refunded. A
// charge that did not succeed has no receipt.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { find, type StripeObject } from '../model/objects.js';
import { formatAmount } from '../model/billing-cycle.js';
import { esc, html } from './hosted-page.js';

function receipt(charge: StripeObject): string {
  const money = (n: number) => esc(formatAmount(n, charge.currency));
  const card = charge.payment_method_details?.card;
  const paidOn = new Date(charge.created * 1000).toISOString().slice(0, 10);
  const refunded = charge.amount_refunded > 0 ? `<tr><th>Refunded</th><td>${money(charge.amount_refunded)}</td></tr>` : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Receipt ${esc(charge.receipt_number ?? charge.id)}</title></head><body>` +
    `<main><h1>Receipt</h1><table>` +
    `<tr><th>Amount paid</th><td>${money(charge.amount_captured || charge.amount)}</td></tr>` +
    `<tr><th>Date paid</th><td>${esc(paidOn)}</td></tr>` +
    (card ? `<tr><th>Payment method</th><td>${esc(card.brand)} ending in ${esc(card.last4)}</td></tr>` : '') +
    (charge.description ? `<tr><th>Description</th><td>${esc(charge.description)}</td></tr>` : '') +
    refunded +
    `</table></main></body></html>`
  );
}

export const hostedReceiptRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/receipts/payment/{id}',
    public: true,
    handler: (req, ctx) => {
      const charge = find(ctx, 'charge', req.params.id!);
      return charge?.status === 'succeeded' ? html(200, receipt(charge)) : html(404, '<h1>Receipt not found</h1>');
    },
  },
];
