// The Linear twin through the recording gateway, driven by @linear/sdk: the starting workspace,
// issues (create, update, state changes, assignment, labels, priority, estimate, sub-issues),
// comments, projects, cycles (roll-over on advance), filtering and Relay pagination, Linear's
// errors, and a webhook verified with the SDK's own LinearWebhookClient.

import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LinearClient, LinearErrorType } from '@linear/sdk';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { buildSchema, validateSchema } from 'graphql';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';
import { linearSchema, linearSdl } from '../../../twins/linear/spec/schema.js';

const CLOCK_START = new Date('2026-03-02T09:00:00Z');
const gw = await startGatewayTwin('linear', { clockStart: CLOCK_START });
t.teardown(() => gw.close());
const client = new LinearClient({ apiKey: gw.twin.apiKey, apiUrl: `${gw.url}/graphql` });

const teams = await client.teams();
const eng = teams.nodes[0]!;
const states = (await eng.states()).nodes;
const stateNamed = (name: string) => states.find((s) => s.name === name)!;
const me = await client.viewer;

t.test('the schema derived from @linear/sdk is a valid GraphQL schema', async (t) => {
  const errors = validateSchema(buildSchema(linearSdl()));
  t.same(
    errors.map((e) => e.message),
    [],
  );
  t.ok(linearSchema().getQueryType()!.getFields().issues, 'Query.issues is there');
});

t.test('starting workspace: viewer, team ENG, default workflow, people, labels', async (t) => {
  t.equal(me.email, 'ada@example.com');
  t.equal(me.isMe, true);
  t.same(
    teams.nodes.map((tm) => tm.key),
    ['ENG'],
  );
  t.same(states.map((s) => `${s.name}:${s.type}`).sort(), [
    'Backlog:backlog',
    'Canceled:canceled',
    'Done:completed',
    'Duplicate:canceled',
    'In Progress:started',
    'In Review:started',
    'Todo:unstarted',
  ]);
  const users = await client.users();
  t.equal(users.nodes.length, 4);
  const labels = await client.issueLabels();
  t.same(labels.nodes.map((l) => l.name).sort(), ['Bug', 'Feature', 'Improvement']);
  const org = await client.organization;
  t.equal(org.urlKey, 'twin-works');
});

t.test('issue lifecycle: create, assign, label, estimate, move through states, sub-issues, comments', async (t) => {
  const bug = (await client.issueLabels({ filter: { name: { eq: 'Bug' } } })).nodes[0]!;
  t.ok(bug, 'Bug label found by filter');
  const created = await client.createIssue({
    teamId: eng.id,
    title: 'Checkout fails on Safari',
    description: 'Steps…',
    priority: 1,
    estimate: 3,
    labelIds: [bug.id],
  });
  t.equal(created.success, true);
  const issue = (await created.issue)!;
  t.match(issue.identifier, /^ENG-\d+$/);
  t.equal(issue.priority, 1);
  t.equal(issue.priorityLabel, 'Urgent');
  t.equal(issue.estimate, 3);
  t.equal((await issue.state)!.name, 'Backlog', 'new issues start in the team default state');
  t.same(
    (await issue.labels()).nodes.map((l) => l.name),
    ['Bug'],
  );
  t.equal((await issue.team)!.key, 'ENG');
  t.equal((await issue.creator)!.id, me.id);

  await client.updateIssue(issue.id, { stateId: stateNamed('In Progress').id, assigneeId: me.id });
  let fresh = await client.issue(issue.identifier);
  t.equal((await fresh.state)!.name, 'In Progress');
  t.equal((await fresh.assignee)!.email, 'ada@example.com');
  t.ok(fresh.startedAt, 'startedAt stamped');
  await client.updateIssue(issue.id, { stateId: stateNamed('Done').id });
  fresh = await client.issue(issue.id);
  t.ok(fresh.completedAt, 'completedAt stamped');

  const child = (await (await client.createIssue({ teamId: eng.id, title: 'Reproduce on iOS', parentId: issue.id })).issue)!;
  t.equal((await child.parent)!.id, issue.id);
  t.same(
    (await fresh.children()).nodes.map((c) => c.id),
    [child.id],
  );
  const cyclic = await client.updateIssue(issue.id, { parentId: child.id }).catch((e) => e);
  t.equal(cyclic.type, LinearErrorType.InvalidInput, 'a parent cycle is refused');

  await client.createComment({ issueId: issue.id, body: 'Reproduced on 17.2' });
  const comments = (await fresh.comments()).nodes;
  t.same(
    comments.map((c) => c.body),
    ['Reproduced on 17.2'],
  );
  t.equal((await comments[0]!.user)!.id, me.id);

  await client.issueAddLabel(issue.id, (await client.issueLabels({ filter: { name: { eq: 'Feature' } } })).nodes[0]!.id);
  t.same((await (await client.issue(issue.id)).labels()).nodes.map((l) => l.name).sort(), ['Bug', 'Feature']);
});

