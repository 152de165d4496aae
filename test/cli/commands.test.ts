// Every `twins` command over the REST API, with and without --json, against a real control plane
// whose twins are child processes; the official stripe SDK makes the call the logs then show.
// Failures exit 1 with the API's own sentence.

import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { cli } from './helpers.js';
import { startOrchestratedControlPlane } from '../orchestration/helpers.js';
import { freePort } from '../helpers/docker.js';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { lastSignIn } from '../../control-plane/cli/local-server.js';

const cp = await startOrchestratedControlPlane();
const scratch = mkdtempSync(join(tmpdir(), 'twins-cli-'));
t.teardown(async () => {
  await cp.stop();
  rmSync(scratch, { recursive: true, force: true });
});
const token = await cp.token({ email: 'ada@example.com', org: 'cli', role: 'admin' });
const env = { TWINS_URL: cp.url, TWINS_TOKEN: token, TWINS_DATA_DIR: cp.dataDir };

/** Run with and without --json: the text is not JSON, the JSON is what `check` expects. */
async function both(t: Test, argv: string[], check: (data: any) => void, text?: RegExp): Promise<any> {
  const plain = await cli(argv, { env });
  t.equal(plain.code, 0, `twins ${argv.join(' ')}: ${plain.stderr}`);
  t.equal(plain.stderr, '');
  if (text) t.match(plain.stdout, text, `twins ${argv.join(' ')} text`);
  t.throws(() => JSON.parse(plain.stdout), `twins ${argv.join(' ')} prints text without --json`);
  const json = await cli([...argv, '--json'], { env });
  t.equal(json.code, 0, `twins ${argv.join(' ')} --json: ${json.stderr}`);
  const data = JSON.parse(json.stdout);
  check(data);
  return data;
}

t.test('catalog', async (t) => {
  // Every twin the registry finds, in its (alphabetical) order.
  await both(
    t,
    ['catalog'],
    (c) =>
      t.same(
        c.map((x: any) => x.slug),
        [...TWIN_SLUGS],
      ),
    new RegExp(`^SLUG +VERSION +NAME +MCP +DESCRIPTION\n${TWIN_SLUGS[0]} [^\n]*\ngithub +\\S+ +GitHub +github-mcp-server v[\\d.]+ `),
  );
});

