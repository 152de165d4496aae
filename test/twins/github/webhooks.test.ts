// Repository hooks CRUD and signed deliveries (ping, issues, issue_comment, pull_request, push)
// received on a loopback server and verified with @octokit/webhooks.

import t from 'tap';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhooks } from '@octokit/webhooks';
import { startGitHub, failure, b64 } from './setup.js';

process.env.TWIN_DELIVERY_BACKOFF_MS = '50,50';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
const waiters: (() => void)[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end('ok');
    for (const w of waiters.splice(0)) w();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const gh = await startGitHub();
t.teardown(async () => {
  await gh.close();
  await new Promise((r) => receiver.close(r));
});
const { octokit, twin } = gh;
const owner = 'octocat';
const repo = 'hooked';
await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });

async function until(count: number): Promise<Received[]> {
  const deadline = Date.now() + 5000;
  while (received.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${received.length} of ${count} deliveries arrived`);
    await new Promise<void>((r) => {
      waiters.push(r);
      setTimeout(r, 100);
    });
  }
  return received;
}

const secret = 'it-is-a-secret';
const webhooks = new Webhooks({ secret });

t.test('hooks CRUD', async (t) => {
  const created = await octokit.repos.createWebhook({
    owner,
    repo,
    config: { url: hookUrl, content_type: 'json', secret },
    events: ['issues', 'issue_comment', 'pull_request', 'push'],
  });
  t.equal(created.status, 201);
  t.equal(created.data.name, 'web');
  t.equal(created.data.active, true);
  t.equal(created.data.config.url, hookUrl);
  t.equal((created.data.config as any).secret, '********', 'the secret is never shown');
  t.same(created.data.events, ['issues', 'issue_comment', 'pull_request', 'push']);
  t.equal(created.data.url, `${twin.url}/repos/${owner}/${repo}/hooks/${created.data.id}`);

  const list = await octokit.repos.listWebhooks({ owner, repo });
  t.same(
    list.data.map((h) => h.id),
    [created.data.id],
  );
  const got = await octokit.repos.getWebhook({ owner, repo, hook_id: created.data.id });
  t.equal(got.data.config.content_type, 'json');
  const other = await octokit.repos.createWebhook({ owner, repo, config: { url: hookUrl }, events: ['push'] });
  const patched = await octokit.repos.updateWebhook({ owner, repo, hook_id: other.data.id, active: false, add_events: ['issues'] });
  t.equal(patched.data.active, false);
  t.same(patched.data.events, ['push', 'issues']);
  t.equal((await octokit.repos.deleteWebhook({ owner, repo, hook_id: other.data.id })).status, 204);
  t.equal((await failure(octokit.repos.getWebhook({ owner, repo, hook_id: other.data.id }))).status, 404);
  const bad = await failure(octokit.repos.createWebhook({ owner, repo, config: { url: 'not a url' } }));
  t.equal(bad.status, 422);
});

t.test('deliveries are signed and verifiable, with GitHub headers', async (t) => {
  // The first hook got a ping on creation, the second too (and nothing after it was disabled).
  const pings = await until(2);
  t.same(
    pings.map((d) => d.headers['x-github-event']),
    ['ping', 'ping'],
  );
  received.length = 0;

  const issue = await octokit.issues.create({ owner, repo, title: 'Hooked issue' });
  await octokit.issues.createComment({ owner, repo, issue_number: issue.data.number, body: 'A comment' });
  await octokit.issues.update({ owner, repo, issue_number: issue.data.number, state: 'closed' });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/topic', sha: (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha });
  const commit = await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'x.txt', branch: 'topic', message: 'Add x', content: b64('x\n') });
  const pr = await octokit.pulls.create({ owner, repo, title: 'Topic', head: 'topic', base: 'main' });
  await octokit.pulls.merge({ owner, repo, pull_number: pr.data.number });

  const all = await until(8);
  const events = all.map((d) => `${d.headers['x-github-event']}:${JSON.parse(d.body).action ?? JSON.parse(d.body).ref}`);
  t.same(events, [
    'issues:opened',
    'issue_comment:created',
    'issues:closed',
    'push:refs/heads/topic',
    'push:refs/heads/topic',
    'pull_request:opened',
    'pull_request:closed',
    'push:refs/heads/main',
  ]);
  for (const d of all) {
    const sig = d.headers['x-hub-signature-256'] as string;
    t.match(sig, /^sha256=[0-9a-f]{64}$/);
    t.equal(await webhooks.verify(d.body, sig), true, `${d.headers['x-github-event']} verifies`);
    t.match(d.headers['x-github-delivery'], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    t.equal(d.headers['x-github-hook-id'], String((await octokit.repos.listWebhooks({ owner, repo })).data[0]!.id));
    t.match(d.headers['user-agent'], /^GitHub-Hookshot\//);
  }
  t.equal(await new Webhooks({ secret: 'wrong' }).verify(all[0]!.body, all[0]!.headers['x-hub-signature-256'] as string), false);

  const opened = JSON.parse(all[0]!.body);
  t.equal(opened.issue.number, issue.data.number);
  t.equal(opened.repository.full_name, `${owner}/${repo}`);
  t.equal(opened.sender.login, 'octocat');
  t.equal(opened.issue.url, `${twin.url}/repos/${owner}/${repo}/issues/${issue.data.number}`);
  const comment = JSON.parse(all[1]!.body);
  t.equal(comment.comment.body, 'A comment');
  const push = JSON.parse(all[4]!.body);
  t.equal(push.after, commit.data.commit.sha);
  t.same(
    push.commits.map((c: any) => [c.message, c.added]),
    [['Add x', ['x.txt']]],
  );
  t.equal(push.head_commit.id, commit.data.commit.sha);
  const closedPr = JSON.parse(all[6]!.body);
  t.equal(closedPr.pull_request.merged, true);
  t.equal(closedPr.number, pr.data.number);

  // And @octokit/webhooks' verifyAndReceive dispatches it as the event it names.
  let seen = '';
  webhooks.on('pull_request.closed', ({ payload }) => {
    seen = `${payload.pull_request.number}:${payload.pull_request.merged}`;
  });
  await webhooks.verifyAndReceive({
    id: all[6]!.headers['x-github-delivery'] as string,
    name: 'pull_request',
    payload: all[6]!.body,
    signature: all[6]!.headers['x-hub-signature-256'] as string,
  });
  t.equal(seen, `${pr.data.number}:true`);

  // Attempts are kept as delivery records.
  const deliveries = (await (await fetch(`${twin.url}/_twin/records/delivery`)).json()) as any[];
  t.ok(deliveries.filter((d) => d.body.event !== 'ping').every((d) => d.body.status === 'succeeded'));
});

t.test('pings on request', async (t) => {
  received.length = 0;
  const [hook] = (await octokit.repos.listWebhooks({ owner, repo })).data;
  t.equal((await octokit.repos.pingWebhook({ owner, repo, hook_id: hook!.id })).status, 204);
  const [d] = await until(1);
  t.equal(d!.headers['x-github-event'], 'ping');
  t.equal(JSON.parse(d!.body).hook_id, hook!.id);
});