t.test('filters and Relay pagination', async (t) => {
  for (let i = 0; i < 7; i++) await client.createIssue({ teamId: eng.id, title: `Paged issue ${i}`, priority: i % 2 === 0 ? 2 : 4 });
  const high = await client.issues({ filter: { title: { startsWith: 'Paged' }, priority: { eq: 2 } } });
  t.equal(high.nodes.length, 4);
  const page1 = await client.issues({ first: 3, filter: { title: { containsIgnoreCase: 'paged issue' } } });
  t.equal(page1.nodes.length, 3);
  t.equal(page1.pageInfo.hasNextPage, true);
  t.equal(page1.nodes[0]!.title, 'Paged issue 6', 'newest first');
  const page2 = await page1.fetchNext();
  t.equal(page2.nodes.length, 6, 'fetchNext appends the next page');
  await page2.fetchNext();
  t.equal(page2.nodes.length, 7);
  t.equal(page2.pageInfo.hasNextPage, false);
  const ids = new Set(page2.nodes.map((n) => n.id));
  t.equal(ids.size, 7, 'no duplicates across pages');
  const mineStarted = await client.issues({ filter: { assignee: { isMe: { eq: true } }, state: { type: { in: ['completed'] } } } });
  t.ok(mineStarted.nodes.length >= 1);
  t.ok(mineStarted.nodes.every((n) => n.completedAt));
  const either = await client.issues({ filter: { or: [{ priority: { eq: 1 } }, { title: { eq: 'Paged issue 3' } }] } });
  t.same(either.nodes.map((n) => n.title).sort(), ['Checkout fails on Safari', 'Paged issue 3']);
  const labelled = await client.issues({ filter: { labels: { some: { name: { eq: 'Bug' } } } } });
  t.same(
    labelled.nodes.map((n) => n.title),
    ['Checkout fails on Safari'],
  );
  const tooMany = await client.issues({ first: 251 }).catch((e) => e);
  t.equal(tooMany.type, LinearErrorType.InvalidInput);
});

t.test('projects and cycles; unfinished issues roll over when a cycle ends', async (t) => {
  const project = (await (await client.createProject({ name: 'Checkout revamp', teamIds: [eng.id], leadId: me.id })).project)!;
  t.equal(project.state, 'backlog');
  t.equal((await project.lead)!.id, me.id);
  const unknownField = await client.createProject({ name: 'x', teamIds: [eng.id], state: 'started' } as any).catch((e) => e);
  t.equal(unknownField.type, LinearErrorType.GraphqlError, 'an input field the schema lacks is refused');
  const inProject = (await (await client.createIssue({ teamId: eng.id, title: 'New payment form', projectId: project.id })).issue)!;
  t.same(
    (await project.issues()).nodes.map((i) => i.id),
    [inProject.id],
  );

  const day = 86_400_000;
  const c1 = (await (
    await client.createCycle({ teamId: eng.id, startsAt: new Date(CLOCK_START.getTime() - day), endsAt: new Date(CLOCK_START.getTime() + 13 * day) })
  ).cycle)!;
  const c2 = (await (
    await client.createCycle({ teamId: eng.id, startsAt: new Date(CLOCK_START.getTime() + 13 * day), endsAt: new Date(CLOCK_START.getTime() + 27 * day) })
  ).cycle)!;
  t.same([c1.number, c2.number], [1, 2]);
  const open = (await (await client.createIssue({ teamId: eng.id, title: 'Carry me over', cycleId: c1.id })).issue)!;
  const done = (await (await client.createIssue({ teamId: eng.id, title: 'Finished', cycleId: c1.id, stateId: stateNamed('Done').id })).issue)!;
  t.equal((await client.team(eng.id)).id, eng.id);
  t.equal((await (await client.team('ENG')).activeCycle)!.id, c1.id, 'the running cycle is active');
  await gw.twin.advance(new Date(CLOCK_START.getTime() + 14 * day));
  t.ok((await client.cycle(c1.id)).completedAt, 'cycle 1 completed on advance');
  t.equal((await (await client.issue(open.id)).cycle)!.id, c2.id, 'open issue rolled over to cycle 2');
  t.equal((await (await client.issue(done.id)).cycle)!.id, c1.id, 'done issue stays');
});

