// The house Stripe twin: the payment processor of a deployment with no STRIPE_SECRET_KEY. It is the
// same Stripe twin organizations get, run by the control plane for itself as a supervised child
// process (through the process driver, never in the API's event loop), invisible to organizations:
// its own state folder, no environment, no gateway. Its data file and its key live in the data
// directory (`house/stripe.sqlite`, `house/stripe.json`, mode 0600), so customers, cards and
// subscriptions survive restarts and the key the control plane holds stays valid. A crashed twin is
// started again. Its clock follows the wall clock (advanced before use and every half minute), so
// renewals and retries happen on time; tests move it further with advance().

import type Stripe from 'stripe';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ProcessDriver } from '../orchestration/drivers/process.js';
import { TwinAdminClient } from '../orchestration/twin-admin.js';
import { randomBase62 } from '../../twin-runtime/ids.js';
import { redactSecrets } from './processor.js';

export const HOUSE_TWIN_ID = 'house-stripe';

/** The events billing listens to (see webhooks in service.ts). */
export const BILLING_WEBHOOK_EVENTS = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.payment_succeeded',
];

export interface HouseStripeState {
  api_key: string;
  admin_secret: string;
  /** Where the twin listens now (rewritten at each start). */
  url?: string;
  webhook_endpoint_id?: string;
  webhook_secret?: string;
}

export interface HouseStripeOptions {
  dataDir: string;
  log: Logger;
  /** The compiled twin runtime (the process driver's default when unset). */
  runtimeEntry?: string;
}

const CLOCK_SYNC_MS = 1_000;
const CLOCK_TICK_MS = 30_000;
const RETRY_AFTER_FAILURE_MS = 2_000;
/** How long a caller waits for a twin that is still starting (the start itself goes on). */
const CLIENT_WAIT_MS = 15_000;

export class HouseStripe {
  readonly dir: string;
  readonly dataFile: string;
  readonly stateFile: string;
  private state: HouseStripeState;
  private readonly driver: ProcessDriver;
  private readonly admin = new TwinAdminClient(30_000);
  private address: string | undefined;
  private stripe: Stripe | undefined;
  private starting: Promise<string> | undefined;
  private failure: { at: number; message: string } | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private clockTimer: NodeJS.Timeout | undefined;
  private restartDelayMs = 500;
  private syncing: Promise<void> | undefined;
  private lastSync = 0;
  private closed = false;

  constructor(private readonly options: HouseStripeOptions) {
    this.dir = join(options.dataDir, 'house');
    this.dataFile = join(this.dir, 'stripe.sqlite');
    this.stateFile = join(this.dir, 'stripe.json');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.state = this.loadState();
    // Nobody waits on its first start: on a loaded machine loading the twin may take a while.
    this.driver = new ProcessDriver({ stateDir: join(this.dir, 'workloads'), runtimeEntry: options.runtimeEntry, warmPerSlug: 0, startTimeoutMs: 60_000 });
    this.driver.events.on('event', (e: { twinId: string; kind: string; message?: string }) => {
      if (e.twinId !== HOUSE_TWIN_ID || e.kind !== 'exited' || this.closed) return;
      this.options.log.warn({ message: e.message }, 'the house Stripe twin exited; starting it again');
      this.address = undefined;
      this.stripe = undefined;
      this.scheduleRestart();
    });
  }

  private loadState(): HouseStripeState {
    if (existsSync(this.stateFile)) {
      const saved = JSON.parse(readFileSync(this.stateFile, 'utf8')) as HouseStripeState;
      if (saved.api_key && saved.admin_secret) return saved;
    }
    const fresh: HouseStripeState = { api_key: `sk_test_${randomBase62(99)}`, admin_secret: randomBytes(24).toString('base64url') };
    this.state = fresh;
    this.saveState();
    return fresh;
  }

