// Limits at the edge: every twin refuses a request past an input limit in its provider's own shape
// (never a 500, never a silently reshaped parameter), and so does the control plane in the
// contract's. The shared helpers of twin-runtime/safe-input.ts are checked on their own first.

import t, { type Test } from 'tap';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import {
  assignSafely,
  INPUT_LIMITS,
  InputRefusal,
  jsonPastLimits,
  offsetPastJsonDepth,
  ownValue,
  parseJson,
  prototypeAdditions,
  prototypesIntact,
} from '../../twin-runtime/safe-input.js';
import { startTwin } from '../helpers/twin.js';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { MAX_QUERY_PARAMETERS, queryPairCount } from '../../control-plane/http/query-limits.js';

t.test('parseJson drops what reaches a prototype and refuses deep nesting', async (t) => {
  const parsed = parseJson(
    '{"a":{"__proto__":{"x":1},"constructor":{"prototype":{"y":1}},"keep":"[[[{{{\\"]]]"},' +
      '"\\u005f_proto__":{"z":1},"c\\u006fnstructor":{"prototype":{"w":1}},"list":[{"__proto__":{"v":1}}],"constructor":"a string"}',
  ) as Record<string, any>;
  t.same(Object.keys(parsed).sort(), ['a', 'constructor', 'list'], 'escaped spellings are removed too; a constructor without prototype is data');
  t.same(Object.keys(parsed.a), ['keep']);
  t.notOk(Object.hasOwn(parsed.list[0], '__proto__'));
  t.equal(Object.getPrototypeOf(parsed.a), Object.prototype);
  t.equal(({} as any).x ?? ({} as any).y ?? ({} as any).z, undefined);

  const deep = '['.repeat(INPUT_LIMITS.maxJsonDepth + 1) + ']'.repeat(INPUT_LIMITS.maxJsonDepth + 1);
  t.throws(() => parseJson(deep), InputRefusal);
  t.match(
    (() => {
      try {
        parseJson(deep);
      } catch (e) {
        return e;
      }
    })(),
    { reason: 'nesting_too_deep', offset: INPUT_LIMITS.maxJsonDepth },
  );
  t.ok(parseJson('['.repeat(INPUT_LIMITS.maxJsonDepth) + ']'.repeat(INPUT_LIMITS.maxJsonDepth)), 'the deepest allowed nesting parses');
  t.equal(offsetPastJsonDepth('{"a":"[[[[[[[[[[\\\\","b":[[1]]}', 2), 25, 'brackets inside strings do not count');
  t.equal(offsetPastJsonDepth('{"a":"[[[[[[[[[[\\\\\\"[[[","b":[[1]]}', 2), 30, 'nor after an escaped quote');
  t.equal(offsetPastJsonDepth('"unterminated [[[[', 1), -1, 'malformed text is left to JSON.parse');
  t.throws(() => parseJson('{bad'), SyntaxError);
});

/** A JSON object of `n` keys. */
const jsonKeys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;

t.test('parseJson refuses a body past its keys, having read no further than the key past the limit', async (t) => {
  const limits = { maxJsonDepth: 64, maxJsonKeys: 3 };
  t.equal(jsonPastLimits('{"a":1,"b":{"c":2}}', limits), undefined, 'three keys at any depth are fine');
  t.same(jsonPastLimits('{"a":1,"b":{"c":2,"d":3}}', limits), { reason: 'too_many_keys', offset: 21 });
  t.equal(jsonPastLimits('{"a":"x:y:z:w","b":[1,2,3,4,5,6]}', limits), undefined, 'colons in strings and array items are not keys');
  t.equal(parseJson(jsonKeys(INPUT_LIMITS.maxJsonKeys), 'body') !== undefined, true, 'the most keys allowed parse');
  t.match(
    (() => {
      try {
        parseJson(jsonKeys(300_000));
      } catch (e) {
        return e;
      }
    })(),
    {
      reason: 'too_many_keys',
      limit: INPUT_LIMITS.maxJsonKeys,
      message: `The request body has too many keys; at most ${INPUT_LIMITS.maxJsonKeys} are accepted.`,
    },
  );
});

t.test('assignSafely and ownValue', async (t) => {
  const source = JSON.parse('{"__proto__":{"polluted":1},"constructor":"c","prototype":"p","a":1}');
  const target = assignSafely({}, source);
  t.same(Object.keys(target), ['a']);
  t.equal(Object.getPrototypeOf(target), Object.prototype);
  t.equal(ownValue({}, 'constructor'), undefined, 'inherited names read as absent');
  t.equal(ownValue({ constructor: 'x' }, 'constructor'), 'x');
  t.equal(ownValue('text', 'length'), undefined);
});

