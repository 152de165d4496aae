// The runtime's router: exact templates (a `{name}` never spans `/`), a last `{+name}` as a
// wildcard, static segments before parameters, trailing slashes per twin, and a generic layer's
// routes registered only where no hand-written route has the same method and template.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { TemplateRouter, routeTwin } from '../../twin-runtime/router.js';
import { findMyWayPath, templateFromFindMyWay, templateRegExp, templateShape } from '../../twin-runtime/path-template.js';
import type { TwinRoute } from '../../twin-runtime/contract.js';
import github from '../../twins/github/index.js';
import stripe from '../../twins/stripe/index.js';
import slack from '../../twins/slack/index.js';

const handler: TwinRoute['handler'] = () => ({ status: 200 });

t.test('templates: one spelling, three readings', async (t) => {
  t.equal(templateShape('/v1/customers/{customer}'), templateShape('/v1/customers/{id}'));
  t.equal(templateShape('/repos/{o}/{r}/contents/{+path}'), templateShape('/repos/{owner}/{repo}/contents/{path}'));
  t.same(findMyWayPath('/repos/{owner}/{repo}/contents/{+path}'), { path: '/repos/:p0/:p1/contents/*', names: ['owner', 'repo', 'path'] });
  t.same(findMyWayPath('/enterprises/{enterprise}/teams/{enterprise-team}'), { path: '/enterprises/:p0/teams/:p1', names: ['enterprise', 'enterprise-team'] });
  t.equal(templateFromFindMyWay('/environments/:id/twins/:twin_id'), '/environments/{id}/twins/{twin_id}');
  t.equal(templateFromFindMyWay('/docs/*'), '/docs/{+wildcard}');
  const { regex, names } = templateRegExp('/v1/customers/{id}', { trailingSlash: true });
  t.equal(regex.source, '^\\/v1\\/customers\\/([^/]+)\\/?$');
  t.same(names, ['id']);
  t.ok(templateRegExp('/repos/{o}/{r}/contents/{+path}').regex.test('/repos/a/b/contents/x/y/z.txt'));
  t.notOk(templateRegExp('/v1/customers/{id}').regex.test('/v1/customers/a/b'), 'a {name} never spans /');
  t.throws(() => templateRegExp('/a/{+rest}/b'), /must end the template/);
});

t.test('exact templates, static before parameter, wildcard last', async (t) => {
  const r = new TemplateRouter<string>();
  r.add('GET', '/repos/{owner}/{repo}/commits/{ref}', 'commit');
  r.add('GET', '/repos/{owner}/{repo}/contents/{+path}', 'contents');
  r.add('GET', '/v1/customers/{customer}', 'customer');
  r.add('GET', '/v1/customers/search', 'search');
  t.same(r.find('GET', '/v1/customers/search'), { value: 'search', template: '/v1/customers/search', params: {} });
  t.same(r.find('GET', '/v1/customers/cus_%41')?.params, { customer: 'cus_A' }, 'parameters are percent-decoded');
  t.equal(r.find('GET', '/repos/o/r/commits/abc/status'), undefined, 'a {name} does not swallow the next segment');
  t.same(r.find('GET', '/repos/o/r/commits/feature%2Fx')?.params, { owner: 'o', repo: 'r', ref: 'feature/x' });
  t.same(r.find('GET', '/repos/o/r/contents/a/b/c.txt')?.params, { owner: 'o', repo: 'r', path: 'a/b/c.txt' });
  t.equal(r.find('GET', '/repos/o/r/contents/'), undefined, 'a wildcard binds something');
  t.equal(r.find('POST', '/v1/customers/search'), undefined);
  t.equal(r.find('GET', '/v1/customers/%E0%A4%A'), undefined, 'malformed percent-encoding is a miss, not a throw');
  t.equal(r.find('GET', '/v1/customers/search/'), undefined, 'trailing slashes count unless the twin says otherwise');
  r.add('GET', '/repos/{owner}/{repo}/commits/{ref}/status', 'status');
  t.equal(r.find('GET', '/repos/o/r/commits/abc/status')?.value, 'status');
  t.throws(() => r.add('GET', '/v1/customers/{id}', 'again'), /Two routes/, 'one route per method and template shape');
  t.ok(r.has('GET', '/v1/customers/{id}'));
  t.notOk(r.has('DELETE', '/v1/customers/{id}'));
  t.same(r.methodsFor('/v1/customers/cus_1'), ['GET']);

  const slashes = new TemplateRouter<string>({ ignoreTrailingSlash: true });
  slashes.add('GET', '/repos/{owner}/{repo}/git/refs', 'list');
  slashes.add('GET', '/repos/{owner}/{repo}/git/refs/{+ref}', 'one');
  t.equal(slashes.find('GET', '/repos/o/r/git/refs/')?.value, 'list');
  t.same(slashes.find('GET', '/repos/o/r/git/refs/heads/main/')?.params, { owner: 'o', repo: 'r', ref: 'heads/main' });
});

