// Identity hygiene (docs/decisions.md §11, issue 20): removing a member sticks (their old tokens and API
// keys answer 401 until they are invited again, and stay dead after), the last admin stays,
// members revoke only their own API keys, authentication writes nothing, and a token the local
// identity provider minted makes its holder a member before their first call.

import t from 'tap';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { cliProcess } from '../cli/helpers.js';

const cp = await startTestControlPlane();
t.teardown(() => cp.stop());
const KEYS = '/organizations/current/api-keys';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('the removed-member sequence', async (t) => {
  const ada = await cp.token({ email: 'ada@example.com', org: 'removal', role: 'admin' });
  const bob = await cp.token({ email: 'bob@example.com', org: 'removal', role: 'member' });
  const bobId = (await cp.call('GET', '/users/me', { token: bob })).body.id;
  const adaId = (await cp.call('GET', '/users/me', { token: ada })).body.id;
  const bobKey = (await cp.call('POST', KEYS, { token: bob, body: { name: 'bob ci' } })).body.token as string;
  const adaKey = (await cp.call('POST', KEYS, { token: ada, body: { name: 'ada ci' } })).body.token as string;
  t.equal((await cp.call('GET', '/users/me', { token: bobKey })).status, 200);

  const path = (id: string) => `/organizations/current/members/${id}`;
  t.equal((await cp.call('DELETE', path(adaId), { token: bob })).status, 403, 'a member cannot remove anyone');
  t.equal((await cp.call('DELETE', path(bobId), { token: adaKey })).status, 403, 'an API key cannot remove anyone');
  t.equal((await cp.call('DELETE', path('00000000-0000-4000-8000-000000000000'), { token: ada })).status, 404);
  const last = await cp.call('DELETE', path(adaId), { token: ada });
  t.equal(last.status, 409, 'the last admin stays');
  t.match(last.body.detail, /last admin/);

  const removed = await cp.call('DELETE', path(bobId.toUpperCase()), { token: ada });
  t.equal(removed.status, 204, 'any UUID form names the member');
  t.equal((await cp.call('DELETE', path(bobId), { token: ada })).status, 404, 'already removed');
  const members = (await cp.call('GET', '/organizations/current/members', { token: ada })).body;
  t.same(
    members.items.map((m: { email: string }) => m.email),
    ['ada@example.com'],
  );

  const old = await cp.call('GET', '/users/me', { token: bob });
  t.equal(old.status, 401, 'a token issued before the removal answers 401');
  t.equal(old.headers.get('www-authenticate'), 'Bearer');
  t.equal((await cp.call('GET', '/users/me', { token: bobKey })).status, 401, 'their API key answers 401');
  await sleep(1100);
  const fresh = await cp.token({ email: 'bob@example.com', org: 'removal', role: 'member' });
  t.equal((await cp.call('GET', '/users/me', { token: fresh })).status, 401, 'a new token does not bring them back either');
  t.equal((await cp.call('GET', '/organizations/current/members', { token: ada })).body.total, 1, 'still removed');

  // Invited again: back in with a token issued after the removal; what they held before stays dead.
  t.equal((await cp.call('POST', '/organizations/current/invitations', { token: ada, body: { email: 'bob@example.com', role: 'member' } })).status, 201);
  const back = await cp.call('GET', '/users/me', { token: fresh });
  t.equal(back.status, 200, 'the invitation lets their new token in');
  t.equal(back.body.role, 'member');
  t.equal((await cp.call('GET', '/organizations/current/invitations', { token: ada })).body.total, 0, 'the invitation was accepted');
  t.equal((await cp.call('GET', '/users/me', { token: bob })).status, 401, 'the pre-removal token stays refused');
  t.equal((await cp.call('GET', '/users/me', { token: bobKey })).status, 401, 'and so does the pre-removal API key');
  const newKey = (await cp.call('POST', KEYS, { token: fresh, body: { name: 'bob again' } })).body.token as string;
  t.equal((await cp.call('GET', '/users/me', { token: newKey })).status, 200, 'a key made after coming back works');

  // Two admins: one may remove the other, not the last one left.
  const carol = await cp.token({ email: 'carol@example.com', org: 'removal', role: 'admin' });
  const carolId = (await cp.call('GET', '/users/me', { token: carol })).body.id;
  t.equal((await cp.call('DELETE', path(adaId), { token: carol })).status, 204);
  t.equal((await cp.call('DELETE', path(carolId), { token: carol })).status, 409);
});

t.test('members revoke only their own API keys; admins revoke any', async (t) => {
  const admin = await cp.token({ email: 'root@example.com', org: 'revoke', role: 'admin' });
  const dan = await cp.token({ email: 'dan@example.com', org: 'revoke', role: 'member' });
  const eve = await cp.token({ email: 'eve@example.com', org: 'revoke', role: 'member' });
  const danKey = (await cp.call('POST', KEYS, { token: dan, body: { name: 'dan' } })).body;
  const eveKey = (await cp.call('POST', KEYS, { token: eve, body: { name: 'eve' } })).body;
  const adminKey = (await cp.call('POST', KEYS, { token: admin, body: { name: 'admin' } })).body;
  const refused = await cp.call('DELETE', `${KEYS}/${eveKey.id}`, { token: dan });
  t.equal(refused.status, 403, "a member cannot revoke another's key");
  t.match(refused.body.detail, /only the API keys they created/);
  t.equal((await cp.call('DELETE', `${KEYS}/${adminKey.id}`, { token: danKey.token })).status, 403, "nor can the member's key");
  t.equal((await cp.call('DELETE', `${KEYS}/${danKey.id}`, { token: dan })).status, 204, 'their own: yes');
  t.equal((await cp.call('DELETE', `${KEYS}/${eveKey.id}`, { token: admin })).status, 204, 'an admin: any');
  t.equal((await cp.call('DELETE', `${KEYS}/${eveKey.id}`, { token: admin })).status, 404, 'already revoked');
});

t.test('authentication writes nothing once the caller is known', async (t) => {
  const token = await cp.token({ email: 'quiet@example.com', org: 'quiet', role: 'admin' });
  t.equal((await cp.call('GET', '/users/me', { token })).status, 200, 'the first call records the member');
  const key = (await cp.call('POST', KEYS, { token, body: { name: 'k' } })).body.token as string;
  const changes = () => (cp.services.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  const before = changes();
  for (let i = 0; i < 20; i++) {
    t.equal((await cp.call('GET', '/organizations/current', { token: i % 2 ? token : key })).status, 200);
  }
  t.equal(changes(), before, 'twenty authenticated reads changed no row');
  // A new role is a change worth writing.
  const demoted = await cp.token({ email: 'quiet@example.com', org: 'quiet', role: 'member' });
  t.equal((await cp.call('GET', '/users/me', { token: demoted })).body.role, 'member');
  t.ok(changes() > before);
});

t.test('a token minted by `twins token` makes its holder a member: inviting them answers 409', async (t) => {
  const admin = await cp.token({ email: 'boss@example.com', org: 'minted', role: 'admin' });
  t.equal((await cp.call('GET', '/users/me', { token: admin })).status, 200);
  const out = await cliProcess(['token', '--email', 'fay@example.com', '--org', 'minted', '--role', 'member'], { TWINS_DATA_DIR: cp.dataDir });
  t.equal(out.code, 0, out.stderr);
  const invite = await cp.call('POST', '/organizations/current/invitations', { token: admin, body: { email: 'fay@example.com', role: 'member' } });
  t.equal(invite.status, 409, 'the holder of a minted token is already a member');
  t.match(invite.body.detail, /already a member/);
});
