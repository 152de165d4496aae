// The SendGrid twin's input rules over raw HTTP: hostile bodies get SendGrid's 400 (never a 500),
// prototype keys in custom args and template data are ignored, handlebars cannot reach
// prototypes, legacy templates wrap the message's subject and body, and template versions with
// broken handlebars are refused when saved.

import t from 'tap';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('sendgrid', { clockStart: new Date('2026-03-02T09:00:00Z') });
t.teardown(() => twin.close());

async function call(method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${twin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/json' },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

async function mailbox(): Promise<any[]> {
  return ((await (await fetch(`${twin.url}/_twin/records/message`)).json()) as { body: any }[]).map((r) => r.body);
}

const base = { from: { email: 'a@example.com' }, subject: 's', content: [{ type: 'text/plain', value: 'x' }] };

t.test('unreadable or non-object bodies are 400 Bad Request', async (t) => {
  for (const raw of ['{"personalizations": [', '[1,2,3]', '"text"']) {
    const r = await call('POST', '/v3/mail/send', undefined, raw);
    t.equal(r.status, 400, raw);
    t.same(r.body, { errors: [{ message: 'Bad Request', field: null, help: null }] });
  }
});

t.test('prototype keys in custom args, headers and template data are not kept', async (t) => {
  const raw = JSON.stringify({ ...base, personalizations: [{ to: [{ email: 'p@example.com' }], dynamic_template_data: { ok: 1 } }] }).replace(
    '"subject":"s"',
    '"subject":"proto","custom_args":{"__proto__":{"polluted":"yes"},"constructor":"x","plain":"kept"},"headers":{"__proto__":"x","X-Ok":"1"}',
  );
  const r = await call('POST', '/v3/mail/send', undefined, raw);
  t.equal(r.status, 202);
  const m = (await mailbox()).find((x) => x.subject === 'proto');
  t.same(m.custom_args, { plain: 'kept' });
  t.same(m.headers, { 'X-Ok': '1' });
  t.equal(({} as any).polluted, undefined);
});

t.test('non-string custom args and bad types name their fields', async (t) => {
  const r = await call('POST', '/v3/mail/send', {
    ...base,
    personalizations: [{ to: [{ email: 'p@example.com' }], send_at: 'soon' }],
    custom_args: { n: 1 },
    categories: 'x',
    reply_to: { email: 'r@example.com' },
    reply_to_list: [],
  });
  t.equal(r.status, 400);
  t.same(
    r.body.errors.map((e: any) => e.field),
    ['personalizations.0.send_at', 'reply_to', 'categories', 'custom_args.n'],
  );
  const late = await call('POST', '/v3/mail/send', {
    ...base,
    personalizations: [{ to: [{ email: 'p@example.com' }] }],
    send_at: Math.floor(Date.parse('2026-03-02T09:00:00Z') / 1000) + 73 * 3600,
  });
  t.match(late.body.errors[0], { field: 'send_at', message: /72 hours/ });
  const recipients = await call('POST', '/v3/mail/send', {
    ...base,
    personalizations: Array.from({ length: 3 }, (_, i) => ({ to: Array.from({ length: 400 }, (_, j) => ({ email: `r${i}-${j}@example.com` })) })),
  });
  t.match(recipients.body.errors, [{ field: 'personalizations', message: /limit of 1000 total recipients/ }]);
  const inline = await call('POST', '/v3/mail/send', {
    ...base,
    personalizations: [{ to: [{ email: 'p@example.com' }] }],
    attachments: [
      { content: 'aGk=', filename: 'x.png', disposition: 'inline' },
      { content: 'aGk=', filename: 'y', disposition: 'sideways' },
    ],
  });
  t.same(
    inline.body.errors.map((e: any) => e.field),
    ['attachments.0.content_id', 'attachments.1.disposition'],
  );
});

t.test('handlebars: no prototype access; broken templates refused on save', async (t) => {
  const tpl = (await call('POST', '/v3/templates', { name: 'Hostile', generation: 'dynamic' })).body;
  const broken = await call('POST', `/v3/templates/${tpl.id}/versions`, { name: 'v1', subject: 'x', html_content: '{{#if a}}open' });
  t.equal(broken.status, 400);
  t.equal(broken.body.errors[0].field, 'html_content');
  const v = await call('POST', `/v3/templates/${tpl.id}/versions`, {
    name: 'v1',
    subject: '{{constructor.name}}!',
    html_content: '<p>{{__proto__}}{{constructor.constructor}}{{name.constructor}}[{{name}}]</p>',
  });
  t.equal(v.status, 201);
  t.equal(v.body.active, 1, 'the first version is active');
  const r = await call('POST', '/v3/mail/send', {
    from: { email: 'a@example.com' },
    template_id: tpl.id,
    personalizations: [{ to: [{ email: 'h@example.com' }], dynamic_template_data: { name: 'Ann', __proto__: { evil: true } } }],
  });
  t.equal(r.status, 202);
  const m = (await mailbox()).find((x) => x.template_id === tpl.id);
  t.equal(m.subject, '!');
  t.equal(m.html, '<p>[Ann]</p>');
});

t.test('handlebars has a render budget: nested loops are refused with a 400 naming the data, quickly', async (t) => {
  const tpl = (await call('POST', '/v3/templates', { name: 'Loops', generation: 'dynamic' })).body;
  const nested = '{{#each a}}{{#each @root.a}}{{#each @root.a}}{{#each @root.a}}<b>{{this}}</b>{{/each}}{{/each}}{{/each}}{{/each}}';
  t.equal((await call('POST', `/v3/templates/${tpl.id}/versions`, { name: 'v1', subject: 'loops', html_content: nested })).status, 201);
  const items = Array.from({ length: 100 }, (_, i) => i);
  const started = performance.now();
  const before = (await mailbox()).length;
  const r = await call('POST', '/v3/mail/send', {
    from: { email: 'a@example.com' },
    template_id: tpl.id,
    personalizations: [
      { to: [{ email: 'ok@example.com' }], dynamic_template_data: { a: [1, 2] } },
      { to: [{ email: 'x@example.com' }], dynamic_template_data: { a: items } },
    ],
  });
  t.ok(performance.now() - started < 10_000, 'answered well within the time 100 million iterations would take');
  t.equal(r.status, 400);
  t.match(r.body.errors, [{ field: 'personalizations.1.dynamic_template_data', message: /loops ran more than 100,000 times in one render/ }]);
  t.equal((await mailbox()).length, before, 'nothing of the refused send is kept');
  const small = await call('POST', '/v3/mail/send', {
    from: { email: 'a@example.com' },
    template_id: tpl.id,
    personalizations: [{ to: [{ email: 'ok@example.com' }], dynamic_template_data: { a: [1, 2] } }],
  });
  t.equal(small.status, 202, 'the same template within the budget renders');
  t.equal((await mailbox()).find((x) => x.template_id === tpl.id).html, '<b>1</b><b>2</b>'.repeat(8));
});

t.test('handlebars: the classic prototype-chain RCE payload renders as inert text', async (t) => {
  const tpl = (await call('POST', '/v3/templates', { name: 'RCE', generation: 'dynamic' })).body;
  const payload = `{{#with "s" as |string|}}{{#with "e"}}{{#with split as |conslist|}}{{this.pop}}{{this.push (lookup string.sub "constructor")}}{{this.pop}}{{#with string.split as |codelist|}}{{this.pop}}{{this.push "return globalThis.__twinsHbsPwned = 'yes';"}}{{this.pop}}{{#each conslist}}{{#with (string.sub.apply 0 codelist)}}{{this}}{{/with}}{{/each}}{{/with}}{{/with}}{{/with}}{{/with}}`;
  t.equal((await call('POST', `/v3/templates/${tpl.id}/versions`, { name: 'v1', subject: 'rce', html_content: payload })).status, 201);
  const r = await call('POST', '/v3/mail/send', {
    from: { email: 'a@example.com' },
    template_id: tpl.id,
    personalizations: [{ to: [{ email: 'r@example.com' }] }],
  });
  t.ok(r.status === 202 || r.status === 400, `answered ${r.status}`);
  t.equal((globalThis as any).__twinsHbsPwned, undefined, 'the payload ran nothing');
  const m = (await mailbox()).find((x) => x.template_id === tpl.id);
  if (m) t.notMatch(m.html, /yes/);
});

t.test('legacy template: <%subject%> and <%body%> wrap the message, substitutions apply', async (t) => {
  const tpl = (await call('POST', '/v3/templates', { name: 'Letterhead' })).body;
  t.equal(tpl.generation, 'legacy');
  t.match(tpl.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const v1 = (
    await call('POST', `/v3/templates/${tpl.id}/versions`, {
      name: 'v1',
      subject: '[Acme] <%subject%>',
      html_content: '<header>Acme</header><%body%>',
      plain_content: 'ACME\n<%body%>',
    })
  ).body;
  const v2 = (
    await call('POST', `/v3/templates/${tpl.id}/versions`, {
      name: 'v2',
      subject: '[Acme v2] <%subject%>',
      html_content: '<%body%>',
      plain_content: '<%body%>',
    })
  ).body;
  t.equal(v2.active, 0, 'a later version is inactive unless asked');
  const r = await call('POST', '/v3/mail/send', {
    from: { email: 'a@example.com' },
    template_id: tpl.id,
    subject: 'Invoice for :name',
    content: [
      { type: 'text/plain', value: 'Dear :name' },
      { type: 'text/html', value: '<p>Dear :name</p>' },
    ],
    personalizations: [{ to: [{ email: 'l@example.com' }], substitutions: { ':name': 'Lin' } }],
  });
  t.equal(r.status, 202);
  const m = (await mailbox()).find((x) => x.template_id === tpl.id);
  t.equal(m.subject, '[Acme] Invoice for Lin');
  t.equal(m.html, '<header>Acme</header><p>Dear Lin</p>');
  t.equal(m.text, 'ACME\nDear Lin');
  t.equal(m.template_version_id, v1.id);
  const copy = await call('POST', `/v3/templates/${tpl.id}`, { name: 'Letterhead copy' });
  t.equal(copy.status, 201);
  t.not(copy.body.id, tpl.id);
  t.same(
    copy.body.versions.map((v: any) => [v.name, v.active, v.subject]),
    [
      ['v1', 1, '[Acme] <%subject%>'],
      ['v2', 0, '[Acme v2] <%subject%>'],
    ],
  );
  const activated = await call('POST', `/v3/templates/${tpl.id}/versions/${v2.id}/activate`);
  t.equal(activated.body.active, 1);
  t.same(
    (await call('GET', `/v3/templates/${tpl.id}`)).body.versions.map((v: any) => [v.name, v.active]),
    [
      ['v1', 0],
      ['v2', 1],
    ],
  );
  t.equal((await call('DELETE', `/v3/templates/${tpl.id}`)).status, 204);
  t.equal((await call('GET', `/v3/templates/${tpl.id}`)).status, 404);
});

t.test('event webhook settings refuse what SendGrid refuses', async (t) => {
  const bad = await call('PATCH', '/v3/user/webhooks/event/settings', { enabled: true, url: 'ftp://example.com/x' });
  t.equal(bad.status, 400);
  t.equal(bad.body.errors[0].field, 'url');
  const notBool = await call('PATCH', '/v3/user/webhooks/event/settings', { delivered: 'yes' });
  t.same(notBool.body.errors, [{ field: 'delivered', message: 'delivered must be a boolean', help: null }]);
  const off = await call('GET', '/v3/user/webhooks/event/settings/signed');
  t.same(off.body, { public_key: '' });
});

t.test('a message record edited into another shape is skipped, not a 500', async (t) => {
  const put = await fetch(`${twin.url}/_twin/records/message/edited`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields: { sg_message_id: 'edited', pending: 'soon', to: null } }),
  });
  t.ok(put.status < 300, `records API accepted the edit (${put.status})`);
  await twin.advance(new Date('2026-03-02T12:00:00Z'));
  const activity = await call('GET', '/v3/messages?limit=100');
  t.equal(activity.status, 200);
  t.ok(activity.body.messages.length > 0);
  t.notOk(activity.body.messages.some((m: any) => m.msg_id === 'edited'));
  t.equal((await call('GET', '/v3/messages/edited')).status, 404);
});

t.test('a personalization may send from its own address', async (t) => {
  const r = await call('POST', '/v3/mail/send', {
    ...base,
    subject: 'own from',
    personalizations: [{ to: [{ email: 'o@example.com' }], from: { email: 'sales@example.com', name: 'Sales' } }, { to: [{ email: 'q@example.com' }] }],
  });
  t.equal(r.status, 202);
  const sent = (await mailbox()).filter((m) => m.subject === 'own from').sort((a, b) => a.personalization_index - b.personalization_index);
  t.same(
    sent.map((m) => m.from.email),
    ['sales@example.com', 'a@example.com'],
  );
  const bad = await call('POST', '/v3/mail/send', { ...base, personalizations: [{ to: [{ email: 'o@example.com' }], from: { email: 'nope' } }] });
  t.same(
    bad.body.errors.map((e: any) => e.field),
    ['personalizations.0.from.email'],
  );
});
