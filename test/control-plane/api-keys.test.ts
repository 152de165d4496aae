// API-key lifecycle against the real app: create (token once), list (no token, oldest first,
// paged), use, revoke (next request 401), expiry, creator's role as of each request, org isolation.

import t from 'tap';
import { startTestControlPlane, type TestControlPlane } from '../helpers/control-plane.js';

let cp: TestControlPlane;
t.before(async () => {
  cp = await startTestControlPlane();
});
t.teardown(() => cp.stop());

const KEYS = '/organizations/current/api-keys';

t.test('create, list without token, use, revoke → next request 401', async (t) => {
  const admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin', firstName: 'Ada', lastName: 'Lovelace' });
  const created = await cp.call('POST', KEYS, { token: admin, body: { name: 'ci' } });
  t.equal(created.status, 201);
  t.match(created.body.token, /^twk_[0-9A-Za-z]{43}$/);
  t.match(created.body.id, /^[0-9a-f-]{36}$/);
  t.same(created.body.created_by, { id: created.body.created_by.id, email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' });
  const lifetime = Date.parse(created.body.expires_at) - Date.parse(created.body.created_at);
  t.equal(lifetime, 90 * 86_400_000, 'default lifetime is 90 days');
  const explicitNull = await cp.call('POST', KEYS, { token: admin, body: { name: 'null-expiry', expires_at: null } });
  t.equal(Date.parse(explicitNull.body.expires_at) - Date.parse(explicitNull.body.created_at), 90 * 86_400_000, 'null means the default');
  t.equal((await cp.call('DELETE', `${KEYS}/${explicitNull.body.id}`, { token: admin })).status, 204);

  const stored = cp.services.db.prepare('SELECT token_sha256, prefix FROM api_keys WHERE id = ?').get(created.body.id) as {
    token_sha256: string;
    prefix: string;
  };
  t.not(stored.token_sha256, created.body.token, 'only a hash is stored');
  t.equal(stored.token_sha256.length, 64);
  t.ok(created.body.token.startsWith(stored.prefix));
  t.equal(stored.prefix.length, 12);

  const list = await cp.call('GET', KEYS, { token: admin });
  t.equal(list.status, 200);
  t.equal(list.body.total, 1);
  t.same(Object.keys(list.body.items[0]).sort(), ['created_at', 'created_by', 'expires_at', 'id', 'name']);
  t.notOk(list.text.includes(created.body.token), 'the token never appears in a list');

  const key = created.body.token as string;
  const me = await cp.call('GET', '/users/me', { token: key });
  t.equal(me.status, 200, 'the key authenticates');
  t.equal(me.body.email, 'ada@example.com');
  t.equal(me.body.role, 'admin');

  const revoked = await cp.call('DELETE', `${KEYS}/${created.body.id}`, { token: key });
  t.equal(revoked.status, 204, 'a key may revoke itself');
  t.equal(revoked.text, '');
  const after = await cp.call('GET', '/users/me', { token: key });
  t.equal(after.status, 401, 'the very next request is refused');
  t.equal(after.headers.get('www-authenticate'), 'Bearer');
  t.ok(cp.services.db.prepare('SELECT 1 FROM api_keys WHERE id = ? AND revoked_at IS NOT NULL').get(created.body.id), 'the row is kept');
  t.equal((await cp.call('DELETE', `${KEYS}/${created.body.id}`, { token: admin })).status, 404, 'revoking again is 404');
  t.equal((await cp.call('GET', KEYS, { token: admin })).body.total, 0, 'revoked keys are not listed');
});

t.test('an API key cannot create keys or invite (403)', async (t) => {
  const admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });
  const key = (await cp.call('POST', KEYS, { token: admin, body: { name: 'agent' } })).body.token;
  const r = await cp.call('POST', KEYS, { token: key, body: { name: 'child' } });
  t.equal(r.status, 403);
  t.type(r.body.detail, 'string');
  const inv = await cp.call('POST', '/organizations/current/invitations', { token: key, body: { email: 'bob@example.com', role: 'member' } });
  t.equal(inv.status, 403);
});

t.test('expired key is listed but answers 401', async (t) => {
  const admin = await cp.token({ email: 'exp@example.com', org: 'expiry-org', role: 'admin' });
  // Two seconds: room for the key to be used once before it expires, even on a loaded machine.
  const soon = new Date(Date.now() + 2000).toISOString();
  const created = await cp.call('POST', KEYS, { token: admin, body: { name: 'short', expires_at: soon } });
  t.equal(created.status, 201);
  t.equal((await cp.call('GET', '/users/me', { token: created.body.token })).status, 200);
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(soon) - Date.now()) + 200));
  t.equal((await cp.call('GET', '/users/me', { token: created.body.token })).status, 401);
  const list = await cp.call('GET', KEYS, { token: admin });
  t.equal(list.body.total, 1);
  t.equal(list.body.items[0].id, created.body.id);
  t.ok(Date.parse(list.body.items[0].expires_at) < Date.now());
});