t.test('prototypesIntact notices an addition and its removal', async (t) => {
  t.ok(prototypesIntact());
  (Object.prototype as any).polluted_probe = 'yes';
  try {
    t.notOk(prototypesIntact());
    t.same(prototypeAdditions(), ['polluted_probe']);
  } finally {
    delete (Object.prototype as any).polluted_probe;
  }
  const original = Array.prototype.includes;
  (Array.prototype as any).includes = () => true;
  try {
    t.notOk(prototypesIntact(), 'a replaced built-in counts too');
  } finally {
    (Array.prototype as any).includes = original;
  }
  t.ok(prototypesIntact());
});

/** The hostile requests: each passes exactly one limit. */
const many = Array.from({ length: 10_000 }, (_, i) => `p${i}=x`).join('&');
/** More pairs than allowed that still fit in Node's 16 KiB request head (10,000 do not: Node answers 431). */
const manyInQuery = Array.from({ length: INPUT_LIMITS.maxParameters + 1 }, (_, i) => `p${i}=x`).join('&');
const HOSTILE: { name: string; query?: string; contentType?: string; body?: string; param?: RegExp; size?: number }[] = [
  { name: `${INPUT_LIMITS.maxParameters + 1} query parameters`, query: manyInQuery },
  { name: '10,000 form parameters', contentType: 'application/x-www-form-urlencoded', body: many },
  {
    name: 'a name 100 levels deep',
    contentType: 'application/x-www-form-urlencoded',
    body: 'metadata' + '[a]'.repeat(100) + '=x',
    param: /^metadata\[a\]\[a\]/,
  },
  { name: 'index 10^9', contentType: 'application/x-www-form-urlencoded', body: 'items[1000000000][price]=p', param: /^items\[1000000000\]$/ },
  { name: 'index 10^9 in the query', query: 'expand[1000000000]=x', param: /^expand\[1000000000\]$/ },
  { name: 'a 100,000-character name', contentType: 'application/x-www-form-urlencoded', body: 'k'.repeat(100_000) + '=x', param: /^k+…$/ },
  { name: 'JSON 100 levels deep', contentType: 'application/json', body: '{"a":'.repeat(100) + '1' + '}'.repeat(100) },
  { name: '300,000 JSON keys', contentType: 'application/json', body: jsonKeys(300_000) },
  { name: 'a body past the size limit', contentType: 'application/json', body: ' '.repeat(INPUT_LIMITS.maxBodyBytes + 1), size: INPUT_LIMITS.maxBodyBytes + 1 },
];

type Hostile = (typeof HOSTILE)[number];

/** What each twin's provider answers; a twin not listed must still answer a client error. */
const PROVIDER_SHAPE: Record<string, (t: Test, h: Hostile, status: number, body: any, headers: Headers) => void> = {
  stripe(t, h, status, body, headers) {
    t.equal(status, h.size ? 413 : 400, `${h.name}: status`);
    t.equal(body.error.type, 'invalid_request_error', `${h.name}: Stripe's error type`);
    t.type(body.error.message, 'string');
    if (h.param) t.match(body.error.param, h.param, `${h.name}: names the parameter`);
    t.match(headers.get('request-id'), /^req_/, `${h.name}: Request-Id`);
  },
  github(t, h, status, body) {
    if (h.size) t.equal(status, 413, `${h.name}: status`);
    else if (h.body !== undefined) t.same([status, body.message], [400, 'Problems parsing JSON'], `${h.name}: GitHub's answer to a body it cannot read`);
    else t.same([status, body.message.split('\n')[0]], [422, 'Invalid request.'], `${h.name}: GitHub's schema-level 422`);
    t.equal(body.status, String(status));
    t.match(body.documentation_url, /^https:\/\/docs\.github\.com/);
  },
  slack(t, h, status, body) {
    t.equal(status, 200, `${h.name}: Slack answers failed calls with HTTP 200`);
    t.equal(body.ok, false);
    const expected = h.name.includes('character name')
      ? 'invalid_arg_name'
      : h.param
        ? 'invalid_array_arg'
        : h.contentType === 'application/json'
          ? 'invalid_json'
          : 'invalid_form_data';
    t.equal(body.error, expected, `${h.name}: Slack's code`);
    t.match(body.response_metadata.messages[0], /^\[ERROR\] /);
  },
};

