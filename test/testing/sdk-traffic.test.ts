// Tests judged on real traffic: the official Stripe and Slack SDKs call twins through the gateway,
// which logs every request into the control plane's database; tests are then created through the
// API (phrasebook outcome and explicit assertions) and attempts evaluated over that traffic.

import t from 'tap';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { LogLevel, WebClient } from '@slack/web-api';
import { Octokit } from '@octokit/rest';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { startTwin } from '../helpers/twin.js';
import { RequestLogStore } from '../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../control-plane/gateway/gateway.js';

const cp = await startTestControlPlane({ defaultPlan: 'paygo' });
const token = await cp.token({ org: 'acme' });
await cp.call('GET', '/tests', { token });
const db = cp.services.db;
const orgId = (db.prepare("SELECT id FROM organizations WHERE external_id = 'acme'").get() as { id: string }).id;
const envId = randomUUID();
db.prepare(
  `INSERT INTO environments (id, organization_id, sandbox_id, slug, name, status, clock, clock_start, created_at)
   VALUES (?, ?, ?, 'sdk-env', 'sdk', 'ready', ?, ?, ?)`,
).run(envId, orgId, randomUUID(), '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');

const stripeTwin = await startTwin('stripe');
const slackTwin = await startTwin('slack');
const githubTwin = await startTwin('github');
const writer = new RequestLogWriter(new RequestLogStore(db));
const gateway = new TwinGateway({ host: '127.0.0.1', writer });
const stripeUrl = (await gateway.open({ twinId: 'stripe-twin', environmentId: envId, organizationId: orgId, slug: 'stripe' })).url;
const slackUrl = (await gateway.open({ twinId: 'slack-twin', environmentId: envId, organizationId: orgId, slug: 'slack' })).url;
const githubUrl = (await gateway.open({ twinId: 'github-twin', environmentId: envId, organizationId: orgId, slug: 'github' })).url;
gateway.setTarget('github-twin', githubTwin.url);
gateway.setTarget('stripe-twin', stripeTwin.url);
gateway.setTarget('slack-twin', slackTwin.url);
t.teardown(async () => {
  await gateway.closeAll();
  writer.close();
  await stripeTwin.close();
  await slackTwin.close();
  await githubTwin.close();
  await cp.stop();
});

