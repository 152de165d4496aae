// Files through the official SDK behind the recording gateway (the SDK sends uploads to
// files.stripe.com; its `host` setting points them here): a multipart upload per purpose with its
// format, size and expiry rules, the bytes at `url` (secret key) and at a file link's `url` (no
// key, until the link expires), file links made with the upload or later, and dispute evidence
// that names a file (a missing file or one of another purpose refused).

import t from 'tap';
import Stripe from 'stripe';
import { startTwinBehindGateway, type GatewayTwin } from '../../helpers/gateway-twin.js';

let gw: GatewayTwin;
let stripe: Stripe;
t.before(async () => {
  gw = await startTwinBehindGateway('stripe', { clockStart: new Date('2026-03-01T00:00:00Z') });
  const url = new URL(gw.url);
  stripe = new Stripe(gw.apiKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
});
t.teardown(() => gw.close());

/** A small but real PDF (what Stripe sniffs files by is their first bytes). */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);

const upload = (purpose: Stripe.FileCreateParams.Purpose, data: Buffer, name: string, extra: Partial<Stripe.FileCreateParams> = {}) =>
  stripe.files.create({ purpose, file: { data, name, type: 'application/octet-stream' }, ...extra });

t.test('a dispute_evidence upload is a file whose url serves its bytes to the secret key', async (t) => {
  const file = await upload('dispute_evidence', PDF, 'receipt.pdf');
  t.match(file.id, /^file_/);
  t.equal(file.object, 'file');
  t.equal(file.purpose, 'dispute_evidence');
  t.equal(file.type, 'pdf', 'sniffed from the bytes, not the declared content type');
  t.equal(file.size, PDF.length);
  t.equal(file.filename, 'receipt.pdf');
  t.equal(file.expires_at, file.created + 273 * 86_400, 'dispute evidence lives nine months');
  t.ok(file.url?.startsWith(gw.url), 'the url is the twin’s own (through the gateway), never files.stripe.com');
  t.same(file.links?.data, []);

  const got = await stripe.files.retrieve(file.id);
  t.equal(got.size, PDF.length);
  const bytes = await fetch(file.url!, { headers: { authorization: `Bearer ${gw.apiKey}` } });
  t.equal(bytes.status, 200);
  t.equal(bytes.headers.get('content-type'), 'application/pdf');
  t.same(Buffer.from(await bytes.arrayBuffer()), PDF);
  const noKey = await fetch(file.url!);
  t.equal(noKey.status, 401, 'the download needs the secret key');

  const listed = await stripe.files.list({ purpose: 'dispute_evidence' });
  t.ok(listed.data.length > 0);
  t.ok(listed.data.some((f) => f.id === file.id));
  t.same((await stripe.files.list({ purpose: 'business_logo' })).data, []);
});

t.test('purpose rules: formats, sizes, downloadability and unknown files as Stripe refuses them', async (t) => {
  const wrongType = await upload('business_logo', PDF, 'logo.pdf').catch((e) => e);
  t.equal(wrongType.type, 'StripeInvalidRequestError');
  t.equal(wrongType.param, 'file');
  t.match(wrongType.message, /business_logo/);

  const tooBig = await upload('business_icon', Buffer.concat([PNG, Buffer.alloc(600 * 1024)]), 'icon.png').catch((e) => e);
  t.equal(tooBig.statusCode, 400);
  t.match(tooBig.message, /at most 524288 bytes/);

  const empty = await upload('dispute_evidence', Buffer.alloc(0), 'empty.pdf').catch((e) => e);
  t.equal(empty.statusCode, 400);

  const badPurpose = await stripe.files.create({ purpose: 'nope' as never, file: { data: PDF, name: 'a.pdf', type: 'application/pdf' } }).catch((e) => e);
  t.equal(badPurpose.param, 'purpose');

  const missing = await stripe.files.retrieve('file_doesnotexist').catch((e) => e);
  t.equal(missing.statusCode, 404);
  t.equal(missing.message, "No such file upload: 'file_doesnotexist'");

  const identity = await upload('identity_document', PNG, 'passport.png');
  t.equal(identity.url, null, 'identity documents cannot be downloaded');
  const refused = await fetch(`${gw.url}/v1/files/${identity.id}/contents`, { headers: { authorization: `Bearer ${gw.apiKey}` } });
  t.equal(refused.status, 400);
  const linkRefused = await stripe.fileLinks.create({ file: identity.id }).catch((e) => e);
  t.equal(linkRefused.statusCode, 400, 'no file links to identity documents');
});

