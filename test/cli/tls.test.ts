// TLS on twin URLs from the command line: `twins ca` prints the data directory's CA (made on first
// use and kept), and a standalone twin answers https:// on its http port with a certificate for
// 127.0.0.1 and localhost that the CA verifies, while plain http keeps working.

import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { cliProcess, startProcess, stopProcess } from './helpers.js';

t.setTimeout(300_000);
const dir = mkdtempSync(join(tmpdir(), 'twins-tls-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('twins ca prints the CA of the data directory, made once and kept', async (t) => {
  const first = await cliProcess(['ca'], { TWINS_DATA_DIR: dir });
  t.equal(first.code, 0, first.stderr);
  t.equal(first.stdout, `${join(dir, 'tls', 'ca.pem')}\n`);
  const pem = readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8');
  const ca = new X509Certificate(pem);
  t.equal(ca.ca, true, 'a CA certificate');
  t.match(ca.subject, /CN=Twins local CA/);
  const again = await cliProcess(['ca', '--json'], { TWINS_DATA_DIR: dir });
  t.same(JSON.parse(again.stdout), { ca_file: join(dir, 'tls', 'ca.pem') });
  t.equal(readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8'), pem, 'the same CA the second time');
});

t.test('a standalone twin answers https:// and http:// on one port', async (t) => {
  const listening = /\{[\s\S]*"data"[\s\S]*\}\n/;
  const proc = await startProcess(['twin', 'stripe', '--port', '0', '--data', join(dir, 'stripe.sqlite'), '--json'], { TWINS_DATA_DIR: dir }, listening);
  t.teardown(() => stopProcess(proc.child));
  const info = JSON.parse(proc.match[0]);
  t.equal(info.ca_file, join(dir, 'tls', 'ca.pem'));
  const url = new URL(info.https_url);
  t.equal(url.port, new URL(info.url).port, 'same port');
  const ca = readFileSync(info.ca_file);
  for (const host of ['127.0.0.1', 'localhost']) {
    const sdk = new Stripe(info.api_key, { host, port: Number(url.port), protocol: 'https', httpAgent: new Agent({ ca }), maxNetworkRetries: 0 });
    const c = await sdk.customers.create({ email: `tls-${host.replace(/\W/g, '')}@example.com` });
    t.match(c.id, /^cus_/, `https://${host} verified by the CA`);
  }
  const untrusted = new Stripe(info.api_key, { host: '127.0.0.1', port: Number(url.port), protocol: 'https', httpAgent: new Agent(), maxNetworkRetries: 0 });
  await t.rejects(untrusted.customers.list(), 'refused without the CA');
  const plain = await fetch(`${info.url}/v1/customers`, { headers: { authorization: `Bearer ${info.api_key}` } });
  t.equal(plain.status, 200, 'plain http still answers');
  t.equal(((await plain.json()) as { data: unknown[] }).data.length, 2);
});
