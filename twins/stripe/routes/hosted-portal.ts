// The customer portal page a billing portal session's `url` opens (`/p/session/{token}`, no key),
// as the customer's browser sees it: the customer's subscriptions with the actions the session's
// configuration enables (cancel, renew a scheduled cancellation, switch price), the default card
// with a form to replace it, and the invoice history. Each action is a plain form POST to the same
// URL (`action=cancel|renew|switch_price|update_card`) and changes the API state with the same
// events as Stripe's portal. A session opened with `flow_data` shows only its flow's subscription
// and, once done, follows `after_completion` (303 to the redirect URL, or a confirmation page).

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { StripeApiError } from '../wire/errors.js';
import { find, type StripeObject } from '../model/objects.js';
import { formatAmount } from '../model/billing-cycle.js';
import { subscriptionItems } from '../model/subscription-items.js';
import { productName } from '../model/invoice-lines.js';
import { portalCancel, portalRenew, portalSwitchPrice, portalUpdateCard, sessionByToken, switchablePrices } from '../model/billing-portal.js';
import { CARD_FIELDS, cardFromForm, formValue } from './hosted-checkout.js';
import { esc, hidden, html } from './hosted-page.js';

const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

const notFound = () => html(404, '<!doctype html><html lang="en"><meta charset="utf-8"><title>Portal</title><h1>This portal link is not valid</h1></html>');

function priceLabel(ctx: TwinContext, price: StripeObject): string {
  const every = price.recurring ? ` / ${price.recurring.interval_count > 1 ? `${price.recurring.interval_count} ` : ''}${price.recurring.interval}` : '';
  return `${productName(ctx, price)} — ${formatAmount(price.unit_amount ?? 0, price.currency)}${every}`;
}

function subscriptionSection(ctx: TwinContext, config: StripeObject, sub: StripeObject): string {
  const item = subscriptionItems(sub)[0];
  const f = config.features;
  const parts = [
    `<section class="subscription" data-id="${esc(sub.id)}"><h2>${item ? esc(priceLabel(ctx, item.price)) : 'Subscription'}</h2>`,
    `<p>Status: ${esc(sub.status)}</p>`,
  ];
  const scheduled = sub.cancel_at_period_end || sub.cancel_at;
  if (scheduled) parts.push(`<p class="cancels">Cancels on ${esc(day(sub.cancel_at ?? sub.current_period_end))}</p>`);
  else parts.push(`<p>Renews on ${esc(day(sub.current_period_end))}</p>`);
  if (f.subscription_cancel.enabled && !scheduled) {
    const reason = f.subscription_cancel.cancellation_reason;
    const reasons = reason.enabled
      ? `<label>Reason <select name="feedback"><option value=""></option>${(reason.options as string[]).map((o) => `<option value="${esc(o)}">${esc(o.replace(/_/g, ' '))}</option>`).join('')}</select></label>` +
        `<label>Comment <input name="comment"></label>`
      : '';
    parts.push(
      `<form method="post" class="cancel">${hidden('action', 'cancel')}${hidden('subscription', sub.id)}${reasons}<button type="submit">Cancel plan</button></form>`,
    );
  }
  if (scheduled && f.subscription_cancel.enabled) {
    parts.push(
      `<form method="post" class="renew">${hidden('action', 'renew')}${hidden('subscription', sub.id)}<button type="submit">Renew plan</button></form>`,
    );
  }
  const prices = switchablePrices(config)
    .filter((id) => id !== item?.price.id)
    .map((id) => find(ctx, 'price', id))
    .filter((p): p is StripeObject => !!p && p.active !== false);
  if (prices.length > 0 && !scheduled) {
    const options = prices.map((p) => `<option value="${esc(p.id)}">${esc(priceLabel(ctx, p))}</option>`).join('');
    parts.push(
      `<form method="post" class="switch">${hidden('action', 'switch_price')}${hidden('subscription', sub.id)}<label>New plan <select name="price">${options}</select></label><button type="submit">Update plan</button></form>`,
    );
  }
  parts.push('</section>');
  return parts.join('');
}

