// The MCP server, driven by the MCP SDK's own client: over streamable HTTP at /mcp on the control
// plane (bearer API key, same authorization as REST) and over stdio (`twins mcp`, against a control
// plane by URL, and embedded). The core loop: create an environment with Stripe, get credentials,
// call it with the official stripe SDK, read the call back from the logs tool, replace a record,
// advance, delete; refusals come back as tool errors carrying the API's sentence.

import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { mcpResourceMetadata } from '../../control-plane/mcp/http.js';
import Stripe from 'stripe';
import { startOrchestratedControlPlane } from '../orchestration/helpers.js';
import { builtCli, ROOT } from '../cli/helpers.js';
import { seedTestTls } from '../helpers/tls-template.js';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { loadLocalKeys, mintLocalToken } from '../../control-plane/auth/local-idp.js';
import { recordSignIn } from '../../control-plane/cli/local-server.js';

// Whole `twins mcp` processes start here (slow on a loaded machine).
t.setTimeout(300_000);

const TOOLS = [
  'list_catalog',
  'create_environment',
  'get_environment',
  'list_environments',
  'delete_environment',
  'reset_environment',
  'snapshot_environment',
  'list_snapshots',
  'delete_snapshot',
  'fork_environment',
  'diff_environment',
  'inject_fault',
  'list_faults',
  'delete_fault',
  'get_twin_credentials',
  'list_request_logs',
  'list_records',
  'get_record',
  'replace_record',
  'advance_time',
  'list_seed_suggestions',
  'create_seed',
  'create_test',
  'run_test_attempt',
];

const cp = await startOrchestratedControlPlane();
t.teardown(() => cp.stop());
const session = await cp.token({ email: 'agent-owner@example.com', org: 'mcp', role: 'admin' });
const apiKey = (await cp.call('POST', '/organizations/current/api-keys', { token: session, body: { name: 'mcp' } })).body.token as string;

type Structured = Record<string, any>;

async function call(t: Test, client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const res = await client.callTool({ name, arguments: args });
  t.notOk(res.isError, `${name}: ${JSON.stringify(res.content)}`);
  t.ok(res.structuredContent, `${name} answers structured content`);
  t.same(JSON.parse((res.content as { text: string }[])[0]!.text), res.structuredContent, `${name}: the text is the same JSON`);
  return res.structuredContent as Structured;
}

async function refused(t: Test, client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const res = await client.callTool({ name, arguments: args });
  t.equal(res.isError, true, `${name} is refused`);
  return (res.content as { text: string }[])[0]!.text;
}

