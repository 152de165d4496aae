// GitHub App authentication with @octokit/auth-app, unchanged: the app signs a JWT with its private
// key, lists its installations, mints an installation access token, and that token works on the
// REST and GraphQL APIs. Bad JWTs (wrong key, expired, too long) are refused as GitHub does.

import t from 'tap';
import { generateKeyPairSync, createSign } from 'node:crypto';
import { Octokit } from '@octokit/rest';
import { createAppAuth } from '@octokit/auth-app';
import { graphql } from '@octokit/graphql';
import { startGitHub } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;
await octokit.repos.createInOrg({ org: 'octo-org', name: 'service' });
const pair = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const { publicKey, privateKey } = pair();
const org = await octokit.orgs.get({ org: 'octo-org' });
await gh.record('app', '4242', { id: 4242, slug: 'twin-bot', name: 'Twin Bot', public_key: publicKey, permissions: { issues: 'write', metadata: 'read' } });
await gh.record('installation', '77', {
  id: 77,
  app_id: 4242,
  account: { login: 'octo-org', id: org.data.id, type: 'Organization' },
  repository_selection: 'all',
});
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

t.test('@octokit/auth-app: JWT → installations → installation token → API calls', async (t) => {
  const asApp = new Octokit({ baseUrl: twin.url, authStrategy: createAppAuth, auth: { appId: 4242, privateKey }, log: quiet });
  const me = await asApp.apps.getAuthenticated();
  t.equal(me.data!.slug, 'twin-bot');
  t.notOk('public_key' in me.data!, "the public key is the twin's, never answered");
  const installations = await asApp.apps.listInstallations();
  t.same(
    installations.data.map((i) => [i.id, i.account && 'login' in i.account ? i.account.login : null]),
    [[77, 'octo-org']],
  );
  const repoInstall = await asApp.apps.getRepoInstallation({ owner: 'octo-org', repo: 'service' });
  t.equal(repoInstall.data.id, 77);

  const asInstallation = new Octokit({ baseUrl: twin.url, authStrategy: createAppAuth, auth: { appId: 4242, privateKey, installationId: 77 }, log: quiet });
  const issue = await asInstallation.issues.create({ owner: 'octo-org', repo: 'service', title: 'Filed by the app' });
  t.equal(issue.status, 201);
  const repos = await asInstallation.apps.listReposAccessibleToInstallation();
  t.same(
    repos.data.repositories.map((r) => r.full_name),
    ['octo-org/service'],
  );

  const auth = createAppAuth({ appId: 4242, privateKey, installationId: 77, request: asApp.request });
  const { token } = await auth({ type: 'installation' });
  t.match(token, /^ghs_[A-Za-z0-9]{36}$/);
  const viaGraphql: any = await graphql('{ repository(owner: "octo-org", name: "service") { issues(first: 5) { totalCount } } }', {
    baseUrl: twin.url,
    headers: { authorization: `token ${token}` },
  });
  t.equal(viaGraphql.repository.issues.totalCount, 1);

  await twin.advance(new Date(Date.parse('2026-01-05T10:00:00Z') + 2 * 3600_000));
  const expired = await fetch(`${twin.url}/repos/octo-org/service`, { headers: { authorization: `token ${token}` } });
  t.equal(expired.status, 401, 'an installation token expires after an hour of the environment clock');
});

function jwt(payload: object, key: string): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc(payload)}`;
  return `${body}.${createSign('RSA-SHA256').update(body).sign(key).toString('base64url')}`;
}

t.test('bad JWTs are refused', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const call = (token: string, path = '/app') => fetch(twin.url + path, { headers: { authorization: `Bearer ${token}` } });
  t.equal((await call(jwt({ iss: 4242, iat: now - 30, exp: now + 300 }, privateKey))).status, 200);
  const wrongKey = await call(jwt({ iss: 4242, iat: now - 30, exp: now + 300 }, pair().privateKey));
  t.equal(wrongKey.status, 401);
  t.equal(((await wrongKey.json()) as any).message, 'A JSON web token could not be decoded');
  const expired = await call(jwt({ iss: 4242, iat: now - 900, exp: now - 300 }, privateKey));
  t.equal(expired.status, 401);
  t.match(((await expired.json()) as any).message, /'Expiration time' claim/);
  t.equal((await call(jwt({ iss: 4242, iat: now, exp: now + 3600 }, privateKey))).status, 401, 'longer than ten minutes');
  t.equal((await call(jwt({ iss: 999, iat: now, exp: now + 300 }, privateKey))).status, 401, 'unknown app');
  t.equal((await call(jwt({ iss: 4242, iat: now - 30, exp: now + 300 }, privateKey), '/user')).status, 401, 'a JWT is not a user credential');
  t.equal((await call('a.b.c')).status, 401);
  const noToken = await fetch(`${twin.url}/installation/repositories`, { headers: { authorization: `token ${twin.apiKey}` } });
  t.equal(noToken.status, 403);
});

t.test("an installation token reaches only what the installation was granted (GitHub's permission table)", async (t) => {
  // The app holds issues:write and metadata:read — no contents, no pull requests.
  const asInstallation = new Octokit({ baseUrl: twin.url, authStrategy: createAppAuth, auth: { appId: 4242, privateKey, installationId: 77 }, log: quiet });
  t.equal((await asInstallation.repos.get({ owner: 'octo-org', repo: 'service' })).status, 200, 'metadata is always readable');
  t.equal((await asInstallation.issues.listForRepo({ owner: 'octo-org', repo: 'service' })).status, 200);
  const write = await asInstallation.repos
    .createOrUpdateFileContents({ owner: 'octo-org', repo: 'service', path: 'a.txt', message: 'add', content: Buffer.from('a').toString('base64') })
    .catch((e) => e);
  t.equal(write.status, 403);
  t.equal(write.response.data.message, 'Resource not accessible by integration');
  t.equal(write.response.headers['x-accepted-github-permissions'], 'single_file=write; contents=write');
  const pulls = await asInstallation.pulls.list({ owner: 'octo-org', repo: 'service' }).catch((e) => e);
  t.equal(pulls.status, 403);
  t.equal(pulls.response.headers['x-accepted-github-permissions'], 'pull_requests=read');

  // A token asked with fewer permissions has only those; more than granted is refused.
  const asApp = new Octokit({ baseUrl: twin.url, authStrategy: createAppAuth, auth: { appId: 4242, privateKey }, log: quiet });
  const narrow = await asApp.apps.createInstallationAccessToken({ installation_id: 77, permissions: { issues: 'read' } });
  t.same(narrow.data.permissions, { issues: 'read' });
  const readOnly = new Octokit({ baseUrl: twin.url, auth: narrow.data.token, log: quiet });
  t.equal((await readOnly.issues.listForRepo({ owner: 'octo-org', repo: 'service' })).status, 200);
  const create = await readOnly.issues.create({ owner: 'octo-org', repo: 'service', title: 'no' }).catch((e) => e);
  t.equal(create.status, 403);
  t.equal(create.response.headers['x-accepted-github-permissions'], 'issues=write');
  const wider = await asApp.apps.createInstallationAccessToken({ installation_id: 77, permissions: { contents: 'write' } }).catch((e) => e);
  t.equal(wider.status, 422);
});
