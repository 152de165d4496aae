// The SendGrid twin through the recording gateway, driven by the official `@sendgrid/mail` and
// `@sendgrid/client` (base URL pointed at the twin): mail send with personalizations, attachments,
// categories and custom args read back from the mailbox (records of kind `message`), a dynamic
// template rendered from dynamic_template_data, SendGrid's 400/401/403 bodies, the signed Event
// Webhook verified with `@sendgrid/eventwebhook` as SendGrid documents (processed at once,
// delivered and bounce on advance, open and click), Email Activity and the generic long tail.

import t from 'tap';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import sgClient from '@sendgrid/client';
import sgMail from '@sendgrid/mail';
import eventwebhook from '@sendgrid/eventwebhook';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';

const { EventWebhook, EventWebhookHeader } = eventwebhook as unknown as typeof import('@sendgrid/eventwebhook/src/eventwebhook.js');

const start = new Date('2026-03-02T09:00:00Z');
const gw = await startGatewayTwin('sendgrid', { clockStart: start });
t.teardown(() => gw.close());

// The lines the README shows: the key, then the twin's URL as the base URL, then mail on that client.
sgClient.setApiKey(gw.apiKey);
sgClient.setDefaultRequest('baseUrl', gw.url);
sgMail.setClient(sgClient);