t.test('the core loop from the command line', async (t) => {
  // env create: text (waiting), then JSON (waiting); the second is the one used below.
  const made = await cli(['env', 'create', '--name', 'first', '--twin', 'stripe', '--wait'], { env, stderrIsTTY: true });
  t.equal(made.code, 0, made.stderr);
  t.match(made.stdout, /^first {2}[0-9a-f-]{36} {2}ready {2}clock \S+ \(living\) {2}fidelity strict/, 'living and strict unless asked');
  t.match(made.stderr, /waiting for first to be ready/, 'a progress line while waiting, on a terminal');
  // Frozen, so the clock below reads exactly the instants it was moved to.
  const created = await cli(
    ['env', 'create', '--name', 'demo', '--twin', 'stripe', '--twin', 'github', '--clock', 'frozen', '--fidelity', 'lenient', '--wait', '--json'],
    { env },
  );
  t.equal(created.code, 0, created.stderr);
  const environment = JSON.parse(created.stdout);
  t.equal(environment.status, 'ready');
  t.match(environment, { clock_mode: 'frozen', fidelity: 'lenient' }, '--clock and --fidelity reach the environment');
  t.same(environment.twins.map((x: any) => x.twin_slug).sort(), ['github', 'stripe']);
  const stripeTwin = environment.twins.find((x: any) => x.twin_slug === 'stripe');
  const githubTwin = environment.twins.find((x: any) => x.twin_slug === 'github');

  await both(t, ['env', 'list'], (p) => t.ok(p.items.some((e: any) => e.id === environment.id)), /demo/);
  await both(t, ['env', 'get', environment.id], (e) => t.equal(e.id, environment.id), /stripe +[0-9a-f-]{36} +ready +http:\/\/127\.0\.0\.1:\d+/);
  await both(t, ['env', 'wait', environment.id], (e) => t.equal(e.status, 'ready'));
  await both(t, ['twin', 'get', stripeTwin.id], (x) => t.equal(x.url, stripeTwin.url), /stripe/);

  const exports = await cli(['twin', 'credential', stripeTwin.id], { env });
  t.equal(exports.code, 0, exports.stderr);
  t.match(
    exports.stdout,
    /^export STRIPE_SECRET_KEY='sk_test_\w+'\nexport STRIPE_PUBLISHABLE_KEY='pk_test_\w+'\nexport STRIPE_API_URL='http:\/\/127\.0\.0\.1:\d+'\n# MCP \(streamable HTTP, the key as Bearer\): http:\/\/127\.0\.0\.1:\d+\/mcp\n$/,
  );
  const cred = await both(t, ['twin', 'credential', stripeTwin.id], (c) => {
    t.equal(c.twin_slug, 'stripe');
    t.match(c.api_key, /^sk_test_/);
    t.equal(c.mcp_url, `${stripeTwin.url}/mcp`, "the twin's MCP endpoint, on its gateway URL");
    t.match(c.sdk.code, /new Stripe\('sk_test_/);
    t.match(c.extras, { publishable_key: /^pk_test_/ }, 'every half of the credential, as the REST endpoint answers it');
  });

  // The official SDK against the twin, exactly as the credential says.
  const url = new URL(cred.url);
  const stripe = new Stripe(cred.api_key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
  const customer = await stripe.customers.create({ email: 'ada@example.com', name: 'Ada' });
  await stripe.customers.retrieve('cus_missing').catch(() => undefined);

  await both(t, ['logs', environment.id], (p) => t.equal(p.total, 2), /FIDELITY +DURATION\n.*POST +\/v1\/customers +200 +modelled +\d+ ms/s);
  await both(t, ['logs', environment.id, '--fidelity', 'modelled'], (p) => t.equal(p.total, 2));
  await both(t, ['logs', environment.id, '--fidelity', 'unsupported'], (p) => t.equal(p.total, 0), /no requests logged yet/);
  await both(t, ['logs', environment.id, '--status', '404'], (p) =>
    t.same(
      p.items.map((r: any) => r.path),
      ['/v1/customers/cus_missing'],
    ),
  );
  await both(t, ['logs', environment.id, '--twin', githubTwin.id], (p) => t.equal(p.total, 0), /no requests logged yet/);

  // --follow prints what is there, then what comes, until stopped.
  let release: (s: string) => void = () => {};
  const stop = new Promise<string>((r) => (release = r));
  let seen = '';
  const following = cli(['logs', environment.id, '--follow', '--json'], {
    env,
    stop,
    onStdout: (s) => {
      seen += s;
      if (seen.split('\n').filter(Boolean).length >= 3) release('SIGINT');
    },
  });
  await new Promise((r) => setTimeout(r, 300));
  await stripe.customers.list({ limit: 1 });
  const followed = await Promise.race([following, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`follow saw only: ${seen}`)), 20_000))]);
  t.equal(followed.code, 0);
  const lines = followed.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(
    lines.map((l) => `${l.method} ${l.path}`),
    ['POST /v1/customers', 'GET /v1/customers/cus_missing', 'GET /v1/customers'],
    'oldest first, one JSON object per line',
  );

  const recordsArgs = [environment.id, stripeTwin.id, 'customer'];
  await both(t, ['records', 'list', ...recordsArgs], (rs) => t.ok(rs.some((r: any) => r.external_id === customer.id)), new RegExp(customer.id));
  await both(t, ['records', 'get', ...recordsArgs, customer.id], (r) => t.equal(r.body.email, 'ada@example.com'), /"email": "ada@example.com"/);
  const record = (await cli(['records', 'get', ...recordsArgs, customer.id, '--json'], { env })).stdout;
  const replaced = { ...JSON.parse(record).body, email: 'grace@example.com' };
  await both(t, ['records', 'put', ...recordsArgs, customer.id, '--fields', JSON.stringify(replaced)], (r) => t.equal(r.body.email, 'grace@example.com'));
  t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).email, 'grace@example.com', 'the SDK reads the replaced record');
  const file = join(scratch, 'record.json');
  writeFileSync(file, JSON.stringify({ ...replaced, email: 'file@example.com' }));
  t.equal(JSON.parse((await cli(['records', 'put', ...recordsArgs, customer.id, '--file', file, '--json'], { env })).stdout).body.email, 'file@example.com');
  const fromStdin = await cli(['records', 'put', ...recordsArgs, customer.id, '--file', '-', '--json'], {
    env,
    stdin: JSON.stringify({ ...replaced, email: 'stdin@example.com' }),
  });
  t.equal(JSON.parse(fromStdin.stdout).body.email, 'stdin@example.com');

  const later = new Date(Date.parse(environment.clock) + 86_400_000).toISOString();
  await both(
    t,
    ['advance', stripeTwin.id, '--at', later],
    (a) => t.same(a, { twin_id: stripeTwin.id, advanced_to: later }),
    /advanced the environment of twin/,
  );
  t.equal(JSON.parse((await cli(['env', 'get', environment.id, '--json'], { env })).stdout).clock, later, 'the environment clock moved');
  const back = await cli(['advance', stripeTwin.id, '--at', environment.clock], { env });
  t.equal(back.code, 1);
  t.match(back.stderr, /^twins advance: The environment clock is at .*; it cannot move back to /);

  // tests: explicit assertions from a file, an outcome in words; run passes (exit 0) or fails (exit 1).
  const assertions = join(scratch, 'assertions.json');
  writeFileSync(assertions, JSON.stringify([{ says: 'created a customer', count: { at_least: 1 }, match: { method: 'POST', path: '/v1/customers' } }]));
  const test = await both(
    t,
    ['tests', 'create', '--name', 'made a customer', '--twin', 'stripe', '--assertions', assertions],
    (x) => t.equal(x.status, 'ready'),
    /made a customer/,
  );
  const worded = JSON.parse(
    (await cli(['tests', 'create', '--name', 'no deletes', '--twin', 'stripe', '--outcome', 'never deleted a customer', '--json'], { env })).stdout,
  );
  t.equal(worded.status, 'ready');
  await both(t, ['tests', 'list'], (p) => t.ok(p.items.length >= 2), /made a customer/);
  await both(t, ['tests', 'get', test.id], (x) => t.equal(x.id, test.id), /created a customer/);
  const passed = await cli(['tests', 'run', test.id, '--env', environment.id], { env });
  t.equal(passed.code, 0, passed.stderr);
  t.match(passed.stdout, /^passed: attempt [0-9a-f-]{36}.*\n {2}pass {2}created a customer/);
  t.equal(JSON.parse((await cli(['tests', 'run', test.id, '--env', environment.id, '--json'], { env })).stdout).passed, true);
  const failing = JSON.parse(
    (
      await cli(['tests', 'create', '--name', 'refunded', '--twin', 'stripe', '--assertions', '-', '--json'], {
        env,
        stdin: JSON.stringify([{ says: 'refunded once', count: { exactly: 1 }, match: { method: 'POST', path: '/v1/refunds' } }]),
      })
    ).stdout,
  );
  const failed = await cli(['tests', 'run', failing.id, '--env', environment.id], { env });
  t.equal(failed.code, 1, 'a failing attempt exits 1');
  t.match(failed.stdout, /^FAILED: .*\n {2}FAIL {2}refunded once\n +expected exactly 1, observed 0/);
  const failedJson = await cli(['tests', 'run', failing.id, '--env', environment.id, '--json'], { env });
  t.equal(failedJson.code, 1);
  t.equal(JSON.parse(failedJson.stdout).passed, false);
  t.same(await cli(['tests', 'delete', worded.id], { env }), { code: 0, stdout: `deleted test ${worded.id}\n`, stderr: '' });
  t.same(JSON.parse((await cli(['tests', 'delete', failing.id, '--json'], { env })).stdout), { deleted: failing.id });

  const second = await stripe.customers.create({ email: 'second@example.com' });
  t.same(await cli(['records', 'delete', ...recordsArgs, customer.id], { env }), { code: 0, stdout: `deleted customer ${customer.id}\n`, stderr: '' });
  t.same(JSON.parse((await cli(['records', 'delete', ...recordsArgs, second.id, '--json'], { env })).stdout), { deleted: second.id, resource: 'customer' });
  const gone = await cli(['records', 'get', ...recordsArgs, customer.id], { env });
  t.equal(gone.code, 1);
  t.match(gone.stderr, /^twins records get: No customer record/);

  await both(t, ['env', 'reset', environment.id], (e) => t.equal(e.clock, environment.clock), /reset; clock back to/);
  const first = JSON.parse((await cli(['env', 'list', '--json'], { env })).stdout).items.find((e: any) => e.name === 'first');
  t.same(await cli(['env', 'delete', first.id], { env }), { code: 0, stdout: `deleted environment ${first.id}\n`, stderr: '' });
  const deleted = await cli(['env', 'delete', environment.id, '--json'], { env });
  t.equal(deleted.code, 0, deleted.stderr);
  t.same(JSON.parse(deleted.stdout), { deleted: environment.id });
});

