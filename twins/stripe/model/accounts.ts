// Connect accounts: the platform's connected accounts (`acct_…`) created as `express`, `standard` or
// `custom`, or from `controller` properties (type `none`), with the test-mode state Stripe gives a
// fresh account (nothing enabled, onboarding requirements currently due) until a person completes
// onboarding through an account link (model/account-links.ts), which submits the details, enables
// charges and payouts and activates the requested capabilities. Every change emits `account.updated`
// as a Connect event of that account. The platform's own account (`GET /v1/account`) is kept apart.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { PLATFORM_ACCOUNT_META, accountInvalid, contextFor, platformContext } from '../wire/connect-scope.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, keptId, previousAttributes, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type ListPage, type ListWindow } from './pages.js';

export type Account = StripeObject & { object: 'account' };

export const ACCOUNT_TYPES = ['custom', 'express', 'standard'] as const;
export const BUSINESS_TYPES = ['company', 'government_entity', 'individual', 'non_profit'] as const;
export const FEE_PAYERS = ['account', 'application'] as const;
export const LOSS_PAYERS = ['application', 'stripe'] as const;
export const REQUIREMENT_COLLECTORS = ['application', 'stripe'] as const;
export const DASHBOARD_TYPES = ['express', 'full', 'none'] as const;

export interface ControllerInput {
  fees?: { payer?: (typeof FEE_PAYERS)[number] };
  losses?: { payments?: (typeof LOSS_PAYERS)[number] };
  requirementCollection?: (typeof REQUIREMENT_COLLECTORS)[number];
  stripeDashboard?: { type?: (typeof DASHBOARD_TYPES)[number] };
}

export interface BusinessProfileInput {
  name?: string | null;
  url?: string | null;
  mcc?: string | null;
  productDescription?: string | null;
  supportEmail?: string | null;
  supportPhone?: string | null;
  supportUrl?: string | null;
}

/** What update may change (create takes the same and more). */
export interface AccountFields {
  email?: string | null;
  businessType?: (typeof BUSINESS_TYPES)[number] | null;
  businessProfile?: BusinessProfileInput;
  defaultCurrency?: string;
  /** Capability name → requested. */
  capabilities?: Record<string, boolean>;
  metadata?: MetadataPatch;
  tosAcceptance?: { date?: number; ip?: string; userAgent?: string };
}

export interface AccountCreate extends AccountFields {
  type?: (typeof ACCOUNT_TYPES)[number];
  controller?: ControllerInput;
  country?: string;
}

/** What onboarding asks of every fresh account before charges and payouts are enabled. */
const ONBOARDING_REQUIREMENTS = [
  'business_profile.mcc',
  'business_profile.url',
  'business_type',
  'external_account',
  'tos_acceptance.date',
  'tos_acceptance.ip',
];

/** Capabilities a connected account gets when the request names none. */
const DEFAULT_CAPABILITIES = ['card_payments', 'transfers'];

/** Currencies by the countries the twin knows (others settle in usd). */
const CURRENCY_OF: Record<string, string> = {
  US: 'usd',
  GB: 'gbp',
  CA: 'cad',
  AU: 'aud',
  JP: 'jpy',
  CH: 'chf',
  SE: 'sek',
  NO: 'nok',
  DK: 'dkk',
  MX: 'mxn',
  IN: 'inr',
};
const EURO = ['AT', 'BE', 'DE', 'ES', 'FI', 'FR', 'IE', 'IT', 'LU', 'NL', 'PT'];

function currencyOf(country: string): string {
  return CURRENCY_OF[country] ?? (EURO.includes(country) ? 'eur' : 'usd');
}

function requirements(due: string[]): Record<string, unknown> {
  return {
    alternatives: [],
    current_deadline: null,
    currently_due: due,
    disabled_reason: due.length ? 'requirements.past_due' : null,
    errors: [],
    eventually_due: due,
    past_due: due,
    pending_verification: [],
  };
}