// A loopback receiver for the Event Webhook.
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => receiver.close(() => r())));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sendgrid/events`;

async function mailbox(): Promise<any[]> {
  const res = await fetch(`${gw.twin.url}/_twin/records/message`);
  return ((await res.json()) as { body: any }[]).map((r) => r.body);
}

async function idle(): Promise<void> {
  await gw.twin.server.ctx.deliveries.idle();
}

let clock = start.getTime();
async function advance(ms: number): Promise<void> {
  clock += ms;
  await gw.twin.advance(new Date(clock));
  await idle();
}

async function sdkError(p: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code: number; response: { body: any } };
    return { code: err.code, body: err.response.body };
  }
  throw new Error('expected the SDK to reject');
}

t.test('credential: an SG. key; a wrong key or none is 401 with SendGrid errors', async (t) => {
  t.match(gw.apiKey, /^SG\.[A-Za-z0-9]{22}\.[A-Za-z0-9]{43}$/);
  const wrong = new (sgClient as unknown as { Client: new () => typeof sgClient }).Client();
  wrong.setApiKey('SG.nope.nope');
  wrong.setDefaultRequest('baseUrl', gw.url);
  const e = await sdkError(wrong.request({ method: 'GET', url: '/v3/templates' }));
  t.equal(e.code, 401);
  t.same(e.body, { errors: [{ message: 'The provided authorization grant is invalid, expired, or revoked', field: null, help: null }] });
  const none = await fetch(`${gw.url}/v3/mail/send`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  t.equal(none.status, 401);
  t.same(await none.json(), { errors: [{ message: 'authorization required', field: null, help: null }] });
});

t.test('mail send: 202, X-Message-Id, no body; the mailbox holds one message per personalization', async (t) => {
  const [res, body] = await sgMail.send({
    personalizations: [
      {
        to: [{ email: 'ada@example.com', name: 'Ada' }],
        cc: [{ email: 'cc@example.com' }],
        subject: 'Your receipt, Ada',
        substitutions: { name: 'Ada' },
        customArgs: { order: '1001' },
      },
      { to: [{ email: 'bob@example.com' }], bcc: [{ email: 'audit@example.com' }], substitutions: { name: 'Bob' } },
    ],
    from: { email: 'billing@shop.example', name: 'Shop' },
    replyTo: 'support@shop.example',
    subject: 'Your receipt',
    text: 'Hello {{name}}, thanks for your order.',
    html: '<p>Hello {{name}}, thanks for your order.</p>',
    attachments: [{ content: Buffer.from('%PDF-1.4 receipt').toString('base64'), filename: 'receipt.pdf', type: 'application/pdf', disposition: 'attachment' }],
    categories: ['receipts', 'transactional'],
    customArgs: { tenant: 'acme' },
  } as any);
  t.equal(res.statusCode, 202);
  t.equal(body, '');
  const xid = res.headers['x-message-id'] as string;
  t.match(xid, /^[A-Za-z0-9]{22}$/);
  const mine = (await mailbox()).filter((m) => m.x_message_id === xid).sort((a, b) => a.personalization_index - b.personalization_index);
  t.equal(mine.length, 2, 'one message per personalization');
  const [ada, bob] = mine;
  t.equal(ada.subject, 'Your receipt, Ada');
  t.equal(ada.text, 'Hello Ada, thanks for your order.');
  t.equal(ada.html, '<p>Hello Ada, thanks for your order.</p>');
  t.same(ada.to, [{ email: 'ada@example.com', name: 'Ada' }]);
  t.same(ada.cc, [{ email: 'cc@example.com' }]);
  t.same(ada.from, { email: 'billing@shop.example', name: 'Shop' });
  t.same(ada.reply_to, { email: 'support@shop.example' });
  t.same(ada.custom_args, { tenant: 'acme', order: '1001' });
  t.same(ada.categories, ['receipts', 'transactional']);
  t.same(ada.attachments, [{ filename: 'receipt.pdf', type: 'application/pdf', disposition: 'attachment', content_id: null, size: 16 }]);
  t.equal(bob.subject, 'Your receipt');
  t.equal(bob.text, 'Hello Bob, thanks for your order.');
  t.same(bob.bcc, [{ email: 'audit@example.com' }]);
  t.match(ada.sg_message_id, new RegExp(`^${xid}\\.`));
  t.not(ada.sg_message_id, bob.sg_message_id);
});

t.test('400: every problem at once, each naming its field', async (t) => {
  const e = await sdkError(
    sgClient.request({
      method: 'POST',
      url: '/v3/mail/send',
      body: {
        personalizations: [{ to: [] }, { to: [{ email: 'not-an-address' }], cc: [{ email: 'x@example.com' }, { email: 'X@example.com' }] }],
        from: { email: 'nobody' },
        content: [{ type: 'text/plain', value: '' }],
        attachments: [{ filename: 'a.txt', content: '***' }],
      },
    }),
  );
  t.equal(e.code, 400);
  const fields = e.body.errors.map((x: any) => x.field);
  t.same(fields, [
    'personalizations.0.to',
    'personalizations.1.to.0.email',
    'personalizations.1',
    'from.email',
    'subject',
    'content.0.value',
    'attachments.0.content',
  ]);
  t.same(e.body.errors[0], {
    message: 'The to array is required for all personalization objects, and must have at least one email object with a valid email address.',
    field: 'personalizations.0.to',
    help: 'http://sendgrid.com/docs/API_Reference/Web_API_v3/Mail/errors.html#message.personalizations.to',
  });
  t.equal(e.body.errors[3].message, 'The from email does not contain a valid address.');
  t.equal(e.body.errors[5].message, 'The content value must be a string at least one character in length.');

  const many = await sdkError(
    sgClient.request({
      method: 'POST',
      url: '/v3/mail/send',
      body: {
        personalizations: Array.from({ length: 1001 }, (_, i) => ({ to: [{ email: `r${i}@example.com` }] })),
        from: { email: 'a@example.com' },
        subject: 's',
        content: [{ type: 'text/plain', value: 'x' }],
      },
    }),
  );
  t.equal(many.code, 400);
  t.match(many.body.errors[0], { field: 'personalizations', message: /limited to 1000 personalizations per API request\. You have provided 1001/ });
  const none = await sdkError(
    sgClient.request({
      method: 'POST',
      url: '/v3/mail/send',
      body: { from: { email: 'a@example.com' }, subject: 's', content: [{ type: 'text/plain', value: 'x' }] },
    }),
  );
  t.same(
    none.body.errors.map((x: any) => x.field),
    ['personalizations'],
  );
  const before = (await mailbox()).length;
  t.equal(before, 2, 'refused sends leave the mailbox alone');
});

t.test('sandbox mode: checked, answered 200, nothing sent', async (t) => {
  const [res] = await sgMail.send({
    to: 'sandbox@example.com',
    from: 'a@example.com',
    subject: 'Sandboxed',
    text: 'x',
    mailSettings: { sandboxMode: { enable: true } },
  });
  t.equal(res.statusCode, 200);
  const m = (await mailbox()).find((x) => x.subject === 'Sandboxed');
  t.equal(m.status, 'sandbox');
  t.same(m.pending, []);
});

t.test('dynamic template: created through the API, rendered per personalization', async (t) => {
  const [, template] = await sgClient.request({ method: 'POST', url: '/v3/templates', body: { name: 'Welcome', generation: 'dynamic' } });
  t.match(template.id, /^d-[0-9a-f]{32}$/);
  t.equal(template.generation, 'dynamic');
  const [vres, version] = await sgClient.request({
    method: 'POST',
    url: `/v3/templates/${template.id}/versions`,
    body: {
      name: 'v1',
      subject: 'Welcome, {{first_name}}!',
      html_content:
        '<h1>Hi {{first_name}}</h1>{{#if premium}}<p>Premium plan</p>{{/if}}<ul>{{#each items}}<li>{{this}}</li>{{/each}}</ul><p>{{{signature}}}</p>',
      active: 1,
    },
  });
  t.equal(vres.statusCode, 201);
  t.equal(version.active, 1);
  const [, list] = await sgClient.request({ method: 'GET', url: '/v3/templates', qs: { generations: 'dynamic', page_size: 10 } });
  t.same(
    list.result.map((x: any) => x.id),
    [template.id],
  );
  t.equal(list.result[0].versions.length, 1);

  const [res] = await sgMail.send({
    from: 'hello@shop.example',
    templateId: template.id,
    personalizations: [
      { to: 'grace@example.com', dynamicTemplateData: { first_name: 'Grace <3', premium: true, items: ['a', 'b'], signature: '<b>Shop</b>' } },
      { to: 'linus@example.com', dynamicTemplateData: { first_name: 'Linus', premium: false, items: [] } },
    ],
  } as any);
  t.equal(res.statusCode, 202);
  const sent = (await mailbox()).filter((m) => m.template_id === template.id).sort((a, b) => a.personalization_index - b.personalization_index);
  t.equal(sent.length, 2);
  t.equal(sent[0].subject, 'Welcome, Grace &lt;3!');
  t.equal(sent[0].html, '<h1>Hi Grace &lt;3</h1><p>Premium plan</p><ul><li>a</li><li>b</li></ul><p><b>Shop</b></p>');
  t.match(sent[0].text, /Hi Grace <3/);
  t.equal(sent[1].html, '<h1>Hi Linus</h1><ul></ul><p></p>');
  t.equal(sent[0].template_version_id, version.id);

  const bad = await sdkError(sgMail.send({ from: 'a@example.com', to: 'b@example.com', templateId: 'd-00000000000000000000000000000000' } as any));
  t.equal(bad.code, 400);
  t.equal(bad.body.errors[0].field, 'template_id');
});

t.test('signed event webhook: processed at once, delivered and bounce on advance, open and click', async (t) => {
  const [, settings] = await sgClient.request({
    method: 'PATCH',
    url: '/v3/user/webhooks/event/settings',
    body: { enabled: true, url: hookUrl, processed: true, delivered: true, bounce: true, open: true, click: true },
  });
  t.match(settings, { enabled: true, url: hookUrl, processed: true, delivered: true, bounce: true, open: true, click: true, dropped: false });
  const [, signed] = await sgClient.request({ method: 'PATCH', url: '/v3/user/webhooks/event/settings/signed', body: { enabled: true } });
  t.match(signed.public_key, /^MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE/);
  const [, again] = await sgClient.request({ method: 'GET', url: '/v3/user/webhooks/event/settings/signed' });
  t.equal(again.public_key, signed.public_key);

  received.length = 0;
  const [res] = await sgMail.send({
    personalizations: [{ to: [{ email: 'carol@example.com' }, { email: 'bounce@example.com' }], customArgs: { user_id: '42' } }],
    from: 'news@shop.example',
    subject: 'March news',
    html: '<a href="https://shop.example/sale">Sale</a>',
    categories: ['newsletter'],
  } as any);
  const xid = res.headers['x-message-id'] as string;
  await idle();

  const ew = new EventWebhook();
  const key = ew.convertPublicKeyToECDSA(signed.public_key);
  const verify = (r: { headers: IncomingHttpHeaders; body: string }) =>
    ew.verifySignature(
      key,
      r.body,
      r.headers[EventWebhookHeader.SIGNATURE().toLowerCase()] as string,
      r.headers[EventWebhookHeader.TIMESTAMP().toLowerCase()] as string,
    );

  t.equal(received.length, 1, 'one batch: processed');
  t.ok(verify(received[0]!), 'signature verifies with @sendgrid/eventwebhook');
  t.notOk(
    ew.verifySignature(
      key,
      received[0]!.body.replace('carol', 'carl'),
      received[0]!.headers['x-twilio-email-event-webhook-signature'] as string,
      received[0]!.headers['x-twilio-email-event-webhook-timestamp'] as string,
    ),
    'a changed payload does not verify',
  );
  const processed = JSON.parse(received[0]!.body);
  t.same(
    processed.map((e: any) => [e.event, e.email]),
    [
      ['processed', 'carol@example.com'],
      ['processed', 'bounce@example.com'],
    ],
  );
  t.match(processed[0], { user_id: '42', category: ['newsletter'], timestamp: Math.floor(clock / 1000), sg_message_id: new RegExp(`^${xid}\\.`) });
  t.match(processed[0].sg_event_id, /^[A-Za-z0-9]{22}$/);

  await advance(5000);
  t.equal(received.length, 2, 'a second batch after advance');
  t.ok(verify(received[1]!));
  // Earlier sends are answered in the same batch; this send's two recipients are in it.
  const outcome = JSON.parse(received[1]!.body).filter((e: any) => e.sg_message_id.startsWith(`${xid}.`));
  t.same(
    outcome.map((e: any) => [e.event, e.email]),
    [
      ['delivered', 'carol@example.com'],
      ['bounce', 'bounce@example.com'],
    ],
  );
  t.match(outcome[1], { type: 'bounce', status: '5.1.1', user_id: '42' });

  const msg = (await mailbox()).find((m) => m.x_message_id === xid);
  t.equal(msg.status, 'bounced');
  const open = await fetch(`${gw.url}/v3/twin/messages/${encodeURIComponent(msg.sg_message_id)}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'click', email: 'carol@example.com', url: 'https://shop.example/sale' }),
  });
  t.equal(open.status, 200);
  await idle();
  t.equal(received.length, 3);
  t.ok(verify(received[2]!));
  t.match(JSON.parse(received[2]!.body)[0], { event: 'click', url: 'https://shop.example/sale', email: 'carol@example.com' });

  // Email Activity reads the same mailbox.
  const [, activity] = await sgClient.request({ method: 'GET', url: '/v3/messages', qs: { limit: 10, query: 'to_email="carol@example.com"' } });
  t.equal(activity.messages.length, 1);
  t.match(activity.messages[0], { subject: 'March news', status: 'not_delivered', clicks_count: 1, from_email: 'news@shop.example' });

  const deliveries = (await (await fetch(`${gw.twin.url}/_twin/records/delivery`)).json()) as { body: { status: string } }[];
  t.ok(deliveries.length >= 3);
  t.ok(deliveries.every((d) => d.body.status === 'succeeded'));
});

