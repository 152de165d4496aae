// Routes of the 'billing' area: the plan, its limits and usage. No payment processor is wired in
// this deployment, so checkout and upgrade answer 409 with the reason.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole, requireSession } from '../auth/authenticate.js';
import { conflict, notFound } from '../http/errors.js';
import { errorResponses } from '../http/responses.js';
import { billingSummary, billingSummarySchema, NO_PAYMENT_PROCESSOR } from '../billing/summary.js';

const upgradeBody = z.object({ checkout_session: z.string().min(1) }).strict().meta({ id: 'BillingUpgrade' });
const checkoutSession = z.object({ checkout_session: z.string(), url: z.string() }).meta({ id: 'CheckoutSession' });

const routes: FastifyPluginAsyncZod = async (app) => {
  const { db, identity } = app.services;

  app.get(
    '/organizations/current/billing',
    { schema: { tags: ['billing'], operationId: 'getBillingSummary', summary: 'Billing summary of the active organization', description: "The organization's plan, its limits, and what the current period has cost so far.", response: { 200: billingSummarySchema, ...errorResponses(401) } } },
    async (req) => {
      const org = identity.organization(req.principal.orgId);
      if (!org) throw notFound('Not Found');
      return billingSummary(db, org);
    },
  );

  app.post(
    '/organizations/current/billing/checkout',
    {
      onRequest: [requireSession, requireRole('admin')],
      schema: {
        tags: ['billing'],
        operationId: 'createCheckoutSession',
        summary: 'Start a checkout for pay as you go',
        description: "Needs the admin role and an identity-provider session. Answers 201 with the payment processor's checkout session and the URL to pay at; 409 when no payment processor is configured.",
        response: { 201: checkoutSession, ...errorResponses(401, 403, 409, 502) },
      },
    },
    async () => {
      throw conflict(NO_PAYMENT_PROCESSOR);
    },
  );

  app.post(
    '/organizations/current/billing/upgrade',
    {
      onRequest: [requireSession, requireRole('admin')],
      schema: {
        tags: ['billing'],
        operationId: 'upgradePlan',
        summary: 'Upgrade to pay as you go',
        description: 'Finishes a completed checkout and moves the organization to pay as you go. Needs the admin role and an identity-provider session.',
        body: upgradeBody,
        response: { 200: billingSummarySchema, ...errorResponses(401, 403, 409, 502) },
      },
    },
    async () => {
      throw conflict(NO_PAYMENT_PROCESSOR);
    },
  );
};

export default routes;
