// Shared steps of the billing tests: a control plane whose payment processor is the house Stripe
// twin (a real child process), the hosted checkout page driven with plain form posts as a browser
// would, and the checkout → card → upgrade sequence.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../orchestration/build.js';
import { waitFor } from '../orchestration/helpers.js';
import { startTestControlPlane, type TestControlPlane } from '../helpers/control-plane.js';
import type { Config } from '../../control-plane/config.js';

export { waitFor };

export const CARD_OK = '4242 4242 4242 4242';
/** Attaches fine, declines every later charge. */
export const CARD_DECLINES_LATER = '4000 0000 0000 0341';

/** A control plane billing through the house Stripe twin; organizations start on `free`. */
export async function startBillingControlPlane(overrides: Partial<Config> = {}): Promise<TestControlPlane> {
  ensureBuilt();
  return startTestControlPlane({ paymentProcessor: 'house', defaultPlan: 'free', ...overrides });
}

/** Wait until the organization's billing account exists at the processor. */
export async function waitBillingReady(cp: TestControlPlane, token: string): Promise<any> {
  return waitFor(
    'billing account ready',
    async () => {
      const res = await cp.call('GET', '/organizations/current/billing', { token });
      return res.body?.ready === true ? res.body : undefined;
    },
    60_000,
  );
}

/**
 * Open the hosted checkout page and submit its form with a card, as a browser does: GET the page,
 * read the form's fields, POST them url-encoded. Answers the redirect target (303) or the page.
 */
export async function payOnHostedPage(
  url: string,
  card: string,
  opts: { email?: string } = {},
): Promise<{ status: number; location: string | null; html: string }> {
  const page = await fetch(url);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`checkout page answered ${page.status}: ${html}`);
  const fields = [...html.matchAll(/<input[^>]*\sname="([^"]+)"/g)].map((m) => m[1]!);
  for (const f of ['card_number', 'card_expiry', 'card_cvc']) if (!fields.includes(f)) throw new Error(`the checkout form has no ${f} field: ${html}`);
  const action = /<form[^>]*method="post"[^>]*>/i.exec(html);
  if (!action) throw new Error('the checkout page has no form');
  const form = new URLSearchParams({
    email: opts.email ?? 'ada@example.com',
    card_number: card,
    card_expiry: '12 / 34',
    card_cvc: '123',
    name: 'Ada Lovelace',
  });
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(), redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

/** checkout → card on the hosted page → the session id the upgrade takes. */
export async function checkoutWithCard(cp: TestControlPlane, token: string, card = CARD_OK): Promise<string> {
  const checkout = await cp.call('POST', '/organizations/current/billing/checkout', { token });
  if (checkout.status !== 201) throw new Error(`checkout answered ${checkout.status}: ${checkout.text}`);
  const paid = await payOnHostedPage(checkout.body.url, card);
  if (paid.status !== 303) throw new Error(`the hosted page answered ${paid.status}: ${paid.html}`);
  return checkout.body.checkout_session;
}

/** The full upgrade with a card; answers the billing summary. */
export async function upgradeWithCard(cp: TestControlPlane, token: string, card = CARD_OK): Promise<any> {
  const session = await checkoutWithCard(cp, token, card);
  const res = await cp.call('POST', '/organizations/current/billing/upgrade', { token, body: { checkout_session: session } });
  if (res.status !== 200) throw new Error(`upgrade answered ${res.status}: ${res.text}`);
  return res.body;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServedControlPlane {
  /** The URL it listens on, once it does. */
  url: Promise<string>;
  /** Everything it printed (stdout and stderr). */
  logs(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL if still running (teardown). */
  kill(): Promise<void>;
}

/**
 * `twins serve` as its own process — what `make dev` runs (`node bin/twins.js serve`) — on a
 * loopback port, logging at debug level, with `env` added to a bare environment.
 */
export function serveInChild(env: Record<string, string>): ServedControlPlane {
  ensureBuilt();
  const child = spawn(process.execPath, [`${ROOT}bin/twins.js`, 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', TWINS_WARM_POOL: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (logs += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (logs += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = Promise.race([
    waitFor('the control plane listening', async () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(logs)?.[1], 90_000),
    exited.then((code) => Promise.reject(new Error(`twins serve exited (${code}) before listening: ${logs.slice(-2000)}`))),
  ]);
  return {
    url,
    logs: () => logs,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