t.test('seeds', async (t) => {
  await both(t, ['seeds', 'suggestions', '--twin', 'stripe'], (s) => t.ok(s.length >= 5 && s.every((x: any) => x.twin === 'stripe')), /^stripe {2}/);
  const seed = await both(
    t,
    ['seeds', 'create', '--name', 'three customers', '--twin', 'stripe', '--prompt', 'A Stripe account with 3 customers', '--wait'],
    (s) => t.equal(s.status, 'ready', s.failure ?? ''),
    /three customers +stripe +ready/,
  );
  await both(t, ['seeds', 'list', '--twin', 'stripe'], (s) => t.ok(s.some((x: any) => x.id === seed.id)), /three customers/);
  await both(t, ['seeds', 'get', seed.id], (s) => t.equal(s.id, seed.id), /prompt: A Stripe account with 3 customers/);
  const withSeed = await cli(['env', 'create', '--name', 'seeded', '--twin', `stripe@${seed.id}`, '--wait', '--json'], { env });
  t.equal(withSeed.code, 0, withSeed.stderr);
  t.equal(JSON.parse(withSeed.stdout).twins[0].seed_id, seed.id);
  await cli(['env', 'delete', JSON.parse(withSeed.stdout).id], { env });
  const spare = JSON.parse((await cli(['seeds', 'create', '--name', 'spare', '--twin', 'stripe', '--prompt', 'two customers', '--json'], { env })).stdout);
  t.equal(spare.status, 'pending', 'without --wait the seed is answered at once');
  t.same(await cli(['seeds', 'delete', spare.id], { env }), { code: 0, stdout: `deleted seed ${spare.id}\n`, stderr: '' });
  t.same(JSON.parse((await cli(['seeds', 'delete', seed.id, '--json'], { env })).stdout), { deleted: seed.id });
});