t.test('a bounced address is on the bounce list; later mail to it is dropped until removed', async (t) => {
  const [, bounces] = await sgClient.request({ method: 'GET', url: '/v3/suppression/bounces' });
  t.match(bounces, [{ email: 'bounce@example.com', status: '5.1.1', reason: /550 5\.1\.1/ }]);
  t.equal(typeof bounces[0].created, 'number');
  // Dropped events reach the webhook only when it asks for them.
  await sgClient.request({ method: 'PATCH', url: '/v3/user/webhooks/event/settings', body: { dropped: true } });
  received.length = 0;
  await sgMail.send({ to: ['bounce@example.com', 'frank@example.com'], from: 'news@shop.example', subject: 'Again', text: 'x' });
  await idle();
  t.match(JSON.parse(received[0]!.body), [
    { event: 'processed', email: 'frank@example.com' },
    { event: 'dropped', email: 'bounce@example.com', reason: 'Bounced Address', status: '5.0.0' },
  ]);
  const [del] = await sgClient.request({ method: 'DELETE', url: '/v3/suppression/bounces/bounce@example.com' });
  t.equal(del.statusCode, 204);
  const [, after] = await sgClient.request({ method: 'GET', url: '/v3/suppression/bounces/bounce@example.com' });
  t.same(after, []);
  received.length = 0;
  await sgMail.send({ to: 'bounce@example.com', from: 'news@shop.example', subject: 'Third', text: 'x' });
  await idle();
  t.match(JSON.parse(received[0]!.body), [{ event: 'processed', email: 'bounce@example.com' }]);
  await advance(5000);
});

