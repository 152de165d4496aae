// An agent loop against the twins, with a framework nobody here wrote: the Vercel AI SDK's
// generateText with the OpenAI twin as the model (@ai-sdk/openai, scripted answers) and the GitHub
// twin's MCP tools (@ai-sdk/mcp's client over streamable HTTP, only the credential's mcp_url and
// key). The script makes the model create a branch, write a file and open a pull request, one tool
// call per step; the pull request exists afterwards, read with @octokit/rest.

import t from 'tap';
import { generateText, stepCountIs } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createMCPClient } from '@ai-sdk/mcp';
import { startTwin } from '../../helpers/twin.js';
import { startGitHub } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const llm = await startTwin('openai');
t.teardown(() => llm.close());

const owner = 'octocat';
const repo = 'agent-demo';
await gh.octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });

/** One scripted model turn: when the turn being answered contains `contains`, answer `response`. */
async function script(contains: string, response: unknown): Promise<void> {
  const res = await fetch(`${llm.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${llm.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ match: { contains }, response }),
  });
  if (res.status >= 300) throw new Error(`scripting the model: ${res.status} ${await res.text()}`);
}

// Each turn after the first answers the previous tool's result, told apart by what only it contains.
await script('Add a hello page', { tool_calls: [{ name: 'create_branch', arguments: { owner, repo, branch: 'agent/hello' } }] });
await script('refs/heads/agent/hello', {
  tool_calls: [
    { name: 'create_or_update_file', arguments: { owner, repo, path: 'hello.md', content: '# Hello\n', message: 'Add hello page', branch: 'agent/hello' } },
  ],
});
await script('hello.md', {
  tool_calls: [{ name: 'create_pull_request', arguments: { owner, repo, title: 'Add hello page', head: 'agent/hello', base: 'main' } }],
});
await script('pulls/', { text: 'I opened the pull request.' });

t.test('the agent creates a branch, writes a file and opens a pull request through MCP', async (t) => {
  const credential = (await (await fetch(`${gh.twin.url}/_twin/credential`)).json()) as { api_key: string; mcp_url: string };
  const mcp = await createMCPClient({ transport: { type: 'http', url: credential.mcp_url, headers: { authorization: `Bearer ${credential.api_key}` } } });
  t.teardown(() => mcp.close());
  const tools = await mcp.tools();
  t.ok(Object.keys(tools).length > 100, `${Object.keys(tools).length} GitHub MCP tools offered to the model`);
  const offered = Object.fromEntries(['create_branch', 'create_or_update_file', 'create_pull_request'].map((n) => [n, tools[n]!]));

  const openai = createOpenAI({ apiKey: llm.apiKey, baseURL: `${llm.url}/v1` });
  const result = await generateText({
    model: openai.chat('gpt-4o-mini'),
    tools: offered,
    stopWhen: stepCountIs(6),
    prompt: 'Add a hello page to octocat/agent-demo and open a pull request for it.',
  });
  t.same(
    result.steps.flatMap((s) => s.toolCalls.map((c) => c.toolName)),
    ['create_branch', 'create_or_update_file', 'create_pull_request'],
    'the model called the three tools in turn',
  );
  t.equal(result.text, 'I opened the pull request.');

  const { data: pulls } = await gh.octokit.pulls.list({ owner, repo, head: `${owner}:agent/hello` });
  t.equal(pulls.length, 1, 'the pull request exists');
  t.match(pulls[0], { title: 'Add hello page', head: { ref: 'agent/hello' }, base: { ref: 'main' }, state: 'open' });
  const { data: files } = await gh.octokit.pulls.listFiles({ owner, repo, pull_number: pulls[0]!.number });
  t.same(
    files.map((f) => f.filename),
    ['hello.md'],
  );
});
