// Seed vocabulary and suggested starting states of the Stripe twin, and how a seed plan becomes
// Stripe objects: through the twin's own API, as a user would build the account — create the
// product and price, the customer, attach a card, subscribe; for "past due", swap in a card that
// fails and let the renewal come due (the clock advances), so the failed invoice and charge exist
// exactly as Stripe would have them. Owned by the seeds component; index.ts re-exports it.

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';

export const suggestions: SeedSuggestion[] = [
  {
    name: 'SaaS billing with a duplicate charge',
    prompt:
      'A Stripe account with 40 customers, 12 on the Pro monthly plan, 3 of them past due, and a customer named Ana Lima with two charges of $42, one a duplicate',
  },
  {
    name: 'Trials about to convert',
    prompt: '25 customers, 10 on the Starter monthly plan, 6 of them trialing, and 4 on the Business yearly plan',
  },
  {
    name: 'Churn and failed renewals',
    prompt: '30 customers on the Team monthly plan, 5 of them past due and 4 of them canceled',
  },
  {
    name: 'Refund requests',
    prompt: 'A customer named Marco Rossi with 3 charges of $19.99, 1 of them refunded, and 8 customers each with 2 payments of $120',
  },
  {
    name: 'Declined payments',
    prompt: '15 customers with 1 charge of $75 each, and a customer named Priya Patel with 2 charges of $300, 1 declined',
  },
  {
    name: 'Catalog only',
    prompt: '5 products and 50 customers',
  },
];

const SUBSCRIPTION_STATES = ['active', 'past_due', 'trialing', 'canceled'];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    customer: ['customer', 'customers', 'client', 'clients', 'buyer', 'buyers', 'subscriber', 'subscribers', 'user', 'users'],
    charge: ['charge', 'charges', 'payment', 'payments', 'transaction', 'transactions', 'purchase', 'purchases'],
    subscription: ['subscription', 'subscriptions'],
    product: ['product', 'products'],
  },
  states: {
    past_due: ['past due', 'past-due', 'overdue', 'delinquent', 'failed renewal', 'failing renewal', 'unpaid renewal'],
    trialing: ['trialing', 'on trial', 'on a trial', 'in trial', 'in a trial', 'on a free trial', 'in a free trial'],
    canceled: ['canceled', 'cancelled', 'churned'],
    active: ['active', 'paying'],
    refunded: ['refunded'],
    failed: ['declined', 'failed'],
    duplicate: ['duplicate', 'a duplicate', 'duplicated', 'charged twice'],
  },
  stateResources: {
    past_due: ['customer', 'subscription'],
    trialing: ['customer', 'subscription'],
    canceled: ['customer', 'subscription'],
    active: ['customer', 'subscription'],
    refunded: ['charge'],
    failed: ['charge'],
    duplicate: ['charge'],
  },
  phrases: [
    {
      // "on the Pro monthly plan", "subscribed to the Team plan", "paying for the Business yearly tier"
      pattern: /\b(?:on|subscribed to|subscribing to|paying for)\s+(?:the\s+|a\s+|an\s+)?([a-z0-9][a-z0-9 +.-]*?)\s+(?:plan|tier|price)s?\b/,
      attribute: 'plan',
      value: (g) => g[1]!.trim(),
    },
    {
      // "on the Pro monthly subscription" reads the same
      pattern: /\b(?:on|with)\s+(?:the\s+|a\s+|an\s+)?([a-z0-9][a-z0-9 +.-]*?)\s+subscriptions?\b/,
      attribute: 'plan',
      value: (g) => g[1]!.trim(),
    },
  ],
  ownedBy: { charge: 'customer', subscription: 'customer' },
  fillers: ['stripe', 'each', 'who', 'are', 'is'],
};

// ---- plans and prices ------------------------------------------------------------------------

type Interval = 'day' | 'week' | 'month' | 'year';
const INTERVAL_WORDS: Record<string, Interval> = {
  daily: 'day',
  day: 'day',
  weekly: 'week',
  week: 'week',
  monthly: 'month',
  month: 'month',
  yearly: 'year',
  year: 'year',
  annual: 'year',
  annually: 'year',
};
/** Monthly list prices (cents) of tier names people commonly use; other names get a derived price. */
const TIER_PRICES: Record<string, number> = {
  free: 0,
  hobby: 500,
  basic: 900,
  starter: 1900,
  standard: 2900,
  pro: 2900,
  plus: 3900,
  premium: 4900,
  team: 4900,
  growth: 7900,
  business: 9900,
  scale: 19900,
  enterprise: 49900,
};

