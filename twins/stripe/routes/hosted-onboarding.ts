// The Connect onboarding page an account link's `url` opens (`/setup/e/{account}/{token}`, no key),
// as the account owner's browser sees it: a form asking what Stripe's onboarding asks before it
// enables an account (business type and name, website, email, acceptance of the Connected Account
// Agreement). Submitting it (a plain form POST to the same URL) completes onboarding —
// `details_submitted`, `charges_enabled`, `payouts_enabled`, `account.updated` — and redirects (303)
// to the link's `return_url`. An expired or already used link redirects to `refresh_url`.
// A login link (`/express/{account}/{token}`) opens the account's Express dashboard: its balance,
// its bank account and its latest payouts, read from the account's own records.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { BUSINESS_TYPES, type Account } from '../model/accounts.js';
import { loginLinkAccount, submitLink, visitLink, type LinkVisit } from '../model/account-links.js';
import { getBalance } from '../model/balance.js';
import { listPayouts } from '../model/payouts.js';
import { formatAmount } from '../model/billing-cycle.js';
import { contextFor } from '../wire/connect-scope.js';
import { formValue } from './hosted-checkout.js';
import { esc, html } from './hosted-page.js';

const TITLE = '<!doctype html><html lang="en"><meta charset="utf-8"><title>Connect onboarding</title>';

const notFound = () => html(404, `${TITLE}<h1>This onboarding link is not valid</h1></html>`);

function refresh(visit: Extract<LinkVisit, { kind: 'refresh' }>): TwinResponse {
  if (visit.url) return { status: 303, headers: { location: visit.url } };
  return html(410, `${TITLE}<h1>This onboarding link has expired</h1><p>Ask the platform for a new link.</p></html>`);
}

function form(account: Account, error?: string, status = 200): TwinResponse {
  const bp = account.business_profile ?? {};
  const types = BUSINESS_TYPES.map((t) => `<option value="${t}"${account.business_type === t ? ' selected' : ''}>${t.replace('_', ' ')}</option>`).join('');
  return html(
    status,
    `${TITLE}<h1>Set up payments for ${esc(bp.name ?? account.id)}</h1>` +
      `<p class="account">${esc(account.id)} · ${esc(account.country)} · ${esc(account.type)}</p>` +
      (error ? `<p role="alert" class="error">${esc(error)}</p>` : '') +
      `<form method="post">` +
      `<label>Business type <select name="business_type">${types}</select></label>` +
      `<label>Business name <input name="business_name" required value="${esc(bp.name ?? '')}"></label>` +
      `<label>Website <input name="url" type="url" required value="${esc(bp.url ?? '')}"></label>` +
      `<label>Email <input name="email" type="email" autocomplete="email" value="${esc(account.email ?? '')}"></label>` +
      `<label><input name="tos" type="checkbox" value="accepted" required> I agree to the Stripe Connected Account Agreement</label>` +
      `<button type="submit">Submit</button></form></html>`,
  );
}

function header(req: TwinRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function submit(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const { account: accountId = '', token = '' } = req.params;
  const visit = visitLink(ctx, accountId, token);
  if (visit.kind === 'missing') return notFound();
  if (visit.kind === 'refresh') return refresh(visit);
  const businessType = formValue(req, 'business_type') || 'individual';
  const businessName = formValue(req, 'business_name') ?? '';
  const url = formValue(req, 'url') ?? '';
  const email = formValue(req, 'email') || undefined;
  if (!(BUSINESS_TYPES as readonly string[]).includes(businessType)) return form(visit.account, 'Choose a business type.', 400);
  if (!businessName) return form(visit.account, 'Enter the name of your business.', 400);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return form(visit.account, 'Enter your business website (https://…).', 400);
  if (formValue(req, 'tos') !== 'accepted') return form(visit.account, 'Accept the Stripe Connected Account Agreement to continue.', 400);
  const done = submitLink(ctx, accountId, token, {
    businessType: businessType as (typeof BUSINESS_TYPES)[number],
    businessName,
    url,
    email,
    ip: header(req, 'x-forwarded-for')?.split(',')[0]?.trim() || '127.0.0.1',
    userAgent: header(req, 'user-agent') ?? null,
  });
  if (done.kind === 'missing') return notFound();
  if (done.kind === 'refresh') return refresh(done);
  if (done.returnUrl) return { status: 303, headers: { location: done.returnUrl } };
  return html(200, `${TITLE}<p role="status" class="done">Your account ${esc(done.account.id)} is set up.</p></html>`);
}

function dashboard(ctx: TwinContext, account: Account): TwinResponse {
  const own = contextFor(ctx, account.id);
  const balance = getBalance(own);
  const money = (rows: { amount: number; currency: string }[]) => rows.map((b) => esc(formatAmount(b.amount, b.currency))).join(', ');
  const payouts = listPayouts(own, {}, { limit: 10 }).data;
  const bank = account.external_accounts?.data?.[0];
  return html(
    200,
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>Express dashboard</title>` +
      `<h1>${esc(account.business_profile?.name ?? account.id)}</h1><p class="account">${esc(account.id)}</p>` +
      `<section class="balance"><h2>Balance</h2><p class="available">Available: ${money(balance.available)}</p><p class="pending">Pending: ${money(balance.pending)}</p></section>` +
      `<section class="bank"><h2>Payouts to</h2><p>${bank ? `${esc(bank.bank_name)} •••• ${esc(bank.last4)}` : 'No bank account yet'}</p></section>` +
      `<section class="payouts"><h2>Recent payouts</h2><ul>${payouts.map((p) => `<li data-id="${esc(p.id)}">${esc(formatAmount(p.amount, p.currency))} ${esc(p.status)}</li>`).join('') || '<li>None yet</li>'}</ul></section></html>`,
  );
}

export const hostedOnboardingRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/express/{account}/{token}',
    public: true,
    handler: (req, ctx) => {
      const account = loginLinkAccount(ctx, req.params.account ?? '', req.params.token ?? '');
      return account ? dashboard(ctx, account) : html(404, `${TITLE}<h1>This dashboard link is not valid</h1></html>`);
    },
  },
  {
    method: 'GET',
    path: '/setup/e/{account}/{token}',
    public: true,
    handler: (req, ctx) => {
      const visit = visitLink(ctx, req.params.account ?? '', req.params.token ?? '');
      if (visit.kind === 'missing') return notFound();
      if (visit.kind === 'refresh') return refresh(visit);
      return form(visit.account);
    },
  },
  { method: 'POST', path: '/setup/e/{account}/{token}', public: true, handler: submit },
];