t.test('the bounce list deletes many addresses or all of them, as the README says', async (t) => {
  await sgMail.send({ to: ['bounce+1@example.com', 'bounce+2@example.com', 'bounce+3@example.com'], from: 'news@shop.example', subject: 'Bulk', text: 'x' });
  await advance(5000);
  const listed = async () => ((await sgClient.request({ method: 'GET', url: '/v3/suppression/bounces' }))[1] as { email: string }[]).map((b) => b.email).sort();
  const before = await listed();
  t.ok(
    ['bounce+1@example.com', 'bounce+2@example.com', 'bounce+3@example.com'].every((e) => before.includes(e)),
    'three bounces listed',
  );
  const [many] = await sgClient.request({
    method: 'DELETE',
    url: '/v3/suppression/bounces',
    body: { emails: ['bounce+1@example.com', 'bounce+2@example.com'] },
  });
  t.equal(many.statusCode, 204);
  const left = await listed();
  t.notOk(left.includes('bounce+1@example.com') || left.includes('bounce+2@example.com'), 'the named addresses left the list');
  t.ok(left.includes('bounce+3@example.com'), 'the others stay');
  const both = await sdkError(sgClient.request({ method: 'DELETE', url: '/v3/suppression/bounces', body: { delete_all: true, emails: ['x@example.com'] } }));
  t.equal(both.code, 400);
  const [all] = await sgClient.request({ method: 'DELETE', url: '/v3/suppression/bounces', body: { delete_all: true } });
  t.equal(all.statusCode, 204);
  t.same(await listed(), []);
});