interface PlanSpec {
  product: string;
  interval: Interval;
  amount: number;
  currency: string;
}

function planSpec(label: string, ctx: SeedExpansionContext, amount?: string, currency?: string): PlanSpec {
  const words = label.split(/\s+/).filter(Boolean);
  const interval = words.map((w) => INTERVAL_WORDS[w.toLowerCase()]).find(Boolean) ?? 'month';
  const name = words.filter((w) => !INTERVAL_WORDS[w.toLowerCase()]).join(' ') || 'Standard';
  let cents = amount !== undefined ? Number(amount) : TIER_PRICES[name.toLowerCase()];
  if (cents === undefined) cents = ctx.values.int(`plan:${name.toLowerCase()}`, 'price', 5, 99) * 100;
  if (amount === undefined && interval === 'year') cents *= 10; // two months free, as yearly plans usually are
  return { product: name, interval, amount: cents, currency: currency ?? 'usd' };
}

class StripeSeedSession {
  private readonly products = new Map<string, string>();
  private readonly prices = new Map<string, string>();
  /** Subscriptions whose renewal must fail (their interval, to know how far to advance). */
  readonly pastDue: Interval[] = [];
  /** Work that needs the clock after the advance (trials that must still be running at the end). */
  readonly afterAdvance: (() => Promise<void>)[] = [];

  constructor(private readonly ctx: SeedExpansionContext) {}

  private get api() {
    return this.ctx.api;
  }

  async product(name: string): Promise<string> {
    let id = this.products.get(name);
    if (!id) {
      const res = await this.api.call('POST', '/v1/products', { name });
      id = res.body.id as string;
      this.products.set(name, id);
    }
    return id;
  }

  async price(spec: PlanSpec): Promise<string> {
    const key = `${spec.product}|${spec.interval}|${spec.amount}|${spec.currency}`;
    let id = this.prices.get(key);
    if (!id) {
      const product = await this.product(spec.product);
      const res = await this.api.call('POST', '/v1/prices', {
        product,
        unit_amount: spec.amount,
        currency: spec.currency,
        recurring: { interval: spec.interval },
        nickname: `${spec.product} ${spec.interval}ly`.replace('dayly', 'daily'),
      });
      id = res.body.id as string;
      this.prices.set(key, id);
    }
    return id;
  }

  async attachCard(customer: string, shortcut: string, makeDefault: boolean): Promise<string> {
    const pm = await this.api.call('POST', `/v1/payment_methods/${shortcut}/attach`, { customer });
    const id = pm.body.id as string;
    if (makeDefault) await this.api.call('POST', `/v1/customers/${customer}`, { invoice_settings: { default_payment_method: id } });
    return id;
  }

