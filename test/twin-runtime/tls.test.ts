// The deployment's TLS files: made once, then reused as long as they still fit — checked with
// node:crypto alone, so a start that reuses them never loads node-forge — and the server
// certificate made again when a name is added or it was not signed by the directory's CA.

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureTls, hostTls } from '../../twin-runtime/tls.js';
import { ghHostFor, loopbackHostFor } from '../../twin-runtime/own-host.js';

const root = mkdtempSync(join(tmpdir(), 'twins-tls-files-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const serverPem = (dir: string) => readFileSync(join(dir, 'tls', 'server.pem'), 'utf8');

t.test('reused while they fit, made again for a new name', async (t) => {
  const dir = join(root, 'a');
  const first = ensureTls(dir);
  const ca = new X509Certificate(readFileSync(first.caFile));
  const cert = new X509Certificate(serverPem(dir));
  t.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), 'the server certificate is signed by the CA');
  t.match(cert.subjectAltName ?? '', /DNS:localhost/);
  t.match(cert.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);

  const again = ensureTls(dir);
  t.equal(again.cert, first.cert, 'the same server certificate');
  t.equal(again.key, first.key, 'and key');

  ensureTls(dir, ['twins.test']);
  const renamed = new X509Certificate(serverPem(dir));
  t.not(renamed.serialNumber, cert.serialNumber, 'a new certificate for the new name');
  t.match(renamed.subjectAltName ?? '', /DNS:twins\.test/);
  t.equal(new X509Certificate(readFileSync(first.caFile)).fingerprint256, ca.fingerprint256, 'the CA is kept');
});

t.test("a server certificate another CA signed is replaced by one the directory's CA signs", async (t) => {
  const a = join(root, 'b1');
  const b = join(root, 'b2');
  ensureTls(a);
  ensureTls(b);
  // b's server files, a's CA: the check must see that the CA did not sign them.
  for (const f of ['server.pem', 'server-key.pem', 'server-names.json']) copyFileSync(join(b, 'tls', f), join(a, 'tls', f));
  const foreign = new X509Certificate(serverPem(a));
  ensureTls(a);
  const ca = new X509Certificate(readFileSync(join(a, 'tls', 'ca.pem')));
  const now = new X509Certificate(serverPem(a));
  t.not(now.serialNumber, foreign.serialNumber, 'made again');
  t.ok(now.checkIssued(ca) && now.verify(ca.publicKey), "signed by the directory's CA");
});

t.test('a start that finds its files does not load node-forge', async (t) => {
  const dir = join(root, 'c');
  ensureTls(dir);
  const script = `
    const { ensureTls } = await import(${JSON.stringify(resolve('twin-runtime/tls.ts'))});
    const { createRequire } = await import('node:module');
    ensureTls(${JSON.stringify(dir)});
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('node-forge'));
    process.stdout.write(JSON.stringify(loaded));`;
  const out = execFileSync(process.execPath, ['--import=tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  t.same(JSON.parse(out), [], 'no node-forge module in the require cache');
  // The opposite case proves the probe sees forge when it is loaded.
  const fresh = join(root, 'd');
  const made = execFileSync(process.execPath, ['--import=tsx', '--input-type=module', '-e', script.replaceAll(JSON.stringify(dir), JSON.stringify(fresh))], {
    encoding: 'utf8',
  });
  t.ok((JSON.parse(made) as string[]).length > 0, 'making the files does load it');
});

t.test("a twin's own loopback address: one per port, with a certificate for it from the same CA", async (t) => {
  t.equal(loopbackHostFor(41234), '127.161.18.1');
  t.equal(loopbackHostFor(443), '127.1.187.1');
  t.not(loopbackHostFor(12000), loopbackHostFor(12001), 'neighbouring ports, different addresses');
  t.equal(ghHostFor('http://127.0.0.1:41234'), '127.161.18.1', 'gh is given the address without a port');
  t.equal(ghHostFor('https://github-x1.twins.example'), 'github-x1.twins.example', 'a host name of its own is kept');

  const dir = join(root, 'e');
  const { caFile } = ensureTls(dir);
  const ca = new X509Certificate(readFileSync(caFile));
  const first = hostTls(dir, '127.161.18.1');
  const leaf = new X509Certificate(first.cert);
  t.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), "signed by the directory's CA");
  t.equal(leaf.subjectAltName, 'IP Address:127.161.18.1');
  t.ok(first.cert.includes(readFileSync(caFile, 'utf8').trim()), 'the chain carries the CA');
  t.equal(hostTls(dir, '127.161.18.1').cert, first.cert, 'kept and reused');
});