t.test("a key acts with its creator's role as of each request", async (t) => {
  const asAdmin = await cp.token({ email: 'grace@example.com', org: 'roles-org', role: 'admin' });
  const key = (await cp.call('POST', KEYS, { token: asAdmin, body: { name: 'ci' } })).body.token;
  t.equal((await cp.call('GET', '/organizations/current', { token: key })).body.role, 'admin');
  // A later token demotes Grace; the key loses admin rights on its next request.
  const asMember = await cp.token({ email: 'grace@example.com', org: 'roles-org', role: 'member' });
  t.equal((await cp.call('GET', '/users/me', { token: asMember })).body.role, 'member');
  t.equal((await cp.call('GET', '/organizations/current', { token: key })).body.role, 'member');
  const ckout = await cp.call('POST', '/organizations/current/billing/upgrade', { token: asMember, body: { checkout_session: 'cs_1' } });
  t.equal(ckout.status, 403, 'a member may not upgrade');
  // Once Grace is no longer a member, the key answers 401.
  const org = (await cp.call('GET', '/organizations/current', { token: asMember })).body.id;
  const user = (await cp.call('GET', '/users/me', { token: asMember })).body.id;
  t.ok(cp.services.identity.removeMember(org, user));
  const gone = await cp.call('GET', '/users/me', { token: key });
  t.equal(gone.status, 401);
});

t.test('malformed and unknown keys answer 401', async (t) => {
  for (const token of ['twk_', 'twk_short', `twk_${'A'.repeat(43)}`, 'not-a-jwt', 'a.b.c']) {
    const r = await cp.call('GET', KEYS, { token });
    t.equal(r.status, 401, token);
    t.equal(r.headers.get('www-authenticate'), 'Bearer');
  }
  t.equal((await cp.call('GET', KEYS, { headers: { authorization: 'Basic abc' } })).status, 401);
});

t.test('organization B gets 404 on organization A key ids', async (t) => {
  const a = await cp.token({ email: 'a@example.com', org: 'org-a', role: 'admin' });
  const b = await cp.token({ email: 'b@example.com', org: 'org-b', role: 'admin' });
  const key = await cp.call('POST', KEYS, { token: a, body: { name: 'a-key' } });
  const r = await cp.call('DELETE', `${KEYS}/${key.body.id}`, { token: b });
  t.equal(r.status, 404);
  t.same(r.body, { detail: 'API key not found.' });
  t.equal((await cp.call('GET', KEYS, { token: b })).body.total, 0);
  t.equal((await cp.call('GET', KEYS, { token: a })).body.total, 1, 'still there for A');
  t.equal((await cp.call('DELETE', `${KEYS}/${crypto.randomUUID()}`, { token: a })).status, 404, 'unknown id');
});

t.test('pagination: defaults, bounds, oldest first, past the end', async (t) => {
  const admin = await cp.token({ email: 'pager@example.com', org: 'pager-org', role: 'admin' });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await cp.call('POST', KEYS, { token: admin, body: { name: `k${i}` } })).body.id);
  const all = await cp.call('GET', KEYS, { token: admin });
  t.same({ total: all.body.total, page: all.body.page, size: all.body.size, pages: all.body.pages }, { total: 5, page: 1, size: 50, pages: 1 });
  t.same(
    all.body.items.map((k: { id: string }) => k.id),
    ids,
    'oldest first',
  );
  const p2 = await cp.call('GET', `${KEYS}?page=2&size=2`, { token: admin });
  t.same(
    p2.body.items.map((k: { name: string }) => k.name),
    ['k2', 'k3'],
  );
  t.equal(p2.body.pages, 3);
  const past = await cp.call('GET', `${KEYS}?page=9&size=2`, { token: admin });
  t.same(past.body.items, []);
  t.equal(past.body.total, 5);
  t.equal((await cp.call('GET', `${KEYS}?size=100`, { token: admin })).status, 200);
  t.equal((await cp.call('GET', `${KEYS}?size=1`, { token: admin })).body.pages, 5);
  const empty = await cp.call('GET', KEYS, { token: await cp.token({ email: 'x@example.com', org: 'empty-org', role: 'member' }) });
  t.same(empty.body, { items: [], total: 0, page: 1, size: 50, pages: 0 });
});