t.test('routes go into their trees on the first lookup that needs them', async (t) => {
  const r = new TemplateRouter<number>();
  for (let i = 0; i < 60; i++) r.add(i % 2 ? 'POST' : 'GET', `/things/${i}/{id}`, i);
  t.equal(r.templates().length, 60);
  t.equal(r.find('POST', '/things/59/x')?.value, 59);
  t.equal(r.find('GET', '/things/58/x')?.value, 58);
  t.equal(r.find('GET', '/things/59/x'), undefined, 'method and template both count');
});

t.test('the generic layer fills in; hand-written routes win', async (t) => {
  const hand: TwinRoute = { method: 'GET', path: '/v1/things/{thing}', handler };
  const generic: TwinRoute[] = [
    { method: 'GET', path: '/v1/things/{id}', handler }, // same method + template: not registered
    { method: 'GET', path: '/v1/things/special', handler }, // static: beats the hand-written parameter
    { method: 'DELETE', path: '/v1/things/{id}', handler },
  ];
  const { router, shadowedGeneric } = routeTwin({ routes: [hand], generic: { routes: () => generic } });
  t.same(shadowedGeneric, [generic[0]]);
  t.equal(router.find('GET', '/v1/things/t_1')?.value.route, hand);
  t.equal(router.find('GET', '/v1/things/t_1')?.value.source, 'modelled');
  t.equal(router.find('GET', '/v1/things/special')?.value.source, 'generic');
  t.equal(router.find('DELETE', '/v1/things/t_1')?.value.route, generic[2]);
});

const require = createRequire(import.meta.url);
const githubSpec = JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};
const githubOperations: TwinRoute[] = Object.entries(githubSpec.paths).flatMap(([path, item]) =>
  (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => item[m.toLowerCase()]).map((method) => ({ method, path, handler })),
);
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, 'x1');

t.test('GitHub: no hand-written route answers another operation of the published spec', async (t) => {
  t.ok(githubOperations.length > 1000, `${githubOperations.length} operations`);
  const { router } = routeTwin({ ...github, generic: undefined });
  const answeredByAnother = githubOperations.flatMap((op) => {
    const found = router.find(op.method, concrete(op.path));
    return found && templateShape(found.template) !== templateShape(op.path) ? [`${op.method} ${op.path} → ${found.template}`] : [];
  });
  // None: the 18 greedy cases of `commits/{+ref}` and `branches/{+branch}` (…/status, …/protection)
  // are gone, and `issues/events` (which `issues/{issue_number}` used to take) has its own route.
  // A few static paths are taken by a hand route's parameter here, where the generic layer is left
  // out; in the twin their generic routes are static and win (the next test checks every path).
  t.same(answeredByAnother, [
    'GET /gists/starred → /gists/{gist_id}',
    'GET /gists/{gist_id}/comments → /gists/{gist_id}/{sha}',
    'GET /gists/{gist_id}/commits → /gists/{gist_id}/{sha}',
    'GET /gists/{gist_id}/forks → /gists/{gist_id}/{sha}',
    'GET /gists/{gist_id}/star → /gists/{gist_id}/{sha}',
    'GET /repos/{owner}/{repo}/rulesets/rule-suites → /repos/{owner}/{repo}/rulesets/{ruleset_id}',
  ]);
  t.equal(router.find('GET', '/repos/o/r/commits/abc/status')?.template, '/repos/{owner}/{repo}/commits/{ref}/status', 'its own (modelled) route');
  t.equal(
    router.find('GET', '/repos/o/r/branches/main/protection')?.template,
    '/repos/{owner}/{repo}/branches/{branch}/protection',
    'its own (modelled) route',
  );
});

