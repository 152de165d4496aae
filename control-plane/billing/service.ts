// Billing as one component: the payment processor (the house Stripe twin, or Stripe), a customer
// per organization, checkout and upgrade, usage metering, the billing summary's processor side,
// and the processor's webhooks. Built with the services, started once the API listens (the
// house twin's webhooks need the control plane's URL), closed after orchestration.

import type Stripe from 'stripe';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../store/database.js';
import { BillingStore, type BillingAccountRow, type MeterBatchRow } from '../store/billing.js';
import { badGateway, conflict, HttpError } from '../http/errors.js';
import { catalog } from '../orchestration/catalog.js';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { HouseStripe } from './house-stripe.js';
import { StripeProcessor } from './stripe-processor.js';
import {
  ProcessorRejected,
  ProcessorUnavailable,
  WebhookRejected,
  redactSecrets,
  type DraftInvoice,
  type PaymentProcessor,
  type SubscriptionState,
} from './processor.js';
import { meterEventName, quantityName, type BillableQuantity, type UsageKind } from './prices.js';
import { batchesOf, unreportedUsage } from './usage.js';
import { standingOf } from './standing.js';
import { writeUnlessFull, type StorageHealth } from '../store/storage-health.js';
import { billingSummary, NO_PAYMENT_PROCESSOR, NO_PROCESSOR_SIDE, type BillingSummary, type ProcessorSide } from './summary.js';

/** Where the processor posts its events (public; verified by signature). */
export const WEBHOOK_PATH = '/billing/webhooks/stripe';
/** Where the hosted checkout sends the admin back to. */
export const CHECKOUT_RETURN_PATH = '/billing/checkout/return';

const HEARTBEAT_MS = 15_000;
/** Meter events in flight at once. */
const REPORT_CONCURRENCY = 8;
const SUMMARY_TIMEOUT_MS = 5_000;
const UNREACHABLE = 'The payment processor could not be reached; nothing was changed. Try again in a moment.';

export interface BillingServiceOptions {
  db: Db;
  config: Config;
  log: Logger;
  /** Where a write that failed for lack of space is noted (a full disk must not end the process). */
  storage?: StorageHealth;
}

/** Milliseconds since the epoch: when usage is counted up to, and when an upgrade happens. */
export type BillingClock = () => number;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new ProcessorUnavailable(`The payment processor did not answer within ${ms} ms.`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Build the processor the configuration names (undefined for `none`). */
function configuredProcessor(config: Config, log: Logger): { processor?: PaymentProcessor; house?: HouseStripe } {
  if (config.paymentProcessor === 'none') return {};
  if (config.paymentProcessor === 'house') {
    const house = new HouseStripe({ dataDir: config.dataDir, log: log.child({ component: 'house-stripe' }) });
    return { house, processor: new StripeProcessor({ name: 'house', client: () => house.client(), webhookSecret: () => house.webhookSecret() }) };
  }
  if (!config.stripeSecretKey) throw new Error('TWINS_PAYMENT_PROCESSOR=stripe needs STRIPE_SECRET_KEY.');
  const secretKey = config.stripeSecretKey;
  const base = config.stripeApiBase ? new URL(config.stripeApiBase) : undefined;
  // The SDK loads when billing first calls Stripe, not with every control plane.
  const connect = async (): Promise<Stripe> => {
    const { default: Stripe } = await import('stripe');
    return new Stripe(secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      ...(base
        ? {
            host: base.hostname,
            port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)),
            protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
          }
        : {}),
    });
  };
  let stripe: Promise<Stripe> | undefined;
  return { processor: new StripeProcessor({ name: 'stripe', client: () => (stripe ??= connect()), webhookSecret: () => config.stripeWebhookSecret }) };
}

export class BillingService {
  readonly store: BillingStore;
  readonly processor: PaymentProcessor | undefined;
  /** The house Stripe twin, when it is the processor. */
  readonly house: HouseStripe | undefined;
  private readonly db: Db;
  private readonly config: Config;
  private readonly log: Logger;
  private publicUrl: string | undefined;
  /** Catalog twins by slug → display name (slugs until start() reads the names). */
  private readonly twinNames = new Map<string, string>(TWIN_SLUGS.map((slug) => [slug, slug]));
  private meterTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private readonly storage: StorageHealth | undefined;
  private metering: Promise<void> | undefined;
  private customerSync: Promise<void> | undefined;
  private customerSyncAgain = false;
  private webhookReady: Promise<void> | undefined;
  private readonly upgrades = new Map<string, Promise<unknown>>();
  private closed = false;
  /** The wall clock; tests move it forward to let hours of usage pass (runs keep their own times). */
  now: BillingClock = Date.now;