t.test('delivered at once when the twin is told so', async (t) => {
  await fetch(`${gw.url}/v3/twin/settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ delivery_delay_ms: 0 }),
  });
  received.length = 0;
  await sgMail.send({ to: 'dave@example.com', from: 'a@example.com', subject: 'Now', text: 'x' });
  await idle();
  t.same(
    received.flatMap((r) => JSON.parse(r.body).map((e: any) => e.event)),
    ['processed', 'delivered'],
  );
  await fetch(`${gw.url}/v3/twin/settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ delivery_delay_ms: 3000 }),
  });
});

t.test('scheduled send_at: processed when the clock reaches it', async (t) => {
  received.length = 0;
  const sendAt = Math.floor(clock / 1000) + 3600;
  await sgMail.send({ to: 'erin@example.com', from: 'a@example.com', subject: 'Later', text: 'x', sendAt });
  await idle();
  t.equal(received.length, 0, 'nothing before send_at');
  await advance(3600_000 + 5000);
  t.same(
    received.flatMap((r) => JSON.parse(r.body).map((e: any) => [e.event, e.timestamp])),
    [
      ['processed', sendAt],
      ['delivered', sendAt + 3],
    ],
  );
});

t.test('verified senders (generic layer) turn on the 403 Sender Identity rule', async (t) => {
  const [created, sender] = await sgClient.request({
    method: 'POST',
    url: '/v3/verified_senders',
    body: {
      nickname: 'Shop',
      from_email: 'billing@shop.example',
      from_name: 'Shop',
      reply_to: 'billing@shop.example',
      address: '1 Main St',
      city: 'Denver',
      country: 'USA',
    },
  });
  t.equal(created.statusCode, 201);
  const [, list] = await sgClient.request({ method: 'GET', url: '/v3/verified_senders' });
  t.same(
    list.results.map((s: any) => s.from_email),
    ['billing@shop.example'],
  );
  const [ok] = await sgMail.send({ to: 'f@example.com', from: 'billing@shop.example', subject: 'ok', text: 'x' });
  t.equal(ok.statusCode, 202);
  const e = await sdkError(sgMail.send({ to: 'f@example.com', from: 'someone@elsewhere.example', subject: 'no', text: 'x' }));
  t.equal(e.code, 403);
  t.match(e.body.errors[0], { field: null, message: /does not match a verified Sender Identity/ });
  await sgClient.request({ method: 'DELETE', url: `/v3/verified_senders/${sender.id}` });
});

