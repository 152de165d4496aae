// The 422 contract (docs/decisions.md §2) through the real app: each Pydantic error type with its exact
// msg, loc, input and ctx; several failing fields reported at once; 404 / 405.

import t from 'tap';
import { startTestControlPlane, type TestControlPlane } from '../helpers/control-plane.js';

let cp: TestControlPlane;
let admin: string;

t.before(async () => {
  cp = await startTestControlPlane();
  admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });
});
t.teardown(() => cp.stop());

const INVITE = '/organizations/current/invitations';
const KEYS = '/organizations/current/api-keys';

async function detail(method: string, path: string, opts: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) {
  const r = await cp.call(method, path, { token: admin, ...opts });
  t.equal(r.status, 422, `${method} ${path} answers 422`);
  return r.body.detail as any[];
}

t.test('missing: body field (input = enclosing object) and whole body (input null)', async (t) => {
  t.same(await detail('POST', INVITE, { body: { email: 'bob@example.com' } }), [
    { type: 'missing', loc: ['body', 'role'], msg: 'Field required', input: { email: 'bob@example.com' } },
  ]);
  t.same(await detail('POST', INVITE), [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
});

t.test('extra_forbidden, one entry per unknown property', async (t) => {
  t.same(await detail('POST', INVITE, { body: { email: 'bob@example.com', role: 'member', team: 'x', admin: true } }), [
    { type: 'extra_forbidden', loc: ['body', 'team'], msg: 'Extra inputs are not permitted', input: 'x' },
    { type: 'extra_forbidden', loc: ['body', 'admin'], msg: 'Extra inputs are not permitted', input: true },
  ]);
});

t.test('query bounds: greater_than_equal, less_than_equal, int_parsing (raw strings)', async (t) => {
  t.same(await detail('GET', `${KEYS}?page=0&size=101`), [
    { type: 'greater_than_equal', loc: ['query', 'page'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
    { type: 'less_than_equal', loc: ['query', 'size'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } },
  ]);
  t.same(await detail('GET', `${KEYS}?page=abc&size=1.5`), [
    { type: 'int_parsing', loc: ['query', 'page'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'abc' },
    { type: 'int_parsing', loc: ['query', 'size'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: '1.5' },
  ]);
  t.same(await detail('GET', `${KEYS}?size=0`), [
    { type: 'greater_than_equal', loc: ['query', 'size'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
  ]);
});

t.test('uuid_parsing with the uuid parser reason (path)', async (t) => {
  const bad = (reason: string, input: string) => [
    { type: 'uuid_parsing', loc: ['path', 'api_key_id'], msg: `Input should be a valid UUID, ${reason}`, input, ctx: { error: reason } },
  ];
  t.same(
    await detail('DELETE', `${KEYS}/x`),
    bad('invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `x` at 1', 'x'),
  );
  t.same(await detail('DELETE', `${KEYS}/abc`), bad('invalid length: expected length 32 for simple format, found 3', 'abc'));
  t.same(await detail('DELETE', `${KEYS}/1234-5678`), bad('invalid group count: expected 5, found 2', '1234-5678'));
  t.same(
    await detail('DELETE', `${KEYS}/12345678-1234-1234-1234-1234567890`),
    bad('invalid group length in group 4: expected 12, found 10', '12345678-1234-1234-1234-1234567890'),
  );
});

t.test('value_error for email, with email-validator wording', async (t) => {
  const email = (input: string, reason: string) => ({
    type: 'value_error',
    loc: ['body', 'email'],
    msg: `value is not a valid email address: ${reason}`,
    input,
    ctx: { reason },
  });
  t.same(await detail('POST', INVITE, { body: { email: 'bob', role: 'member' } }), [email('bob', 'An email address must have an @-sign.')]);
  t.same(await detail('POST', INVITE, { body: { email: '@example.com', role: 'member' } }), [
    email('@example.com', 'There must be something before the @-sign.'),
  ]);
  t.same(await detail('POST', INVITE, { body: { email: 'bob@', role: 'member' } }), [email('bob@', 'There must be something after the @-sign.')]);
  t.same(await detail('POST', INVITE, { body: { email: 'bob@localhost', role: 'member' } }), [
    email('bob@localhost', 'The part after the @-sign is not valid. It should have a period.'),
  ]);
  t.same(await detail('POST', INVITE, { body: { email: 'bob..x@example.com', role: 'member' } }), [
    email('bob..x@example.com', 'An email address cannot have two periods in a row.'),
  ]);
  t.same(await detail('POST', INVITE, { body: { email: 'b ob@example.com', role: 'member' } }), [
    email('b ob@example.com', 'The email address contains invalid characters before the @-sign: SPACE.'),
  ]);
});

t.test('enum, string_type, string_too_short, model_attributes_type', async (t) => {
  t.same(await detail('POST', INVITE, { body: { email: 'bob@example.com', role: 'owner' } }), [
    { type: 'enum', loc: ['body', 'role'], msg: "Input should be 'admin' or 'member'", input: 'owner', ctx: { expected: "'admin' or 'member'" } },
  ]);
  t.same(await detail('POST', INVITE, { body: { email: 42, role: 'member' } }), [
    { type: 'string_type', loc: ['body', 'email'], msg: 'Input should be a valid string', input: 42 },
  ]);
  t.same(await detail('POST', KEYS, { body: { name: '' } }), [
    { type: 'string_too_short', loc: ['body', 'name'], msg: 'String should have at least 1 character', input: '', ctx: { min_length: 1 } },
  ]);
  t.same(await detail('POST', KEYS, { body: { name: 'x'.repeat(101) } }), [
    { type: 'string_too_long', loc: ['body', 'name'], msg: 'String should have at most 100 characters', input: 'x'.repeat(101), ctx: { max_length: 100 } },
  ]);
  t.same(await detail('POST', KEYS, { body: [1, 2] }), [
    { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [1, 2] },
  ]);
  t.same(await detail('POST', KEYS, { body: 'ci' }), [
    { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: 'ci' },
  ]);
});

t.test('datetime parsing and datetime_future', async (t) => {
  t.same(await detail('POST', KEYS, { body: { name: 'ci', expires_at: 'soon' } }), [
    {
      type: 'datetime_from_date_parsing',
      loc: ['body', 'expires_at'],
      msg: 'Input should be a valid datetime or date, input is too short',
      input: 'soon',
      ctx: { error: 'input is too short' },
    },
  ]);
  t.same(await detail('POST', KEYS, { body: { name: 'ci', expires_at: '2030-13-01T00:00:00Z' } }), [
    {
      type: 'datetime_from_date_parsing',
      loc: ['body', 'expires_at'],
      msg: 'Input should be a valid datetime or date, month value is outside expected range of 1-12',
      input: '2030-13-01T00:00:00Z',
      ctx: { error: 'month value is outside expected range of 1-12' },
    },
  ]);
  t.same(await detail('POST', KEYS, { body: { name: 'ci', expires_at: true } }), [
    { type: 'datetime_type', loc: ['body', 'expires_at'], msg: 'Input should be a valid datetime', input: true },
  ]);
  t.same(await detail('POST', KEYS, { body: { name: 'ci', expires_at: '2001-01-01T00:00:00Z' } }), [
    { type: 'datetime_future', loc: ['body', 'expires_at'], msg: 'Input should be in the future', input: '2001-01-01T00:00:00Z' },
  ]);
  const ok = await cp.call('POST', KEYS, { token: admin, body: { name: 'ci', expires_at: '2099-06-01T12:00:00+02:00' } });
  t.equal(ok.status, 201);
  t.equal(ok.body.expires_at, '2099-06-01T10:00:00Z', 'offsets are normalised to UTC');
});

t.test('json_invalid with the character offset', async (t) => {
  t.same(await detail('POST', KEYS, { rawBody: '{"name": "ci",}' }), [
    { type: 'json_invalid', loc: ['body', 14], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting property name enclosed in double quotes' } },
  ]);
});

t.test('every failing field is reported at once, in field order', async (t) => {
  const d = await detail('POST', INVITE, { body: { email: 'nope', role: 'boss', extra: 1 } });
  t.same(
    d.map((e) => [e.type, e.loc]),
    [
      ['value_error', ['body', 'email']],
      ['enum', ['body', 'role']],
      ['extra_forbidden', ['body', 'extra']],
    ],
  );
});

t.test('path and query failures are reported together (path first), as FastAPI does', async (t) => {
  t.same(
    (await detail('GET', '/environments/nope/logs?page=0&size=x')).map((e) => [e.type, e.loc, e.input]),
    [
      ['uuid_parsing', ['path', 'environment_id'], 'nope'],
      ['greater_than_equal', ['query', 'page'], '0'],
      ['int_parsing', ['query', 'size'], 'x'],
    ],
  );
});

t.test('401 comes before 422; 405 and 404', async (t) => {
  const r = await cp.call('POST', INVITE, { body: { nope: 1 } });
  t.equal(r.status, 401);
  t.equal(r.headers.get('www-authenticate'), 'Bearer');
  const wrong = await cp.call('PUT', '/users/me', { token: admin });
  t.equal(wrong.status, 405);
  t.same(wrong.body, { detail: 'Method Not Allowed' });
  t.match(wrong.headers.get('allow') ?? '', /GET/);
  const wrongParam = await cp.call('PATCH', `${KEYS}/5f0c0a59-5cb5-4bd5-9a3c-2f7d5e1c5b11`, { token: admin });
  t.equal(wrongParam.status, 405, 'a templated path with another method is 405');
  const unknown = await cp.call('GET', '/organizations/current/nothing-here', { token: admin });
  t.equal(unknown.status, 404);
  t.same(unknown.body, { detail: 'Not Found' });
});
