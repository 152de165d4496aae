// Access tokens verified once are kept until they expire (issue 33: the check costs CPU before a
// request's organization is known, so no share could charge it), and only the same token, unexpired,
// is answered from what was kept.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../control-plane/config.js';
import { TokenVerifier } from '../../control-plane/auth/access-tokens.js';
import { loadLocalKeys, mintLocalToken } from '../../control-plane/auth/local-idp.js';

const dir = mkdtempSync(join(tmpdir(), 'twins-token-verifier-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const keys = await loadLocalKeys(dir);

/** A verifier on a clock the test moves, counting how often it looks a key up (one per real check). */
function verifier() {
  let at = Date.now();
  const v = new TokenVerifier({ idp: 'local' } as Config, keys, { now: () => at });
  const inner = v as unknown as { keySet: (...args: unknown[]) => unknown };
  const keySet = inner.keySet;
  let checks = 0;
  inner.keySet = (...args) => {
    checks += 1;
    return keySet(...args);
  };
  return { v, checks: () => checks, advance: (ms: number) => (at += ms) };
}

t.test('a token verified once is answered again without a second check', async (t) => {
  const { v, checks } = verifier();
  const token = await mintLocalToken(keys, { email: 'ada@example.com', org: 'acme', role: 'admin' });
  const first = await v.verify(token);
  t.match(first, { email: 'ada@example.com', orgExternalId: 'acme', role: 'admin' });
  t.same(await v.verify(token), first);
  t.equal(checks(), 1, 'checked once');
  const other = await mintLocalToken(keys, { email: 'eve@example.com', org: 'globex', role: 'member' });
  t.match(await v.verify(other), { orgExternalId: 'globex' }, 'another token is its own identity');
  t.equal(checks(), 2);
});

t.test('a kept token is checked again after a minute, and refused once it has expired', async (t) => {
  const { v, checks, advance } = verifier();
  const token = await mintLocalToken(keys, { email: 'ada@example.com', org: 'acme', role: 'admin', ttlSeconds: 120 });
  t.ok(await v.verify(token));
  advance(61_000);
  t.ok(await v.verify(token), 'still valid');
  t.equal(checks(), 2, 'checked again past the minute');
  advance(60_000);
  t.equal(await v.verify(token), undefined, 'expired: refused although it was kept');
});

t.test('a token that differs by one byte is not answered from what was kept', async (t) => {
  const { v } = verifier();
  const token = await mintLocalToken(keys, { email: 'ada@example.com', org: 'acme', role: 'admin' });
  t.ok(await v.verify(token));
  const tampered = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.at(-1);
  t.equal(await v.verify(tampered), undefined);
});
