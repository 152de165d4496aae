// Console sign-in under TWINS_IDP=oidc against an identity provider served here on loopback
// (discovery, authorization with PKCE, token endpoint, JWKS): the options the page reads, the code
// exchange (verifier checked by the issuer, a code used once), refusals, an unreachable issuer, and
// the whole redirect in Chromium.

import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { launchChromium } from '../helpers/chromium.js';
import { ensureConsoleBuilt, screenshot, seriousViolations } from '../helpers/console.js';

const b64url = (b: Buffer) => b.toString('base64url');

interface FakeIdp {
  base: string;
  server: Server;
  /** Token requests the issuer received (form fields). */
  tokenRequests: Record<string, string>[];
  /** The audience the next access tokens carry. */
  audience: string;
}

async function startIdp(): Promise<FakeIdp> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, { challenge: string; redirectUri: string; clientId: string }>();
  const idp: FakeIdp = { base: '', server: undefined as unknown as Server, tokenRequests: [], audience: 'twins-api' };
  idp.server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', idp.base);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer: idp.base,
        authorization_endpoint: `${idp.base}/authorize`,
        token_endpoint: `${idp.base}/token`,
        jwks_uri: `${idp.base}/.well-known/jwks.json`,
      });
    }
    if (url.pathname === '/.well-known/jwks.json') return json(200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
        return json(400, { error: 'invalid_request' });
      const code = b64url(randomBytes(16));
      codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, clientId: q.get('client_id')! });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      return res.writeHead(302, { location: back.toString() }).end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const form = Object.fromEntries(new URLSearchParams(raw));
      idp.tokenRequests.push(form);
      const grant = codes.get(form.code ?? '');
      codes.delete(form.code ?? '');
      const verified =
        grant &&
        createHash('sha256')
          .update(form.code_verifier ?? '')
          .digest('base64url') === grant.challenge;
      if (form.grant_type !== 'authorization_code' || !grant || !verified || grant.redirectUri !== form.redirect_uri || grant.clientId !== form.client_id) {
        return json(400, { error: 'invalid_grant', error_description: 'The code is unknown, used, or its verifier does not match' });
      }
      const token = await new SignJWT({ email: 'lin@example.com', given_name: 'Lin', family_name: 'Chen', org_id: 'org-oidc', org_role: 'admin' })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(idp.base)
        .setAudience(idp.audience)
        .setSubject('user-lin')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey);
      return json(200, { access_token: token, token_type: 'Bearer', expires_in: 600, id_token: 'not-used' });
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((r) => idp.server.listen(0, '127.0.0.1', r));
  idp.base = `http://127.0.0.1:${(idp.server.address() as AddressInfo).port}`;
  return idp;
}

const idp = await startIdp();
t.teardown(() => new Promise<void>((r) => idp.server.close(() => r())));
await ensureConsoleBuilt();
const cp = await startTestControlPlane({
  idp: 'oidc',
  idpJwksUrl: `${idp.base}/.well-known/jwks.json`,
  idpIssuer: idp.base,
  idpAudience: 'twins-api',
  consoleClientId: 'twins-console',
});
t.teardown(() => cp.stop());