t.test('snapshots, forks and diffs', async (t) => {
  const made = JSON.parse((await cli(['env', 'create', '--name', 'snapped', '--twin', 'stripe', '--wait', '--json'], { env })).stdout);
  const snapshot = await both(
    t,
    ['env', 'snapshot', made.id, '--name', 'empty'],
    (s) => t.match(s, { name: 'empty', environment_id: made.id }),
    /empty +\S+ +stripe/,
  );
  const key = (await cp.call('POST', `/twins/${made.twins[0].id}/credential`, { token })).body.api_key;
  const url = new URL(made.twins[0].url);
  const customer = await new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 }).customers.create({
    name: 'New',
  });
  await both(
    t,
    ['env', 'diff', made.id, '--snapshot', snapshot.id],
    (d) => t.same(d.twins[0].added, [{ resource: 'customer', external_id: customer.id }]),
    new RegExp(`1 added, 0 changed, 0 removed\n  \\+ customer ${customer.id}\n`),
  );
  // The traffic as a replay file; a replay needs a frozen clock (the API's sentence, exit 1).
  const exported = await cli(['env', 'export', made.id], { env });
  t.equal(exported.code, 0, exported.stderr);
  const replayFile = JSON.parse(exported.stdout);
  t.match(replayFile, { format: 'twins.replay/1', environment_id: made.id });
  t.ok(
    replayFile.requests.some((r: any) => r.path === '/v1/customers'),
    'the customer created is in it',
  );
  const refused = await cli(['env', 'replay', made.id, '--file', '-'], { env, stdin: exported.stdout });
  t.equal(refused.code, 1);
  t.match(refused.stderr, /frozen/);

  // Faults: add, list, delete.
  const fault = await both(
    t,
    [
      'env',
      'faults',
      'add',
      made.id,
      '--twin',
      made.twins[0].id,
      '--effect',
      'rate_limit',
      '--method',
      'POST',
      '--path',
      '/v1/customers',
      '--probability',
      '0.3',
    ],
    (f) => t.match(f, { twin_id: made.twins[0].id, match: { method: 'POST', path: '/v1/customers' }, effect: { type: 'rate_limit' }, probability: 0.3 }),
    /POST \/v1\/customers +rate_limit retry-after 1s +0\.3/,
  );
  await both(t, ['env', 'faults', 'list', made.id], (p) => t.equal(p.items.at(-1).id, fault.id), /\(2 faults\)/);
  t.equal((await cli(['env', 'faults', 'add', made.id, '--twin', made.twins[0].id, '--effect', 'latency'], { env })).code, 2, 'a latency fault needs --ms');
  t.equal((await cli(['env', 'faults', 'add', made.id, '--twin', made.twins[0].id, '--effect', 'drop', '--probability', '2'], { env })).code, 2);
  t.same(await cli(['env', 'faults', 'delete', made.id, fault.id], { env }), { code: 0, stdout: `deleted fault ${fault.id}\n`, stderr: '' });

  const usage = await cli(['env', 'diff', made.id], { env });
  t.equal(usage.code, 2, 'a diff needs a snapshot');
  // `both` ran the snapshot twice (text, then JSON): the JSON one is newest.
  await both(t, ['snapshots', 'list', made.id], (p) => t.equal(p.items[0].id, snapshot.id), /\(2 snapshots\)/);
  await both(t, ['snapshots', 'get', snapshot.id], (s) => t.equal(s.id, snapshot.id), /of environment/);
  const fork = await cli(['env', 'fork', made.id, '--name', 'forked', '--wait', '--json'], { env });
  t.equal(fork.code, 0, fork.stderr);
  t.match(JSON.parse(fork.stdout), { name: 'forked', status: 'ready' });
  t.same(await cli(['snapshots', 'delete', snapshot.id], { env }), { code: 0, stdout: `deleted snapshot ${snapshot.id}\n`, stderr: '' });
  await cli(['env', 'delete', JSON.parse(fork.stdout).id], { env });
  await cli(['env', 'delete', made.id], { env });
});

