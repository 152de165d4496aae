// Every twin on a living clock (decisions §15, the default of environments): two writes two
// seconds apart carry different timestamps, as at the provider. One real wait of ~2 s is shared by
// all ten twins, each driven by its provider's official SDK (or its documented HTTP call) and
// read back from the timestamp the provider itself returns.

import t from 'tap';
import Stripe from 'stripe';
import { Octokit } from '@octokit/rest';
import { WebClient } from '@slack/web-api';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { LinearClient } from '@linear/sdk';
import { Version3Client } from 'jira.js';
import { Client as NotionClient } from '@notionhq/client';
import twilio from 'twilio';
import sgClient from '@sendgrid/client';
import { startTwin, type RunningTwin } from '../helpers/twin.js';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';

/** One write to a twin, answering the timestamp the provider returns for what it made (ms). */
type Write = (twin: RunningTwin, n: number) => Promise<number>;

const seconds = (s: number) => s * 1000;

const writes: Record<string, Write> = {
  async stripe(twin, n) {
    const url = new URL(twin.url);
    const stripe = new Stripe(twin.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
    return seconds((await stripe.customers.create({ email: `c${n}@example.com` })).created);
  },
  async github(twin, n) {
    const octokit = new Octokit({ auth: twin.apiKey, baseUrl: twin.url });
    return Date.parse((await octokit.repos.createForAuthenticatedUser({ name: `clock-${n}` })).data.created_at!);
  },
  async slack(twin, n) {
    const slack = new WebClient(twin.apiKey, { slackApiUrl: `${twin.url}/api/`, retryConfig: { retries: 0 } });
    return seconds((await slack.conversations.create({ name: `clock-${n}` })).channel!.created!);
  },
  async openai(twin, n) {
    const openai = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });
    return seconds((await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hello ${n}` }] })).created);
  },
  async anthropic(twin, n) {
    const anthropic = new Anthropic({ apiKey: twin.apiKey, baseURL: twin.url, maxRetries: 0 });
    const batch = await anthropic.messages.batches.create({
      requests: [{ custom_id: `r${n}`, params: { model: 'claude-haiku-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } }],
    });
    return Date.parse(batch.created_at);
  },
  async linear(twin, n) {
    const linear = new LinearClient({ apiKey: twin.apiKey, apiUrl: `${twin.url}/graphql` });
    const team = (await linear.teams()).nodes[0]!;
    const made = await linear.createIssue({ teamId: team.id, title: `clock ${n}` });
    return (await made.issue)!.createdAt.getTime();
  },
  async jira(twin, n) {
    const email = twin.server.host.credential().email!;
    const jira = new Version3Client({ host: twin.url, authentication: { basic: { email, apiToken: twin.apiKey } } });
    const made = await jira.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: `clock ${n}` } });
    return Date.parse((await jira.issues.getIssue({ issueIdOrKey: made.key })).fields.created);
  },
  async notion(twin, n) {
    // Notion reports created_time to the minute (the twin too); a file upload's expiry is exact.
    const notion = new NotionClient({ auth: twin.apiKey, baseUrl: twin.url, retry: false });
    const upload = await notion.fileUploads.create({ mode: 'single_part', filename: `clock-${n}.txt`, content_type: 'text/plain' });
    return Date.parse(upload.expiry_time!);
  },
  async twilio(twin, n) {
    const { account_sid } = twin.server.host.credential();
    const client = twilio(account_sid!, twin.apiKey);
    client.api.baseUrl = twin.url;
    const message = await client.messages.create({ to: '+14155550100', from: '+15017122661', body: `clock ${n}` });
    return message.dateCreated.getTime();
  },
  async sendgrid(twin, n) {
    const sendgrid = new (sgClient as unknown as { Client: new () => typeof sgClient }).Client();
    sendgrid.setApiKey(twin.apiKey);
    sendgrid.setDefaultRequest('baseUrl', twin.url);
    const [, body] = await sendgrid.request({ method: 'POST', url: '/v3/templates', body: { name: `clock ${n}`, generation: 'dynamic' } });
    // `updated_at` as SendGrid writes it: "2026-05-04 09:12:31" (UTC).
    return Date.parse(`${(body as { updated_at: string }).updated_at.replace(' ', 'T')}Z`);
  },
};

const twins = new Map<string, RunningTwin>();
t.teardown(() => Promise.all([...twins.values()].map((twin) => twin.close())));
for (const slug of TWIN_SLUGS) twins.set(slug, await startTwin(slug, { clock: 'living' }));

t.test('every twin is covered', async (t) => {
  t.same(Object.keys(writes).sort(), [...TWIN_SLUGS].sort());
});

t.test('two writes two seconds apart carry different timestamps in every twin', async (t) => {
  const first = new Map<string, number>();
  for (const [slug, twin] of twins) first.set(slug, await writes[slug]!(twin, 1));
  await new Promise((r) => setTimeout(r, 2_100));
  for (const [slug, twin] of twins) {
    const second = await writes[slug]!(twin, 2);
    const gap = second - first.get(slug)!;
    // The providers report seconds (some in whole seconds): ≥ 1 s apart, and not more than the time the test took.
    t.ok(gap >= 1_000 && gap < 60_000, `${slug}: ${new Date(first.get(slug)!).toISOString()} then ${new Date(second).toISOString()}`);
  }
});
