// The GitHub twin's own MCP server, driven by the MCP SDK's Client over streamable HTTP with only
// the credential's `mcp_url` and key: its tools are github-mcp-server's as published (names and
// input schemas, spec/mcp-tools.json), a writing tool's result reads back over REST with
// @octokit/rest and fires the webhook the REST call fires, the agent loop's tools (branch, file,
// pull request) leave a pull request, and what the twin does not simulate comes back as a tool
// error, never a success.

import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhooks } from '@octokit/webhooks';
import published from '../../../twins/github/spec/mcp-tools.json' with { type: 'json' };
import { IMPLEMENTED_TOOLS } from '../../../twins/github/mcp/tools.js';
import { MCP_TOOL_HEADER } from '../../../twin-runtime/mcp.js';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { caller, checkPublishedTools, connectMcp } from '../../helpers/twin-mcp.js';
import { GITHUB_TEST_START, gitHubOn } from './setup.js';

// Behind the recording gateway, as a twin of an environment: the credential names the gateway's
// URL, and every request a tool makes is a row of the environment's request log.
const gw = await startTwinBehindGateway('github', { clockStart: GITHUB_TEST_START });
t.teardown(() => gw.close());
const gh = gitHubOn({ ...gw.twin, url: gw.url });

const credential = (await (await fetch(`${gw.twin.url}/_twin/credential`)).json()) as { api_key: string; mcp_url?: string };

const connect = (key: string) => connectMcp(credential.mcp_url!, key);
const client = await connect(credential.api_key);
t.teardown(() => client.close());
const { call, text, json } = caller(client);

t.test('the credential names the MCP endpoint on the twin URL', async (t) => {
  t.equal(credential.mcp_url, `${gw.url}/mcp`);
  t.equal(credential.api_key, gw.apiKey);
});

t.test('the tool list is github-mcp-server as published: names and input schemas', async (t) => {
  const matched = await checkPublishedTools(t, client, published.tools, `github-mcp-server ${published.version}`);
  t.equal(matched, published.tools.length);
  t.ok(
    IMPLEMENTED_TOOLS.every((n) => published.tools.some((p) => p.name === n)),
    `every one of the ${IMPLEMENTED_TOOLS.length} implemented tools is a published one`,
  );
});

t.test('a writing tool acts on the twin: create_issue reads back over REST', async (t) => {
  await gh.octokit.repos.createForAuthenticatedUser({ name: 'mcp-demo', auto_init: true });
  const made = await call('create_issue', { owner: 'octocat', repo: 'mcp-demo', title: 'Filed by an agent', body: 'through MCP' });
  t.notOk(made.isError, text(made));
  const issue = json(made);
  const { data } = await gh.octokit.issues.get({ owner: 'octocat', repo: 'mcp-demo', issue_number: issue.number });
  t.equal(data.title, 'Filed by an agent');
  t.equal(data.body, 'through MCP');
  t.equal(data.user?.login, 'octocat');

  const read = json(await call('issue_read', { method: 'get', owner: 'octocat', repo: 'mcp-demo', issue_number: issue.number }));
  t.equal(read.id, data.id, 'issue_read answers the same issue');
  // The tool's REST request is a row of the request log, marked with the tool's name.
  const rows = await gw.logged();
  const created = rows.filter((r) => r.method === 'POST' && r.path === '/repos/octocat/mcp-demo/issues');
  t.equal(created.length, 1, 'the tool call shows in the request log as the REST request it made');
  t.equal(JSON.parse(created[0]!.request_headers)[MCP_TOOL_HEADER], 'create_issue');
  t.equal(created[0]!.status_code, 201);
  t.equal(created[0]!.fidelity, 'modelled');
  t.notOk(JSON.stringify(created[0]).includes(gw.apiKey), 'the key is not logged');
  t.ok(
    rows.some((r) => r.method === 'POST' && r.path === '/mcp'),
    'the MCP request itself is logged too',
  );
  const closed = await call('update_issue_state', {
    owner: 'octocat',
    repo: 'mcp-demo',
    issue_number: issue.number,
    state: 'closed',
    state_reason: 'completed',
  });
  t.notOk(closed.isError, text(closed));
  t.equal((await gh.octokit.issues.get({ owner: 'octocat', repo: 'mcp-demo', issue_number: issue.number })).data.state, 'closed');
});

