// Generic resources driven by the providers' official SDKs: create → read → update → list →
// delete round-trips, the providers' refusals and 404s, records visible and editable through the
// twin's admin records API and gone after a reset, input keys that would pollute prototypes
// ignored, and a path a greedy hand-written route used to swallow answered by its own operation.

import t from 'tap';
import Stripe from 'stripe';
import { WebClient } from '@slack/web-api';
import { startTwin } from '../helpers/twin.js';
import { mintUserToken } from '../../twins/slack/model/tokens.js';
import { startGitHub, failure } from '../twins/github/setup.js';

async function admin(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/_twin/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

t.test('Stripe: taxRates create → retrieve → update → list, coupons create → del', async (t) => {
  const twin = await startTwin('stripe');
  t.teardown(() => twin.close());
  const u = new URL(twin.url);
  const stripe = new Stripe(twin.apiKey, { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 });

  const rate = await stripe.taxRates.create({ display_name: 'VAT', percentage: 20, inclusive: false, country: 'DE' });
  t.match(rate.id, /^txr_[A-Za-z0-9]{24}$/);
  t.match(rate, {
    object: 'tax_rate',
    display_name: 'VAT',
    percentage: 20,
    inclusive: false,
    active: true,
    country: 'DE',
    livemode: false,
    description: null,
    metadata: {},
  });
  t.type(rate.created, 'number');
  t.same(await stripe.taxRates.retrieve(rate.id), rate, 'retrieve answers what create answered');
  const updated = await stripe.taxRates.update(rate.id, { active: false, metadata: { region: 'eu' } });
  t.match(updated, { id: rate.id, active: false, metadata: { region: 'eu' } });
  const second = await stripe.taxRates.create({ display_name: 'GST', percentage: 10, inclusive: true });
  const page = await stripe.taxRates.list({ limit: 1 });
  t.same(
    page.data.map((r) => r.id),
    [second.id],
    'newest first',
  );
  t.equal(page.has_more, true);
  t.equal((page as unknown as { url: string }).url, '/v1/tax_rates');
  const next = await stripe.taxRates.list({ limit: 1, starting_after: second.id });
  t.same(
    next.data.map((r) => r.id),
    [rate.id],
  );
  t.equal(next.has_more, false);
  const all: string[] = [];
  for await (const r of stripe.taxRates.list({ limit: 1 })) all.push(r.id);
  t.same(all, [second.id, rate.id], 'SDK auto-pagination walks the pages');
  const filtered = await stripe.taxRates.list({ active: true });
  t.same(
    filtered.data.map((r) => r.id),
    [second.id],
    'a query parameter naming a field filters',
  );

  const coupon = await stripe.coupons.create({ percent_off: 25, duration: 'repeating', duration_in_months: 3 });
  t.match(coupon, { object: 'coupon', percent_off: 25, duration: 'repeating', duration_in_months: 3, valid: true, amount_off: null });
  const named = await stripe.coupons.create({ id: 'SUMMER', amount_off: 500, currency: 'usd', duration: 'once' });
  t.equal(named.id, 'SUMMER', "a coupon id of the caller's choosing");
  const dup = await stripe.coupons.create({ id: 'SUMMER', amount_off: 5, currency: 'usd', duration: 'once' }).catch((e) => e);
  t.match(dup, { statusCode: 400, raw: { code: 'resource_already_exists', type: 'invalid_request_error' } });
  t.same(await stripe.coupons.del(coupon.id), { id: coupon.id, object: 'coupon', deleted: true });
  const gone = await stripe.coupons.retrieve(coupon.id).catch((e) => e);
  t.match(gone, { statusCode: 404, raw: { type: 'invalid_request_error', code: 'resource_missing', message: `No such coupon: '${coupon.id}'`, param: 'id' } });

  const badInt = await stripe.taxRates.create({ display_name: 'X', percentage: 'lots' as unknown as number, inclusive: false }).catch((e) => e);
  t.match(badInt, { statusCode: 400, raw: { type: 'invalid_request_error', param: 'percentage' } });
  const missing = await stripe.taxRates.create({ display_name: 'X', inclusive: false } as Stripe.TaxRateCreateParams).catch((e) => e);
  t.match(missing, {
    statusCode: 400,
    raw: { type: 'invalid_request_error', code: 'parameter_missing', message: 'Missing required param: percentage.', param: 'percentage' },
  });
  // The top-level `coupon` of a promotion code left the API before the SDK's version (it is
  // `promotion[coupon]` now): refused as an unknown parameter, as Stripe refuses it.
  const promo = await stripe.promotionCodes
    .create({ promotion: { type: 'coupon', coupon: 'NOPE' }, coupon: 'NOPE' } as unknown as Stripe.PromotionCodeCreateParams)
    .catch((e) => e);
  t.match(promo, { statusCode: 400, raw: { code: 'parameter_unknown', param: 'coupon' } }, 'a parameter of an older API version is refused');

  // Generic records are ordinary records: the admin API lists, edits and resets them.
  const listed = await admin(twin.url, 'GET', 'records/tax_rate');
  t.same(listed.body.map((r: { external_id: string }) => r.external_id).sort(), [rate.id, second.id].sort());
  const edited = await admin(twin.url, 'PUT', `records/tax_rate/${rate.id}`, { fields: { ...updated, display_name: 'Edited' } });
  t.equal(edited.status, 200);
  t.equal((await stripe.taxRates.retrieve(rate.id)).display_name, 'Edited');
  t.equal((await admin(twin.url, 'POST', 'reset')).status, 200);
  const afterReset = await stripe.taxRates.retrieve(rate.id).catch((e) => e);
  t.equal(afterReset.statusCode, 404, 'reset drops generic records too');
});

t.test('GitHub: createRelease → listReleases → getRelease → deleteRelease', async (t) => {
  const gh = await startGitHub();
  t.teardown(() => gh.close());
  const { octokit } = gh;
  const owner = (await octokit.users.getAuthenticated()).data.login;
  await octokit.repos.createForAuthenticatedUser({ name: 'releases', auto_init: true });
  const repo = 'releases';

  const created = await octokit.repos.createRelease({ owner, repo, tag_name: 'v1.0.0', name: 'First', body: 'Notes' });
  t.equal(created.status, 201);
  t.match(created.data, {
    tag_name: 'v1.0.0',
    name: 'First',
    body: 'Notes',
    draft: false,
    prerelease: false,
    target_commitish: 'main',
    author: { login: owner },
  });
  t.type(created.data.id, 'number');
  t.match(created.data.url, new RegExp(`^${gh.twin.url}/repos/${owner}/${repo}/releases/${created.data.id}$`));
  t.equal(created.headers.location, created.data.url);
  await octokit.repos.createRelease({ owner, repo, tag_name: 'v1.1.0' });
  const listed = await octokit.repos.listReleases({ owner, repo, per_page: 1 });
  t.equal(listed.data.length, 1);
  t.match(listed.headers.link, /rel="next"/);
  const all = await octokit.paginate(octokit.repos.listReleases, { owner, repo, per_page: 1 });
  t.same(
    all.map((r) => r.tag_name),
    ['v1.1.0', 'v1.0.0'],
    'Octokit follows the Link header (newest first, as GitHub lists releases)',
  );
  t.same((await octokit.repos.getRelease({ owner, repo, release_id: created.data.id })).data, created.data);
  t.equal((await octokit.repos.getReleaseByTag({ owner, repo, tag: 'v1.0.0' })).data.id, created.data.id, 'a release by its tag');
  const patched = await octokit.repos.updateRelease({ owner, repo, release_id: created.data.id, name: 'Renamed' });
  t.equal(patched.data.name, 'Renamed');
  t.equal((await octokit.repos.deleteRelease({ owner, repo, release_id: created.data.id })).status, 204);
  const gone = await failure(octokit.repos.getRelease({ owner, repo, release_id: created.data.id }));
  t.same(gone, {
    status: 404,
    body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/releases/releases#get-a-release', status: '404' },
    headers: gone.headers,
  });

  const invalid = await failure(octokit.request('POST /repos/{owner}/{repo}/releases', { owner, repo, name: 'no tag' } as never));
  t.equal(invalid.status, 422);
  t.equal(invalid.body.message, 'Invalid request.\n\n"tag_name" wasn\'t supplied.');
  t.equal(invalid.body.documentation_url, 'https://docs.github.com/rest/releases/releases#create-a-release');
  const wrongType = await failure(octokit.request('POST /repos/{owner}/{repo}/releases', { owner, repo, tag_name: 'v2', draft: 'yes' } as never));
  t.equal(wrongType.body.message, 'Invalid request.\n\nFor \'properties/draft\', "yes" is not a boolean.');
  const noRepo = await failure(octokit.repos.listReleases({ owner, repo: 'missing' }));
  t.same(noRepo.body, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/releases/releases#list-releases', status: '404' });

  // The combined status of a commit is its own operation, not the commit `main/status`.
  const status = await octokit.repos.getCombinedStatusForRef({ owner, repo, ref: 'main' });
  t.equal(status.status, 200);
  t.match(status.data, { total_count: 0, statuses: [], repository: { name: repo } });

  // JSON keys that would pollute a prototype never reach a record.
  const sneaky = await octokit
    .request('POST /repos/{owner}/{repo}/releases', {
      owner,
      repo,
      data: JSON.parse('{"tag_name":"v9","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted2":true}}}'),
    } as never)
    .catch((e) => e);
  t.equal(sneaky.status, 201);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  t.equal(({} as Record<string, unknown>).polluted2, undefined);
  // The release as the twin keeps it (JSON.parse would make an own `__proto__` of one in the answer).
  const stored = (await octokit.repos.getRelease({ owner, repo, release_id: sneaky.data.id })).data as object;
  t.equal(Object.hasOwn(stored, '__proto__'), false);
  t.equal(Object.hasOwn(stored, 'constructor'), false);
});

t.test('Slack: pins.add → pins.list, bookmarks.add → bookmarks.list', async (t) => {
  const twin = await startTwin('slack');
  t.teardown(() => twin.close());
  const web = new WebClient(twin.apiKey, {
    slackApiUrl: `${twin.url}/api/`,
    retryConfig: { retries: 0 },
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} } as never,
  });
  const channel = (await web.conversations.list()).channels![0]!.id!;
  const message = await web.chat.postMessage({ channel, text: 'pin me' });

  t.equal((await web.pins.add({ channel, timestamp: message.ts! })).ok, true);
  const pins = await web.pins.list({ channel });
  t.equal(pins.items!.length, 1);
  t.match(pins.items![0], { type: 'message', channel, message: { ts: message.ts, text: 'pin me' } });
  const again = await web.pins.add({ channel, timestamp: message.ts! }).catch((e) => e.data);
  t.match(again, { ok: false, error: 'already_pinned' });
  t.match(await web.pins.add({ channel, timestamp: '1.000001' }).catch((e) => e.data), { ok: false, error: 'message_not_found' });
  t.match(await web.pins.add({ channel: 'C0NOPE', timestamp: message.ts! }).catch((e) => e.data), { ok: false, error: 'channel_not_found' });
  t.match(await web.apiCall('pins.add', { timestamp: message.ts }).catch((e) => e.data), {
    ok: false,
    error: 'invalid_arguments',
    response_metadata: { messages: ['[ERROR] missing required field: channel'] },
  });
  t.equal((await web.pins.remove({ channel, timestamp: message.ts! })).ok, true);
  t.same((await web.pins.list({ channel })).items, []);

  const added = await web.bookmarks.add({ channel_id: channel, title: 'Runbook', type: 'link', link: 'https://example.com/runbook' });
  t.match(added.bookmark, { channel_id: channel, title: 'Runbook', type: 'link', link: 'https://example.com/runbook' });
  t.match(added.bookmark!.id, /^Bk[0-9A-Z]{10}$/);
  await web.bookmarks.add({ channel_id: channel, title: 'Second', type: 'link', link: 'https://example.com/2' });
  const list = await web.bookmarks.list({ channel_id: channel });
  t.same(
    list.bookmarks!.map((b) => b.title),
    ['Runbook', 'Second'],
  );
  const edited = await web.bookmarks.edit({ channel_id: channel, bookmark_id: added.bookmark!.id!, title: 'Runbook v2' });
  t.equal(edited.bookmark!.title, 'Runbook v2');
  t.equal((await web.bookmarks.remove({ channel_id: channel, bookmark_id: added.bookmark!.id! })).ok, true);
  t.match(await web.bookmarks.remove({ channel_id: channel, bookmark_id: added.bookmark!.id! }).catch((e) => e.data), { ok: false, error: 'not_found' });
  t.same(
    (await web.bookmarks.list({ channel_id: channel })).bookmarks!.map((b) => b.title),
    ['Second'],
  );

  // A list whose method documents no cursor answers everything (reminders.list).
  // Reminders take a user token (as on Slack), minted here as an OAuth install would.
  const person = (await web.users.list({})).members!.find((u) => !u.is_bot)!.id!;
  const asPerson = new WebClient(mintUserToken(twin.server.host.ctx, person, ['reminders:read', 'reminders:write']).token, {
    slackApiUrl: `${twin.url}/api/`,
    retryConfig: { retries: 0 },
  });
  for (let i = 0; i < 3; i++) await asPerson.reminders.add({ text: `r${i}`, time: String(1900000000 + i) });
  t.equal(((await asPerson.reminders.list()).reminders ?? []).length, 3, 'reminders.list does not page');
  // Methods whose records the published spec does not describe (Slack lists, saved items, remote
  // files) are refused honestly, never stored from a guess.
  t.match(await web.apiCall('slackLists.items.create', { list_id: 'F0LIST', initial_fields: [] }).catch((e) => e.data), {
    ok: false,
    error: 'not_supported_by_twin',
    response_metadata: { messages: [/This twin does not simulate POST \/api\/slackLists\.items\.create\./] },
  });

  // Bookmarks are hand-modelled now (twins/slack/model/pins.ts): records of kind `bookmark`.
  const listed = await admin(twin.url, 'GET', 'records/bookmark');
  t.equal(listed.body.length, 1, 'bookmark records are in the admin records API');
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  const sneaky = await fetch(`${twin.url}/api/bookmarks.add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/json' },
    body: `{"channel_id":"${channel}","title":"x","type":"link","link":"https://example.com/x","__proto__":{"polluted":true}}`,
  });
  t.equal(((await sneaky.json()) as { ok: boolean }).ok, true);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});
