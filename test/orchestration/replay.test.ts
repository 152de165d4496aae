// Replay (issue 38), end to end with twin child processes and the official SDKs: 507
// mixed Stripe, GitHub and Slack requests (with an advance of the clock half-way) are exported
// as a replay file and replayed into a fresh environment created the same way (empty, frozen
// clock, the file's clock_start): zero differences. After one request of the file is edited, a
// replay into another such environment names exactly that request as the first difference.

import t from 'tap';
import Stripe from 'stripe';
import { Octokit } from '@octokit/rest';
import { LogLevel, WebClient } from '@slack/web-api';
import { startOrchestratedControlPlane, waitFor, waitReady } from './helpers.js';
import type { TestControlPlane } from '../helpers/control-plane.js';

const ROUNDS = 56;
const START = '2026-03-02T09:00:00.000Z';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function clients(cp: TestControlPlane, token: string, env: any) {
  const twin = (slug: string) => env.twins.find((x: any) => x.twin_slug === slug);
  const key = async (slug: string) => (await cp.call('POST', `/twins/${twin(slug).id}/credential`, { token })).body.api_key as string;
  const stripeUrl = new URL(twin('stripe').url);
  return {
    stripe: new Stripe(await key('stripe'), { host: stripeUrl.hostname, port: Number(stripeUrl.port), protocol: 'http', maxNetworkRetries: 0 }),
    github: new Octokit({ auth: await key('github'), baseUrl: twin('github').url, log: quiet }),
    slack: new WebClient(await key('slack'), { slackApiUrl: `${twin('slack').url}/api/`, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR }),
  };
}