t.test('the agent loop: create a branch, write a file, open a pull request', async (t) => {
  const branch = await call('create_branch', { owner: 'octocat', repo: 'mcp-demo', branch: 'feature/mcp' });
  t.notOk(branch.isError, text(branch));
  const file = await call('create_or_update_file', {
    owner: 'octocat',
    repo: 'mcp-demo',
    path: 'docs/hello.md',
    content: '# Hello from MCP\n',
    message: 'Add hello',
    branch: 'feature/mcp',
  });
  t.notOk(file.isError, text(file));
  const updated = await call('create_or_update_file', {
    owner: 'octocat',
    repo: 'mcp-demo',
    path: 'docs/hello.md',
    content: '# Hello again\n',
    message: 'Update hello',
    branch: 'feature/mcp',
  });
  t.notOk(updated.isError, `an update finds the file's sha itself: ${text(updated)}`);
  const opened = await call('create_pull_request', { owner: 'octocat', repo: 'mcp-demo', title: 'Hello', head: 'feature/mcp', base: 'main' });
  t.notOk(opened.isError, text(opened));
  const pr = json(opened);
  const { data } = await gh.octokit.pulls.get({ owner: 'octocat', repo: 'mcp-demo', pull_number: pr.number });
  t.equal(data.head.ref, 'feature/mcp');
  t.equal(data.state, 'open');
  const content = await gh.octokit.repos.getContent({ owner: 'octocat', repo: 'mcp-demo', path: 'docs/hello.md', ref: 'feature/mcp' });
  t.equal(Buffer.from((content.data as { content: string }).content, 'base64').toString(), '# Hello again\n');
  // A pending review, then submitted: the viewer's pending review is found as the server finds it.
  const pending = await call('pull_request_review_write', { method: 'create', owner: 'octocat', repo: 'mcp-demo', pullNumber: pr.number, body: 'Looks fine' });
  t.notOk(pending.isError, text(pending));
  t.equal(json(pending).state, 'PENDING');
  const submitted = await call('pull_request_review_write', {
    method: 'submit_pending',
    owner: 'octocat',
    repo: 'mcp-demo',
    pullNumber: pr.number,
    event: 'COMMENT',
  });
  t.notOk(submitted.isError, text(submitted));
  const reviews = await gh.octokit.pulls.listReviews({ owner: 'octocat', repo: 'mcp-demo', pull_number: pr.number });
  t.same(
    reviews.data.map((r) => [r.state, r.body]),
    [['COMMENTED', 'Looks fine']],
  );
  const thread = await call('pull_request_review_write', {
    method: 'resolve_thread',
    owner: 'octocat',
    repo: 'mcp-demo',
    pullNumber: pr.number,
    threadId: 'x',
  });
  t.equal(thread.isError, true, 'resolving a thread (GraphQL) is refused');
  const files = json(await call('pull_request_read', { method: 'get_files', owner: 'octocat', repo: 'mcp-demo', pullNumber: pr.number }));
  t.same(
    files.map((f: { filename: string }) => f.filename),
    ['docs/hello.md'],
  );
});

