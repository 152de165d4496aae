// The billing routes as the OpenAPI document describes them: operation ids, every status with the
// `{detail}` body, the summary's fields; the configuration of the payment processor.

import t from 'tap';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { loadConfig } from '../../control-plane/config.js';

t.test('openapi: billing operations, statuses and the summary schema', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const spec = (await cp.call('GET', '/openapi.json')).body;
  const ops: [string, string, string, string[]][] = [
    ['/organizations/current/billing', 'get', 'getBillingSummary', ['200', '401']],
    ['/organizations/current/billing/checkout', 'post', 'createBillingCheckout', ['201', '401', '403', '409', '502']],
    ['/organizations/current/billing/upgrade', 'post', 'upgradeBilling', ['200', '401', '403', '409', '422', '502']],
    ['/billing/webhooks/stripe', 'post', 'receiveBillingWebhook', ['200', '400']],
  ];
  for (const [path, method, operationId, statuses] of ops) {
    const op = spec.paths?.[path]?.[method];
    t.ok(op, `${method} ${path} documented`);
    if (!op) continue;
    t.equal(op.operationId, operationId);
    t.same(op.tags, ['billing']);
    for (const s of statuses) t.ok(op.responses?.[s], `${operationId} documents ${s}`);
    for (const s of statuses.filter((x) => Number(x) >= 400 && x !== '422')) {
      const schema = op.responses[s].content['application/json'].schema;
      t.equal(schema.$ref, '#/components/schemas/HTTPError', `${operationId} ${s} is {detail}`);
    }
  }
  t.same(spec.paths['/billing/webhooks/stripe'].post.security, [], 'the webhook needs no bearer token (its signature is checked)');
  const summary = spec.components.schemas.BillingSummary;
  t.same(Object.keys(summary.properties).sort(), [
    'active_twins',
    'ai_generation_enabled',
    'invoice',
    'max_environment_seconds',
    'max_parallel_twins',
    'notice',
    'past_due',
    'plan',
    'ready',
    'remaining_credit_cents',
    'storage_bytes',
    'upgrade_available',
  ]);
  const upgrade = spec.paths['/organizations/current/billing/upgrade'].post.requestBody.content['application/json'].schema;
  const body = upgrade.$ref ? spec.components.schemas[upgrade.$ref.split('/').pop()] : upgrade;
  t.match(body, { required: ['checkout_session'], additionalProperties: false, properties: { checkout_session: { minLength: 1 } } });
});

t.test('configuration: the house twin by default, Stripe with a key, none on request', async (t) => {
  t.equal(loadConfig({}).paymentProcessor, 'house');
  t.equal(loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x' }).paymentProcessor, 'stripe');
  t.equal(loadConfig({ TWINS_PAYMENT_PROCESSOR: 'none' }).paymentProcessor, 'none');
  t.equal(loadConfig({}).usageIntervalSeconds, 3600);
  t.equal(loadConfig({ TWINS_USAGE_INTERVAL_S: '1' }).usageIntervalSeconds, 1);
  t.throws(() => loadConfig({ TWINS_USAGE_INTERVAL_S: '0' }), /TWINS_USAGE_INTERVAL_S/);
  t.throws(() => loadConfig({ TWINS_PAYMENT_PROCESSOR: 'paypal' }), /TWINS_PAYMENT_PROCESSOR/);
});
