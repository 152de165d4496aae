// Invitations: every status of the contract's Errors table (201, 401, 403, 409, 422, 502), list
// and revoke, with the `local` adapter and with `workos` against a fake WorkOS server.

import t from 'tap';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestControlPlane } from '../helpers/control-plane.js';

const INVITE = '/organizations/current/invitations';

t.test('local adapter: the Errors table and the invitation lifecycle', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });
  const member = await cp.token({ email: 'bob@example.com', org: 'acme', role: 'member' });

  const created = await cp.call('POST', INVITE, { token: admin, body: { email: 'Carol@Example.COM', role: 'member' } });
  t.equal(created.status, 201);
  t.same(Object.keys(created.body).sort(), ['created_at', 'email', 'expires_at', 'id', 'role', 'state']);
  t.equal(created.body.email, 'Carol@example.com', 'domain normalised as EmailStr does');
  t.equal(created.body.state, 'pending');
  t.equal(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at), 7 * 86_400_000, 'expires after 7 days');

  // 401: missing, malformed, expired, untrusted.
  t.equal((await cp.call('POST', INVITE, { body: { email: 'd@example.com', role: 'member' } })).status, 401);
  t.equal((await cp.call('POST', INVITE, { token: 'garbage', body: { email: 'd@example.com', role: 'member' } })).status, 401);
  const expired = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin', ttlSeconds: -10 });
  const exp = await cp.call('POST', INVITE, { token: expired, body: { email: 'd@example.com', role: 'member' } });
  t.equal(exp.status, 401);
  t.equal(exp.headers.get('www-authenticate'), 'Bearer');
  const other = await startTestControlPlane();
  const foreign = await other.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });
  await other.stop();
  t.equal(
    (await cp.call('POST', INVITE, { token: foreign, body: { email: 'd@example.com', role: 'member' } })).status,
    401,
    'a token signed by another key is not trusted',
  );

  // 403: not an admin; an API key (even an admin's).
  const forbidden = await cp.call('POST', INVITE, { token: member, body: { email: 'd@example.com', role: 'member' } });
  t.equal(forbidden.status, 403);
  t.type(forbidden.body.detail, 'string');
  const key = (await cp.call('POST', '/organizations/current/api-keys', { token: admin, body: { name: 'k' } })).body.token;
  t.equal((await cp.call('POST', INVITE, { token: key, body: { email: 'd@example.com', role: 'member' } })).status, 403);

  // 409: already a member (any case), already invited.
  const dupMember = await cp.call('POST', INVITE, { token: admin, body: { email: 'BOB@example.com', role: 'admin' } });
  t.equal(dupMember.status, 409);
  t.match(dupMember.body.detail, /already a member/);
  const dupInvite = await cp.call('POST', INVITE, { token: admin, body: { email: 'carol@example.com', role: 'admin' } });
  t.equal(dupInvite.status, 409);
  t.match(dupInvite.body.detail, /pending invitation/);

  // 422: unknown property.
  const extra = await cp.call('POST', INVITE, { token: admin, body: { email: 'd@example.com', role: 'member', org: 'x' } });
  t.equal(extra.status, 422);
  t.equal(extra.body.detail[0].type, 'extra_forbidden');

  // List (any member, API keys too), newest first.
  await cp.call('POST', INVITE, { token: admin, body: { email: 'dan@example.com', role: 'admin' } });
  const list = await cp.call('GET', INVITE, { token: member });
  t.equal(list.status, 200);
  t.same(
    list.body.items.map((i: { email: string }) => i.email),
    ['dan@example.com', 'Carol@example.com'],
  );
  t.equal((await cp.call('GET', `${INVITE}?size=1&page=2`, { token: key })).body.items[0].email, 'Carol@example.com');

  // Revoke: admin session only; unknown → 404; revoked ones leave the list and can be re-sent.
  t.equal((await cp.call('DELETE', `${INVITE}/${created.body.id}`, { token: member })).status, 403);
  t.equal((await cp.call('DELETE', `${INVITE}/${created.body.id}`, { token: key })).status, 403);
  t.equal((await cp.call('DELETE', `${INVITE}/${created.body.id}`, { token: admin })).status, 204);
  t.equal((await cp.call('DELETE', `${INVITE}/${created.body.id}`, { token: admin })).status, 404);
  t.equal((await cp.call('DELETE', `${INVITE}/invitation_nope`, { token: admin })).status, 404);
  t.equal((await cp.call('GET', INVITE, { token: admin })).body.total, 1);
  t.equal((await cp.call('POST', INVITE, { token: admin, body: { email: 'carol@example.com', role: 'member' } })).status, 201, 're-invite after revoke');

  // Dan signs in with a token naming the organization: the invitation is accepted, Dan is a member.
  const dan = await cp.token({ email: 'dan@example.com', org: 'acme', role: 'admin' });
  t.equal((await cp.call('GET', '/users/me', { token: dan })).status, 200);
  t.notOk((await cp.call('GET', INVITE, { token: admin })).body.items.some((i: { email: string }) => i.email === 'dan@example.com'));

  // Another organization never sees these invitations.
  const outsider = await cp.token({ email: 'eve@example.com', org: 'other', role: 'admin' });
  t.equal((await cp.call('GET', INVITE, { token: outsider })).body.total, 0);
  const carol = (await cp.call('GET', INVITE, { token: admin })).body.items[0];
  t.equal((await cp.call('DELETE', `${INVITE}/${carol.id}`, { token: outsider })).status, 404);
});

