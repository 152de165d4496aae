// A loopback receiver for the twin's signed webhooks: one endpoint for every event, each delivery
// verified with the official `stripe.webhooks.constructEvent` before it is kept.

import Stripe from 'stripe';
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

export async function startWebhookReceiver(stripe: Stripe): Promise<WebhookReceiver> {
  const events: Stripe.Event[] = [];
  const rejected: string[] = [];
  let secret = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        events.push(stripe.webhooks.constructEvent(body, String(req.headers['stripe-signature']), secret));
      } catch (e) {
        rejected.push((e as Error).message);
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const endpoint = await stripe.webhookEndpoints.create({ url, enabled_events: ['*'] });
  secret = endpoint.secret!;
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
