// GitHub's routing as api.github.com has it: every operation reaches its own route (never a greedy
// neighbour; the generic layer serves those the twin does not model), trailing slashes ignored, rate-limit headers on every
// answer, ETag + If-None-Match → 304 (not counted), and `documentation_url` naming the operation's
// own page (GitHub's OpenAPI `externalDocs.url`), the REST index only for a path no operation has.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { startGitHub, failure } from './setup.js';

const require = createRequire(import.meta.url);
const spec = JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8')) as {
  paths: Record<string, Record<string, { externalDocs?: { url: string } }>>;
};
/** The page GitHub's description gives an operation (read here, independently of the twin's table). */
const docsOf = (method: string, template: string): string => spec.paths[template]![method.toLowerCase()]!.externalDocs!.url;

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;
await octokit.repos.createForAuthenticatedUser({ name: 'r', auto_init: true });

async function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(twin.url + path, { method, headers: { authorization: `token ${twin.apiKey}`, ...headers } });
}

t.test('operations a greedy route used to answer reach their own operation', async (t) => {
  await octokit.repos.updateBranchProtection({
    owner: 'octocat',
    repo: 'r',
    branch: 'main',
    required_status_checks: { strict: false, contexts: ['ci'] },
    enforce_admins: false,
    required_pull_request_reviews: null,
    restrictions: null,
  });
  const calls: [string, () => Promise<{ status: number; headers: Record<string, unknown> }>][] = [
    ['GET /repos/{owner}/{repo}/commits/{ref}/status', () => octokit.repos.getCombinedStatusForRef({ owner: 'octocat', repo: 'r', ref: 'main' })],
    ['GET /repos/{owner}/{repo}/commits/{ref}/check-runs', () => octokit.checks.listForRef({ owner: 'octocat', repo: 'r', ref: 'main' })],
    ['GET /repos/{owner}/{repo}/branches/{branch}/protection', () => octokit.repos.getBranchProtection({ owner: 'octocat', repo: 'r', branch: 'main' })],
    ['GET …/protection/required_status_checks/contexts', () => octokit.repos.getAllStatusCheckContexts({ owner: 'octocat', repo: 'r', branch: 'main' })],
  ];
  for (const [name, call] of calls) {
    const res = await call();
    t.equal(res.status, 200, name);
    t.ok(res.headers['x-ratelimit-remaining'], `${name}: rate headers`);
  }
  // An operation the twin does not simulate reaches its own route too: its refusal names it.
  const refused = await failure(octokit.repos.listPullRequestsAssociatedWithCommit({ owner: 'octocat', repo: 'r', commit_sha: 'abc' }));
  t.equal(refused.status, 501);
  t.match(refused.body.message, 'GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls', 'the refusal names its own operation');
  t.equal(refused.headers['twin-fidelity'], 'unsupported');
  // Their errors name their own operation's page, not the greedy neighbour's.
  const missing = await failure(octokit.repos.getBranchProtection({ owner: 'octocat', repo: 'nope', branch: 'main' }));
  t.equal(missing.status, 404);
  t.same(missing.body, { message: 'Not Found', documentation_url: docsOf('GET', '/repos/{owner}/{repo}/branches/{branch}/protection'), status: '404' });
  // The operations the twin models still answer.
  t.equal((await octokit.repos.getCommit({ owner: 'octocat', repo: 'r', ref: 'main' })).status, 200);
  t.equal((await octokit.repos.getBranch({ owner: 'octocat', repo: 'r', branch: 'main' })).status, 200);
});

t.test('documentation_url: the operation for a missing repository, the index for an unknown path', async (t) => {
  const missing = await failure(octokit.issues.listForRepo({ owner: 'octocat', repo: 'nope' }));
  t.equal(missing.status, 404);
  t.equal(missing.body.documentation_url, docsOf('GET', '/repos/{owner}/{repo}/issues'));
  const repo = await failure(octokit.repos.get({ owner: 'octocat', repo: 'nope' }));
  t.equal(repo.body.documentation_url, docsOf('GET', '/repos/{owner}/{repo}'));
  const unknown = await raw('GET', '/no/such/endpoint');
  t.equal(unknown.status, 404);
  t.same(await unknown.json(), { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
  t.ok(unknown.headers.get('x-ratelimit-limit'), 'route misses carry the rate headers');
});

t.test('trailing slashes answer as without', async (t) => {
  const without = await raw('GET', '/repos/octocat/r/git/refs');
  const withSlash = await raw('GET', '/repos/octocat/r/git/refs/');
  t.equal(without.status, 200);
  t.equal(withSlash.status, 200);
  t.same(await withSlash.json(), await without.json());
  t.equal((await raw('GET', '/repos/octocat/r/')).status, 200);
  t.equal((await raw('GET', '/user/')).status, 200);
});

t.test('X-RateLimit-* on every answer, 401s counted against the unauthenticated window', async (t) => {
  const ok = await raw('GET', '/repos/octocat/r');
  const notFound = await raw('GET', '/repos/octocat/nope');
  t.equal(notFound.status, 404);
  for (const res of [ok, notFound]) {
    t.equal(res.headers.get('x-ratelimit-limit'), '5000');
    t.equal(res.headers.get('x-ratelimit-resource'), 'core');
    t.match(res.headers.get('x-ratelimit-reset'), /^\d+$/);
  }
  t.equal(Number(notFound.headers.get('x-ratelimit-remaining')), Number(ok.headers.get('x-ratelimit-remaining')) - 1, 'a 404 counts');
  const anonymous = await fetch(`${twin.url}/user`);
  t.equal(anonymous.status, 401);
  t.equal(anonymous.headers.get('x-ratelimit-limit'), '60');
  const again = await fetch(`${twin.url}/user`, { headers: { authorization: 'token wrong' } });
  t.equal(again.status, 401);
  t.equal(Number(again.headers.get('x-ratelimit-used')), Number(anonymous.headers.get('x-ratelimit-used')) + 1);
});

t.test('ETag and If-None-Match: 304, not counted against the limit', async (t) => {
  const first = await raw('GET', '/repos/octocat/r');
  const etag = first.headers.get('etag')!;
  t.match(etag, /^W\/"[0-9a-f]{64}"$/);
  const cached = await raw('GET', '/repos/octocat/r', { 'if-none-match': etag });
  t.equal(cached.status, 304);
  t.equal(await cached.text(), '');
  t.equal(cached.headers.get('etag'), etag);
  t.equal(cached.headers.get('x-ratelimit-remaining'), first.headers.get('x-ratelimit-remaining'), 'a 304 does not count');
  t.equal((await raw('GET', '/repos/octocat/r', { 'if-none-match': '"other", W/"nope"' })).status, 200);
  await octokit.repos.update({ owner: 'octocat', repo: 'r', description: 'changed' });
  const changed = await raw('GET', '/repos/octocat/r', { 'if-none-match': etag });
  t.equal(changed.status, 200, 'a changed body has another ETag');
  t.not(changed.headers.get('etag'), etag);
  // Octokit sends If-None-Match itself when asked, and reports the 304 as an error.
  const viaOctokit = await failure(octokit.repos.get({ owner: 'octocat', repo: 'r', headers: { 'if-none-match': changed.headers.get('etag')! } }));
  t.equal(viaOctokit.status, 304);
  t.equal((await raw('POST', '/user/repos', { 'if-none-match': '*', 'content-type': 'application/json' })).status, 422, 'only GETs are conditional here');
});