interface Recorded {
  method: string;
  url: string;
  authorization?: string;
  body: any;
}

async function fakeWorkos(answer: (req: Recorded) => { status: number; body: unknown }): Promise<{ server: Server; url: string; seen: Recorded[] }> {
  const seen: Recorded[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const rec: Recorded = { method: req.method!, url: req.url!, authorization: req.headers.authorization, body: raw ? JSON.parse(raw) : undefined };
    seen.push(rec);
    const a = answer(rec);
    res.writeHead(a.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

t.test('workos adapter against a fake WorkOS API', async (t) => {
  let mode: 'ok' | 'already-member' | 'already-invited' | 'down' = 'ok';
  let n = 0;
  const fake = await fakeWorkos((req) => {
    if (req.url.endsWith('/revoke')) return { status: 200, body: { object: 'invitation', id: req.url.split('/')[3], state: 'revoked' } };
    if (mode === 'already-member')
      return { status: 400, body: { code: 'user_already_organization_member', message: 'The user is already a member of the organization.' } };
    if (mode === 'already-invited') return { status: 400, body: { code: 'invite_exists', message: 'An invitation has already been sent to this email.' } };
    if (mode === 'down') return { status: 500, body: { message: 'Internal Server Error' } };
    n += 1;
    return {
      status: 201,
      body: {
        object: 'invitation',
        id: `invitation_01HX${n}`,
        email: req.body.email,
        state: 'pending',
        accepted_at: null,
        revoked_at: null,
        expires_at: '2030-01-08T00:00:00.000Z',
        organization_id: req.body.organization_id,
        inviter_user_id: null,
        token: 'tok',
        accept_invitation_url: 'https://example.com/invite?invitation_token=tok',
        created_at: '2030-01-01T00:00:00.000Z',
        updated_at: '2030-01-01T00:00:00.000Z',
      },
    };
  });
  t.teardown(() => new Promise<void>((r) => fake.server.close(() => r())));
  const cp = await startTestControlPlane({ invitationProvider: 'workos', workosApiKey: 'sk_test_fake', workosBaseUrl: fake.url });
  t.teardown(() => cp.stop());
  const admin = await cp.token({ email: 'ada@example.com', org: 'org_01WORKOS', role: 'admin', sub: 'user_01ADA' });

  const created = await cp.call('POST', INVITE, { token: admin, body: { email: 'carol@example.com', role: 'member' } });
  t.equal(created.status, 201);
  t.same(created.body, {
    id: 'invitation_01HX1',
    email: 'carol@example.com',
    role: 'member',
    state: 'pending',
    created_at: '2030-01-01T00:00:00.000Z',
    expires_at: '2030-01-08T00:00:00.000Z',
  });
  t.equal(fake.seen.length, 1);
  t.equal(fake.seen[0]!.method, 'POST');
  t.equal(fake.seen[0]!.url, '/user_management/invitations');
  t.equal(fake.seen[0]!.authorization, 'Bearer sk_test_fake');
  t.same(fake.seen[0]!.body, {
    email: 'carol@example.com',
    organization_id: 'org_01WORKOS',
    role_slug: 'member',
    expires_in_days: 7,
    inviter_user_id: 'user_01ADA',
  });

  t.equal(
    (await cp.call('POST', INVITE, { token: admin, body: { email: 'carol@example.com', role: 'member' } })).status,
    409,
    'pending locally: WorkOS not asked',
  );
  t.equal(fake.seen.length, 1);

  mode = 'already-member';
  const member = await cp.call('POST', INVITE, { token: admin, body: { email: 'dave@example.com', role: 'member' } });
  t.equal(member.status, 409, 'WorkOS "already a member" maps to 409');
  mode = 'already-invited';
  t.equal((await cp.call('POST', INVITE, { token: admin, body: { email: 'dave@example.com', role: 'member' } })).status, 409);
  mode = 'down';
  const down = await cp.call('POST', INVITE, { token: admin, body: { email: 'dave@example.com', role: 'member' } });
  t.equal(down.status, 502);
  t.match(down.body.detail, /identity provider/);
  t.equal((await cp.call('GET', INVITE, { token: admin })).body.total, 1, 'failed invitations are not stored');

  mode = 'ok';
  const del = await cp.call('DELETE', `${INVITE}/invitation_01HX1`, { token: admin });
  t.equal(del.status, 204);
  t.equal(fake.seen.at(-1)!.url, '/user_management/invitations/invitation_01HX1/revoke');
  t.equal((await cp.call('GET', INVITE, { token: admin })).body.total, 0);
});

t.test('workos adapter: unreachable provider or no key → 502', async (t) => {
  const dead = await fakeWorkos(() => ({ status: 200, body: {} }));
  const deadUrl = dead.url;
  await new Promise<void>((r) => dead.server.close(() => r()));
  const cp = await startTestControlPlane({ invitationProvider: 'workos', workosApiKey: 'sk_test_fake', workosBaseUrl: deadUrl });
  t.teardown(() => cp.stop());
  const admin = await cp.token({ email: 'ada@example.com', org: 'org_x', role: 'admin' });
  t.equal((await cp.call('POST', INVITE, { token: admin, body: { email: 'carol@example.com', role: 'member' } })).status, 502);

  const noKey = await startTestControlPlane({ invitationProvider: 'workos', workosApiKey: undefined, workosBaseUrl: deadUrl });
  t.teardown(() => noKey.stop());
  const admin2 = await noKey.token({ email: 'ada@example.com', org: 'org_x', role: 'admin' });
  t.equal((await noKey.call('POST', INVITE, { token: admin2, body: { email: 'carol@example.com', role: 'member' } })).status, 502);
  // A 2xx with a body that is not an invitation is a provider failure too.
  const weird = await fakeWorkos(() => ({ status: 200, body: { hello: 'world' } }));
  t.teardown(() => new Promise<void>((r) => weird.server.close(() => r())));
  const cp3 = await startTestControlPlane({ invitationProvider: 'workos', workosApiKey: 'k', workosBaseUrl: weird.url });
  t.teardown(() => cp3.stop());
  const admin3 = await cp3.token({ email: 'ada@example.com', org: 'org_x', role: 'admin' });
  t.equal((await cp3.call('POST', INVITE, { token: admin3, body: { email: 'carol@example.com', role: 'member' } })).status, 502);
});