  constructor(options: BillingServiceOptions) {
    this.db = options.db;
    this.config = options.config;
    this.log = options.log;
    this.storage = options.storage;
    this.store = new BillingStore(options.db);
    const built = configuredProcessor(options.config, options.log);
    this.processor = built.processor;
    this.house = built.house;
    // Runs a crashed control plane left open end at its last heartbeat (its twins died with it).
    writeUnlessFull(this.storage, this.log, 'billing: closing runs', () => this.store.closeOpenRuns(this.store.lastHeartbeat() ?? new Date().toISOString()));
    this.writeHeartbeat(new Date().toISOString());
  }

  /** Start the house twin, metering and the heartbeat; `publicUrl` is where this API listens. */
  async start(publicUrl: string): Promise<void> {
    // Listening on every interface: the house twin and a local browser reach it on loopback.
    this.publicUrl = publicUrl.replace(/\/$/, '').replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//127.0.0.1:').replace('//:::', '//127.0.0.1:');
    for (const t of await catalog()) this.twinNames.set(t.slug, t.name);
    // A timer's throw would end the process: a full disk skips a beat (the next one writes again).
    this.heartbeatTimer = setInterval(() => this.writeHeartbeat(new Date().toISOString()), HEARTBEAT_MS);
    this.heartbeatTimer.unref();
    if (!this.processor) return;
    this.house?.start();
    void this.ensureWebhookEndpoint().catch(() => {});
    void this.syncCustomers();
    this.meterTimer = setInterval(() => void this.meterOnce(), this.config.usageIntervalSeconds * 1000);
    this.meterTimer.unref();
  }

  /** The house twin delivers to this control plane (Stripe proper is pointed at it by its operator). */
  private ensureWebhookEndpoint(): Promise<void> {
    if (!this.house || !this.publicUrl) return Promise.resolve();
    this.webhookReady ??= this.house.ensureWebhookEndpoint(this.publicUrl + WEBHOOK_PATH).catch((err: Error) => {
      this.webhookReady = undefined;
      this.log.warn({ err: redactSecrets(err.message) }, 'could not point the house Stripe twin at the billing webhook');
      throw err;
    });
    return this.webhookReady;
  }

  private twinName(slug: string): string {
    return this.twinNames.get(slug) ?? slug;
  }

  private quantityDisplayName(q: BillableQuantity): string {
    return quantityName(q, this.twinName(q.twin));
  }

  /** A new organization gets its customer at once (or as soon as the processor answers). */
  organizationCreated(): void {
    void this.syncCustomers();
  }

  /** Create the customers organizations are missing, one at a time. */
  syncCustomers(): Promise<void> {
    if (!this.processor || this.closed) return Promise.resolve();
    if (this.customerSync) {
      this.customerSyncAgain = true;
      return this.customerSync;
    }
    this.customerSync = (async () => {
      do {
        this.customerSyncAgain = false;
        for (const org of this.store.organizationsWithoutCustomer(this.processor!.name, 100)) {
          if (this.closed) return;
          await this.customerOf(org);
        }
      } while (this.customerSyncAgain && !this.closed);
    })()
      .catch((err: Error) => this.log.warn({ err: redactSecrets(err.message) }, 'billing customers not created yet'))
      .finally(() => {
        this.customerSync = undefined;
      });
    return this.customerSync;
  }

  /** The organization's customer at the processor, created when missing (ProcessorUnavailable when it cannot be). */
  private async customerOf(org: { id: string; name: string }): Promise<string> {
    const processor = this.processor!;
    const account = this.store.account(org.id);
    if (account?.customer_id && account.processor === processor.name) return account.customer_id;
    const customerId = await processor.ensureCustomer(org);
    // An account moved to another processor starts over there.
    const fresh = !account || account.processor !== processor.name;
    this.store.saveAccount(org.id, processor.name, {
      customer_id: customerId,
      ...(fresh ? { subscription_id: null, subscription_status: null, billing_since: null, payment_state: 'ok' as const, notice: null } : {}),
    });
    return customerId;
  }