  private saveState(): void {
    const tmp = `${this.stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state, null, 2), { mode: 0o600 });
    renameSync(tmp, this.stateFile);
  }

  /** Begin starting the twin (and keep its clock moving); callers wait in client(). */
  start(): void {
    if (this.closed) return;
    void this.ensureStarted().catch((err: Error) => this.options.log.warn({ err: redactSecrets(err.message) }, 'the house Stripe twin did not start'));
    if (!this.clockTimer) {
      this.clockTimer = setInterval(() => {
        if (this.address) void this.syncClock(true).catch(() => {});
      }, CLOCK_TICK_MS);
      this.clockTimer.unref();
    }
  }

  private scheduleRestart(): void {
    if (this.closed || this.restartTimer) return;
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(30_000, this.restartDelayMs * 2);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.ensureStarted().catch(() => this.scheduleRestart());
    }, delay);
    this.restartTimer.unref();
  }

  private ensureStarted(): Promise<string> {
    if (this.closed) return Promise.reject(new Error('The house Stripe twin is shut down.'));
    if (this.address) return Promise.resolve(this.address);
    if (this.starting) return this.starting;
    // A start that just failed is not retried by every caller at once.
    if (this.failure && Date.now() - this.failure.at < RETRY_AFTER_FAILURE_MS) return Promise.reject(new Error(this.failure.message));
    this.starting = this.driver
      .start({
        twinId: HOUSE_TWIN_ID,
        environmentId: 'house',
        orgId: 'house',
        slug: 'stripe',
        dataFile: this.dataFile,
        clockStart: new Date(),
        adminSecret: this.state.admin_secret,
        apiKey: this.state.api_key,
        publicUrl: '',
        labels: { 'twins.house': 'stripe' },
      })
      .then(async ({ address }) => {
        const url = new URL(address);
        // The SDK loads when billing first needs it, not with every control plane.
        const { default: Stripe } = await import('stripe');
        this.stripe = new Stripe(this.state.api_key, {
          host: url.hostname,
          port: Number(url.port),
          protocol: 'http',
          maxNetworkRetries: 1,
          timeout: 30_000,
          telemetry: false,
        });
        this.address = address;
        this.failure = undefined;
        this.restartDelayMs = 500;
        this.lastSync = 0;
        this.state.url = address;
        this.saveState();
        this.options.log.info({ url: address }, 'house Stripe twin listening');
        return address;
      })
      .catch((err: Error) => {
        this.failure = { at: Date.now(), message: err.message };
        throw err;
      })
      .finally(() => {
        this.starting = undefined;
      });
    return this.starting;
  }

  /** The SDK pointed at the running twin, its clock caught up with the wall clock. */
  async client(): Promise<Stripe> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.ensureStarted(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('The house Stripe twin is still starting.')), CLIENT_WAIT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    await this.syncClock(false);
    if (!this.stripe) throw new Error('The house Stripe twin stopped.');
    return this.stripe;
  }

  /** Move the twin's clock to now (it never goes back): renewals and retries due by now run. */
  private syncClock(force: boolean): Promise<void> {
    if (!force && Date.now() - this.lastSync < CLOCK_SYNC_MS) return Promise.resolve();
    if (this.syncing) return this.syncing;
    const address = this.address;
    if (!address) return Promise.resolve();
    this.syncing = this.admin
      .call(address, this.state.admin_secret, 'POST', '/_twin/advance', {})
      .then((res) => {
        if (res.status === 200) this.lastSync = Date.now();
      })
      .catch((err: Error) => this.options.log.debug({ err: err.message }, 'house Stripe clock sync failed'))
      .finally(() => {
        this.syncing = undefined;
      });
    return this.syncing;
  }

  /**
   * Move the twin's clock to `to`, running every renewal, charge and retry due on the way: the
   * advance is followed to its end (on a loaded machine it outlasts the runtime's first wait and
   * answers 202 with a job).
   */
  async advance(to: Date): Promise<void> {
    const address = await this.ensureStarted();
    const outcome = await this.admin.advanceAndWait(address, this.state.admin_secret, to);
    if (!outcome.ok) throw new Error(`house Stripe advance to ${to.toISOString()} failed (${outcome.status}): ${outcome.detail}`);
  }

  /** The twin's stored records of one kind (tests compare meter events with twin-hours). */
  async records<T = Record<string, unknown>>(resource: string): Promise<{ external_id: string; body: T }[]> {
    const address = await this.ensureStarted();
    const rows = await this.admin.expect<{ external_id: string; body: T }[]>(
      200,
      address,
      this.state.admin_secret,
      'GET',
      `/_twin/records/${encodeURIComponent(resource)}`,
    );
    return rows;
  }

  /** The signing secret of the endpoint the twin delivers billing events to. */
  webhookSecret(): string | undefined {
    return this.state.webhook_secret;
  }

  /** Point the twin's webhook endpoint at the control plane (created once, its URL kept current). */
  async ensureWebhookEndpoint(url: string): Promise<void> {
    const stripe = await this.client();
    if (this.state.webhook_endpoint_id && this.state.webhook_secret) {
      const existing = await stripe.webhookEndpoints.retrieve(this.state.webhook_endpoint_id).catch(() => undefined);
      if (existing) {
        if (existing.url !== url || existing.status !== 'enabled') {
          await stripe.webhookEndpoints.update(existing.id, {
            url,
            disabled: false,
            enabled_events: BILLING_WEBHOOK_EVENTS as Stripe.WebhookEndpointUpdateParams.EnabledEvent[],
          });
        }
        return;
      }
    }
    const created = await stripe.webhookEndpoints.create({
      url,
      enabled_events: BILLING_WEBHOOK_EVENTS as Stripe.WebhookEndpointCreateParams.EnabledEvent[],
      description: 'Twins control plane billing',
    });
    this.state.webhook_endpoint_id = created.id;
    this.state.webhook_secret = created.secret;
    this.saveState();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.clockTimer) clearInterval(this.clockTimer);
    await this.starting?.catch(() => {});
    await this.driver.close();
  }
}