t.test('token', async (t) => {
  const out = await cli(['token', '--email', 'bob@example.com', '--org', 'cli', '--role', 'member', '--first-name', 'Bob'], { env });
  t.equal(out.code, 0, out.stderr);
  const me = await cp.call('GET', '/users/me', { token: out.stdout.trim() });
  t.match(me.body, { email: 'bob@example.com', role: 'member', first_name: 'Bob' });
  const json = JSON.parse((await cli(['token', '--email', 'bob@example.com', '--org', 'cli', '--role', 'member', '--ttl', '60', '--json'], { env })).stdout);
  t.match(json, { token_type: 'Bearer', expires_in: 60 });
  t.equal((await cp.call('GET', '/users/me', { token: json.access_token })).status, 200);
  // `twins mcp` without a credential acts in the organization of the last sign-in from the folder.
  t.same(lastSignIn(cp.dataDir), { email: 'bob@example.com', org: 'cli' });
});

t.test('runtime errors exit 1 with the API sentence', async (t) => {
  const id = randomUUID();
  t.same(await cli(['env', 'get', id], { env }), { code: 1, stdout: '', stderr: `twins env get: Environment ${id} not found.\n` });
  const invalid = await cli(['env', 'get', 'not-a-uuid'], { env });
  t.equal(invalid.code, 1);
  t.match(invalid.stderr, /^twins env get: path\.environment_id: Input should be a valid UUID/);
  const badToken = await cli(['catalog'], { env: { ...env, TWINS_TOKEN: 'nope' } });
  t.same(badToken, { code: 1, stdout: '', stderr: 'twins catalog: Invalid or expired access token.\n' });
  const badTwin = await cli(['env', 'create', '--name', 'x', '--twin', 'paypal'], { env });
  t.equal(badTwin.code, 1);
  t.ok(
    badTwin.stderr.startsWith(
      `twins env create: body.twins.0.twin: Input should be ${TWIN_SLUGS.slice(0, -1)
        .map((s) => `'${s}'`)
        .join(', ')} or '${TWIN_SLUGS.at(-1)}'`,
    ),
    badTwin.stderr,
  );
  // A loopback port that was free a moment ago: nothing listens there.
  const port = await freePort();
  const down = await cli(['catalog', '--url', `http://127.0.0.1:${port}`], { env });
  t.same(down, { code: 1, stdout: '', stderr: `twins catalog: Cannot reach the control plane at http://127.0.0.1:${port}: ECONNREFUSED.\n` });
  const nowhere = await cli(['token', '--email', 'a@b.c', '--org', 'o', '--role', 'admin', '--data', join(scratch, 'none')], { env });
  t.equal(nowhere.code, 1);
  t.match(nowhere.stderr, /^twins token: No control plane uses the data directory .*none: start one there first/);
  const oidc = await cli(['token', '--email', 'a@b.c', '--org', 'o', '--role', 'admin'], { env: { ...env, TWINS_IDP: 'oidc' } });
  t.equal(oidc.code, 1);
  t.match(oidc.stderr, /TWINS_IDP is 'oidc'/);
});
