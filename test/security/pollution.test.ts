// Prototype pollution, end to end: a corpus of pollution payloads (forms, queries, JSON, nested,
// URL-encoded spellings) sent to every route of every twin in the catalog (enumerated from each
// twin's definition, path parameters filled with real ids where the twin has them) through the
// gateway, and to every body-taking route of the control plane (enumerated from the Fastify app's
// OpenAPI document); then a test is evaluated over that traffic. Afterwards no process has a
// changed Object.prototype (the twins, separate processes, say so in their admin health answer;
// the control plane runs in this process) and nothing answered 500.

import t from 'tap';
import { request as httpRequest, Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { startOrchestratedControlPlane, waitReady } from '../orchestration/helpers.js';
import { loadTwin } from '../../twin-runtime/registry.js';
import type { TwinRoute } from '../../twin-runtime/contract.js';
import { ADMIN_SECRET_HEADER } from '../../twin-runtime/server.js';
import { INPUT_LIMITS, prototypeAdditions, prototypesIntact } from '../../twin-runtime/safe-input.js';

/** Each payload plants its own marker, so a failure says which one got through. */
const FORM_KEY_PAYLOADS = [
  '__proto__[polluted_f1]=yes',
  'constructor[prototype][polluted_f2]=yes',
  'a[__proto__][polluted_f3]=yes',
  'a[constructor][prototype][polluted_f4]=yes',
  '%5F_proto__[polluted_f5]=yes',
  '__proto__%5Bpolluted_f6%5D=yes',
  '%5F%5Fproto%5F%5F%5Bpolluted_f7%5D=yes',
  '__pro__proto__to__[polluted_f8]=yes',
  'metadata[__proto__][polluted_f9]=yes',
  'metadata[constructor][prototype][polluted_f10]=yes',
  'items[0][__proto__][polluted_f11]=yes',
  '[__proto__][polluted_f12]=yes',
  '__proto__[]=polluted_f13',
  'constructor%5Bprototype%5D%5Bpolluted_f14%5D=yes',
  'a[b][__proto__][polluted_f15]=yes',
  'expand[]=__proto__.polluted_f16',
  'expand[]=constructor.prototype.polluted_f17',
  'a[prototype][polluted_f18]=yes',
  '__proto__.polluted_f19=yes',
];

/** Values that name a prototype member, for parameters a twin looks up in a table (events, states, sorts, settings). */
const INHERITED_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const LOOKED_UP = [
  'event',
  'state',
  'sort',
  'direction',
  'type',
  'status',
  'setting',
  'filter',
  'permission',
  'role',
  'visibility',
  'affiliation',
  'merge_method',
  'content',
  'interval',
  'collection_method',
  'mode',
  'reason',
  'types',
  'method',
];
const lookups = (form: boolean) =>
  LOOKED_UP.map((name, i) => [name, INHERITED_NAMES[i % INHERITED_NAMES.length]!] as const)
    .map(([k, v]) => (form ? `${k}=${v}` : `"${k}":"${v}"`))
    .join(form ? '&' : ',');

/** Arguments whose values are JSON text (Slack's blocks, attachments, metadata) or name a prototype member. */
const FORM_VALUE_PAYLOADS = [
  lookups(true),
  `blocks=${encodeURIComponent('[{"type":"section","__proto__":{"polluted_v1":"yes"}}]')}`,
  `attachments=${encodeURIComponent('[{"constructor":{"prototype":{"polluted_v2":"yes"}}}]')}`,
  `metadata=${encodeURIComponent('{"event_type":"t","event_payload":{"__proto__":{"polluted_v3":"yes"},"constructor":{"prototype":{"polluted_v4":"yes"}}}}')}`,
  'channel=%23general&text=pollution',
  `query=${encodeURIComponent("__proto__:'polluted_v5' OR constructor:'x' OR metadata['__proto__']:'y'")}`,
];

const JSON_PAYLOADS = [
  JSON.stringify({ name: 'pollution', title: 'pollution', body: 'x', channel: '#general', text: 'x' }).slice(0, -1) +
    ',"__proto__":{"polluted_j1":"yes"},"constructor":{"prototype":{"polluted_j2":"yes"}},' +
    '"metadata":{"__proto__":{"polluted_j3":"yes"}},"config":{"__proto__":{"polluted_j4":"yes"}},' +
    '"fields":{"__proto__":{"polluted_j5":"yes"},"constructor":{"prototype":{"polluted_j6":"yes"}}},' +
    '"labels":[{"__proto__":{"polluted_j7":"yes"}}],"\\u005f_proto__":{"polluted_j8":"yes"},' +
    '"blocks":[{"type":"section","__proto__":{"polluted_j9":"yes"}}],"a":{"b":{"c":{"__proto__":{"polluted_j10":"yes"}}}},' +
    '"\\u005F\\u005Fproto\\u005F\\u005F":{"polluted_j11":"yes"},"c\\u006fnstructor":{"prototype":{"polluted_j12":"yes"}}}',
  '[{"__proto__":{"polluted_j13":"yes"}},{"constructor":{"prototype":{"polluted_j14":"yes"}}}]',
  `{${lookups(false)},"config":{"url":"http://127.0.0.1:9/hook","content_type":"constructor"},"events":["__proto__"],"labels":["constructor"]}`,
];

// About 1,900 requests: 20 s on an idle 2-core machine, over a minute when it is shared.
t.setTimeout(300_000);

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

interface Answer {
  status: number;
  text: string;
  /** The `Twin-Fidelity` header: `unsupported` on an honest refusal (a 501 the runtime's NotSimulated answers). */
  fidelity?: string;
}

/** One request with any method and body (fetch refuses a body on GET). Loopback only. */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    if (u.hostname !== '127.0.0.1') throw new Error(`not a loopback address: ${url}`);
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), fidelity: res.headers['twin-fidelity'] as string | undefined }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The requests the corpus makes of one route: every form payload once in the query and once in a
 * form body, every JSON payload as the body.
 */