/** The `controller` hash of a type, or of the properties given instead of a type. */
function controllerOf(type: Account['type'], input: ControllerInput | undefined): Record<string, unknown> {
  const preset: Record<string, [string, string, string, string]> = {
    standard: ['account', 'stripe', 'stripe', 'full'],
    express: ['application_express', 'application', 'stripe', 'express'],
    custom: ['application_custom', 'application', 'application', 'none'],
  };
  const [payer, losses, collection, dashboard] = preset[type] ?? [
    input?.fees?.payer ?? 'account',
    input?.losses?.payments ?? 'stripe',
    input?.requirementCollection ?? 'stripe',
    input?.stripeDashboard?.type ?? 'full',
  ];
  return {
    fees: { payer },
    is_controller: true,
    losses: { payments: losses },
    requirement_collection: collection,
    stripe_dashboard: { type: dashboard },
    type: 'application',
  };
}

function businessProfile(existing: Record<string, unknown>, input: BusinessProfileInput | undefined): Record<string, unknown> {
  const out = { ...existing };
  if (!input) return out;
  const map: [keyof BusinessProfileInput, string][] = [
    ['name', 'name'],
    ['url', 'url'],
    ['mcc', 'mcc'],
    ['productDescription', 'product_description'],
    ['supportEmail', 'support_email'],
    ['supportPhone', 'support_phone'],
    ['supportUrl', 'support_url'],
  ];
  for (const [from, to] of map) if (input[from] !== undefined) out[to] = input[from];
  return out;
}

const EMPTY_PROFILE = {
  annual_revenue: null,
  estimated_worker_count: null,
  mcc: null,
  minority_owned_business_designation: null,
  name: null,
  product_description: null,
  support_address: null,
  support_email: null,
  support_phone: null,
  support_url: null,
  url: null,
};

function settings(): Record<string, unknown> {
  return {
    bacs_debit_payments: {},
    branding: { icon: null, logo: null, primary_color: null, secondary_color: null },
    card_issuing: { tos_acceptance: { date: null, ip: null } },
    card_payments: {
      decline_on: { avs_failure: false, cvc_failure: false },
      statement_descriptor_prefix: null,
      statement_descriptor_prefix_kana: null,
      statement_descriptor_prefix_kanji: null,
    },
    dashboard: { display_name: null, timezone: 'Etc/UTC' },
    invoices: { default_account_tax_ids: null, hosted_payment_method_save: 'offer' },
    payments: { statement_descriptor: null, statement_descriptor_kana: null, statement_descriptor_kanji: null },
    payouts: { debit_negative_balances: true, schedule: { delay_days: 2, interval: 'daily' }, statement_descriptor: null },
    sepa_debit_payments: {},
  };
}

const emptyList = (url: string) => ({ object: 'list', data: [], has_more: false, total_count: 0, url });

function checkCapabilities(capabilities: Record<string, boolean> | undefined): void {
  for (const name of Object.keys(capabilities ?? {})) {
    if (!/^[a-z0-9_]+$/.test(name)) throw invalidRequest(`Invalid capabilities: ${name} is not a capability.`, `capabilities[${name}]`);
  }
}

/** The capability hash after a request: requested ones `inactive` until onboarding activates them. */
function capabilityStates(existing: Record<string, string>, requested: Record<string, boolean>, active: boolean): Record<string, string> {
  const out = { ...existing };
  for (const [name, on] of Object.entries(requested)) {
    if (!on) delete out[name];
    else if (!out[name]) out[name] = active ? 'active' : 'inactive';
  }
  return out;
}