t.test('GitHub with every spec operation as a generic route: each path reaches its own operation', async (t) => {
  const { router, shadowedGeneric } = routeTwin({ ...github, generic: { routes: () => githubOperations } });
  // Paths GitHub answers that its description leaves out: the hand-written routes beyond the spec.
  // (The GitHub Enterprise spellings under /api/… and the by-id spellings under
  // /repositories/{repository_id}[/…] repeat the same routes and are left aside here.)
  const dotCom = github.routes.filter((r) => !r.path.startsWith('/api/') && !/^\/repositories\/\{repository_id\}(\/|$)/.test(r.path));
  const extras = dotCom.filter((r) => !shadowedGeneric.some((g) => g.method === r.method && templateShape(g.path) === templateShape(r.path)));
  t.same(extras.map((r) => `${r.method} ${r.path}`).sort(), [
    'GET /_twin-archives/{owner}/{repo}/{format}/{sha}',
    'GET /_twin-assets/{owner}/{repo}/{asset_id}',
    'GET /_twin-gists/{gist_id}/{sha}/{filename}',
    'GET /_twin-logs/{owner}/{repo}/jobs/{job}',
    'GET /_twin-logs/{owner}/{repo}/runs/{run_id}/{attempt}',
    'GET /repos/{owner}/{repo}/contents',
    'GET /repos/{owner}/{repo}/git/refs',
    'GET /repos/{owner}/{repo}/git/refs/{+ref}',
    'GET /{owner}/{repo}/info/refs',
    'GET /{owner}/{repo}/raw/{ref}/{+path}',
    'GET /{owner}/{repo}/releases/download/{tag}/{name}',
    'POST /graphql',
    'POST /{owner}/{repo}/git-receive-pack',
    'POST /{owner}/{repo}/git-upload-pack',
  ]);
  t.equal(shadowedGeneric.length, dotCom.length - extras.length, 'every other hand-written route wins over its generic twin');
  const wrong = githubOperations.flatMap((op) => {
    const found = router.find(op.method, concrete(op.path));
    return found && templateShape(found.template) === templateShape(op.path) ? [] : [`${op.method} ${op.path} → ${found?.template}`];
  });
  t.same(wrong, []);
  // `issues/events` is modelled now; what matters is that `issues/{issue_number}` does not take it.
  t.equal(router.find('GET', '/repos/o/r/issues/events')?.template, '/repos/{owner}/{repo}/issues/events');
  t.equal(router.find('GET', '/repos/o/r/issues/12/sub_issues')?.value.source, 'generic');
  t.equal(router.find('GET', '/repos/o/r/issues/12')?.value.source, 'modelled');
});

t.test('every shipped twin routes without duplicate templates', async (t) => {
  for (const def of [stripe, github, slack]) {
    const { router, shadowedGeneric } = routeTwin(def);
    const generic = def.generic?.routes() ?? [];
    t.ok(generic.length > 0, `${def.slug} has a generic layer`);
    t.equal(router.templates().length, def.routes.length + generic.length - shadowedGeneric.length, def.slug);
    for (const r of def.routes) {
      const found = router.find(r.method, concrete(r.path));
      t.equal(found?.value.source, 'modelled', `${def.slug} ${r.method} ${r.path} routes to its hand-written route`);
    }
  }
});

t.test('the shipped GitHub twin: the operations a greedy route used to swallow reach the generic layer', async (t) => {
  const { router } = routeTwin(github);
  t.same(router.find('GET', '/repos/o/r/commits/abc/status')?.template, '/repos/{owner}/{repo}/commits/{ref}/status');
  t.same(router.find('GET', '/repos/o/r/branches/main/protection')?.template, '/repos/{owner}/{repo}/branches/{branch}/protection');
  // `issues/events` is modelled now; what matters is that `issues/{issue_number}` does not take it.
  t.equal(router.find('GET', '/repos/o/r/issues/events')?.template, '/repos/{owner}/{repo}/issues/events');
  t.equal(router.find('GET', '/repos/o/r/issues/12/sub_issues')?.value.source, 'generic');
  t.equal(router.find('GET', '/repos/o/r/issues/12')?.value.source, 'modelled');
});

t.test('routing.prefixes: every route also answers under a prefix, registered once', async (t) => {
  const routes: TwinRoute[] = [
    { method: 'GET', path: '/', handler },
    { method: 'GET', path: '/repos/{owner}/{repo}', handler },
    { method: 'GET', path: '/{owner}/{repo}/info/refs', handler, rootOnly: true },
    { method: 'GET', path: '/{owner}/{repo}', handler },
  ];
  const routed = routeTwin({ routes, routing: { ignoreTrailingSlash: true, headAsGet: true, prefixes: ['/api/v3'] } });
  t.equal(routed.router.templates().length, routes.length, 'no route registered twice');
  t.same(routed.match('GET', '/api/v3/repos/o/r'), {
    value: routed.router.find('GET', '/repos/o/r')!.value,
    template: '/api/v3/repos/{owner}/{repo}',
    params: { owner: 'o', repo: 'r' },
  });
  t.equal(routed.match('GET', '/api/v3')?.template, '/api/v3', 'the prefix alone is the root');
  t.equal(routed.match('GET', '/api/v3/')?.template, '/api/v3', 'with a trailing slash too');
  t.equal(routed.match('HEAD', '/api/v3/repos/o/r')?.template, '/api/v3/repos/{owner}/{repo}', 'HEAD as GET under the prefix');
  t.equal(routed.match('GET', '/repos/o/r')?.template, '/repos/{owner}/{repo}', 'the path as sent still answers');
  // A root-only route is not under the prefix: the path as sent is matched instead.
  t.same(routed.match('GET', '/api/v3/o/info/refs'), undefined);
  t.equal(routed.match('GET', '/api/v3x/repos')?.template, undefined, 'a prefix is a whole segment');
  t.same(routed.match('GET', '/api/v3x')?.params, { owner: 'api', repo: 'v3x' }, 'not under the prefix: matched as sent');
});