for (const slug of TWIN_SLUGS) {
  t.test(`${slug}: requests past a limit are refused in the provider's shape`, async (t) => {
    const twin = await startTwin(slug);
    t.teardown(() => twin.close());
    const route = twin.server.twin.routes.find((r) => r.method === 'POST') ?? twin.server.twin.routes[0]!;
    const path = route.path.replace(/\{[^}]+\}/g, 'x');
    for (const h of HOSTILE) {
      const res = await fetch(`${twin.url}${path}${h.query ? `?${h.query}` : ''}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${twin.apiKey}`, ...(h.contentType ? { 'content-type': h.contentType } : {}) },
        body: h.body,
      });
      const body = (await res.json()) as any;
      t.ok(res.status < 500, `${h.name}: not a server error (${res.status})`);
      const shape = PROVIDER_SHAPE[slug];
      if (shape) shape(t, h, res.status, body, res.headers);
      else t.ok(res.status >= 400 && res.status < 500, `${h.name}: a client error`);
    }
    // Refusals are answered before authentication, and the twin keeps serving.
    const anonymous = await fetch(`${twin.url}${path}?${manyInQuery}`, { method: 'POST' });
    const refusedFirst = (await anonymous.json()) as any;
    t.ok(anonymous.status < 500 && anonymous.status !== 401 && refusedFirst.error !== 'not_authed', 'refused for its input, not for its missing key');
    t.equal((await fetch(`${twin.url}${path}?${many}`, { method: 'POST' })).status, 431, "10,000 pairs do not fit in Node's request head");
    t.ok(
      (await fetch(`${twin.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${twin.apiKey}` } })).status < 500,
      'a normal request after them',
    );
    t.ok(prototypesIntact());
  });
}

t.test('the runtime refuses oversized admin bodies with {detail}', async (t) => {
  const twin = await startTwin('stripe');
  t.teardown(() => twin.close());
  const res = await fetch(`${twin.url}/_twin/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '['.repeat(100) + ']'.repeat(100),
  });
  t.equal(res.status, 400);
  t.match(await res.json(), { detail: /nests too deeply/ });
  const health = await (await fetch(`${twin.url}/_twin/health`)).json();
  t.equal(health.prototype_intact, true, 'the admin health answer says the prototypes are intact');
});

t.test('the control plane refuses in the contract shape', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({});

  const deep = await cp.call('POST', '/organizations/current/api-keys', { token, rawBody: '{"name":' + '['.repeat(100) + ']'.repeat(100) + '}' });
  t.equal(deep.status, 422);
  t.match(deep.body, {
    detail: [
      { type: 'json_invalid', loc: ['body', 8 + INPUT_LIMITS.maxJsonDepth - 1], msg: 'JSON decode error', ctx: { error: 'Maximum nesting depth exceeded' } },
    ],
  });

  const keys = await cp.call('POST', '/organizations/current/api-keys', { token, rawBody: jsonKeys(INPUT_LIMITS.maxJsonKeys + 10_000) });
  t.equal(keys.status, 422);
  t.match(keys.body, { detail: [{ type: 'json_invalid', msg: 'JSON decode error', ctx: { error: `More than ${INPUT_LIMITS.maxJsonKeys} keys` } }] });

  const big = await cp.call('POST', '/organizations/current/api-keys', { token, rawBody: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }) });
  t.same([big.status, big.body], [413, { detail: 'Request body too large.' }]);

  const query = Array.from({ length: MAX_QUERY_PARAMETERS + 1 }, (_, i) => `p${i}=1`).join('&');
  const longQuery = await cp.call('GET', `/environments?${query}`, { token });
  t.same([longQuery.status, longQuery.body], [400, { detail: `Too many query parameters. Maximum number of parameters is ${MAX_QUERY_PARAMETERS}.` }]);
  t.equal((await cp.call('GET', `/environments?${query.split('&').slice(0, MAX_QUERY_PARAMETERS).join('&')}`, { token })).status, 200, 'at the limit is fine');
  t.equal(queryPairCount('/x?a=1&&b&'), 2);

  const polluted = await cp.call('POST', '/organizations/current/api-keys', {
    token,
    rawBody: '{"name":"ci","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
  });
  t.equal(polluted.status, 201, 'the pollution keys are dropped, not an error');
  t.equal(({} as any).polluted, undefined);
  t.ok(prototypesIntact());
});