/** The core loop every transport must carry. */
async function coreLoop(t: Test, client: Client, label: string): Promise<void> {
  const listed = (await client.listTools()).tools;
  t.same(listed.map((x) => x.name).sort(), [...TOOLS].sort(), 'every tool, named as documented');
  for (const tool of listed) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name} has a JSON-schema input`);
    t.equal(tool.outputSchema?.type, 'object', `${tool.name} has a JSON-schema output`);
  }

  // Frozen, so the clock below reads exactly the instants it was moved to.
  const { environment } = await call(t, client, 'create_environment', { name: `mcp ${label}`, twins: ['stripe'], clock: 'frozen', fidelity: 'lenient' });
  t.equal(environment.status, 'ready', 'create_environment waits until ready');
  t.match(environment, { clock_mode: 'frozen', fidelity: 'lenient' }, 'with the clock and fidelity asked for');
  const twin = environment.twins[0];
  const cred = await call(t, client, 'get_twin_credentials', { twin_id: twin.id });
  t.match(cred, { twin_slug: 'stripe', url: twin.url, api_key: /^sk_test_/, sdk: { package: 'stripe', code: /new Stripe\('sk_test_/ } });
  t.match(cred.extras, { publishable_key: /^pk_test_/ }, "the credential's other halves");

  const url = new URL(cred.url);
  const stripe = new Stripe(cred.api_key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
  const customer = await stripe.customers.create({ email: 'ada@example.com', name: 'Ada' });

  const logs = await call(t, client, 'list_request_logs', { environment_id: environment.id });
  t.equal(logs.total, 1);
  t.match(logs.items[0], { method: 'POST', path: '/v1/customers', status_code: 200, environment_twin_id: twin.id, fidelity: 'modelled' });
  t.equal((await call(t, client, 'list_request_logs', { environment_id: environment.id, status_code: 404 })).total, 0, 'filtered by status');
  t.equal((await call(t, client, 'list_request_logs', { environment_id: environment.id, fidelity: 'modelled' })).total, 1, 'filtered by fidelity');
  t.equal((await call(t, client, 'list_request_logs', { environment_id: environment.id, fidelity: 'unsupported' })).total, 0);

  // The twin's own MCP server (Stripe's agent toolkit tools) at the credential's mcp_url, through the
  // gateway: the tool's Stripe request is a row of the environment's log like the SDK's.
  t.equal(cred.mcp_url, `${twin.url}/mcp`);
  const stripeMcp = new Client({ name: 'agent', version: '1.0.0' });
  await stripeMcp.connect(new StreamableHTTPClientTransport(new URL(cred.mcp_url), { requestInit: { headers: { authorization: `Bearer ${cred.api_key}` } } }));
  const made = (await stripeMcp.callTool({ name: 'create_customer', arguments: { name: 'Grace' } })) as { isError?: boolean; content: { text: string }[] };
  await stripeMcp.close();
  t.notOk(made.isError, made.content[0]?.text);
  const viaTool = JSON.parse(made.content[0]!.text) as { id: string };
  t.equal((await stripe.customers.retrieve(viaTool.id)).id, viaTool.id, 'the tool made a customer the SDK reads');
  const afterTool = await call(t, client, 'list_request_logs', { environment_id: environment.id });
  t.ok(
    afterTool.items.some((r: any) => r.method === 'POST' && r.path === '/v1/customers' && r.status_code === 200 && r.id !== logs.items[0].id),
    "the tool's request is in the environment's log",
  );

  const records = await call(t, client, 'list_records', { environment_id: environment.id, twin_id: twin.id, resource: 'customer' });
  t.ok(records.records.some((r: any) => r.external_id === customer.id));
  const { record } = await call(t, client, 'get_record', { environment_id: environment.id, twin_id: twin.id, resource: 'customer', external_id: customer.id });
  const replaced = await call(t, client, 'replace_record', {
    environment_id: environment.id,
    twin_id: twin.id,
    resource: 'customer',
    external_id: customer.id,
    fields: { ...record.body, email: 'grace@example.com' },
  });
  t.equal(replaced.record.body.email, 'grace@example.com');
  t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).email, 'grace@example.com', 'the SDK sees the replaced record');

  const at = new Date(Date.parse(environment.clock) + 30 * 86_400_000).toISOString();
  t.same(await call(t, client, 'advance_time', { twin_id: twin.id, at }), { twin_id: twin.id, advanced_to: at });
  t.equal((await call(t, client, 'get_environment', { environment_id: environment.id })).environment.clock, at, 'the clock moved');
  t.match(await refused(t, client, 'advance_time', { twin_id: twin.id, at: environment.clock }), /^The environment clock is at .*; it cannot move back to /);

  t.same(await call(t, client, 'delete_environment', { environment_id: environment.id }), { deleted: environment.id });
  t.equal(
    await refused(t, client, 'get_environment', { environment_id: environment.id }),
    `Environment ${environment.id} not found.`,
    'a tool error carries the API sentence',
  );
}

t.test('streamable HTTP at /mcp', async (t) => {
  const anonymous = await fetch(`${cp.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{}',
  });
  t.equal(anonymous.status, 401, 'same authorization as REST');
  // MCP authorization: the challenge names the resource's metadata (RFC 9728), as the SDK's client reads it.
  const challenge = extractWWWAuthenticateParams(anonymous);
  t.equal(challenge.resourceMetadataUrl?.href, `${cp.url}/.well-known/oauth-protected-resource/mcp`);
  const get = await fetch(`${cp.url}/mcp`, { headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' } });
  t.equal(get.status, 405, 'stateless: no server-initiated stream');
  t.equal(get.headers.get('allow'), 'POST');

  const client = new Client({ name: 'twins-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${cp.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  t.teardown(() => client.close());
  t.match(client.getInstructions(), /create_environment/);
  await coreLoop(t, client, 'http');

  // The rest of the tools, over the same transport.
  t.same((await call(t, client, 'list_catalog', {})).twins.map((c: any) => c.slug).sort(), [...TWIN_SLUGS].sort());
  const { environment } = await call(t, client, 'create_environment', { name: 'tests', twins: ['stripe'] });
  t.ok((await call(t, client, 'list_environments', { size: 10 })).items.some((e: any) => e.id === environment.id));
  const twin = environment.twins[0];
  const cred = await call(t, client, 'get_twin_credentials', { twin_id: twin.id });
  const url = new URL(cred.url);
  const { snapshot } = await call(t, client, 'snapshot_environment', { environment_id: environment.id, name: 'empty' });
  const customer = await new Stripe(cred.api_key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 }).customers.create({
    email: 'x@example.com',
  });
  const diff = await call(t, client, 'diff_environment', { environment_id: environment.id, snapshot_id: snapshot.id });
  t.same(diff.twins[0].added, [{ resource: 'customer', external_id: customer.id }], 'diff_environment names what changed since the snapshot');
  const { fault } = await call(t, client, 'inject_fault', {
    environment_id: environment.id,
    twin_id: twin.id,
    match: { method: 'GET', path: '/v1/balance' },
    effect: { type: 'server_error' },
  });
  t.match(fault, { id: /^flt_/, twin_id: twin.id, probability: 1, effect: { type: 'server_error' } });
  const balance = await fetch(`${cred.url}/v1/balance`, { headers: { authorization: `Bearer ${cred.api_key}` } });
  t.equal(balance.status, 500, 'the injected fault answers');
  t.same(
    (await call(t, client, 'list_faults', { environment_id: environment.id })).items.map((f: any) => f.id),
    [fault.id],
  );
  t.same(await call(t, client, 'delete_fault', { environment_id: environment.id, fault_id: fault.id }), { deleted: fault.id });
  const fork = await call(t, client, 'fork_environment', { environment_id: environment.id, name: 'forked' });
  t.equal(fork.environment.status, 'ready', 'fork_environment waits until ready');
  const snapshots = await call(t, client, 'list_snapshots', { environment_id: environment.id });
  t.same(
    snapshots.items.map((s: any) => s.name),
    ['fork: forked', 'empty'],
    'the fork took a snapshot too',
  );
  t.match(await refused(t, client, 'delete_snapshot', { snapshot_id: snapshots.items[0].id }), /starting point/, "the fork's snapshot is in use");
  t.same(await call(t, client, 'delete_snapshot', { snapshot_id: snapshot.id }), { deleted: snapshot.id });
  await call(t, client, 'delete_environment', { environment_id: fork.environment.id });
  const { test } = await call(t, client, 'create_test', {
    name: 'refund and customer',
    twins: ['stripe'],
    assertions: [
      { says: 'created a customer', count: { at_least: 1 }, match: { method: 'POST', path: '/v1/customers' } },
      { says: 'refunded once', count: { exactly: 1 }, match: { method: 'POST', path: '/v1/refunds' } },
    ],
  });
  const run = await call(t, client, 'run_test_attempt', { test_id: test.id, environment_id: environment.id });
  t.equal(run.passed, false);
  t.same(run.failures, [{ says: 'refunded once', expected: 'exactly 1', observed: 0, reason: run.failures[0].reason }]);
  t.type(run.failures[0].reason, 'string', 'each failure says why');
  const worded = await call(t, client, 'create_test', { name: 'customer', twins: ['stripe'], outcome: 'created a customer' });
  t.equal((await call(t, client, 'run_test_attempt', { test_id: worded.test.id, environment_id: environment.id })).passed, true);
  const reset = await call(t, client, 'reset_environment', { environment_id: environment.id });
  t.equal(reset.environment.id, environment.id);

  const { suggestions } = await call(t, client, 'list_seed_suggestions', { twin: 'stripe' });
  t.ok(suggestions.length >= 5);
  const { seed } = await call(t, client, 'create_seed', { name: 'suggested', twin: 'stripe', prompt: suggestions[0].prompt });
  t.equal(seed.status, 'ready', 'create_seed waits until generated');
  const refusal = await refused(t, client, 'create_seed', { name: 'x', twin: 'paypal', prompt: 'y' });
  t.ok(
    String(refusal).startsWith(
      `body.twin: Input should be ${TWIN_SLUGS.slice(0, -1)
        .map((s) => `'${s}'`)
        .join(', ')} or '${TWIN_SLUGS.at(-1)}'`,
    ),
    String(refusal),
  );
  await call(t, client, 'delete_environment', { environment_id: environment.id });
});

t.test('HTTP MCP describes itself as an OAuth protected resource (what spec-following clients look up first)', async (t) => {
  const metadata = await discoverOAuthProtectedResourceMetadata(new URL(`${cp.url}/mcp`));
  t.equal(metadata.resource, `${cp.url}/mcp`);
  t.same(metadata.bearer_methods_supported, ['header']);
  t.notOk(metadata.authorization_servers, 'the local identity provider has no HTTP authorization server to name');
  const root = await fetch(`${cp.url}/.well-known/oauth-protected-resource`);
  t.equal(root.status, 200, 'also at the root well-known path, without a credential');
  t.same(await root.json(), metadata);
  // With an OpenID Connect provider, its issuer is the authorization server.
  t.same(mcpResourceMetadata('https://twins.example.com', { idp: 'oidc', idpIssuer: 'https://login.example.com/' }).authorization_servers, [
    'https://login.example.com/',
  ]);
});

t.test('stdio: twins mcp against a control plane by URL', async (t) => {
  const client = new Client({ name: 'twins-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [builtCli(), 'mcp'],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), TWINS_URL: cp.url, TWINS_API_KEY: apiKey },
    stderr: 'pipe',
  });
  await client.connect(transport);
  t.teardown(() => client.close());
  await coreLoop(t, client, 'stdio');
});

t.test('stdio: twins mcp with an embedded control plane, in the organization of the last sign-in', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-mcp-embedded-'));
  seedTestTls(dataDir);
  // What `twins token --email ada@example.com --org acme` (or `twins console`) leaves in the folder.
  recordSignIn(dataDir, { email: 'ada@example.com', org: 'acme' });
  const client = new Client({ name: 'twins-test', version: '1.0.0' });
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [builtCli(), 'mcp'],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), TWINS_DATA_DIR: dataDir, TWINS_URL: '', TWINS_API_KEY: '', TWINS_TOKEN: '', LOG_LEVEL: 'warn' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (c: Buffer) => (stderr += c));
  await client.connect(transport);
  t.teardown(async () => {
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const served = /serving MCP on stdio for an embedded control plane at (http:\/\/127\.0\.0\.1:\d+) .* as agent@twins\.local in organization acme/.exec(stderr);
  t.ok(served, stderr);
  // Four twins at once: past the free plan's three, so this also shows the embedded setup is on paygo.
  const { environment } = await call(t, client, 'create_environment', { name: 'embedded', twins: ['stripe', 'github', 'slack', 'stripe'] });
  t.equal(environment.status, 'ready');
  t.equal(environment.twins.length, 4);
  // The person sees what the agent made: it is in their organization.
  const ada = await mintLocalToken(await loadLocalKeys(dataDir), { email: 'ada@example.com', org: 'acme', role: 'admin' });
  const listed = (await (await fetch(`${served![1]}/environments`, { headers: { authorization: `Bearer ${ada}` } })).json()) as { items: { id: string }[] };
  t.ok(listed.items.length > 0 && listed.items.some((e) => e.id === environment.id), "the environment is in ada's organization");
  await call(t, client, 'delete_environment', { environment_id: environment.id });
});