  async customer(e: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    const name = e.attributes.name ?? v.personName(e.key, 'customer');
    const subscriptionSpecs: { plan: string; state: string | undefined; amount?: string; currency?: string }[] = [];
    const ownState = e.states.filter((s) => SUBSCRIPTION_STATES.includes(s)).at(-1);
    if (e.resource === 'subscription' || e.attributes.plan !== undefined || ownState !== undefined) {
      subscriptionSpecs.push({ plan: e.attributes.plan ?? 'Standard monthly', state: ownState, amount: e.attributes.amount, currency: e.attributes.currency });
    }
    for (const child of e.children.filter((c) => c.resource === 'subscription')) {
      subscriptionSpecs.push({
        plan: child.attributes.plan ?? e.attributes.plan ?? 'Standard monthly',
        state: child.states.filter((s) => SUBSCRIPTION_STATES.includes(s)).at(-1),
        amount: child.attributes.amount,
        currency: child.attributes.currency,
      });
    }
    const charges = e.children.filter((c) => c.resource === 'charge');
    for (const other of e.children.filter((c) => c.resource !== 'charge' && c.resource !== 'subscription')) {
      throw new SeedExpansionError(`A Stripe customer cannot own ${other.resource} records; ask for them on their own.`);
    }

    const created = await this.api.call('POST', '/v1/customers', { name, email: v.email(e.key, name) });
    const customer = created.body.id as string;
    const needsCard = subscriptionSpecs.length > 0 || charges.length > 0;
    const card = needsCard ? await this.attachCard(customer, 'pm_card_visa', true) : undefined;

    // A duplicate repeats the charge it duplicates: same amount, currency and description.
    const original = charges.find((c) => !c.states.includes('duplicate'));
    for (const charge of charges) {
      await this.charge(charge, customer, card, charge.states.includes('duplicate') ? original : undefined);
    }

    let fails = false;
    for (const spec of subscriptionSpecs) {
      const plan = planSpec(spec.plan, this.ctx, spec.amount, spec.currency);
      const price = await this.price(plan);
      if (spec.state === 'trialing') {
        // Created after the clock advance so the trial is still running when the seed is loaded.
        this.afterAdvance.push(async () => {
          await this.api.call('POST', '/v1/subscriptions', { customer, items: [{ price }], trial_period_days: 14 });
        });
        continue;
      }
      const sub = await this.api.call('POST', '/v1/subscriptions', { customer, items: [{ price }] });
      if (spec.state === 'canceled') await this.api.call('DELETE', `/v1/subscriptions/${sub.body.id}`);
      if (spec.state === 'past_due') {
        fails = true;
        this.pastDue.push(plan.interval);
      }
    }
    // The renewal charges the default card: from now on it is one that attaches but always fails.
    if (fails) await this.attachCard(customer, 'pm_card_chargeCustomerFail', true);
  }

  async charge(e: SeedEntity, customer: string | undefined, card: string | undefined, duplicateOf?: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    const source = duplicateOf ?? e;
    const amount = source.attributes.amount !== undefined ? Number(source.attributes.amount) : v.int(source.key, 'amount', 5, 250) * 100;
    const currency = source.attributes.currency ?? 'usd';
    const description = source.attributes.name ?? `Order ${v.int(source.key, 'order', 1000, 99999)}`;
    const failed = e.states.includes('failed');
    const body: Record<string, unknown> = {
      amount,
      currency,
      confirm: true,
      description,
      payment_method: failed ? 'pm_card_chargeDeclined' : (card ?? 'pm_card_visa'),
      allowed_payment_method_types: ['card'],
    };
    if (customer) body.customer = customer;
    const pi = await this.api.call('POST', '/v1/payment_intents', body, { accept: failed ? [402] : [] });
    if (e.states.includes('refunded') && !failed) {
      await this.api.call('POST', '/v1/refunds', { payment_intent: pi.body.id, reason: 'requested_by_customer' });
    }
  }

  async product_(e: SeedEntity): Promise<void> {
    const words = this.ctx.values.builtInPool('word');
    const name = e.attributes.name ?? `${cap(this.ctx.values.pick(e.key, 'product.name', words))} ${cap(this.ctx.values.pick(e.key, 'product.kind', words))}`;
    const product = await this.api.call('POST', '/v1/products', { name });
    if (e.attributes.amount !== undefined) {
      await this.api.call('POST', '/v1/prices', {
        product: product.body.id,
        unit_amount: Number(e.attributes.amount),
        currency: e.attributes.currency ?? 'usd',
      });
    }
  }
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** How far the clock moves so a first renewal of every past-due subscription has come due and failed. */
function renewalAdvanceMs(intervals: Interval[]): number {
  const days = Math.max(...intervals.map((i) => (i === 'day' ? 1 : i === 'week' ? 7 : i === 'month' ? 31 : 366)));
  return days * 86_400_000 + 2 * 3_600_000;
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  const session = new StripeSeedSession(ctx);
  for (const e of entities) {
    if (e.resource === 'customer' || e.resource === 'subscription') await session.customer(e);
    else if (e.resource === 'charge') await session.charge(e, undefined, undefined);
    else if (e.resource === 'product') await session.product_(e);
    else throw new SeedExpansionError(`The Stripe twin cannot seed ${e.resource} records.`);
  }
  if (session.pastDue.length > 0) await ctx.api.advanceBy(renewalAdvanceMs(session.pastDue));
  for (const step of session.afterAdvance) await step();
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'form', expand };