t.test('errors as Linear answers them', async (t) => {
  const missing = await client.issue('ENG-9999').catch((e) => e);
  t.equal(missing.type, LinearErrorType.InvalidInput);
  t.match(missing.message, /Entity not found: Issue/);
  const badPriority = await client.createIssue({ teamId: eng.id, title: 'x', priority: 9 }).catch((e) => e);
  t.equal(badPriority.type, LinearErrorType.InvalidInput);
  const stranger = new LinearClient({ apiKey: 'lin_api_wrong', apiUrl: `${gw.url}/graphql` });
  const denied = await stranger.viewer.catch((e) => e);
  t.equal(denied.type, LinearErrorType.AuthenticationError);
  const invalid = await client.client.rawRequest('{ issues { nodes { nope } } }').catch((e) => e);
  t.equal(invalid.type, LinearErrorType.GraphqlError, 'a field the schema lacks fails validation');
});

t.test('a root field the twin does not model is refused, naming it; fields of a modelled one answer', async (t) => {
  for (const field of ['notifications', 'documents']) {
    const refused = await client.client.rawRequest(`{ ${field} { nodes { id } } }`).catch((e: unknown) => e);
    t.ok(refused instanceof Error, `the SDK raises the refusal of ${field}`);
    const said = JSON.stringify((refused as { errors?: unknown }).errors ?? (refused as Error).message);
    t.match(said, new RegExp(`This twin does not simulate Query\\.${field}`));
  }
  const raw = await fetch(`${gw.url}/graphql`, {
    method: 'POST',
    headers: { authorization: gw.twin.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ notifications { nodes { id } } }' }),
  });
  t.equal(raw.headers.get('twin-fidelity'), 'unsupported', 'the answer names its level');
  const res = await client.client.rawRequest<any, Record<string, unknown>>(
    '{ issue(id: "ENG-1") { identifier attachments { nodes { id } } history { nodes { id } } reactionData } }',
  );
  t.equal(res.data!.issue.identifier, 'ENG-1');
  t.same(res.data!.issue.attachments.nodes, []);
});

t.test('webhook: signed, verified by the SDK LinearWebhookClient', async (t) => {
  const received: { body: Buffer; headers: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/linear`;
  const hook = (await (await client.createWebhook({ url, resourceTypes: ['Issue', 'Comment'], allPublicTeams: true, secret: 'whsec-test-secret' })).webhook)!;
  t.equal(hook.enabled, true);
  const issue = (await (await client.createIssue({ teamId: eng.id, title: 'Hooked' })).issue)!;
  await client.updateIssue(issue.id, { priority: 2 });
  for (let i = 0; i < 100 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(received.length, 2, 'create and update delivered');
  const verifier = new LinearWebhookClient('whsec-test-secret');
  const [create, update] = received.map((r) => verifier.parseData(r.body, String(r.headers['linear-signature'])) as any);
  t.equal(create.action, 'create');
  t.equal(create.type, 'Issue');
  t.equal(create.data.identifier, issue.identifier);
  t.equal(update.action, 'update');
  t.equal(update.updatedFrom.priority, 0);
  t.equal(received[0]!.headers['linear-event'], 'Issue');
  t.throws(
    () => new LinearWebhookClient('another-secret').parseData(received[0]!.body, String(received[0]!.headers['linear-signature'])),
    'another secret fails verification',
  );
});

t.test('the gateway logged the SDK traffic', async (t) => {
  const rows = await gw.logged();
  t.ok(rows.length > 10);
  t.ok(rows.every((r) => r.path === '/graphql'));
});