t.test('the long tail answers from the spec; unknown paths are 404 resource not found', async (t) => {
  const [res, group] = await sgClient.request({
    method: 'POST',
    url: '/v3/asm/groups',
    body: { name: 'Weekly', description: 'Weekly digest', is_default: false },
  });
  t.equal(res.statusCode, 201);
  const [, groups] = await sgClient.request({ method: 'GET', url: '/v3/asm/groups' });
  t.ok(groups.some((g: any) => g.name === 'Weekly'));
  const [, one] = await sgClient.request({ method: 'GET', url: `/v3/asm/groups/${group.id}` });
  t.equal(one.name, 'Weekly');
  const miss = await sdkError(sgClient.request({ method: 'GET', url: '/v3/no/such/thing' }));
  t.equal(miss.code, 404);
  t.same(miss.body, { errors: [{ message: 'resource not found', field: null, help: null }] });
});

t.test('the gateway logged the SDK traffic', async (t) => {
  const logged = await gw.logged();
  t.ok(logged.length > 0);
  t.ok(logged.some((l) => l.method === 'POST' && l.path === '/v3/mail/send' && l.status_code === 202));
  t.ok(logged.some((l) => l.path === '/v3/mail/send' && l.status_code === 400));
});

t.test('phrasebook: outcomes naming SendGrid operations compile', async (t) => {
  const { compilePhrasebook } = await import('../../../control-plane/testing/phrasebook.js');
  const sent = await compilePhrasebook('sent an email titled "Your receipt"', ['sendgrid']);
  t.match(sent, { ok: true, assertions: [{ match: { twin: 'sendgrid', path: '/v3/mail/send', body: { '/subject': 'Your receipt' } } }] });
  const template = await compilePhrasebook('created a template named Welcome', ['sendgrid']);
  t.match(template, { ok: true, assertions: [{ match: { twin: 'sendgrid', method: 'POST', path: '/v3/templates' } }] });
});