// The agent's session, through the official SDKs.
const port = Number(new URL(stripeUrl).port);
const stripe = new Stripe(stripeTwin.apiKey, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
const slack = new WebClient(slackTwin.apiKey, { slackApiUrl: `${slackUrl}/api/`, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });

const ada = await stripe.customers.create({ email: 'ada@example.com', name: 'Ada Lovelace', metadata: { tier: 'gold' } });
const pi = await stripe.paymentIntents.create({ amount: 4200, currency: 'usd', customer: ada.id, payment_method: 'pm_card_visa', confirm: true });
const refused = await stripe.refunds.create({ payment_intent: pi.id, amount: 999_999 }).catch((e: unknown) => e);
const refund = await stripe.refunds.create({ payment_intent: pi.id });
const stray = await stripe.customers.create({ email: 'stray@example.com' });
await stripe.customers.del(stray.id);
await slack.chat.postMessage({ channel: '#general', text: 'Refunded the duplicate charge' });
const octokit = new Octokit({ auth: githubTwin.apiKey, baseUrl: githubUrl, log: { debug() {}, info() {}, warn() {}, error() {} } });
const repo = await octokit.repos.createForAuthenticatedUser({ name: 'web', auto_init: true });
const issue = await octokit.issues.create({ owner: repo.data.owner.login, repo: 'web', title: 'Crash on start', labels: ['bug'] });
await octokit.issues.update({ owner: repo.data.owner.login, repo: 'web', issue_number: issue.data.number, state: 'closed' });

t.test('the gateway logged the SDK traffic', async (tt) => {
  tt.ok(refused instanceof Error, 'the oversized refund was refused by the twin');
  tt.equal(refund.status, 'succeeded');
  const n = (db.prepare('SELECT COUNT(*) AS n FROM request_logs WHERE environment_id = ?').get(envId) as { n: number }).n;
  tt.ok(n >= 7, `every call was logged (${n})`);
});

t.test('a compiled outcome judged on SDK traffic', async (tt) => {
  const created = await cp.call('POST', '/tests', {
    token,
    body: {
      name: 'refund flow',
      twins: ['stripe', 'slack'],
      outcome:
        'Created a customer with email ada@example.com, then created a payment intent for $42 for that customer, then refunded that payment intent. ' +
        'Refunded exactly once. Posted a message to #general containing "duplicate". Never deleted a customer.',
    },
  });
  tt.equal(created.status, 201);
  tt.equal(created.body.status, 'ready', created.body.failure ?? 'compiled');
  const attempt = await cp.call('POST', `/tests/${created.body.id}/attempts`, { token, body: { environment_id: envId } });
  tt.equal(attempt.status, 201);
  const [sequence, once, posted, never] = attempt.body.results;
  tt.match(sequence, { kind: 'sequence', passed: true, stopped_at: null, observed: 3 });
  tt.same(
    sequence.steps.map((s: any) => Object.values(s.captured)),
    [[ada.id], [pi.id], []],
    'captured ids come from the responses',
  );
  tt.match(once, { passed: true, observed: 1, expected: 'exactly 1' });
  tt.match(posted, { passed: true, observed: 1 });
  tt.match(never, { passed: false, offending: [{ method: 'DELETE', path: `/v1/customers/${stray.id}`, status: 200 }] });
  tt.equal(attempt.body.passed, false);
});

t.test('explicit assertions on SDK traffic: form bodies, near misses', async (tt) => {
  const created = await cp.call('POST', '/tests', {
    token,
    body: {
      name: 'explicit',
      twins: ['stripe'],
      assertions: [
        {
          says: 'a $42 payment intent in usd',
          match: { method: 'POST', path: '/v1/payment_intents', body: { '/amount': { eq: 4200 }, '/currency': 'usd', '/customer': { matches: '^cus_' } } },
        },
        { says: 'a gold customer', match: { method: 'POST', path: '/v1/customers', body: { '/metadata/tier': 'gold', '/name': { contains: 'Ada' } } } },
        { says: 'a partial refund of $10', match: { method: 'POST', path: '/v1/refunds', body: { '/amount': 1000 }, response: { status: '2xx' } } },
      ],
    },
  });
  tt.equal(created.status, 201);
  const attempt = await cp.call('POST', `/tests/${created.body.id}/attempts`, { token, body: { environment_id: envId } });
  const [intent, gold, partial] = attempt.body.results;
  tt.match(intent, { passed: true, observed: 1 });
  tt.match(gold, { passed: true, observed: 1 });
  tt.match(partial, { passed: false, observed: 0 });
  // Nearest: the full refund (no amount sent; 5 of 6 fields hold), then the refused one (4 of 6).
  const [full, oversized] = partial.near_misses;
  tt.match(full, { method: 'POST', path: '/v1/refunds', status: 200, matched_fields: 5, total_fields: 6 });
  tt.same(
    full.fields.find((f: any) => f.field === 'body/amount'),
    { field: 'body/amount', expected: '= 1000', ok: false },
    'a missing field has no actual value',
  );
  tt.match(oversized, { method: 'POST', path: '/v1/refunds', status: 400, matched_fields: 4 });
  tt.same(
    oversized.fields.find((f: any) => f.field === 'body/amount'),
    { field: 'body/amount', expected: '= 1000', actual: '999999', ok: false },
  );
  tt.same(
    oversized.fields.find((f: any) => f.field === 'response.status'),
    { field: 'response.status', expected: '2xx', actual: 400, ok: false },
  );
  tt.match(partial.reason, /The nearest miss is log .*: body\/amount was missing, expected = 1000\./);
});

t.test('GitHub JSON bodies from Octokit: a compiled sequence with a captured issue number', async (tt) => {
  const created = await cp.call('POST', '/tests', {
    token,
    body: {
      name: 'triage',
      twins: ['github'],
      outcome: 'opened an issue labelled bug titled "Crash on start", then closed that issue. Never deleted a repository.',
    },
  });
  tt.equal(created.body.status, 'ready', created.body.failure ?? 'compiled');
  const attempt = await cp.call('POST', `/tests/${created.body.id}/attempts`, { token, body: { environment_id: envId } });
  tt.equal(attempt.body.passed, true);
  const [sequence, never] = attempt.body.results;
  tt.same(sequence.steps[0].captured, { issue_1: issue.data.number });
  tt.match(never, { passed: true, observed: 0 });

  const wrongLabel = await cp.call('POST', '/tests', { token, body: { name: 'wontfix', twins: ['github'], outcome: 'opened an issue labelled wontfix' } });
  const failed = await cp.call('POST', `/tests/${wrongLabel.body.id}/attempts`, { token, body: { environment_id: envId } });
  const [result] = failed.body.results;
  tt.match(result, { passed: false, observed: 0, near_misses: [{ method: 'POST', path: '/repos/' + repo.data.owner.login + '/web/issues', status: 201 }] });
  tt.same(
    result.near_misses[0].fields.find((f: any) => f.field === 'body/labels'),
    { field: 'body/labels', expected: 'includes an item = "wontfix"', actual: ['bug'], ok: false },
  );
});