/** What the page does: a verifier, its S256 challenge, the redirect; returns the code the issuer sends back. */
async function authorize(verifier: string): Promise<string> {
  const options = (await cp.call('GET', '/auth/sign-in')).body;
  const url = new URL(options.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', options.client_id);
  url.searchParams.set('redirect_uri', `${cp.url}/`);
  url.searchParams.set('state', 's');
  url.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
  url.searchParams.set('code_challenge_method', 'S256');
  const res = await fetch(url, { redirect: 'manual' });
  return new URL(res.headers.get('location')!).searchParams.get('code')!;
}

t.test('sign-in options name the issuer and the console client', async (t) => {
  const res = await cp.call('GET', '/auth/sign-in');
  t.equal(res.status, 200);
  t.same(res.body, {
    mode: 'oidc',
    authorization_endpoint: `${idp.base}/authorize`,
    client_id: 'twins-console',
    scope: 'openid profile email',
    audience: 'twins-api',
    detail: null,
  });
});

t.test('an authorization code and its verifier become an access token once', async (t) => {
  const verifier = b64url(randomBytes(48));
  const code = await authorize(verifier);
  const res = await cp.call('POST', '/auth/token', { body: { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: `${cp.url}/` } });
  t.equal(res.status, 200);
  t.match(res.body, { token_type: 'Bearer', expires_in: 600 });
  t.equal(res.headers.get('cache-control'), 'no-store');
  const sent = idp.tokenRequests.at(-1)!;
  t.match(
    sent,
    { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: 'twins-console', redirect_uri: `${cp.url}/` },
    'the issuer got the code, the verifier and the client',
  );
  const me = await cp.call('GET', '/users/me', { token: res.body.access_token });
  t.equal(me.status, 200);
  t.match(me.body, { email: 'lin@example.com', role: 'admin' });

  const reused = await cp.call('POST', '/auth/token', {
    body: { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: `${cp.url}/` },
  });
  t.equal(reused.status, 401, 'a used code is refused');
  t.match(reused.body.detail, /refused the sign-in/);
  const wrong = await cp.call('POST', '/auth/token', {
    body: { grant_type: 'authorization_code', code: await authorize(verifier), code_verifier: b64url(randomBytes(48)), redirect_uri: `${cp.url}/` },
  });
  t.equal(wrong.status, 401, 'another verifier is refused');
  t.equal(
    (await cp.call('POST', '/auth/token', { body: { grant_type: 'authorization_code', code: 'x' } })).status,
    422,
    'the verifier and redirect URI are required',
  );
  t.equal((await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket: 'x' } })).status, 409, 'no sign-in tickets under oidc');
});

t.test('a token this service would not accept is not handed out', async (t) => {
  idp.audience = 'someone-else';
  t.teardown(() => {
    idp.audience = 'twins-api';
  });
  const verifier = b64url(randomBytes(48));
  const res = await cp.call('POST', '/auth/token', {
    body: { grant_type: 'authorization_code', code: await authorize(verifier), code_verifier: verifier, redirect_uri: `${cp.url}/` },
  });
  t.equal(res.status, 401);
  t.match(res.body.detail, /not one this service accepts/);
  t.notOk(res.body.access_token);
});

t.test('an unreachable issuer is a 502; no console client is said plainly', async (t) => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const deadBase = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((r) => closed.close(() => r()));
  const dead = await startTestControlPlane({ idp: 'oidc', idpJwksUrl: `${deadBase}/jwks.json`, idpIssuer: deadBase, consoleClientId: 'c' });
  t.teardown(() => dead.stop());
  const res = await dead.call('GET', '/auth/sign-in');
  t.equal(res.status, 502);
  t.match(res.body.detail, /discovery document/);
  const noClient = await startTestControlPlane({ idp: 'oidc', idpJwksUrl: `${idp.base}/.well-known/jwks.json`, idpIssuer: idp.base });
  t.teardown(() => noClient.stop());
  const opts = await noClient.call('GET', '/auth/sign-in');
  t.equal(opts.status, 200);
  t.match(opts.body, { mode: 'oidc', authorization_endpoint: null, detail: /TWINS_CONSOLE_CLIENT_ID/ });
});

const chrome = await launchChromium();
t.test('the redirect in Chromium', { skip: 'skip' in chrome ? `Chromium cannot run here: ${chrome.skip}` : false }, async (t) => {
  if ('skip' in chrome) return;
  t.teardown(() => chrome.close());
  const page = await chrome.context.newPage();
  page.setDefaultTimeout(15_000);
  const requested: string[] = [];
  chrome.context.on('request', (r) => requested.push(r.url()));
  await page.goto(`${cp.url}/#/organization`);
  const go = page.getByRole('button', { name: 'Continue to the identity provider' });
  await go.waitFor();
  await screenshot(page, 'sign-in-oidc');
  t.same(await seriousViolations(page), [], 'the sign-in page has no serious accessibility violation');
  await go.click();
  await page.getByRole('heading', { level: 1, name: 'org-oidc' }).waitFor();
  t.equal(new URL(page.url()).search, '', 'the code is gone from the address');
  t.equal(new URL(page.url()).hash, '#/organization', 'back where the sign-in started');
  t.ok(await page.getByText('lin@example.com · admin').isVisible());
  const foreign = requested.filter((u) => !u.startsWith(`${cp.url}/`) && !u.startsWith('data:'));
  t.ok(foreign.length > 0 && foreign.every((u) => u.startsWith(`${idp.base}/authorize?`)), 'the only other host is the issuer, visited by the redirect');
  t.notOk(
    requested.some((u) => u.startsWith(`${idp.base}/token`)),
    'the code exchange went through the control plane',
  );
});
