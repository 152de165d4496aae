// Malformed input thrown at every identity/organization/api-key/billing route: never a 500, and
// every error body has the documented shape.

import t from 'tap';
import { startTestControlPlane } from '../helpers/control-plane.js';

/** Small deterministic PRNG so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const ROUTES: [string, string][] = [
  ['GET', '/users/me'],
  ['GET', '/organizations/current'],
  ['GET', '/organizations/current/members'],
  ['POST', '/organizations/current/invitations'],
  ['GET', '/organizations/current/invitations'],
  ['DELETE', '/organizations/current/invitations/{id}'],
  ['POST', '/organizations/current/api-keys'],
  ['GET', '/organizations/current/api-keys'],
  ['DELETE', '/organizations/current/api-keys/{id}'],
  ['GET', '/organizations/current/billing'],
  ['POST', '/organizations/current/billing/upgrade'],
  ['POST', '/organizations/current/billing/checkout'],
];

const RAW_BODIES = [
  '',
  '{',
  '}',
  '[',
  'null',
  'true',
  '0',
  '-1e999',
  '"x"',
  '[]',
  '[{}]',
  '{"a":',
  '{"email":}',
  '{"email":"a@b.co","role":"admin"',
  '{"name":"\\ud800"}',
  '\u0000',
  '{"name": NaN}',
  '{"__proto__": {"admin": true}}',
  '{"constructor": {"prototype": {}}}',
  `{"name":"${'x'.repeat(5000)}"}`,
  '{"expires_at": 1e308}',
  '{"expires_at": -62135596801}',
  '{"expires_at": "9999-12-31T23:59:59Z"}',
  '{"expires_at": "2030-02-30"}',
  '{"expires_at": "2030-01-01T24:00:00"}',
  '{"email": ["a@b.co"], "role": ["admin"]}',
  '{"email": "a@[127.0.0.1]", "role": "member"}',
  '{"email": "\\"q\\"@example.com", "role": "member"}',
  '{"email": "ü@exämple.com", "role": "member"}',
  '{"checkout_session": {"$ne": null}}',
  '{"name": {"toString": 1}}',
];

const PATH_PARAMS = [
  '%00',
  '%ZZ',
  '..',
  '%2e%2e',
  'x'.repeat(3000),
  '😀',
  '{00000000-0000-0000-0000-000000000000}',
  'urn:uuid:00000000-0000-0000-0000-000000000000',
  '00000000000000000000000000000000',
  "'; DROP TABLE api_keys; --",
];
const QUERIES = [
  '',
  '?page=',
  '?page=-1',
  '?page=1e3',
  '?page=99999999999999999999',
  '?size=%00',
  '?page=1&page=2',
  '?size[]=1',
  '?page[a]=1',
  '?size=0x10',
  '?page= 2 ',
  '?page=1_0',
];

t.test('no route answers 500 to malformed input', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });
  const member = await cp.token({ email: 'bob@example.com', org: 'acme', role: 'member' });
  const key = (await cp.call('POST', '/organizations/current/api-keys', { token: admin, body: { name: 'k' } })).body.token;
  const creds = [admin, member, key, undefined, 'Bearer', 'twk_%%%', 'eyJ.eyJ.sig'];
  const random = rng(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  let count = 0;
  const failures: string[] = [];

  const check = async (method: string, path: string, opts: Parameters<typeof cp.call>[2]) => {
    count += 1;
    // fetch cannot send a body with GET; those routes get the query and path cases only.
    if (method === 'GET' && opts) opts = { ...opts, body: undefined, rawBody: undefined };
    let r;
    try {
      r = await cp.call(method, path, opts);
    } catch (e) {
      failures.push(`${method} ${path}: ${(e as Error).message}`);
      return;
    }
    if (r.status >= 500 && r.status !== 502)
      failures.push(`${method} ${path} ${JSON.stringify(opts?.rawBody ?? '').slice(0, 80)} → ${r.status} ${r.text.slice(0, 200)}`);
    if (r.status >= 400 && r.status !== 422 && !(r.body && typeof r.body.detail === 'string'))
      failures.push(`${method} ${path} → ${r.status} without {"detail": "…"}: ${r.text.slice(0, 120)}`);
    if (r.status === 422 && !Array.isArray(r.body?.detail)) failures.push(`${method} ${path} → 422 without detail array`);
  };

  for (const [method, template] of ROUTES) {
    for (const raw of RAW_BODIES) {
      const path = template.replace('{id}', pick(PATH_PARAMS)) + pick(QUERIES);
      await check(method, path, { token: admin, rawBody: raw });
    }
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data; boundary=x']) {
      await check(method, template.replace('{id}', '1'), { token: admin, rawBody: 'a=b', headers: { 'content-type': ct } });
    }
    for (const q of QUERIES) await check(method, template.replace('{id}', pick(PATH_PARAMS)) + q, { token: pick(creds) });
    for (const p of PATH_PARAMS)
      await check(method, template.replace('{id}', p), { token: pick(creds), body: { email: 'x@example.com', role: 'member', name: 'n' } });
    for (let i = 0; i < 6; i++) {
      const body: Record<string, unknown> = {};
      for (const k of ['email', 'role', 'name', 'expires_at', 'checkout_session', 'x']) {
        if (random() < 0.6)
          body[k] = pick<unknown>([null, 0, -1, 1.5, true, '', ' ', 'admin', 'a@b', {}, [], ['x'], { a: 1 }, 'x'.repeat(200), '2999-01-01T00:00:00Z', 1e21]);
      }
      await check(method, template.replace('{id}', crypto.randomUUID()), { token: pick(creds), body });
    }
  }
  t.same(failures, [], `${count} malformed requests, none answered 500`);
  t.ok(count > 500);
  t.equal((await cp.call('GET', '/health/live')).status, 200, 'still alive');
});
