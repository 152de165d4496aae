// STRIPE_SECRET_KEY points the same code at Stripe: the key is sent with every call and appears in
// no log line and no API answer, even when Stripe's own error messages repeat it.

import t from 'tap';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLocalKeys, mintLocalToken } from '../../control-plane/auth/local-idp.js';
import { serveInChild } from './helpers.js';

t.test('STRIPE_SECRET_KEY: used for the calls, in no log line and no answer, even when Stripe fails', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-stripe-key-'));
  // A Stripe that fails every call with a 500 whose message repeats the credential it was sent:
  // the control plane must send the key, and never repeat it.
  const secret = 'sk_test_51TwinsSecretKey' + 'x'.repeat(80);
  const seen: string[] = [];
  const fake = createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'api_error', message: `Something went wrong for ${req.headers.authorization}` } }));
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
  const port = (fake.address() as { port: number }).port;
  const serve = serveInChild({
    TWINS_DATA_DIR: dataDir,
    STRIPE_SECRET_KEY: secret,
    STRIPE_WEBHOOK_SECRET: 'whsec_TwinsWebhookSecret0123456789',
    STRIPE_API_BASE: `http://127.0.0.1:${port}`,
  });
  t.teardown(async () => {
    await serve.kill();
    fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = await serve.url;
  const token = await mintLocalToken(await loadLocalKeys(dataDir), { email: 'ada@example.com', org: 'acme', role: 'admin' });
  const answers: string[] = [];
  for (const [method, path, body] of [
    ['GET', '/organizations/current/billing', undefined],
    ['POST', '/organizations/current/billing/checkout', undefined],
    ['POST', '/organizations/current/billing/upgrade', { checkout_session: 'cs_test_1' }],
    ['POST', '/billing/webhooks/stripe', { id: 'evt_1' }],
  ] as const) {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : method === 'POST' ? '{}' : undefined,
    });
    answers.push(`${res.status} ${await res.text()}`);
  }
  t.match(answers[1], /^502 /);
  t.match(answers[2], /^502 /);
  t.match(answers[3], /^400 /, 'an unsigned webhook');
  t.ok(
    seen.some((a) => a === `Bearer ${secret}`),
    'the key went to Stripe',
  );
  await serve.stop();
  const logs = serve.logs();
  t.match(logs, /payment processor/, 'the failures were logged');
  for (const s of [secret, 'whsec_TwinsWebhookSecret0123456789']) {
    t.notOk(logs.includes(s), 'no secret in the logs');
    t.notOk(
      answers.some((a) => a.includes(s)),
      'no secret in an answer',
    );
  }
});