t.test('file links: made with the upload or later, public until they expire', async (t) => {
  const file = await upload('business_logo', PNG, 'logo.png', { file_link_data: { create: true, metadata: { kind: 'logo' } } });
  const links = file.links?.data ?? [];
  t.equal(links.length, 1, 'the link made with the upload is listed on the file');
  const link = links[0]!;
  t.match(link.id, /^link_/);
  t.equal(link.file, file.id);
  t.same(link.metadata, { kind: 'logo' });
  t.equal(link.expired, false);
  const open = await fetch(link.url!);
  t.equal(open.status, 200, 'a link needs no key');
  t.same(Buffer.from(await open.arrayBuffer()), PNG);
  const forged = await fetch(link.url!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')));
  t.equal(forged.status, 404, 'a changed token is no link');

  const later = await stripe.fileLinks.create({ file: file.id, expires_at: Math.floor(Date.parse('2026-04-01T00:00:00Z') / 1000) });
  t.equal(later.expires_at, Math.floor(Date.parse('2026-04-01T00:00:00Z') / 1000));
  const past = await stripe.fileLinks.create({ file: file.id, expires_at: 1_000 }).catch((e) => e);
  t.equal(past.param, 'expires_at');
  const listed = await stripe.fileLinks.list({ file: file.id });
  t.same(listed.data.map((l) => l.id).sort(), [link.id, later.id].sort());

  const expired = await stripe.fileLinks.update(link.id, { expires_at: 'now' });
  t.equal(expired.expired, true);
  t.equal((await fetch(link.url!)).status, 404, 'an expired link serves nothing');
  t.same(
    (await stripe.fileLinks.list({ file: file.id, expired: false })).data.map((l) => l.id),
    [later.id],
  );
  const noLongerUpdatable = await stripe.fileLinks.update(link.id, { expires_at: 'now' }).catch((e) => e);
  t.equal(noLongerUpdatable.statusCode, 400);
});

t.test('dispute evidence names uploaded files; a missing one or one of another purpose is refused', async (t) => {
  const pi = await stripe.paymentIntents.create({
    amount: 4_000,
    currency: 'usd',
    payment_method: 'pm_card_createDispute',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
  const disputes = await stripe.disputes.list({ charge: pi.latest_charge as string });
  t.equal(disputes.data.length, 1, 'the test card disputed the charge');
  const dispute = disputes.data[0]!;
  t.equal(dispute.status, 'needs_response');

  const missing = await stripe.disputes.update(dispute.id, { evidence: { receipt: 'file_missing' } }).catch((e) => e);
  t.equal(missing.statusCode, 404);
  t.equal(missing.param, 'evidence[receipt]');
  const logo = await upload('business_logo', PNG, 'logo.png');
  const wrongPurpose = await stripe.disputes.update(dispute.id, { evidence: { receipt: logo.id } }).catch((e) => e);
  t.equal(wrongPurpose.statusCode, 400);
  t.match(wrongPurpose.message, /dispute_evidence/);
  t.equal((await stripe.disputes.retrieve(dispute.id)).evidence.receipt, null, 'a refused update changed nothing');

  const receipt = await upload('dispute_evidence', PDF, 'receipt.pdf');
  const submitted = await stripe.disputes.update(dispute.id, { evidence: { receipt: receipt.id, uncategorized_text: 'Delivered and signed for.' } });
  t.equal(submitted.evidence.receipt, receipt.id);
  t.equal(submitted.status, 'under_review');
  t.equal(submitted.evidence_details.has_evidence, true);

  const logged = await gw.logged();
  const uploads = logged.filter((r) => r.method === 'POST' && r.path === '/v1/files');
  t.ok(uploads.length > 0, 'the uploads went through the gateway and are in its log');
});
