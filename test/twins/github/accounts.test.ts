// Auth, the authenticated user, users/orgs/members, rate-limit headers and their exhaustion.

import t from 'tap';
import { Octokit } from '@octokit/rest';
import { startGitHub, failure } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;

t.test('keys: token and Bearer accepted, others refused with GitHub bodies', async (t) => {
  const viaToken = await fetch(`${twin.url}/user`, { headers: { authorization: `token ${twin.apiKey}` } });
  t.equal(viaToken.status, 200);
  const viaBearer = await fetch(`${twin.url}/user`, { headers: { authorization: `Bearer ${twin.apiKey}` } });
  t.equal(viaBearer.status, 200);
  t.match(twin.apiKey, /^ghp_[A-Za-z0-9]{36}$/);

  const wrong = new Octokit({ auth: 'ghp_' + 'x'.repeat(36), baseUrl: twin.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
  const err = await failure(wrong.users.getAuthenticated());
  t.equal(err.status, 401);
  t.same(err.body, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });

  const none = await fetch(`${twin.url}/user`);
  t.equal(none.status, 401);
  t.equal(((await none.json()) as any).message, 'Requires authentication');

  const missing = await fetch(`${twin.url}/nope/nothing/here`, { headers: { authorization: `token ${twin.apiKey}` } });
  t.equal(missing.status, 404);
  t.same(await missing.json(), { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
});

t.test('GET /user is the fixed viewer octocat; other accounts and the starting org', async (t) => {
  const me = await octokit.users.getAuthenticated();
  t.equal(me.data.login, 'octocat');
  t.equal(me.data.id, 1);
  t.equal(me.data.node_id, 'MDQ6VXNlcjE=');
  t.equal(me.data.type, 'User');
  t.equal(me.data.url, `${twin.url}/users/octocat`);
  t.equal(me.data.html_url, `${twin.url}/octocat`);
  t.equal(me.data.created_at, '2026-01-05T10:00:00Z');
  t.equal(typeof (me.data as any).total_private_repos, 'number');

  const hubot = await octokit.users.getByUsername({ username: 'hubot' });
  t.equal(hubot.data.id, 2);
  const err = await failure(octokit.users.getByUsername({ username: 'nobody-here' }));
  t.equal(err.status, 404);
  t.equal(err.body.message, 'Not Found');

  const org = await octokit.orgs.get({ org: 'octo-org' });
  t.equal(org.data.login, 'octo-org');
  t.equal(org.data.type, 'Organization');
  t.equal(org.data.node_id, Buffer.from(`012:Organization${org.data.id}`).toString('base64'));
  t.equal((await failure(octokit.orgs.get({ org: 'missing-org' }))).status, 404);

  const orgs = await octokit.orgs.listForAuthenticatedUser();
  t.same(
    orgs.data.map((o) => o.login),
    ['octo-org'],
  );

  const updated = await octokit.users.updateAuthenticated({ name: 'Mona', location: 'Lisbon' });
  t.equal(updated.data.name, 'Mona');
  t.equal((await octokit.users.getByUsername({ username: 'octocat' })).data.location, 'Lisbon');
});

t.test('org members and memberships', async (t) => {
  const members = await octokit.orgs.listMembers({ org: 'octo-org' });
  t.same(members.data.map((m) => m.login).sort(), ['hubot', 'octocat']);
  const admins = await octokit.orgs.listMembers({ org: 'octo-org', role: 'admin' });
  t.same(
    admins.data.map((m) => m.login),
    ['octocat'],
  );

  const check = await octokit.orgs.checkMembershipForUser({ org: 'octo-org', username: 'hubot' });
  t.equal(check.status, 204);
  const membership = await octokit.orgs.getMembershipForUser({ org: 'octo-org', username: 'hubot' });
  t.equal(membership.data.role, 'member');
  t.equal(membership.data.organization.login, 'octo-org');

  const promoted = await octokit.orgs.setMembershipForUser({ org: 'octo-org', username: 'hubot', role: 'admin' });
  t.equal(promoted.data.role, 'admin');
  await octokit.orgs.removeMember({ org: 'octo-org', username: 'hubot' });
  t.equal((await failure(octokit.orgs.checkMembershipForUser({ org: 'octo-org', username: 'hubot' }))).status, 404);
  t.equal((await failure(octokit.orgs.setMembershipForUser({ org: 'octo-org', username: 'ghost-user', role: 'member' }))).status, 404);
  await octokit.orgs.setMembershipForUser({ org: 'octo-org', username: 'hubot', role: 'member' });
});

t.test('x-ratelimit-* count down; a spent window answers 403; advancing the clock resets it', async (t) => {
  const a = await octokit.users.getAuthenticated();
  const b = await octokit.users.getAuthenticated();
  t.equal(a.headers['x-ratelimit-limit'], '5000');
  t.equal(Number(b.headers['x-ratelimit-remaining']), Number(a.headers['x-ratelimit-remaining']) - 1);
  t.equal(Number(b.headers['x-ratelimit-used']), Number(a.headers['x-ratelimit-used']) + 1);
  t.equal(b.headers['x-ratelimit-resource'], 'core');
  const reset = Number(a.headers['x-ratelimit-reset']);
  t.equal(reset, Date.parse('2026-01-05T11:00:00Z') / 1000, 'an hour of the environment clock');

  const overview = await octokit.rateLimit.get();
  t.equal(overview.data.resources.core.remaining, Number(b.headers['x-ratelimit-remaining']), '/rate_limit does not count');

  // Spend the window through the records API (what an operator or a scenario would do).
  const window = await gh.record('rate_limit', 'core');
  await gh.record('rate_limit', 'core', { ...window, remaining: 1 });
  const last = await octokit.users.getAuthenticated();
  t.equal(last.headers['x-ratelimit-remaining'], '0');
  const spent = await failure(octokit.users.getAuthenticated());
  t.equal(spent.status, 403);
  t.match(spent.body.message, /^API rate limit exceeded for user ID 1\./);
  t.equal(spent.body.documentation_url, 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api');
  t.equal(spent.headers['x-ratelimit-remaining'], '0');

  await twin.advance(new Date((reset + 1) * 1000));
  const fresh = await octokit.users.getAuthenticated();
  t.equal(fresh.headers['x-ratelimit-remaining'], '4999');
  t.equal(Number(fresh.headers['x-ratelimit-reset']), reset + 1 + 3600);
});

t.test('reset empties the twin and the starting accounts come back with the same ids', async (t) => {
  await octokit.repos.createForAuthenticatedUser({ name: 'before-reset' });
  const res = await fetch(`${twin.url}/_twin/reset`, { method: 'POST' });
  t.equal(res.status, 200);
  t.equal((await failure(octokit.repos.get({ owner: 'octocat', repo: 'before-reset' }))).status, 404);
  const me = await octokit.users.getAuthenticated();
  t.equal(me.data.login, 'octocat');
  t.equal(me.data.id, 1);
  t.equal((await octokit.orgs.get({ org: 'octo-org' })).data.id, 3);
  t.equal((await octokit.repos.createForAuthenticatedUser({ name: 'after-reset' })).data.id, 1, 'id sequences restart');
});
