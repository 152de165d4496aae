// A loopback receiver for the twin's signed webhooks: one endpoint for every event, each delivery
// verified with the official `stripe.webhooks.constructEvent` before it is kept.

import type Stripe from 'stripe';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  /** Verified events, in arrival order. */
  events: Stripe.Event[];
  /** Deliveries whose signature did not verify (should stay empty). */
  rejected: string[];
  /** The first verified event of `type` whose object passes `match`, waiting for it to arrive. */
  waitFor(type: string, match?: (object: any) => boolean, ms?: number): Promise<Stripe.Event>;
  close(): Promise<void>;
}

/**
 * `connect`: also listen for connected accounts' events (a second, Connect endpoint at the same URL);
 * `apiVersion`: the endpoint's `api_version` (its events are rendered in that version).
 */
export async function startWebhookReceiver(stripe: Stripe, opts: { connect?: boolean; apiVersion?: string } = {}): Promise<WebhookReceiver> {
  const events: Stripe.Event[] = [];
  const rejected: string[] = [];
  const secrets: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const errors: string[] = [];
      for (const secret of secrets) {
        try {
          events.push(stripe.webhooks.constructEvent(body, String(req.headers['stripe-signature']), secret));
          errors.length = 0;
          break;
        } catch (e) {
          errors.push((e as Error).message);
        }
      }
      rejected.push(...errors.slice(0, 1));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const endpoint = await stripe.webhookEndpoints.create({
    url,
    enabled_events: ['*'],
    ...(opts.apiVersion ? { api_version: opts.apiVersion as Stripe.WebhookEndpointCreateParams.ApiVersion } : {}),
  });
  secrets.push(endpoint.secret!);
  if (opts.connect) secrets.push((await stripe.webhookEndpoints.create({ url, enabled_events: ['*'], connect: true })).secret!);
  return {
    events,
    rejected,
    async waitFor(type, match = () => true, ms = 5000) {
      const until = Date.now() + ms;
      for (;;) {
        const found = events.find((e) => e.type === type && match(e.data.object));
        if (found) return found;
        if (Date.now() > until) throw new Error(`no verified ${type} webhook arrived`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
