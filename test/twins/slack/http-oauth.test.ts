// An unchanged @slack/bolt app in HTTP mode, installed through @slack/oauth's InstallProvider
// (Bolt's built-in OAuth flow) on the twin's authorize page, all through the gateway: the
// url_verification handshake, signed events, a slash command answered in the response body,
// a button answered with respond(); scopes granted at install are enforced (missing_scope).

import t from 'tap';
import { createServer } from 'node:net';
import { App, LogLevel, type Installation } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { eventually, startGatewayedSlack } from './app-harness.js';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const slack = await startGatewayedSlack();
const { client, call, credential } = slack;
const general = (await client.conversations.list()).channels!.find((c) => c.name === 'general')!.id!;
const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;

const port = await freePort();
const appUrl = `http://127.0.0.1:${port}`;
const installations = new Map<string, Installation>();
const app = new App({
  signingSecret: credential.signing_secret,
  clientId: credential.client_id,
  clientSecret: credential.client_secret,
  stateSecret: 'twin-state-secret',
  scopes: ['chat:write', 'commands', 'channels:history', 'channels:read', 'users:read'],
  redirectUri: `${appUrl}/slack/oauth_redirect`,
  installationStore: {
    storeInstallation: async (i) => void installations.set(i.team!.id, i),
    fetchInstallation: async (q) => installations.get(q.teamId!)!,
    deleteInstallation: async (q) => void installations.delete(q.teamId!),
  },
  installerOptions: {
    directInstall: true,
    userScopes: ['search:read'],
    authorizationUrl: `${slack.url}/oauth/v2/authorize`,
    redirectUriPath: '/slack/oauth_redirect',
    clientOptions: { slackApiUrl: slack.apiUrl },
  },
  clientOptions: { slackApiUrl: slack.apiUrl },
  logLevel: LogLevel.ERROR,
});
app.message('hello', async ({ say }) => {
  await say('hello from HTTP mode');
});
app.command('/hello', async ({ ack }) => {
  await ack('Hello, only you can see this');
});
app.action('approve', async ({ ack, respond }) => {
  await ack();
  await respond({ replace_original: true, text: 'Approved over HTTP' });
});
await app.start(port);
t.teardown(async () => {
  await app.stop();
  await slack.close();
});

t.test('OAuth install through InstallProvider on the twin authorize page', async (t) => {
  const install = await fetch(`${appUrl}/slack/install`, { redirect: 'manual' });
  t.equal(install.status, 302);
  const cookie = install.headers.get('set-cookie')!.split(';')[0]!;
  const authorize = new URL(install.headers.get('location')!);
  t.equal(authorize.origin + authorize.pathname, `${slack.url}/oauth/v2/authorize`);
  const page = await fetch(authorize);
  t.equal(page.status, 200);
  t.match(await page.text(), /chat:write,commands/);
  // A wrong client id never gets a page.
  const wrong = new URL(authorize);
  wrong.searchParams.set('client_id', '1.2');
  const refused = await fetch(wrong);
  t.equal(refused.status, 400);
  t.match(await refused.text(), /invalid_client_id/);
  // The person approves.
  const form = new URLSearchParams(authorize.searchParams);
  form.set('user', ada);
  form.set('decision', 'allow');
  const approved = await fetch(`${slack.url}/oauth/v2/authorize`, { method: 'POST', body: form, redirect: 'manual' });
  t.equal(approved.status, 302);
  const callback = new URL(approved.headers.get('location')!);
  t.equal(callback.pathname, '/slack/oauth_redirect');
  t.ok(callback.searchParams.get('code'));
  const done = await fetch(callback, { headers: { cookie } });
  t.equal(done.status, 200, 'Bolt finished the installation');
  const inst = [...installations.values()][0]!;
  t.ok(inst, 'installation stored');
  t.equal(inst.bot!.token, credential.api_key);
  t.same(inst.bot!.scopes, ['chat:write', 'commands', 'channels:history', 'channels:read', 'users:read']);
  t.match(inst.user.token, /^xoxp-/);
  t.same(inst.user.scopes, ['search:read']);
  // The code is single-use.
  const reused = await new WebClient(undefined, { slackApiUrl: slack.apiUrl }).oauth.v2
    .access({ client_id: credential.client_id, client_secret: credential.client_secret, code: callback.searchParams.get('code')! })
    .catch((e) => e.data?.error);
  t.equal(reused, 'code_already_used');

  // Scopes granted at install are the bot token's scopes now.
  const missing = await client.reactions.add({ channel: general, name: 'eyes', timestamp: '1.000001' }).catch((e) => e.data);
  t.equal(missing.error, 'missing_scope');
  t.equal(missing.needed, 'reactions:write');
  t.equal(missing.provided, 'chat:write,commands,channels:history,channels:read,users:read');
  // The user token: search (user-token only), then revoked.
  const user = new WebClient(inst.user.token, { slackApiUrl: slack.apiUrl });
  t.equal((await user.auth.test()).user_id, ada);
  t.equal(await client.search.messages({ query: 'x' }).catch((e) => e.data?.error), 'not_allowed_token_type');
  await call('twin.messages.postAsUser', { user: ada, channel: general, text: 'the pager went off at noon' });
  const found = await user.search.messages({ query: 'pager' });
  t.equal(found.messages!.total, 1);
  t.equal(found.messages!.matches![0]!.text, 'the pager went off at noon');
  t.ok(((await user.auth.revoke()) as { revoked?: boolean }).revoked);
  t.equal(await user.auth.test().catch((e) => e.data?.error), 'invalid_auth');
});

t.test('HTTP mode: url_verification, events, a command answered in the body, respond()', async (t) => {
  const set = await call('twin.settings.set', { setting: 'events', value: { request_url: `${appUrl}/slack/events` } });
  t.equal(set.value.request_url, `${appUrl}/slack/events`, 'Bolt answered the challenge');
  await call('twin.messages.postAsUser', { user: ada, channel: general, text: 'hello app' });
  await eventually(async () => (await client.conversations.history({ channel: general })).messages!.find((m) => m.text === 'hello from HTTP mode'));

  await call('twin.commands.run', { user: ada, channel: general, command: '/hello' });
  const ephemeral = await eventually(() => slack.server.store.list<{ text: string; recipient: string }>('ephemeral_message').find((m) => m.recipient === ada));
  t.equal(ephemeral.text, 'Hello, only you can see this');

  const posted = await client.chat.postMessage({
    channel: general,
    text: 'Ship it?',
    blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' } }] }],
  });
  await call('twin.actions.click', { user: ada, channel: general, message_ts: posted.ts, action_id: 'approve' });
  const replaced = await eventually(async () =>
    (await client.conversations.history({ channel: general })).messages!.find((m) => m.ts === posted.ts && m.text === 'Approved over HTTP'),
  );
  t.ok(replaced.edited, 'respond() replaced the original over HTTP');
});