t.test('what the twin does not simulate is a tool error, never a success', async (t) => {
  const copilot = await call('assign_copilot_to_issue', { owner: 'octocat', repo: 'mcp-demo', issue_number: 1 });
  t.equal(copilot.isError, true);
  t.match(text(copilot), /does not simulate the MCP tool assign_copilot_to_issue/);
  const tags = await call('list_tags', { owner: 'octocat', repo: 'mcp-demo' });
  t.equal(tags.isError, true, 'a tool over a route the twin refuses is refused as the route is');
  t.match(text(tags), /does not simulate/);
  const search = await call('search_repositories', { query: 'mcp' });
  t.notOk(search.isError, 'search is answered over the twin state');
  t.match(text(search), /"full_name": ?"octocat\/mcp-demo"/);
  const missing = await call('issue_read', { method: 'get', owner: 'octocat', repo: 'mcp-demo', issue_number: 999 });
  t.equal(missing.isError, true);
  t.match(text(missing), /404 Not Found/);
  const invalid = await call('create_issue', { owner: 'octocat', repo: 'mcp-demo' });
  t.equal(invalid.isError, true);
  t.match(text(invalid), /Invalid arguments for create_issue/);
  await t.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /not found/);
});

t.test('hostile input at /mcp: a clear JSON-RPC error, nothing polluted', async (t) => {
  const post = (body: string, contentType = 'application/json') =>
    fetch(credential.mcp_url!, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential.api_key}`, 'content-type': contentType, accept: 'application/json, text/event-stream' },
      body,
    });
  const broken = await post('{"jsonrpc": "2.0", "method": ');
  t.equal(broken.status, 400);
  t.match(await broken.json(), { jsonrpc: '2.0', error: { code: -32700 } });
  const deep = await post('['.repeat(5000) + ']'.repeat(5000), 'text/plain');
  t.equal(deep.status, 400, 'nesting past the limit is refused whatever the content type says');
  const polluted = await call('create_issue', { owner: 'octocat', repo: 'mcp-demo', title: 'x', ['__proto__']: { polluted: true } } as Record<string, unknown>);
  t.notOk(polluted.isError, text(polluted));
  t.equal(({} as { polluted?: boolean }).polluted, undefined, 'Object.prototype untouched');
});

t.test('only the twin key opens the MCP endpoint', async (t) => {
  await t.rejects(connect('ghp_wrong'), /401|Unauthorized|twin's key/);
  const get = await fetch(credential.mcp_url!, { headers: { authorization: `Bearer ${credential.api_key}` } });
  t.equal(get.status, 405);
  t.equal(get.headers.get('allow'), 'POST');
});

t.test('a tool call fires the webhook the REST call fires', async (t) => {
  const received: { event: string; body: string; signature: string }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        event: String(req.headers['x-github-event']),
        body: Buffer.concat(chunks).toString('utf8'),
        signature: String(req.headers['x-hub-signature-256']),
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise((r) => receiver.close(r)));
  const secret = 'mcp-hook-secret';
  await gh.octokit.repos.createWebhook({
    owner: 'octocat',
    repo: 'mcp-demo',
    config: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, content_type: 'json', secret },
    events: ['issues'],
  });
  await gh.octokit.issues.create({ owner: 'octocat', repo: 'mcp-demo', title: 'by REST' });
  t.notOk((await call('create_issue', { owner: 'octocat', repo: 'mcp-demo', title: 'by MCP' })).isError);
  const deadline = Date.now() + 10_000;
  while (received.filter((r) => r.event === 'issues').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const issues = received.filter((r) => r.event === 'issues');
  t.equal(issues.length, 2, 'one delivery each');
  const webhooks = new Webhooks({ secret });
  for (const d of issues) t.ok(await webhooks.verify(d.body, d.signature), 'signed as GitHub signs it');
  const [rest, tool] = issues.map((d) => JSON.parse(d.body));
  t.same([rest.action, tool.action], ['opened', 'opened']);
  t.same([rest.issue.title, tool.issue.title], ['by REST', 'by MCP']);
  t.same(Object.keys(tool).sort(), Object.keys(rest).sort(), 'the same payload shape');
  t.same(Object.keys(tool.issue).sort(), Object.keys(rest.issue).sort());
});
