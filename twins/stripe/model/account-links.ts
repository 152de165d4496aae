// Account links: a single-use URL, valid for a few minutes, where the connected account's owner
// onboards (or updates the account) on a page the twin serves (routes/hosted-onboarding.ts). The
// link's token is the key of a platform record; an expired or used link sends the person to
// `refresh_url`, as Stripe's does, so the platform can make a new one.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest } from '../wire/errors.js';
import { platformContext } from '../wire/connect-scope.js';
import { completeOnboarding, getAccount, type Account, type OnboardingSubmission } from './accounts.js';

export const ACCOUNT_LINK_TYPES = ['account_onboarding', 'account_update'] as const;

/** Stripe's account links expire five minutes after they are made. */
const LINK_SECONDS = 300;

export interface AccountLinkCreate {
  account: string;
  type: (typeof ACCOUNT_LINK_TYPES)[number];
  refreshUrl?: string;
  returnUrl?: string;
}

/** What the twin keeps of a link (the API answers only `object, created, expires_at, url`). */
interface LinkRecord {
  token: string;
  account: string;
  type: (typeof ACCOUNT_LINK_TYPES)[number];
  refresh_url: string | null;
  return_url: string | null;
  created: number;
  expires_at: number;
  used: boolean;
}

function checkUrl(url: string | undefined, param: string): void {
  if (url === undefined) return;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) throw invalidRequest('Not a valid URL', param, 'url_invalid');
}

export function createAccountLink(ctx: TwinContext, input: AccountLinkCreate): { object: 'account_link'; created: number; expires_at: number; url: string } {
  const platform = platformContext(ctx);
  const account = getAccount(platform, input.account);
  checkUrl(input.refreshUrl, 'refresh_url');
  checkUrl(input.returnUrl, 'return_url');
  // Stripe's rule: updates through a link only where the platform collects requirements and the
  // account has no Stripe-hosted dashboard (Custom accounts and their controller equivalents).
  const controller = account.controller as { requirement_collection?: string; stripe_dashboard?: { type?: string } };
  if (input.type === 'account_update' && (controller.requirement_collection !== 'application' || controller.stripe_dashboard?.type !== 'none')) {
    throw invalidRequest(
      'You can create Account Links of type `account_update` only for connected accounts where your platform is responsible for collecting requirements and that have no access to a Stripe-hosted Dashboard.',
      'type',
    );
  }
  const now = platform.clock.nowSeconds();
  const token = platform.ids.token(32);
  const link: LinkRecord = {
    token,
    account: account.id,
    type: input.type,
    refresh_url: input.refreshUrl ?? null,
    return_url: input.returnUrl ?? null,
    created: now,
    expires_at: now + LINK_SECONDS,
    used: false,
  };
  platform.store.put('account_link', token, link);
  return { object: 'account_link', created: now, expires_at: link.expires_at, url: `${platform.baseUrl}/setup/e/${account.id}/${token}` };
}

/** What the page of a link shows: the account to onboard, or where to send the person instead. */
export type LinkVisit = { kind: 'form'; account: Account; type: LinkRecord['type'] } | { kind: 'refresh'; url: string | null } | { kind: 'missing' };

function linkOf(ctx: TwinContext, accountId: string, token: string): LinkRecord | undefined {
  const link = token ? platformContext(ctx).store.get<LinkRecord>('account_link', token) : undefined;
  return link && link.account === accountId ? link : undefined;
}

export function visitLink(ctx: TwinContext, accountId: string, token: string): LinkVisit {
  const link = linkOf(ctx, accountId, token);
  if (!link) return { kind: 'missing' };
  if (link.used || ctx.clock.nowSeconds() >= link.expires_at) return { kind: 'refresh', url: link.refresh_url };
  const account = platformContext(ctx).store.get<Account>('account', link.account);
  return account ? { kind: 'form', account, type: link.type } : { kind: 'missing' };
}

/** The person submitted the page: onboarding completes and the link is spent. */
export function submitLink(
  ctx: TwinContext,
  accountId: string,
  token: string,
  submission: OnboardingSubmission,
): { kind: 'done'; returnUrl: string | null; account: Account } | Exclude<LinkVisit, { kind: 'form' }> {
  const visit = visitLink(ctx, accountId, token);
  if (visit.kind !== 'form') return visit;
  const link = linkOf(ctx, accountId, token)!;
  const account = completeOnboarding(ctx, link.account, submission);
  platformContext(ctx).store.put('account_link', token, { ...link, used: true });
  return { kind: 'done', returnUrl: link.return_url, account };
}

/** What the twin keeps of an Express dashboard login link (the API answers `object, created, url`). */
interface LoginLinkRecord {
  token: string;
  account: string;
  created: number;
}

/**
 * `POST /v1/accounts/{account}/login_links`: a link into the account's Express dashboard (a twin
 * page). Only accounts with the Express dashboard have one.
 */
export function createLoginLink(ctx: TwinContext, accountId: string): { object: 'login_link'; created: number; url: string } {
  const platform = platformContext(ctx);
  const account = getAccount(platform, accountId);
  if ((account.controller as { stripe_dashboard?: { type?: string } }).stripe_dashboard?.type !== 'express') {
    throw invalidRequest('You can only create login links for accounts that use the Express Dashboard and are connected to your platform.', 'account');
  }
  const token = platform.ids.token(32);
  const link: LoginLinkRecord = { token, account: account.id, created: platform.clock.nowSeconds() };
  platform.store.put('login_link', token, link);
  return { object: 'login_link', created: link.created, url: `${platform.baseUrl}/express/${account.id}/${token}` };
}

/** The account an Express dashboard link opens, if the link is one. */
export function loginLinkAccount(ctx: TwinContext, accountId: string, token: string): Account | undefined {
  const platform = platformContext(ctx);
  const link = token ? platform.store.get<LoginLinkRecord>('login_link', token) : undefined;
  if (!link || link.account !== accountId) return undefined;
  return platform.store.get<Account>('account', accountId);
}
