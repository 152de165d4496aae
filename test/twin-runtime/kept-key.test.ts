// A standalone twin keeps its provider key in its data file (docs/decisions.md §10): the same key after a
// restart and after a reset, or the one chosen with `apiKey`; a supervised twin mints a new key on
// every start (docs/decisions.md §7). Each twin has its own default port.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAllTwins, loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';

const dir = mkdtempSync(join(tmpdir(), 'twins-kept-key-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('the key survives restarts and resets of the same data file', async (t) => {
  const stripe = await loadTwin('stripe');
  const dataFile = join(dir, 'stripe.sqlite');
  const first = new TwinServer(stripe, { dataFile, keepKey: true });
  const key = first.apiKey;
  t.match(key, /^sk_test_/);
  const url = await first.listen(0);
  const reset = await fetch(`${url}/_twin/reset`, { method: 'POST' });
  t.equal(reset.status, 200);
  await first.close();

  const second = new TwinServer(stripe, { dataFile, keepKey: true });
  t.equal(second.apiKey, key, 'same key after a restart (and the reset before it)');
  const url2 = await second.listen(0);
  const ok = await fetch(`${url2}/v1/customers`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(ok.status, 200, 'the kept key is accepted');
  await second.close();

  const chosen = new TwinServer(stripe, { dataFile, apiKey: 'sk_test_chosen' });
  t.equal(chosen.apiKey, 'sk_test_chosen');
  await chosen.close();
  const after = new TwinServer(stripe, { dataFile, keepKey: true });
  t.equal(after.apiKey, 'sk_test_chosen', 'a chosen key is kept too');
  await after.close();
});

t.test('supervised twins mint a key per start', async (t) => {
  const github = await loadTwin('github');
  const dataFile = join(dir, 'github.sqlite');
  const a = new TwinServer(github, { dataFile });
  await a.close();
  const b = new TwinServer(github, { dataFile });
  await b.close();
  t.not(a.apiKey, b.apiKey);
});

t.test('one default port per twin', async (t) => {
  const twins = await loadAllTwins();
  t.ok(twins.length >= 3);
  t.equal(twins.find((d) => d.slug === 'stripe')!.defaultPort, 12111, 'Stripe on 12111, as stripe-mock');
  t.equal(new Set(twins.map((d) => d.defaultPort)).size, twins.length, 'no two twins share a port');
  for (const d of twins) t.ok(d.defaultPort > 1024 && d.defaultPort < 65536, `${d.slug}: ${d.defaultPort}`);
});