  private accountOf(orgId: string): BillingAccountRow | undefined {
    const account = this.store.account(orgId);
    return account && this.processor && account.processor === this.processor.name ? account : undefined;
  }

  // Summary --------------------------------------------------------------------------------

  async summary(org: { id: string; plan: string }): Promise<BillingSummary> {
    return billingSummary(this.db, org, await this.processorSide(org.id));
  }

  private async processorSide(orgId: string): Promise<ProcessorSide> {
    if (!this.processor) return NO_PROCESSOR_SIDE;
    const account = this.accountOf(orgId);
    const standing = { past_due: account ? account.payment_state !== 'ok' : false, notice: account?.notice ?? null };
    if (!account?.customer_id) {
      void this.syncCustomers();
      return { ...NO_PROCESSOR_SIDE, upgrade_available: true, ...standing };
    }
    const live = account.subscription_id && account.subscription_status !== 'canceled' && account.subscription_status !== 'incomplete_expired';
    try {
      const [credit, draft] = await withTimeout(
        Promise.all([
          this.processor.creditCents(account.customer_id),
          live ? this.processor.draftInvoice(account.customer_id, account.subscription_id!) : Promise.resolve(null),
        ]),
        SUMMARY_TIMEOUT_MS,
      );
      const applied = draft ? Math.min(credit, Math.max(0, draft.totalCents)) : 0;
      return {
        ready: true,
        upgrade_available: true,
        remaining_credit_cents: credit - applied,
        invoice: draft ? invoiceView(draft, applied) : null,
        ...standing,
      };
    } catch (err) {
      if (!(err instanceof ProcessorUnavailable || err instanceof ProcessorRejected)) throw err;
      this.log.warn({ err: redactSecrets(err.message) }, 'billing summary without the processor side');
      return { ready: true, upgrade_available: true, remaining_credit_cents: null, invoice: null, ...standing };
    }
  }

  // Checkout and upgrade ---------------------------------------------------------------------

  private requireProcessor(): PaymentProcessor {
    if (!this.processor) throw conflict(NO_PAYMENT_PROCESSOR);
    return this.processor;
  }

  private returnUrl(query: string): string {
    return `${this.publicUrl ?? `http://${this.config.host}:${this.config.port}`}${CHECKOUT_RETURN_PATH}?${query}`;
  }

  async checkout(org: { id: string; name: string }): Promise<{ checkout_session: string; url: string }> {
    const processor = this.requireProcessor();
    return this.asHttp(async () => {
      const customerId = await this.customerOf(org);
      const session = await processor.createCheckout({
        customerId,
        organizationId: org.id,
        successUrl: this.returnUrl('checkout_session={CHECKOUT_SESSION_ID}'),
        cancelUrl: this.returnUrl('canceled=true'),
      });
      return { checkout_session: session.id, url: session.url };
    });
  }

