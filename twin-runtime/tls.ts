// TLS for twin URLs: a local certificate authority kept in the deployment's data directory
// (`<data dir>/tls/ca.pem`, made on first start and kept), and a server certificate for
// 127.0.0.1, ::1 and localhost signed by it. Clients trust the CA once (NODE_EXTRA_CA_CERTS,
// SSL_CERT_FILE, GIT_SSL_CAINFO) and every twin URL answers https:// as well as http://.
// Certificates are written with node-forge on keys made by node:crypto; existing ones are checked
// with node:crypto alone, so a start that finds them never loads node-forge (~10 MiB, ~100 ms).

import { createRequire } from 'node:module';
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type forgeTypes from 'node-forge';
import { loadOnce } from './load-once.js';

type Forge = typeof forgeTypes;
const require = createRequire(import.meta.url);
const loadForge = loadOnce(() => require('node-forge') as Forge);

export interface TlsFiles {
  /** PEM of the local CA: what clients are told to trust. */
  caFile: string;
  /** Server key and certificate (chain: server, CA) for the listeners. */
  key: string;
  cert: string;
}

const DAY = 86_400_000;

export function caPath(dataDir: string): string {
  return join(dataDir, 'tls', 'ca.pem');
}

function newKeys(forge: Forge): { privateKey: forgeTypes.pki.rsa.PrivateKey; publicKey: forgeTypes.pki.rsa.PublicKey; pem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const priv = forge.pki.privateKeyFromPem(pem) as forgeTypes.pki.rsa.PrivateKey;
  return { privateKey: priv, publicKey: forge.pki.setRsaPublicKey(priv.n, priv.e), pem };
}

function serial(): string {
  // Positive (high bit clear), 16 bytes.
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
}

function writePrivate(path: string, pem: string): void {
  writeFileSync(path, pem, { mode: 0o600 });
  chmodSync(path, 0o600);
}

function makeCa(dir: string): void {
  const forge = loadForge();
  const keys = newKeys(forge);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - DAY);
  cert.validity.notAfter = new Date(Date.now() + 3650 * DAY);
  const name = [
    { name: 'commonName', value: 'Twins local CA' },
    { name: 'organizationName', value: 'Twins' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  writePrivate(join(dir, 'ca-key.pem'), keys.pem);
  writeFileSync(join(dir, 'ca.pem'), forge.pki.certificateToPem(cert));
}

function makeServerCert(dir: string, names: string[]): void {
  const forge = loadForge();
  const ca = forge.pki.certificateFromPem(readFileSync(join(dir, 'ca.pem'), 'utf8'));
  const caKey = forge.pki.privateKeyFromPem(readFileSync(join(dir, 'ca-key.pem'), 'utf8'));
  const keys = newKeys(forge);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - DAY);
  // 825 days: the longest validity macOS and iOS accept for a server certificate.
  cert.validity.notAfter = new Date(Date.now() + 825 * DAY);
  cert.setSubject([{ name: 'commonName', value: 'localhost' }]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  writePrivate(join(dir, 'server-key.pem'), keys.pem);
  writeFileSync(join(dir, 'server.pem'), forge.pki.certificateToPem(cert));
  writeFileSync(join(dir, 'server-names.json'), JSON.stringify(names));
}

/**
 * A certificate for one more name (a twin's own loopback address), signed by the data directory's
 * CA with the server key, kept in `tls/hosts/` and made again near its end. `ensureTls` first.
 */
export function hostTls(dataDir: string, name: string): { key: string; cert: string } {
  const dir = join(dataDir, 'tls');
  const hosts = join(dir, 'hosts');
  mkdirSync(hosts, { recursive: true, mode: 0o700 });
  const file = join(hosts, `${name.replace(/[^A-Za-z0-9.-]/g, '_')}.pem`);
  const key = readFileSync(join(dir, 'server-key.pem'), 'utf8');
  const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
  if (existsSync(file)) {
    const cert = new X509Certificate(readFileSync(file));
    const ca = new X509Certificate(caPem);
    if (Date.parse(cert.validTo) > Date.now() + 30 * DAY && cert.checkIssued(ca) && cert.verify(ca.publicKey))
      return { key, cert: readFileSync(file, 'utf8') + caPem };
  }
  const forge = loadForge();
  const ca = forge.pki.certificateFromPem(caPem);
  const caKey = forge.pki.privateKeyFromPem(readFileSync(join(dir, 'ca-key.pem'), 'utf8'));
  const priv = forge.pki.privateKeyFromPem(key) as forgeTypes.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(priv.n, priv.e);
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - DAY);
  cert.validity.notAfter = new Date(Date.now() + 825 * DAY);
  cert.setSubject([{ name: 'commonName', value: name }]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [isIP(name) ? { type: 7, ip: name } : { type: 2, value: name }] },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(cert);
  writeFileSync(file, pem);
  return { key, cert: pem + caPem };
}

/**
 * The CA and server certificate of a data directory, made when missing (the CA is never replaced;
 * the server certificate is made again when it nears its end or `extraNames` add a name).
 */
export function ensureTls(dataDir: string, extraNames: string[] = []): TlsFiles {
  const dir = join(dataDir, 'tls');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(join(dir, 'ca.pem')) || !existsSync(join(dir, 'ca-key.pem'))) makeCa(dir);
  const names = [...new Set(['localhost', '127.0.0.1', '::1', ...extraNames.filter((n) => n && n !== '0.0.0.0' && n !== '::')])];
  let fresh = existsSync(join(dir, 'server.pem')) && existsSync(join(dir, 'server-key.pem')) && existsSync(join(dir, 'server-names.json'));
  if (fresh) {
    const had = JSON.parse(readFileSync(join(dir, 'server-names.json'), 'utf8')) as string[];
    const cert = new X509Certificate(readFileSync(join(dir, 'server.pem')));
    const ca = new X509Certificate(readFileSync(join(dir, 'ca.pem')));
    fresh = names.every((n) => had.includes(n)) && Date.parse(cert.validTo) > Date.now() + 30 * DAY && cert.checkIssued(ca) && cert.verify(ca.publicKey);
  }
  if (!fresh) makeServerCert(dir, names);
  const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
  return {
    caFile: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'server-key.pem'), 'utf8'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8') + ca,
  };
}
