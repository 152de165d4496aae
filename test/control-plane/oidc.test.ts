// TWINS_IDP=oidc: access tokens verified against a remote JWKS (served here by a small local
// HTTP server), with issuer and audience checks and the claim variants of docs/decisions.md §4.

import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { startTestControlPlane } from '../helpers/control-plane.js';

t.test('oidc mode', async (t) => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let jwksHits = 0;
  const jwks = createServer((req, res) => {
    jwksHits += 1;
    if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => jwks.close(() => r())));
  const base = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;

  const cp = await startTestControlPlane({
    idp: 'oidc',
    idpJwksUrl: `${base}/.well-known/jwks.json`,
    idpIssuer: 'https://idp.example.com/',
    idpAudience: 'twins-api',
  });
  t.teardown(() => cp.stop());

  const sign = (claims: JWTPayload, opts: { iss?: string; aud?: string; key?: CryptoKey; kid?: string; exp?: number } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? 'k1' })
      .setIssuer(opts.iss ?? 'https://idp.example.com/')
      .setAudience(opts.aud ?? 'twins-api')
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(opts.key ?? privateKey);

  // Our own claim names.
  const ours = await sign({ sub: 'u-1', email: 'ada@example.com', given_name: 'Ada', family_name: 'Lovelace', org_id: 'org-1', org_role: 'admin' });
  const me = await cp.call('GET', '/users/me', { token: ours });
  t.equal(me.status, 200);
  t.match(me.body, { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', role: 'admin' });
  t.ok(jwksHits >= 1, 'the JWKS was fetched from the issuer');

  // Clerk v2: o.id / o.rol ("org:admin" style roles).
  const clerk = await sign({ sub: 'u-2', email: 'bob@example.com', o: { id: 'org-1', rol: 'org:member', slg: 'acme' } });
  const bob = await cp.call('GET', '/organizations/current', { token: clerk });
  t.equal(bob.status, 200);
  t.equal(bob.body.role, 'member');
  t.equal(bob.body.id, (await cp.call('GET', '/organizations/current', { token: ours })).body.id, 'same organization');

  // WorkOS: org_id + role.
  const workos = await sign({ sub: 'user_01', email: 'carol@example.com', org_id: 'org-1', role: 'admin' });
  t.equal((await cp.call('GET', '/users/me', { token: workos })).body.role, 'admin');

  // Users and memberships are refreshed from each token: a new name and a demotion.
  const renamed = await sign({ sub: 'u-1', email: 'ada@example.com', given_name: 'Augusta', family_name: 'King', org_id: 'org-1', org_role: 'member' });
  const after = await cp.call('GET', '/users/me', { token: renamed });
  t.match(after.body, { first_name: 'Augusta', last_name: 'King', role: 'member' });
  const members = await cp.call('GET', '/organizations/current/members', { token: renamed });
  t.equal(members.body.total, 3);
  t.equal(members.body.items.find((m: { email: string }) => m.email === 'ada@example.com').role, 'member');

  // A WorkOS-style token without email or names keeps what an earlier token said.
  const bare = await sign({ sub: 'u-1', org_id: 'org-1', role: 'admin' });
  t.match((await cp.call('GET', '/users/me', { token: bare })).body, { email: 'ada@example.com', first_name: 'Augusta', role: 'admin' });

  // Refused: wrong issuer, wrong audience, unknown key, expired, missing org claim, unknown role.
  const refused: [string, string][] = [
    ['wrong issuer', await sign({ sub: 'u-1', email: 'a@example.com', org_id: 'o', org_role: 'admin' }, { iss: 'https://evil.example.com/' })],
    ['wrong audience', await sign({ sub: 'u-1', email: 'a@example.com', org_id: 'o', org_role: 'admin' }, { aud: 'other' })],
    ['untrusted key', await sign({ sub: 'u-1', email: 'a@example.com', org_id: 'o', org_role: 'admin' }, { key: stranger.privateKey as CryptoKey })],
    ['expired', await sign({ sub: 'u-1', email: 'a@example.com', org_id: 'o', org_role: 'admin' }, { exp: Math.floor(Date.now() / 1000) - 120 })],
    ['no organization', await sign({ sub: 'u-1', email: 'a@example.com' })],
    ['no subject', await sign({ email: 'a@example.com', org_id: 'o', org_role: 'admin' })],
    ['unknown role', await sign({ sub: 'u-1', email: 'a@example.com', org_id: 'o', org_role: 'owner' })],
  ];
  for (const [why, token] of refused) {
    const r = await cp.call('GET', '/users/me', { token });
    t.equal(r.status, 401, why);
    t.equal(r.headers.get('www-authenticate'), 'Bearer', why);
  }
  t.equal((await cp.call('GET', '/.well-known/jwks.json')).status, 404, 'no local JWKS in oidc mode');
});