function corpusRequests(path: string): { path: string; contentType?: string; body?: string }[] {
  const form = 'application/x-www-form-urlencoded';
  return [
    { path: `${path}?${FORM_VALUE_PAYLOADS.join('&')}`, contentType: form, body: FORM_KEY_PAYLOADS.join('&') },
    { path: `${path}?${FORM_KEY_PAYLOADS.join('&')}`, contentType: 'application/json', body: JSON_PAYLOADS[0] },
    { path, contentType: form, body: FORM_VALUE_PAYLOADS.join('&') },
    ...JSON_PAYLOADS.slice(1).map((body) => ({ path, contentType: 'application/json', body })),
  ];
}

/** Fill `{name}` segments; names a twin does not give a value get a placeholder (the route still parses). */
function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name.replace(/__\d+$/, '')] ?? 'pollution'));
}

/** Deleting routes run last, so the ids the others use still exist. */
function inWaves(routes: TwinRoute[]): TwinRoute[][] {
  return [routes.filter((r) => r.method !== 'DELETE'), routes.filter((r) => r.method === 'DELETE')];
}

/** Run `fn` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const cp = await startOrchestratedControlPlane({ defaultPlan: 'paygo' });
t.teardown(async () => {
  agent.destroy();
  await cp.stop();
});
const token = await cp.token({ email: 'mallory@example.com', org: 'pollution' });

t.test('pollution payloads to every twin route and the control plane leave every prototype intact, nothing answers 500', async (t) => {
  const catalog = (await cp.call('GET', '/twins/catalog', { token })).body as { slug: string }[];
  t.ok(catalog.length >= 3, 'the catalog lists the twins');
  const created = await cp.call('POST', '/environments', { token, body: { name: 'pollution', twins: catalog.map((c) => ({ twin: c.slug })) } });
  t.equal(created.status, 201);
  const env = await waitReady(cp, token, created.body.id, 60_000);
  const serverErrors: string[] = [];
  let sent = 0;
  let stripeUrl = '';
  let stripeAuth: Record<string, string> = {};

  for (const twin of env.twins as { id: string; twin_slug: string; url: string }[]) {
    const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key as string;
    const auth = { authorization: `Bearer ${key}` };
    if (twin.twin_slug === 'stripe') [stripeUrl, stripeAuth] = [twin.url, auth];
    const values = await realIds(twin.twin_slug, twin.url, auth);
    const definition = await loadTwin(twin.twin_slug);
    t.ok(definition.routes.length > 0, `${twin.twin_slug} has routes`);
    for (const wave of inWaves(definition.routes)) {
      const requests = wave.flatMap((route) => corpusRequests(fillPath(route.path, values)).map((r) => ({ ...r, method: route.method })));
      await inParallel(requests, 6, async (r) => {
        const headers: Record<string, string> = { ...auth, ...(r.contentType ? { 'content-type': r.contentType } : {}) };
        const res = await send(twin.url + r.path, r.method, headers, r.body);
        sent++;
        // An operation a twin does not simulate is refused honestly (501, `Twin-Fidelity: unsupported`), not a server error.
        const honestRefusal = res.status === 501 && res.fidelity === 'unsupported';
        if (res.status >= 500 && !honestRefusal)
          serverErrors.push(`${twin.twin_slug} ${r.method} ${r.path.slice(0, 80)} → ${res.status} ${res.text.slice(0, 200)}`);
      });
    }
  }

  // A body past the twins' limit (and past it by far): the gateway holds only what the twin needs
  // to see that, and the twin refuses it in its own shape.
  const huge = await send(
    `${stripeUrl}/v1/customers`,
    'POST',
    { ...stripeAuth, 'content-type': 'application/x-www-form-urlencoded' },
    'a=' + 'x'.repeat(INPUT_LIMITS.maxBodyBytes + 4 * 1024 * 1024),
  );
  t.equal(huge.status, 413, 'an oversized body through the gateway is refused');
  t.equal(JSON.parse(huge.text).error.type, 'invalid_request_error');

  // The control plane's body-taking routes, from the app's own route table (its OpenAPI document).
  const testId = await pollutedTest(env.twins.map((x: { twin_slug: string }) => x.twin_slug));
  const stripeTwin = env.twins.find((x: { twin_slug: string }) => x.twin_slug === 'stripe');
  const cpValues: Record<string, string> = {
    environment_id: env.id,
    twin_id: stripeTwin.id,
    environment_twin_id: stripeTwin.id,
    resource: 'customer',
    external_id: 'cus_pollution',
    test_id: testId,
  };
  const spec = cp.app.swagger() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
  let controlPlaneRoutes = 0;
  for (const [template, operations] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation.requestBody && !['post', 'put', 'patch'].includes(method)) continue;
      controlPlaneRoutes++;
      const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => cpValues[name] ?? randomUUID());
      for (const r of corpusRequests(path).filter((x) => x.contentType === 'application/json')) {
        const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(r.contentType ? { 'content-type': r.contentType } : {}) };
        const res = await send(cp.url + r.path, method.toUpperCase(), headers, r.body);
        sent++;
        if (res.status >= 500) serverErrors.push(`control plane ${method.toUpperCase()} ${r.path.slice(0, 80)} → ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
  }
  t.ok(controlPlaneRoutes >= 10, `the control plane has body-taking routes (${controlPlaneRoutes})`);

  // Evaluate a test whose matchers read the polluted names over all of that traffic.
  t.equal((await cp.call('GET', `/environments/${env.id}/logs`, { token })).status, 200, 'logs flushed');
  const logged = cp.services.db
    .prepare(
      "SELECT COUNT(*) AS n, SUM(status_code >= 500 AND NOT (status_code = 501 AND fidelity = 'unsupported')) AS errors FROM request_logs WHERE environment_id = ?",
    )
    .get(env.id) as {
    n: number;
    errors: number;
  };
  t.ok(logged.n > 1000, `the gateway logged the corpus (${logged.n} requests)`);
  const attempt = await cp.call('POST', `/tests/${testId}/attempts`, { token, body: { environment_id: env.id } });
  t.equal(attempt.status, 201, 'the attempt is evaluated');
  t.equal(attempt.body.results.length, 5);

  t.same(serverErrors, [], `no request of ${sent} answered 5xx`);
  t.equal(logged.errors ?? 0, 0, 'no logged request answered 5xx (honest 501 refusals aside)');

  for (const twin of env.twins as { id: string; twin_slug: string }[]) {
    const row = cp.services.db.prepare('SELECT address, admin_secret FROM environment_twins WHERE id = ?').get(twin.id) as {
      address: string;
      admin_secret: string;
    };
    const health = JSON.parse((await send(`${row.address}/_twin/health`, 'GET', { [ADMIN_SECRET_HEADER]: row.admin_secret })).text);
    t.equal(health.prototype_intact, true, `the ${twin.twin_slug} twin's prototypes are intact`);
  }
  t.same(prototypeAdditions(), [], 'the control plane process gained no prototype properties');
  t.ok(prototypesIntact(), "the control plane's prototypes are intact");
  t.equal(({} as Record<string, unknown>).polluted_f1, undefined);
});

/** Real ids for the path parameters a twin has, so routes get past their 404s. */
async function realIds(slug: string, url: string, auth: Record<string, string>): Promise<Record<string, string>> {
  const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' };
  const json = { ...auth, 'content-type': 'application/json' };
  if (slug === 'stripe') {
    const customer = JSON.parse((await send(`${url}/v1/customers`, 'POST', form, 'email=mallory%40example.com')).text);
    const intent = JSON.parse((await send(`${url}/v1/payment_intents`, 'POST', form, 'amount=1000&currency=usd')).text);
    return { customer: customer.id, intent: intent.id, payment_method: 'pm_card_visa' };
  }
  if (slug === 'github') {
    const me = JSON.parse((await send(`${url}/user`, 'GET', auth)).text);
    const repo = JSON.parse((await send(`${url}/user/repos`, 'POST', json, JSON.stringify({ name: 'pollution', auto_init: true }))).text);
    const issue = JSON.parse((await send(`${url}/repos/${me.login}/${repo.name}/issues`, 'POST', json, JSON.stringify({ title: 'pollution' }))).text);
    return { owner: me.login, username: me.login, repo: repo.name, issue_number: String(issue.number), branch: 'main', ref: 'heads/main', path: 'README.md' };
  }
  return {};
}

