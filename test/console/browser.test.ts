// The web console in a real Chromium, end to end: sign in with a `twins console` link → create an
// environment with Stripe → copy the key → a call with the `stripe` SDK from here → the request
// appears in the live log (within 1 s) → open it and read its body → edit the customer record →
// the SDK reads the edit → advance one month → a failing test attempt shows its near misses.
// Every page is screenshotted (artifacts/console/) and checked with axe-core (no serious or
// critical violation), at 1280 px and at a phone's width; the browser asks no host but the
// control plane's own.

import t, { type Test } from 'tap';
import Stripe from 'stripe';
import type { Page } from 'playwright-core';
import { ensureBuilt } from '../orchestration/build.js';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { launchChromium } from '../helpers/chromium.js';
import { ensureConsoleBuilt, screenshot, seriousViolations } from '../helpers/console.js';
import { runConsoleSignIn } from '../../control-plane/console/sign-in-command.js';

const chrome = await launchChromium();
if ('skip' in chrome) {
  t.test('the console in Chromium', { skip: `Chromium cannot run here: ${chrome.skip}` }, () => {});
} else {
  t.teardown(() => chrome.close());
  ensureBuilt();
  await ensureConsoleBuilt();
  const cp = await startTestControlPlane({ defaultPlan: 'free', paymentProcessor: 'none' });
  t.teardown(() => cp.stop());
  const origin = new URL(cp.url).origin;
  const { context } = chrome;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const requested: string[] = [];
  context.on('request', (r) => requested.push(r.url()));
  /** The console's own files as the browser received them: name → [status, content type]. */
  const consoleFiles = new Map<string, [number, string]>();
  context.on('response', (r) => {
    const file = /\/console\/([^/?#]+)$/.exec(new URL(r.url()).pathname)?.[1];
    if (file) consoleFiles.set(file, [r.status(), r.headers()['content-type'] ?? '']);
  });
  const consoleErrors: string[] = [];

  const signInLink = async (email = 'ada@example.com', role: 'admin' | 'member' = 'admin') => {
    let out = '';
    await runConsoleSignIn(
      { email, org: 'acme', role, firstName: 'Ada', lastName: 'Lovelace', url: cp.url, dataDir: cp.dataDir, open: false },
      { stdout: (s) => (out += s), stderr: () => {}, env: {}, platform: 'linux' },
    );
    return out.trim();
  };

  /** Screenshot the page and hold it to axe's serious/critical rules. */
  const check = async (t: Test, page: Page, name: string) => {
    await screenshot(page, name);
    const violations = await seriousViolations(page);
    t.same(
      violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
      `${name}: no serious or critical accessibility violation`,
    );
  };

  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.setDefaultTimeout(15_000);

  let environmentId = '';
  let key = '';
  let twinUrl = '';
  let customerId = '';

  await t.test('sign in with a one-time link', async (t) => {
    const link = await signInLink();
    t.match(link, /^http:\/\/127\.0\.0\.1:\d+\/#ticket=/, 'the link is on the control plane, the ticket in the fragment');
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Environments' }).waitFor();
    t.notMatch(page.url(), /ticket/, 'the ticket is gone from the address');
    t.match(page.url(), /#\/environments$/);
    const stored = (await page.evaluate('sessionStorage.getItem("twins.console.token")')) as string;
    t.match(JSON.parse(stored).token, /^ey/, 'the session keeps an access token in sessionStorage');
    t.ok(await page.getByText('ada@example.com · admin').isVisible(), 'the signed-in member is shown');
    // What the page fetched before DOMContentLoaded: the entry and its chunk, not the later pages'.
    const beforeDcl = (await page.evaluate(`(() => {
      const dcl = performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd;
      return performance.getEntriesByType('resource').filter((r) => r.startTime < dcl).map((r) => new URL(r.name).pathname);
    })()`)) as string[];
    t.ok(
      beforeDcl.some((p) => /^\/console\/app-\w+\.js$/.test(p)),
      `the first page ran the entry script (${beforeDcl.join(', ')})`,
    );
    t.notOk(
      beforeDcl.some((p) => /later-/.test(p)),
      "the first page did not wait for the later pages' chunk",
    );
    await check(t, page, 'environments-empty');

    // The same link again, in a new tab: refused.
    const again = await context.newPage();
    await again.goto(link);
    await again.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
    t.ok(await again.getByRole('heading', { name: 'Sign in to Twins' }).isVisible(), 'a used link leaves the tab signed out');
    t.ok(await again.getByText('twins console --email').isVisible(), 'the sign-in page says how to get a link');
    await check(t, again, 'sign-in');
    await again.close();
  });

  await t.test('create an environment with Stripe', async (t) => {
    await page.getByRole('button', { name: 'New environment' }).click();
    await page.getByLabel('Name', { exact: true }).fill('console e2e');
    await page.getByLabel('Stripe').check();
    // Frozen: the clock shown below is the instant the API reads (a living one runs on between reads).
    await page.getByLabel('Frozen').check();
    await check(t, page, 'environment-new');
    await page.getByRole('button', { name: 'Create environment' }).click();
    await page.getByRole('heading', { level: 1, name: 'console e2e' }).waitFor();
    environmentId = /#\/environments\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    t.ok(environmentId, 'the page moved to the new environment');
    await page.locator('h3').filter({ hasText: 'stripe' }).locator('.badge', { hasText: 'ready' }).waitFor();
    const env = (await cp.call('GET', `/environments/${environmentId}`, { token: await cp.token({}) })).body;
    t.equal(env.twins.length, 1);
    t.equal(env.twins[0].twin_slug, 'stripe');
    t.match(env, { clock_mode: 'frozen', fidelity: 'strict' }, 'the clock and fidelity chosen in the form');
    twinUrl = env.twins[0].url;
    t.ok(await page.getByText(twinUrl, { exact: true }).isVisible(), "the twin's URL is shown");
  });

  await t.test('reveal and copy the key; the snippet names it', async (t) => {
    t.equal(await page.locator('code.secret').count(), 0, 'the key is hidden until asked');
    await page.getByRole('button', { name: 'Show stripe key' }).click();
    await page.locator('code.secret').waitFor();
    await page.getByRole('button', { name: 'Copy stripe key' }).click();
    await page.getByText('Copied').first().waitFor();
    key = (await page.evaluate('navigator.clipboard.readText()')) as string;
    t.match(key, /^sk_test_/, 'the clipboard holds a Stripe key');
    const cred = (
      await cp.call('POST', `/twins/${(await cp.call('GET', `/environments/${environmentId}`, { token: await cp.token({}) })).body.twins[0].id}/credential`, {
        token: await cp.token({}),
      })
    ).body;
    t.equal(key, cred.api_key, 'the copied key is the twin key');
    await page.getByText('SDK snippet (JavaScript)').click();
    const snippet = await page.getByLabel('stripe SDK snippet').innerText();
    t.match(snippet, `new Stripe('${key}'`, 'the snippet carries the key');
    t.match(snippet, `port: ${new URL(twinUrl).port}`, 'and the twin port');
    await check(t, page, 'environment');
  });

  let sdk: Stripe;
  await t.test('an SDK call appears in the live log within a second; its body opens', async (t) => {
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const u = new URL(twinUrl);
    sdk = new Stripe(key, { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 });
    const customer = await sdk.customers.create({ email: 'ada@example.com', name: 'Ada', metadata: { tier: 'gold' } });
    customerId = customer.id;
    const answeredAt = Date.now();
    const row = page.getByRole('link', { name: '/v1/customers', exact: true });
    await row.waitFor({ timeout: 1000 });
    const latency = Date.now() - answeredAt;
    t.comment(`live log: the entry was on screen ${latency} ms after the SDK had its answer`);
    t.ok(latency <= 1000, `the request appeared within 1 s (${latency} ms)`);
    t.equal(await page.getByRole('cell', { name: '200' }).count(), 1);
    t.equal(await page.getByRole('cell', { name: 'modelled' }).count(), 1, "the answer's fidelity level");
    await check(t, page, 'requests');

    // Filters: the POST is hidden under GET, back with POST and a 2xx status.
    await page.getByLabel('Method').selectOption('GET');
    t.equal(await row.count(), 0, 'filtered out by method');
    await page.getByLabel('Method').selectOption('POST');
    await page.getByLabel('Status').fill('2xx');
    await page.getByLabel('Path contains').fill('customers');
    t.equal(await row.count(), 1, 'kept by method, status and path');
    await page.getByLabel('Status').fill('4xx');
    t.equal(await row.count(), 0, 'filtered out by status');
    await page.getByLabel('Status').fill('');
    await page.getByLabel('Fidelity').selectOption('unsupported');
    t.equal(await row.count(), 0, 'filtered out by fidelity');
    await page.getByLabel('Fidelity').selectOption('modelled');
    t.equal(await row.count(), 1, 'kept by fidelity');
    await page.getByLabel('Fidelity').selectOption('');

    // A second request arrives while the page is open, without a reload.
    await page.getByLabel('Method').selectOption('');
    await page.getByLabel('Path contains').fill('');
    await sdk.customers.retrieve(customerId);
    await page.getByRole('link', { name: `/v1/customers/${customerId}` }).waitFor({ timeout: 1000 });

    await row.click();
    await page.getByRole('heading', { name: 'POST /v1/customers' }).waitFor();
    const detail = page.locator('.log-detail');
    const formTable = detail.getByRole('region', { name: 'Request body, decoded' });
    t.ok(await formTable.getByText('ada@example.com').isVisible(), 'the request body, decoded');
    t.ok(await formTable.getByText('metadata[tier]').isVisible());
    const response = await detail.getByLabel('Response body (200)').innerText();
    t.match(response, `"id": "${customerId}"`, "the twin's response, pretty-printed");
    t.match(response, '"object": "customer"');
    t.notMatch(await detail.innerText(), key, 'the key is not in the logged headers');
    t.ok(await detail.getByText('stripe-version').isVisible(), 'request headers are listed');
    await check(t, page, 'request-detail');
  });

  await t.test('edit the customer record; the SDK reads the edit', async (t) => {
    await page.getByRole('link', { name: 'Records' }).click();
    await page.getByLabel('Resource').selectOption('customer');
    await page.getByRole('link', { name: customerId }).click();
    const editor = page.getByLabel('Fields (JSON)');
    await editor.waitFor();
    const original = JSON.parse(await editor.inputValue());
    t.equal(original.email, 'ada@example.com');
    // Broken JSON is refused inline, at the field.
    await editor.fill('{ "name": "Ada Lovelace", }');
    await page.getByRole('button', { name: 'Save record' }).click();
    const error = page.locator('#record-json-error');
    await error.waitFor();
    t.match(await error.innerText(), /Not valid JSON at line 1, column \d+/);
    t.equal(await editor.getAttribute('aria-invalid'), 'true');
    await check(t, page, 'record-invalid');
    await editor.fill(JSON.stringify({ ...original, name: 'Ada Lovelace' }, null, 2));
    await page.getByRole('button', { name: 'Save record' }).click();
    await page.getByText('Saved: the twin answers with it now.').waitFor();
    const read = await sdk.customers.retrieve(customerId);
    t.equal((read as Stripe.Customer).name, 'Ada Lovelace', 'the SDK reads the edited record');
    await check(t, page, 'records');
  });

  await t.test('advance the clock one month', async (t) => {
    const token = await cp.token({});
    const before = (await cp.call('GET', `/environments/${environmentId}`, { token })).body.clock as string;
    await page.getByRole('link', { name: 'Time' }).click();
    await page.getByRole('button', { name: '+1 month' }).click();
    await page.getByText(/The clock is now/).waitFor();
    const after = (await cp.call('GET', `/environments/${environmentId}`, { token })).body.clock as string;
    const b = new Date(before);
    const a = new Date(after);
    t.equal(a.getUTCFullYear() * 12 + a.getUTCMonth() - (b.getUTCFullYear() * 12 + b.getUTCMonth()), 1, `one calendar month: ${before} → ${after}`);
    await page
      .getByText(
        `Environment clock: ${a
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d{3}Z$/, ' UTC')}`,
      )
      .waitFor();
    await check(t, page, 'time');
  });

  await t.test('a snapshot, then what changed since it', async (t) => {
    await page.getByRole('link', { name: 'Snapshots' }).click();
    await page.getByLabel('Name', { exact: true }).fill('before the product');
    await page.getByRole('button', { name: 'Take a snapshot' }).click();
    await page.getByRole('cell', { name: 'before the product' }).waitFor();
    // A product: the later steps find the one POST /v1/customers of the log by its path.
    const product = await sdk.products.create({ name: 'Compiler' });
    await page.getByRole('button', { name: 'What changed since' }).click();
    await page.getByRole('heading', { name: 'Since “before the product”' }).waitFor();
    t.match(await page.locator('ul.diff').innerText(), new RegExp(`\\+ product ${product.id}`), 'the new product is listed as added');
    await check(t, page, 'snapshots');
  });

  await t.test('a failing test attempt shows its near misses', async (t) => {
    await page.getByRole('link', { name: 'Tests', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Tests' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('created Grace');
    const assertions = [
      { says: 'created a customer named Grace', match: { twin: 'stripe', method: 'POST', path: '/v1/customers', body: { '/name': { eq: 'Grace' } } } },
    ];
    // An invalid assertion first: the API's 422 entries show at the field.
    await page
      .getByRole('textbox', { name: 'Assertions' })
      .fill(JSON.stringify([{ says: 'nonsense', match: { method: 'POST', path: '/v1/customers' }, count: { exactly: -1 } }]));
    await page.getByRole('button', { name: 'Create test' }).click();
    await page.locator('#test-assertions-error').waitFor();
    t.match(await page.locator('#test-assertions-error').innerText(), /assertions\.0/, 'the failing assertion is named');
    await check(t, page, 'tests');
    await page.getByRole('textbox', { name: 'Assertions' }).fill(JSON.stringify(assertions, null, 2));
    await page.getByRole('button', { name: 'Create test' }).click();
    await page.getByRole('heading', { level: 1, name: 'created Grace' }).waitFor();
    await page.getByLabel('Environment').selectOption(environmentId);
    await check(t, page, 'test');
    await page.getByRole('button', { name: 'Run attempt' }).click();
    await page.getByRole('heading', { level: 1, name: 'Attempt failed' }).waitFor();
    await page.getByRole('heading', { name: 'Near misses' }).waitFor();
    const table = page.getByRole('region', { name: 'Near miss 1: checks' });
    const text = await table.innerText();
    t.match(text, '/name', 'the near miss names the field that missed');
    t.match(text, 'Ada', 'with what the request had');
    t.match(text, '✗ no');
    t.match(text, '✓ yes', 'and the checks that held');
    t.ok(
      await page
        .getByText(/\d of \d checks held/)
        .first()
        .isVisible(),
    );
    await check(t, page, 'attempt');
    // The near miss links to the request it names.
    await page.locator('.near-miss a').first().click();
    await page.getByRole('heading', { name: 'POST /v1/customers' }).waitFor();
  });

  await t.test('seeds (refused on free, then generated with progress), a scenario from a seed, an environment from it', async (t) => {
    await page.getByRole('link', { name: 'Seeds' }).click();
    await page.getByRole('heading', { level: 2, name: 'Suggestions' }).waitFor();
    await page.locator('ul.suggestions li').first().waitFor();
    t.ok((await page.locator('ul.suggestions li').count()) > 0, 'suggestions are listed');
    const suggestion = page.locator('ul.suggestions li').filter({ hasText: '· stripe' }).first();
    const suggestionName = (await suggestion.locator('h3').innerText()).split(' · ')[0]!.trim();
    await suggestion.getByRole('button').click();
    t.not(await page.getByLabel('Describe the starting state').inputValue(), '', 'a suggestion fills the form');
    t.equal(await page.getByLabel('Name', { exact: true }).inputValue(), suggestionName);
    await page.getByRole('button', { name: 'Generate seed' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: /AI generation|pay as you go/ });
    await refusal.waitFor();
    t.match(await refusal.innerText(), /\(402\)/, 'the free plan is refused in the page with the reason and status');
    // Pay as you go (as an upgrade would): the same seed is generated; its progress shows until ready.
    cp.services.db.prepare("UPDATE organizations SET plan = 'paygo' WHERE external_id = 'acme'").run();
    await page.getByRole('button', { name: 'Generate seed' }).click();
    const row = page.getByRole('row').filter({ hasText: suggestionName });
    await row.waitFor();
    const seen = await row.locator('.badge').innerText();
    t.ok(['pending', 'running', 'ready'].includes(seen), `the seed is listed at once (${seen})`);
    await row.locator('.badge', { hasText: 'ready' }).waitFor({ timeout: 60_000 });
    t.equal(await row.locator('progress').count(), 0, 'no progress bar once ready');
    await check(t, page, 'seeds');

    await page.getByRole('link', { name: 'Scenarios' }).click();
    await page.getByLabel('Name', { exact: true }).fill('seeded stripe');
    await page.getByLabel('Stripe').check();
    await page.getByLabel('Seed for Stripe').selectOption({ label: suggestionName });
    await page.getByRole('button', { name: 'Create scenario' }).click();
    const scenarioRow = page.getByRole('row').filter({ hasText: 'seeded stripe' });
    await scenarioRow.waitFor();
    t.match(await scenarioRow.innerText(), `stripe (${suggestionName})`, 'the scenario names its seed');
    await check(t, page, 'scenarios');
    await scenarioRow.getByRole('button', { name: 'Start environment' }).click();
    await page.getByRole('heading', { level: 1, name: 'seeded stripe' }).waitFor();
    const seededId = /#\/environments\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await page.locator('h3').filter({ hasText: 'stripe' }).locator('.badge', { hasText: 'ready' }).waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Records' }).click();
    await page.getByLabel('Resource').selectOption('customer');
    await page.getByRole('region', { name: 'customer records' }).waitFor();
    t.ok((await page.getByRole('region', { name: 'customer records' }).locator('tbody tr').count()) > 0, 'the environment holds the seeded customers');
    const token = await cp.token({});
    t.equal((await cp.call('DELETE', `/environments/${seededId}`, { token })).status, 204);

    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('heading', { level: 2, name: /Stripe/ }).waitFor();
    await page
      .getByText(/Records: customer, /)
      .first()
      .waitFor();
    await page.getByText("Coverage of the provider's API").first().click();
    await page
      .getByText(/does not report coverage|operations$/)
      .first()
      .waitFor();
    await check(t, page, 'catalog');
  });

  await t.test('the organization', async (t) => {
    await page.getByRole('link', { name: 'Organization' }).click();
    await page.getByRole('heading', { level: 2, name: 'Billing' }).waitFor();
    await page.getByRole('heading', { name: 'Draft invoice' }).waitFor();
    await page.getByLabel('Key name').fill('ci');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const token = await page.getByLabel('New API key token').innerText();
    t.match(token, /^twk_/, 'the new token is shown');
    t.equal((await cp.call('GET', '/users/me', { token })).status, 200, 'and works');
    await page.getByRole('rowheader', { name: 'ci' }).waitFor();
    await check(t, page, 'organization');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    t.equal(await page.getByText(token).count(), 0, 'the token is shown once');
    await page.reload();
    await page.getByRole('rowheader', { name: 'ci' }).waitFor();
    t.equal(await page.getByText(token).count(), 0, 'and never again');
  });

  await t.test('keyboard only', async (t) => {
    await page.goto('about:blank');
    await page.goto(`${cp.url}/#/environments/${environmentId}/requests`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content', 'the first stop skips to the content');
    await page.keyboard.press('Enter');
    t.equal(await page.evaluate('document.activeElement.id'), 'main');
    // Tab on until a request link has the focus, then open it with Enter.
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate('document.activeElement.closest("td.path") !== null')) as boolean;
    }
    t.ok(reached, 'a request is reachable with Tab');
    await page.keyboard.press('Enter');
    await page.locator('#request-title').waitFor();
    t.equal(await page.evaluate('document.activeElement.id'), 'request-title', 'the opened request takes the focus');
  });

  await t.test('a phone width', async (t) => {
    await page.setViewportSize({ width: 390, height: 844 });
    // Elements reaching past the right edge (outside scrollable tables), named for the failure message.
    const fits = async () => {
      const wide = (await page.evaluate(`[...document.querySelectorAll('body *')]
        .filter((e) => !e.closest('.table-wrap, pre') && e.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 5).map((e) => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : ''))`)) as string[];
      t.same(wide, [], 'nothing reaches past the right edge');
      return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')) as boolean;
    };
    await page.goto(`${cp.url}/#/environments/${environmentId}`);
    await page.getByRole('heading', { level: 1, name: 'console e2e' }).waitFor();
    t.ok(await fits(), 'the environment page fits the width');
    await check(t, page, 'phone-environment');
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('link', { name: '/v1/customers', exact: true }).click();
    await page.locator('#request-title').waitFor();
    t.ok(await fits(), 'the request fits the width');
    await check(t, page, 'phone-request');
    await page.goto(`${cp.url}/#/organization`);
    await page.getByRole('heading', { level: 2, name: 'Billing' }).waitFor();
    t.ok(await fits(), 'the organization page fits the width');
    await check(t, page, 'phone-organization');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await t.test('delete the environment', async (t) => {
    await page.goto(`${cp.url}/#/environments/${environmentId}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete this environment' }).click();
    await page.getByRole('heading', { level: 1, name: 'Environments' }).waitFor();
    t.equal((await cp.call('GET', `/environments/${environmentId}`, { token: await cp.token({}) })).status, 404, 'gone');
  });

  t.test('the browser asked no host but the control plane', async (t) => {
    t.ok(requested.length > 10, `requests seen: ${requested.length}`);
    const foreign = requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
    t.same(foreign, [], 'every request went to the control plane');
    const scripts = [...consoleFiles].filter(([f]) => f.endsWith('.js'));
    t.ok(
      scripts.some(([f]) => /^later-/.test(f)),
      `the later pages came in their own chunk (${scripts.map(([f]) => f).join(', ')})`,
    );
    t.same(
      scripts.filter(([, [status, type]]) => status !== 200 || !type.startsWith('text/javascript')),
      [],
      'every chunk was served as JavaScript',
    );
    t.same(
      consoleErrors.filter((e) => !/status of 4(02|04|09|22)/.test(e)),
      [],
      'no script errors in the page',
    );
    t.end();
  });
}