function page(ctx: TwinContext, session: StripeObject, config: StripeObject, notice?: { error?: string; done?: string }, status = 200): TwinResponse {
  const customer = find(ctx, 'customer', session.customer);
  const flowSub: string | undefined = session.flow?.[session.flow.type]?.subscription ?? undefined;
  const subs = ctx.store
    .list<StripeObject>('subscription')
    .filter((s) => s.customer === session.customer && s.status !== 'canceled' && s.status !== 'incomplete_expired' && (!flowSub || s.id === flowSub));
  const showSubs = session.flow?.type !== 'payment_method_update';
  const f = config.features;
  const pmId = customer?.invoice_settings?.default_payment_method as string | null | undefined;
  const pm = pmId ? find(ctx, 'payment_method', pmId) : undefined;
  const card = pm?.card ? `${esc(pm.card.brand)} •••• ${esc(pm.card.last4)} (expires ${esc(pm.card.exp_month)}/${esc(pm.card.exp_year)})` : 'No card on file';
  const cardForm =
    f.payment_method_update.enabled && (!session.flow || session.flow.type === 'payment_method_update')
      ? `<section class="payment-method"><h2>Payment method</h2><p class="card">${card}</p><form method="post" class="update-card">${hidden('action', 'update_card')}${CARD_FIELDS}<button type="submit">Update card</button></form></section>`
      : '';
  const invoices =
    f.invoice_history.enabled && !session.flow
      ? `<section class="invoices"><h2>Invoice history</h2><ul>${ctx.store
          .list<StripeObject>('invoice')
          .filter((i) => i.customer === session.customer && i.status !== 'draft')
          .map(
            (i) =>
              `<li><a href="${esc(i.hosted_invoice_url)}">${esc(i.number)}</a> ${esc(formatAmount(i.total, i.currency))} ${esc(i.status)} ${esc(day(i.created))}</li>`,
          )
          .join('')}</ul></section>`
      : '';
  const msg = notice?.error
    ? `<p role="alert" class="error">${esc(notice.error)}</p>`
    : notice?.done
      ? `<p role="status" class="done">${esc(notice.done)}</p>`
      : '';
  const back = session.return_url
    ? `<p><a class="return" href="${esc(session.return_url)}">Return to ${esc(config.business_profile.headline ?? 'the site')}</a></p>`
    : '';
  return html(
    status,
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>Customer portal</title>` +
      `<h1>Twin customer portal</h1><p class="customer">${esc(customer?.name ?? '')} ${esc(customer?.email ?? '')}</p>${msg}` +
      (showSubs
        ? `<section class="subscriptions"><h2>Current plan</h2>${subs.map((s) => subscriptionSection(ctx, config, s)).join('') || '<p>No active subscriptions.</p>'}</section>`
        : '') +
      `${cardForm}${invoices}${back}</html>`,
  );
}

function portalOf(req: TwinRequest, ctx: TwinContext) {
  return sessionByToken(ctx, req.params.token ?? '');
}

const DONE: Record<string, string> = {
  cancel: 'Your plan has been canceled.',
  renew: 'Your plan has been renewed.',
  switch_price: 'Your plan has been updated.',
  update_card: 'Your payment method has been updated.',
};

function submit(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const found = portalOf(req, ctx);
  if (!found) return notFound();
  const { session, config } = found;
  const action = formValue(req, 'action') ?? '';
  const subscription = formValue(req, 'subscription') ?? '';
  if (!Object.hasOwn(DONE, action)) return page(ctx, session, config, { error: 'Unknown action.' }, 400);
  try {
    // A refused change (a declined card, a price not offered) leaves nothing behind (savepoint).
    ctx.store.db.transaction(() => {
      if (action === 'cancel')
        portalCancel(ctx, session, config, {
          subscription,
          feedback: formValue(req, 'feedback') || undefined,
          comment: formValue(req, 'comment') || undefined,
        });
      else if (action === 'renew') portalRenew(ctx, session, { subscription });
      else if (action === 'switch_price') portalSwitchPrice(ctx, session, config, { subscription, price: formValue(req, 'price') ?? '' });
      else portalUpdateCard(ctx, session, config, cardFromForm(req, ctx) ?? 'pm_card_visa');
    })();
  } catch (e) {
    if (e instanceof StripeApiError) return page(ctx, session, config, { error: e.message }, e.status === 402 ? 402 : 400);
    throw e;
  }
  const after = session.flow?.after_completion;
  if (after?.type === 'redirect') return { status: 303, headers: { location: after.redirect.return_url } };
  if (after?.type === 'hosted_confirmation') {
    return html(
      200,
      `<!doctype html><html lang="en"><meta charset="utf-8"><title>Customer portal</title><p role="status" class="done">${esc(after.hosted_confirmation.custom_message ?? DONE[action])}</p>${session.return_url ? `<a class="return" href="${esc(session.return_url)}">Return</a>` : ''}</html>`,
    );
  }
  return page(ctx, session, config, { done: DONE[action] });
}

export const hostedPortalRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/p/session/{token}',
    public: true,
    handler: (req, ctx) => {
      const found = portalOf(req, ctx);
      return found ? page(ctx, found.session, found.config) : notFound();
    },
  },
  { method: 'POST', path: '/p/session/{token}', public: true, handler: submit },
];