async function createEnvironment(cp: TestControlPlane, token: string, name: string, clock = 'frozen'): Promise<any> {
  const created = await cp.call('POST', '/environments', {
    token,
    body: { name, clock, clock_start: START, twins: [{ twin: 'stripe' }, { twin: 'github' }, { twin: 'slack' }] },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return waitReady(cp, token, created.body.id);
}

t.test('replay: a clean replay differs nowhere; an edited record is named', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ email: 'ada@replay.example.com', org: 'replay', role: 'admin' });
  await cp.call('GET', '/environments', { token });
  cp.services.db.prepare("UPDATE organizations SET plan = 'paygo' WHERE external_id = 'replay'").run();

  const origin = await createEnvironment(cp, token, 'origin');
  t.equal(origin.clock, START, 'the clock starts at clock_start');
  const { stripe, github, slack } = await clients(cp, token, origin);
  let sent = 0;
  const login = (await github.rest.users.getAuthenticated()).data.login;
  await github.rest.repos.createForAuthenticatedUser({ name: 'replayed' });
  const channel = (await slack.conversations.create({ name: 'replayed' })).channel!.id!;
  sent += 3;
  for (let i = 0; i < ROUNDS; i++) {
    if (i === ROUNDS / 2) {
      const advanced = await cp.call('POST', `/environments/${origin.id}/advance`, { token, body: { at: '2026-03-02T10:30:00.000Z' } });
      t.equal(advanced.status, 200, 'the clock moves half-way');
    }
    const customer = await stripe.customers.create({ name: `Customer ${i}`, email: `c${i}@example.com` });
    await stripe.customers.update(customer.id, { metadata: { round: String(i) } });
    await stripe.customers.list({ limit: 3 });
    const issue = (await github.rest.issues.create({ owner: login, repo: 'replayed', title: `Issue ${i}` })).data;
    await github.rest.issues.get({ owner: login, repo: 'replayed', issue_number: issue.number });
    await github.rest.issues.listForRepo({ owner: login, repo: 'replayed', per_page: 5 });
    await slack.chat.postMessage({ channel, text: `Message ${i}` });
    await slack.conversations.history({ channel, limit: 5 });
    await slack.auth.test();
    sent += 9;
  }

  // A snapshot of the three twins at once (each stages its copy under its own name).
  t.equal((await cp.call('POST', `/environments/${origin.id}/snapshots`, { token, body: { name: 'three twins' } })).status, 201);

  // Every request is in the log (an entry reaches SQLite shortly after its answer).
  await waitFor('every request logged', async () => (await cp.call('GET', `/environments/${origin.id}/logs?size=1`, { token })).body.total >= sent);
  const exported = await cp.call('GET', `/environments/${origin.id}/logs/export`, { token });
  t.equal(exported.status, 200, JSON.stringify(exported.body).slice(0, 500));
  const file = exported.body;
  t.equal(file.format, 'twins.replay/1');
  t.equal(file.clock_start, START);
  t.equal(file.requests.length, sent, `${sent} requests exported`);
  t.same(
    file.requests.map((r: any) => r.index),
    file.requests.map((_: unknown, i: number) => i),
    'in order',
  );
  t.same([...new Set(file.requests.map((r: any) => r.twin_slug))].sort(), ['github', 'slack', 'stripe'], 'mixed traffic');
  t.equal(file.requests[0].clock, START, 'each request carries the clock it arrived at');
  t.equal(file.requests.at(-1).clock, '2026-03-02T10:30:00.000Z', 'requests after the advance carry its instant');
  t.ok(
    file.requests.every((r: any) => r.response.status >= 200 && r.response.status < 300),
    'every recorded answer succeeded',
  );

  // A fresh environment created the same way: the replay differs nowhere.
  const target = await createEnvironment(cp, token, 'target');
  const clean = await cp.call('POST', `/environments/${target.id}/replay`, { token, body: file });
  t.equal(clean.status, 200, JSON.stringify(clean.body).slice(0, 2000));
  t.same(clean.body, { replayed: sent, first_difference: null }, 'a clean replay differs nowhere');

  // One record edited: a customer created under another name.
  const edited = structuredClone(file);
  const creates = edited.requests.filter((r: any) => r.twin_slug === 'stripe' && r.method === 'POST' && r.path === '/v1/customers');
  const changed = creates[10];
  t.ok(changed.request.body.includes('Customer%2010'), 'the record to edit');
  changed.request.body = changed.request.body.replace('Customer%2010', 'Someone%20else');
  const other = await createEnvironment(cp, token, 'edited target');
  const differs = await cp.call('POST', `/environments/${other.id}/replay`, { token, body: edited });
  t.equal(differs.status, 200, JSON.stringify(differs.body).slice(0, 2000));
  t.equal(differs.body.first_difference?.index, changed.index, 'the replay names the edited request');
  t.equal(differs.body.replayed, changed.index + 1, 'and stops there');
  t.match(differs.body.first_difference, {
    request: { method: 'POST', path: '/v1/customers', twin_slug: 'stripe' },
    expected: { status: 200, body: /"Customer 10"/ },
    actual: { status: 200, body: /"Someone else"/ },
  });

  // Refusals: a living clock cannot be pinned; a clock past the first request cannot go back.
  const living = await cp.call('POST', '/environments', { token, body: { name: 'living', twins: [{ twin: 'stripe' }] } });
  const livingReplay = await cp.call('POST', `/environments/${living.body.id}/replay`, { token, body: file });
  t.equal(livingReplay.status, 409);
  t.match(livingReplay.body.detail, /frozen/);
  const late = await cp.call('POST', '/environments', {
    token,
    body: { name: 'late', clock: 'frozen', clock_start: '2026-04-01T00:00:00Z', twins: [{ twin: 'stripe' }, { twin: 'github' }, { twin: 'slack' }] },
  });
  const lateReplay = await cp.call('POST', `/environments/${late.body.id}/replay`, { token, body: file });
  t.equal(lateReplay.status, 409);
  t.match(lateReplay.body.detail, /after the first request/);
  t.equal((await cp.call('POST', `/environments/${target.id}/replay`, { token, body: { ...file, format: 'other' } })).status, 422);
});