/** A test whose matchers walk the polluted names (bodies, queries, captures, json_subset). */
async function pollutedTest(twins: string[]): Promise<string> {
  const body =
    `{"name":"pollution","twins":${JSON.stringify(twins)},"assertions":[` +
    `{"says":"no body planted a prototype","never":{"body":{"/__proto__/polluted_f1":"yes","/constructor/prototype/polluted_f2":"yes"}}},` +
    `{"says":"queries read","count":{"at_least":0},"match":{"query":{"constructor":{"present":true},"__proto__":{"present":true},"toString":{"present":true}}}},` +
    `{"says":"json subsets","never":{"body":{"/metadata":{"json_subset":{"__proto__":{"polluted_j3":"yes"},"constructor":{"prototype":{"x":1}}}},"/a/b/c/__proto__/polluted_j10":"yes"}}},` +
    `{"says":"headers and params","never":{"path":"/v1/customers/{__proto__}","params":{"__proto__":"x"},"headers":{"constructor":"x"},"response":{"body":{"/__proto__/polluted_j1":"yes"}}}},` +
    `{"says":"captures","sequence":[{"match":{"method":"POST"},"capture":{"v":"body/__proto__","w":"query.constructor"}},{"match":{"body":{"/metadata":{"var":"v"}}}}]}` +
    `]}`;
  const res = await send(`${cp.url}/tests`, 'POST', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body);
  if (res.status !== 201) throw new Error(`creating the test answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text).id;
}
