// The console's pure helpers, without a browser: the event-stream parser, body pretty-printing,
// JSON error places, status filters, calendar arithmetic of the time controls, and SDK snippets.

import t from 'tap';
import { parseEvents, type StreamEvent } from '../../control-plane/console/web/lib/event-stream.js';
import { addDays, addMonth, jsonErrorPlace, prettyBody, statusMatches } from '../../control-plane/console/web/lib/format.js';
import { genericSdk, HIDDEN, renderSdkSnippet } from '../../control-plane/client/sdk-snippets.js';

t.test('event stream parsing across chunks', async (t) => {
  const events: StreamEvent[] = [];
  let retry = 0;
  const feed = (s: string, rest: string) =>
    parseEvents(
      rest + s,
      (e) => events.push(e),
      (ms) => (retry = ms),
    );
  let rest = feed('retry: 1000\n\nevent: ready\ndata: {"cursor":"0"}\n\nid: 7\nevent: req', '');
  t.equal(retry, 1000);
  t.same(events, [{ event: 'ready', data: '{"cursor":"0"}', id: undefined }]);
  rest = feed('uest\ndata: {"a":1}\n\n: keep-alive\n\ndata: line one\ndata: line two\r\n\r\n', rest);
  t.same(events.slice(1), [
    { event: 'request', data: '{"a":1}', id: '7' },
    { event: 'message', data: 'line one\nline two', id: undefined },
  ]);
  t.equal(rest, '');
});

t.test('bodies for reading', async (t) => {
  t.same(prettyBody('{"a":1,"b":[2]}', 'application/json; charset=utf-8'), { kind: 'json', text: '{\n  "a": 1,\n  "b": [\n    2\n  ]\n}' });
  t.same(prettyBody('email=a%40b.c&metadata[tier]=gold', 'application/x-www-form-urlencoded').pairs, [
    ['email', 'a@b.c'],
    ['metadata[tier]', 'gold'],
  ]);
  t.equal(prettyBody('{"cut', 'application/json').kind, 'text', 'a body cut at the cap is shown as sent');
  t.equal(prettyBody(null, null).kind, 'empty');
  t.equal(prettyBody('<xml/>', 'text/xml').text, '<xml/>');
});

t.test('where a JSON error is', async (t) => {
  const source = '{\n  "a": 1,\n}';
  let message = '';
  try {
    JSON.parse(source);
  } catch (e) {
    message = (e as Error).message;
  }
  t.match(jsonErrorPlace(source, message) ?? '', /^line 3, column \d+$/);
  t.equal(jsonErrorPlace('x', 'Unexpected token x in JSON at position 0'), 'line 1, column 1');
  t.equal(jsonErrorPlace('{}', 'nothing here'), undefined);
});

t.test('status filters', async (t) => {
  t.ok(statusMatches(404, '4xx'));
  t.ok(statusMatches(404, '40'));
  t.ok(statusMatches(404, ' 404 '));
  t.notOk(statusMatches(200, '4xx'));
  t.ok(statusMatches(503, ''));
  t.notOk(statusMatches(500, '404'));
});

t.test('calendar arithmetic of the time controls (UTC)', async (t) => {
  t.equal(addMonth('2026-01-31T10:00:00.000Z').toISOString(), '2026-02-28T10:00:00.000Z', 'clamped to the end of a short month');
  t.equal(addMonth('2028-01-31T00:00:00.000Z').toISOString(), '2028-02-29T00:00:00.000Z', 'leap year');
  t.equal(addMonth('2026-12-15T23:59:59.000Z').toISOString(), '2027-01-15T23:59:59.000Z', 'over the year end');
  t.equal(addDays('2026-03-28T12:00:00.000Z', 1).toISOString(), '2026-03-29T12:00:00.000Z', 'a day is 24 h in UTC');
});

t.test("SDK snippets: a twin definition's templates rendered for a URL and a credential", async (t) => {
  const { loadTwin } = await import('../../twin-runtime/registry.js');
  const sdkOf = async (slug: string) => (await loadTwin(slug)).sdk;
  const stripe = renderSdkSnippet(await sdkOf('stripe'), 'http://127.0.0.1:41234', { api_key: 'sk_test_abc', publishable_key: 'pk_test_x' })!;
  t.match(stripe.code, "new Stripe('sk_test_abc', { host: '127.0.0.1', port: 41234, protocol: 'http' })");
  t.equal(stripe.install, 'npm install stripe');
  t.same(stripe.env, { STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_PUBLISHABLE_KEY: 'pk_test_x', STRIPE_API_URL: 'http://127.0.0.1:41234' });
  t.match(renderSdkSnippet(await sdkOf('stripe'), 'https://t1.twins.example.com', {})!.code, "port: 443, protocol: 'https'");
  t.match(renderSdkSnippet(await sdkOf('stripe'), 'http://127.0.0.1:1', {})!.code, `new Stripe('${HIDDEN('api_key')}'`, 'the key stays out until shown');
  t.match(
    renderSdkSnippet(await sdkOf('github'), 'http://127.0.0.1:2/', { api_key: 'ghp_x' })!.code,
    "new Octokit({ auth: 'ghp_x', baseUrl: 'http://127.0.0.1:2' })",
  );
  t.match(renderSdkSnippet(await sdkOf('slack'), 'http://127.0.0.1:3', { api_key: 'xoxb-1' })!.code, "slackApiUrl: 'http://127.0.0.1:3/api/'");
  t.match(renderSdkSnippet(await sdkOf('stripe'), 'http://127.0.0.1:4', { api_key: "it's\\" })!.code, "'it\\'s\\\\'", 'quotes and backslashes are escaped');
  t.match(
    renderSdkSnippet(await sdkOf('twilio'), 'http://127.0.0.1:5', { api_key: 'tok', account_sid: 'AC1' })!.code,
    "twilio('AC1', 'tok')",
    'other halves of the credential',
  );
  const generic = renderSdkSnippet(genericSdk('my-api'), 'http://127.0.0.1:6', { api_key: 'k' })!;
  t.equal(generic.install, '', 'a twin naming no SDK: fetch, nothing to install');
  t.same(generic.env, { MY_API_API_KEY: 'k', MY_API_API_URL: 'http://127.0.0.1:6' });
  t.equal(renderSdkSnippet(null, 'http://127.0.0.1:7', {}), undefined);
});