export function createAccount(ctx: TwinContext, input: AccountCreate): Account {
  const platform = platformContext(ctx);
  if (input.type && input.controller) {
    throw invalidRequest('You cannot specify both `type` and `controller`. Please use only one of them.', 'controller');
  }
  checkCapabilities(input.capabilities);
  const type = input.type ?? (input.controller ? 'none' : 'standard');
  const country = (input.country ?? 'US').toUpperCase();
  const currency = input.defaultCurrency ?? currencyOf(country);
  const id = platform.ids.next('acct_', 16);
  const requested = input.capabilities ?? Object.fromEntries(DEFAULT_CAPABILITIES.map((c) => [c, true]));
  const account: Account = {
    id,
    object: 'account',
    business_profile: businessProfile(EMPTY_PROFILE, input.businessProfile),
    business_type: input.businessType ?? null,
    capabilities: capabilityStates({}, requested, false),
    charges_enabled: false,
    controller: controllerOf(type, input.controller),
    country,
    created: platform.clock.nowSeconds(),
    default_currency: currency,
    details_submitted: false,
    email: input.email ?? null,
    external_accounts: emptyList(`/v1/accounts/${id}/external_accounts`),
    future_requirements: requirements([]),
    ...(type === 'express' ? { login_links: emptyList(`/v1/accounts/${id}/login_links`) } : {}),
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    payouts_enabled: false,
    requirements: requirements(ONBOARDING_REQUIREMENTS),
    settings: settings(),
    tos_acceptance: { date: input.tosAcceptance?.date ?? null, ip: input.tosAcceptance?.ip ?? null, user_agent: input.tosAcceptance?.userAgent ?? null },
    type,
  };
  platform.store.put('account', id, account);
  return account;
}

/** A connected account, or Stripe's 403 when the platform has none of that id. */
export function getAccount(ctx: TwinContext, id: string): Account {
  const found = platformContext(ctx).store.get<Account>('account', id);
  if (!found) throw accountInvalid(ctx, id);
  return found;
}

/** Save a changed account and emit `account.updated` on it (a Connect event of that account). */
function saveAccount(ctx: TwinContext, before: Account, after: Account): Account {
  const prev = previousAttributes(before, after);
  platformContext(ctx).store.put('account', after.id, after);
  if (Object.keys(prev).length > 0) emitEvent(contextFor(ctx, after.id), 'account.updated', after, prev);
  return after;
}

export function updateAccount(ctx: TwinContext, id: string, input: AccountFields): Account {
  const before = getAccount(ctx, id);
  checkCapabilities(input.capabilities);
  const account = clone(before);
  if (input.email !== undefined) account.email = input.email;
  if (input.businessType !== undefined) account.business_type = input.businessType;
  if (input.defaultCurrency !== undefined) account.default_currency = input.defaultCurrency;
  account.business_profile = businessProfile(account.business_profile, input.businessProfile);
  if (input.capabilities) account.capabilities = capabilityStates(account.capabilities, input.capabilities, account.details_submitted);
  if (input.metadata !== undefined) account.metadata = applyMetadata(account.metadata, input.metadata);
  if (input.tosAcceptance) {
    const t = input.tosAcceptance;
    account.tos_acceptance = {
      date: t.date ?? account.tos_acceptance.date,
      ip: t.ip ?? account.tos_acceptance.ip,
      user_agent: t.userAgent ?? account.tos_acceptance.user_agent,
    };
  }
  return saveAccount(ctx, before, account);
}

export interface OnboardingSubmission {
  businessType: (typeof BUSINESS_TYPES)[number];
  businessName: string;
  url: string;
  email?: string;
  /** Where the person accepted the terms from. */
  ip: string;
  userAgent: string | null;
}

/**
 * A person completed onboarding: details submitted, the requirements met, charges and payouts
 * enabled, every requested capability active, a test bank account attached.
 */
export function completeOnboarding(ctx: TwinContext, id: string, s: OnboardingSubmission): Account {
  const before = getAccount(ctx, id);
  const account = clone(before);
  const now = ctx.clock.nowSeconds();
  account.business_type = s.businessType;
  account.business_profile = businessProfile(account.business_profile, { name: s.businessName, url: s.url, mcc: account.business_profile.mcc ?? '5734' });
  if (s.email) account.email = s.email;
  account.tos_acceptance = { date: now, ip: s.ip, user_agent: s.userAgent };
  account.details_submitted = true;
  account.charges_enabled = true;
  account.payouts_enabled = true;
  account.requirements = requirements([]);
  account.capabilities = Object.fromEntries(Object.keys(account.capabilities).map((c) => [c, 'active']));
  if (account.external_accounts.data.length === 0) {
    const bank = {
      id: ctx.ids.next('ba_', 24),
      object: 'bank_account',
      account: id,
      account_holder_name: null,
      account_holder_type: null,
      account_type: null,
      available_payout_methods: ['standard', 'instant'],
      bank_name: 'STRIPE TEST BANK',
      country: account.country,
      currency: account.default_currency,
      default_for_currency: true,
      fingerprint: ctx.ids.token(16),
      last4: '6789',
      metadata: {},
      routing_number: '110000000',
      status: 'new',
    };
    account.external_accounts = { ...account.external_accounts, data: [bank], total_count: 1 };
  }
  return saveAccount(ctx, before, account);
}

