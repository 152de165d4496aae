// Routes of the 'billing' area: the summary (plan, limits, usage, draft invoice), a checkout at the
// payment processor, the upgrade to pay as you go, the processor's webhooks, and the page the
// hosted checkout returns to. The work is done by the billing service (billing/service.ts).

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole, requireSession } from '../auth/authenticate.js';
import { notFound } from '../http/errors.js';
import { errorBody, errorResponses } from '../http/responses.js';
import { billingSummarySchema } from '../billing/summary.js';
import { CHECKOUT_RETURN_PATH, WEBHOOK_PATH } from '../billing/service.js';

/**
 * A checkout session id as the processor mints them (`cs_test_…`, `cs_live_…`): anything else is
 * refused here (422) rather than sent on, where a lone surrogate failed inside the SDK and answered
 * 502 "processor could not be reached".
 */
const CHECKOUT_SESSION_ID = /^cs_[A-Za-z0-9_]+$/;

const upgradeBody = z
  .object({
    checkout_session: z.string().min(1).max(255).regex(CHECKOUT_SESSION_ID).describe('the id of a completed checkout session (`cs_…`) of this organization'),
  })
  .strict()
  .meta({ id: 'BillingUpgrade' });
const checkoutSession = z
  .object({
    checkout_session: z.string().describe('the checkout session id to send to the upgrade once the card is entered'),
    url: z.string().describe("the payment processor's hosted page where the card is entered"),
  })
  .meta({ id: 'CheckoutSession' });

const MAX_WEBHOOK_BYTES = 1024 * 1024;

const routes: FastifyPluginAsyncZod = async (app) => {
  const { identity } = app.services;
  const billing = () => app.services.billing;
  const organizationOf = (orgId: string) => {
    const org = identity.organization(orgId);
    if (!org) throw notFound('Not Found');
    return org;
  };

  app.get(
    '/organizations/current/billing',
    {
      schema: {
        tags: ['billing'],
        operationId: 'getBillingSummary',
        summary: 'Billing summary of the active organization',
        description:
          "Plan, limits and running twins; with a payment processor also the account, the remaining credit and the current period's draft invoice (null while the processor cannot be reached).",
        response: { 200: billingSummarySchema, ...errorResponses(401) },
      },
    },
    async (req) => billing().summary(organizationOf(req.principal.orgId)),
  );

  app.post(
    '/organizations/current/billing/checkout',
    {
      onRequest: [requireSession, requireRole('admin')],
      schema: {
        tags: ['billing'],
        operationId: 'createBillingCheckout',
        summary: 'Start a checkout for pay as you go',
        description:
          'Creates a checkout session at the payment processor that collects a card. Open `url`, enter the card, then send `checkout_session` to the upgrade. Needs the admin role and an identity-provider session (an API key answers 403). 409 when this deployment has no payment processor, 502 when it cannot be reached.',
        response: { 201: checkoutSession, ...errorResponses(401, 403, 409, 502) },
      },
    },
    async (req, reply) => reply.status(201).send(await billing().checkout(organizationOf(req.principal.orgId))),
  );

  app.post(
    '/organizations/current/billing/upgrade',
    {
      onRequest: [requireSession, requireRole('admin')],
      schema: {
        tags: ['billing'],
        operationId: 'upgradeBilling',
        summary: 'Upgrade to pay as you go',
        description:
          'Finishes a completed checkout: its card becomes the default, the organization moves to pay as you go, the limits lift at once and charges start from the next hour. Repeating it is harmless; after a failed payment it pays what is open with the new card. Needs the admin role and an identity-provider session (an API key answers 403). 409 when the session is not complete or belongs to another organization, 502 when the payment processor cannot be reached.',
        body: upgradeBody,
        response: { 200: billingSummarySchema, ...errorResponses(401, 403, 409, 502) },
      },
    },
    async (req) => billing().upgrade(organizationOf(req.principal.orgId), req.body.checkout_session),
  );

  // The page the hosted checkout sends the admin back to (no credential: a browser lands here).
  app.get(
    CHECKOUT_RETURN_PATH,
    {
      config: { public: true },
      schema: {
        tags: ['billing'],
        operationId: 'billingCheckoutReturn',
        summary: 'Where the hosted checkout returns to',
        description:
          'An HTML page for the browser the hosted checkout sends back: how to finish the upgrade with the saved card, or that the checkout was canceled.',
        security: [],
        querystring: z.object({ checkout_session: z.string().max(255).optional(), canceled: z.string().max(10).optional() }),
        response: { 200: z.string() },
      },
    },
    async (req, reply) => {
      const id = req.query.checkout_session;
      const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      const body = id
        ? `<p>Your card is saved. Finish the upgrade with <code>POST /organizations/current/billing/upgrade</code> and <code>{"checkout_session": "${esc(id)}"}</code>.</p>`
        : '<p>The checkout was canceled; nothing changed.</p>';
      return reply.type('text/html; charset=utf-8').send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Twins billing</title>${body}</html>`);
    },
  );

  // The processor's events, verified with the endpoint's signing secret against the exact bytes.
  await app.register(async (hooks) => {
    hooks.removeContentTypeParser(['application/json']);
    hooks.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BYTES }, (_req, body, done) => done(null, body));
    hooks.post(
      WEBHOOK_PATH,
      {
        config: { public: true },
        bodyLimit: MAX_WEBHOOK_BYTES,
        schema: {
          tags: ['billing'],
          operationId: 'receiveBillingWebhook',
          summary: "The payment processor's events (Stripe webhooks)",
          description:
            "Verified with the Stripe-Signature header and the signing secret (STRIPE_WEBHOOK_SECRET, or the house twin's own). A failed renewal marks the organization past due; a recovered payment clears it.",
          security: [],
          response: { 200: z.object({ received: z.literal(true) }), 400: errorBody, 404: errorBody, 502: errorBody },
        },
      },
      async (req) => {
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : '');
        const signature = req.headers['stripe-signature'];
        return billing().handleWebhook(raw, Array.isArray(signature) ? signature[0] : signature);
      },
    );
  });
};

export default routes;