  /** Finish a completed checkout: its card becomes the default, the plan pay as you go. Idempotent. */
  async upgrade(org: { id: string; name: string }, sessionId: string): Promise<BillingSummary> {
    const processor = this.requireProcessor();
    // One upgrade per organization at a time (two would race to create subscriptions).
    const previous = this.upgrades.get(org.id) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => this.asHttp(() => this.upgradeNow(processor, org, sessionId)));
    this.upgrades.set(org.id, run);
    try {
      await run;
    } finally {
      if (this.upgrades.get(org.id) === run) this.upgrades.delete(org.id);
    }
    const fresh = this.db.prepare('SELECT id, plan FROM organizations WHERE id = ?').get(org.id) as { id: string; plan: string };
    return this.summary(fresh);
  }

  private async upgradeNow(processor: PaymentProcessor, org: { id: string; name: string }, sessionId: string): Promise<void> {
    const customerId = await this.customerOf(org);
    const outcome = await processor.checkoutOutcome(sessionId);
    if (!outcome || outcome.customerId !== customerId) {
      throw conflict(`Checkout session ${sessionId} does not belong to this organization; start one with POST /organizations/current/billing/checkout.`);
    }
    if (outcome.status !== 'complete') {
      throw conflict(
        outcome.status === 'expired'
          ? `Checkout session ${sessionId} has expired before a card was entered; start a new checkout.`
          : `Checkout session ${sessionId} is not complete yet: enter a card on its page first, then upgrade.`,
      );
    }
    if (!outcome.paymentMethodId) throw conflict(`Checkout session ${sessionId} collected no card; start a new checkout.`);
    await processor.setDefaultPaymentMethod(customerId, outcome.paymentMethodId);

    const account = this.accountOf(org.id)!;
    let sub = account.subscription_id ? await processor.subscription(account.subscription_id) : undefined;
    let billingSince = account.billing_since;
    if (!sub || standingOf(sub).ended) {
      const priceIds = await Promise.all(
        [...this.twinNames.keys()].map((twin) => processor.priceFor({ kind: 'twin_hours', twin }, this.quantityDisplayName({ kind: 'twin_hours', twin }))),
      );
      sub = await processor.createSubscription({ customerId, organizationId: org.id, priceIds, idempotencyKey: `twins-subscription-${org.id}-${sessionId}` });
      // Charges start now: nothing used before the upgrade is ever billed.
      billingSince = new Date(this.now()).toISOString();
    } else if (sub.status === 'past_due' || sub.status === 'unpaid' || sub.failure) {
      // A new card: pay what the old one could not.
      await processor.payOpenInvoices(customerId, outcome.paymentMethodId);
      sub = (await processor.subscription(sub.id)) ?? sub;
    }
    this.applyStanding(org.id, sub, { billing_since: billingSince ?? new Date(this.now()).toISOString() });
    this.store.setPlan(org.id, 'paygo');
    this.log.info({ organizationId: org.id, subscription: sub.id }, 'organization upgraded to pay as you go');
  }

  /** Record the subscription's state; an ended subscription returns the organization to the default plan. */
  private applyStanding(orgId: string, sub: SubscriptionState | undefined, extra: { billing_since?: string } = {}): void {
    const standing = standingOf(sub);
    const account = this.store.account(orgId);
    if (standing.ended && account?.subscription_status && ['canceled', 'incomplete_expired', 'missing'].includes(account.subscription_status)) return;
    this.store.saveAccount(orgId, this.processor!.name, {
      ...(sub ? { subscription_id: sub.id } : {}),
      subscription_status: sub?.status ?? 'missing',
      payment_state: standing.state,
      notice: standing.notice,
      ...extra,
    });
    if (standing.ended) {
      this.store.setPlan(orgId, this.config.defaultPlan);
      this.log.warn({ organizationId: orgId, status: sub?.status ?? 'missing' }, 'subscription ended; organization back on the default plan');
    }
  }

  /** Fetch the subscription again and apply what it says. */
  private async refreshStanding(account: BillingAccountRow): Promise<SubscriptionState | undefined> {
    const sub = await this.processor!.subscription(account.subscription_id!);
    this.applyStanding(account.organization_id, sub);
    return sub;
  }

  /** Processor failures as the API answers them: unreachable → 502, refused → 409. */
  private async asHttp<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof HttpError) throw err;
      if (err instanceof ProcessorUnavailable) {
        this.log.warn({ err: redactSecrets(err.message) }, 'payment processor unavailable');
        throw badGateway(UNREACHABLE);
      }
      if (err instanceof ProcessorRejected) throw conflict(`The payment processor refused the request: ${redactSecrets(err.message)}`);
      throw err;
    }
  }

  // Webhooks ---------------------------------------------------------------------------------

  /** A processor event: verified, then the subscription it concerns is read again and applied. */
  async handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ received: true }> {
    const processor = this.processor;
    if (!processor) throw new HttpError(404, 'Not Found');
    let event;
    try {
      event = await processor.verifyWebhook(rawBody, signature);
    } catch (err) {
      if (err instanceof WebhookRejected) throw new HttpError(400, err.message);
      throw err;
    }
    const account =
      (event.subscriptionId ? this.store.accountBySubscription(event.subscriptionId) : undefined) ??
      (event.customerId ? this.store.accountByCustomer(event.customerId) : undefined);
    if (!account?.subscription_id || account.processor !== processor.name) return { received: true };
    await this.asHttp(() => this.refreshStanding(account));
    this.log.info({ event: event.type, organizationId: account.organization_id }, 'billing event applied');
    return { received: true };
  }

  // Metering ---------------------------------------------------------------------------------

  /** One metering pass (every TWINS_USAGE_INTERVAL_S); concurrent callers share it. */
  meterOnce(): Promise<void> {
    if (!this.processor || this.closed) return Promise.resolve();
    this.metering ??= this.meter()
      .catch((err: Error) => this.log.warn({ err: redactSecrets(err.message) }, 'usage not reported this time; next pass retries'))
      .finally(() => {
        this.metering = undefined;
      });
    return this.metering;
  }

  private async meter(): Promise<void> {
    const processor = this.processor!;
    await this.syncCustomers();
    await this.ensureWebhookEndpoint().catch(() => {});
    for (const account of this.store.subscribedAccounts()) {
      if (this.closed) return;
      if (account.processor !== processor.name || !account.customer_id) continue;
      const sub = await this.refreshStanding(account);
      if (!sub || standingOf(sub).ended || !account.billing_since) continue;
      // Meter events written down by an earlier pass whose answer never came: sent again as they were.
      const batches = this.store.pendingBatches(account.organization_id);
      const units = unreportedUsage(this.store, account.organization_id, new Date(account.billing_since), new Date(this.now()));
      for (const batch of batchesOf(account.organization_id, units, sub.periodStart)) {
        this.store.stageBatch(batch.row, batch.units);
        batches.push({ ...batch.row, state: 'pending', detail: null, reported_at: null });
      }
      if (batches.length === 0) continue;
      // Every quantity used gets its price and subscription item first, one at a time.
      const items = new Set(sub.priceIds);
      for (const key of new Set(batches.map((b) => `${b.kind}:${b.twin_slug}`))) {
        const [kind, twin] = key.split(':') as [UsageKind, string];
        const priceId = await processor.priceFor({ kind, twin }, this.quantityDisplayName({ kind, twin }));
        if (!items.has(priceId)) {
          await processor.addSubscriptionItem(sub.id, priceId);
          items.add(priceId);
        }
      }
      const queue = new PQueue({ concurrency: REPORT_CONCURRENCY });
      const results = await Promise.allSettled(
        batches.map((batch) =>
          queue.add(async () => {
            if (!this.closed) await this.send(account, batch);
          }),
        ),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  /** Send one written-down meter event and record what the processor said. */
  private async send(account: BillingAccountRow, batch: MeterBatchRow): Promise<void> {
    const outcome = await this.processor!.reportUsage({
      identifier: batch.identifier,
      eventName: meterEventName({ kind: batch.kind as UsageKind, twin: batch.twin_slug }),
      customerId: account.customer_id!,
      value: batch.value,
      timestamp: batch.timestamp,
    });
    const at = new Date(this.now()).toISOString();
    if (outcome === 'reported') {
      this.store.finishBatch(batch.identifier, 'reported', null, at);
    } else {
      this.store.finishBatch(batch.identifier, 'rejected', outcome.rejected, at);
      this.log.warn({ identifier: batch.identifier, reason: outcome.rejected }, 'usage refused by the payment processor');
    }
  }

  private writeHeartbeat(at: string): void {
    writeUnlessFull(this.storage, this.log, 'billing heartbeat', () => this.store.heartbeat(at));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.meterTimer) clearInterval(this.meterTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    await this.metering;
    await this.customerSync;
    // Twins stop with the control plane: their runs end now.
    const now = new Date().toISOString();
    writeUnlessFull(this.storage, this.log, 'billing: closing runs', () => this.store.closeOpenRuns(now));
    this.writeHeartbeat(now);
    await this.house?.close();
  }
}

/** The processor's draft invoice as the summary shows it (lines with no usage left out). */
function invoiceView(draft: DraftInvoice, creditsApplied: number): NonNullable<BillingSummary['invoice']> {
  return {
    period_start: new Date(draft.periodStart * 1000).toISOString(),
    period_end: new Date(draft.periodEnd * 1000).toISOString(),
    total_cents: draft.totalCents,
    credits_applied_cents: creditsApplied,
    line_items: draft.lines
      .filter((l) => l.quantity !== 0 || l.amountCents !== 0)
      .map((l) => ({ name: l.description, total_cents: l.amountCents, twin: l.twin, quantity: l.quantity, unit_price_cents: l.unitPriceCents })),
  };
}