export function listAccounts(ctx: TwinContext, window: ListWindow): ListPage<Account> {
  return readPage<Account>(platformContext(ctx), 'account', {}, window);
}

/** Test-mode accounts can be deleted at any time; the account's key access ends with it. */
export function deleteAccount(ctx: TwinContext, id: string): StripeObject {
  const account = getAccount(ctx, id);
  platformContext(ctx).store.delete('account', id);
  return { id: account.id, object: 'account', deleted: true };
}

/** The platform's own account (made on first read: a fully onboarded standard account). */
export function platformAccount(ctx: TwinContext): Account {
  const platform = platformContext(ctx);
  const kept = platform.store.getMeta(PLATFORM_ACCOUNT_META);
  if (kept) return JSON.parse(kept) as Account;
  const id = platform.ids.next('acct_', 16);
  const account: Account = {
    id,
    object: 'account',
    business_profile: { ...EMPTY_PROFILE, mcc: '5734', name: 'Twin platform', url: 'https://example.com' },
    business_type: 'company',
    capabilities: { card_payments: 'active', transfers: 'active' },
    charges_enabled: true,
    controller: { type: 'account' },
    country: 'US',
    created: platform.clock.nowSeconds(),
    default_currency: 'usd',
    details_submitted: true,
    email: null,
    external_accounts: emptyList(`/v1/accounts/${id}/external_accounts`),
    future_requirements: requirements([]),
    metadata: {},
    payouts_enabled: true,
    requirements: requirements([]),
    settings: settings(),
    tos_acceptance: { date: null, ip: null, user_agent: null },
    type: 'standard',
  };
  platform.store.setMeta(PLATFORM_ACCOUNT_META, JSON.stringify(account));
  return account;
}

/** The Connect application of the platform (`application` on its fees). */
export function platformApplication(ctx: TwinContext): string {
  return keptId(platformContext(ctx), 'stripe:platform_application', 'ca_', 32);
}

/** One capability of an account as its own object (`/v1/accounts/{account}/capabilities/{capability}`). */
function capabilityObject(account: Account, name: string): StripeObject {
  const status = (account.capabilities as Record<string, string>)[name]!;
  const due = status === 'active' ? [] : (account.requirements.currently_due as string[]);
  return {
    id: name,
    object: 'capability',
    account: account.id,
    future_requirements: requirements([]),
    requested: true,
    requested_at: account.created,
    requirements: requirements(due),
    status,
  };
}

export function listCapabilities(ctx: TwinContext, accountId: string): StripeObject[] {
  const account = getAccount(ctx, accountId);
  return Object.keys(account.capabilities)
    .sort()
    .map((name) => capabilityObject(account, name));
}

export function getCapability(ctx: TwinContext, accountId: string, name: string): StripeObject {
  const account = getAccount(ctx, accountId);
  if (!Object.hasOwn(account.capabilities, name)) throw resourceMissing('capability', name, 'capability');
  return capabilityObject(account, name);
}

/** Request (or un-request) one capability: `account.updated` and `capability.updated` when that changes it. */
export function requestCapability(ctx: TwinContext, accountId: string, name: string, requested: boolean | undefined): StripeObject {
  const before = getAccount(ctx, accountId);
  checkCapabilities({ [name]: true });
  if (requested === undefined) return getCapability(ctx, accountId, name);
  const account = updateAccount(ctx, accountId, { capabilities: { [name]: requested } });
  const capability = requested
    ? capabilityObject(account, name)
    : { ...capabilityObject({ ...account, capabilities: { [name]: 'inactive' } }, name), requested: false, requested_at: null };
  if (Object.hasOwn(before.capabilities, name) !== requested) emitEvent(contextFor(ctx, accountId), 'capability.updated', capability);
  return capability;
}
