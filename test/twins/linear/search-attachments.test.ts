// The Linear twin's search queries, attachments, relations and refusals, driven by @linear/sdk
// through the recording gateway: `searchIssues`/`searchProjects` over stored data, attachments
// (one per URL and issue), issue relations, arguments of fields whose names hold acronyms as the
// SDK's documents send them, unknown ids answered as GraphQL errors with Linear's extensions
// (never a 500), and queries past Linear's complexity refused in its shape.

import t from 'tap';
import { getNamedType, getNullableType, isScalarType } from 'graphql';
import { LinearClient, LinearErrorType } from '@linear/sdk';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';
import { linearSchema } from '../../../twins/linear/spec/schema.js';
import { linearGraphQL } from '../../../twins/linear/routes/index.js';

const gw = await startGatewayTwin('linear', { clockStart: new Date('2026-03-02T09:00:00Z') });
t.teardown(() => gw.close());
const client = new LinearClient({ apiKey: gw.twin.apiKey, apiUrl: `${gw.url}/graphql` });
const eng = (await client.teams()).nodes[0]!;
const post = async (query: string) => {
  const res = await fetch(`${gw.url}/graphql`, {
    method: 'POST',
    headers: { authorization: gw.twin.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: { message: string; extensions: Record<string, unknown> }[] } };
};

const crash = (await (await client.createIssue({ teamId: eng.id, title: 'Checkout crash on submit', description: 'The payment form throws' })).issue)!;
await client.createIssue({ teamId: eng.id, title: 'Checkout totals wrong' });
const typo = (await (await client.createIssue({ teamId: eng.id, title: 'Profile typo' })).issue)!;
await client.createComment({ issueId: typo.id, body: 'Seen on the billing page too' });

t.test('searchIssues finds stored issues by the words of the term', async (t) => {
  const found = await client.searchIssues('checkout');
  t.same(found.nodes.map((i) => i.title).sort(), ['Checkout crash on submit', 'Checkout totals wrong']);
  t.equal(found.totalCount, 2);
  t.same(
    (await client.searchIssues('payment throws')).nodes.map((i) => i.identifier),
    [crash.identifier],
    'descriptions are searched',
  );
  t.same(
    (await client.searchIssues(crash.identifier)).nodes.map((i) => i.id),
    [crash.id],
    'an identifier finds its issue',
  );
  t.same((await client.searchIssues('billing')).nodes, [], 'comments only when asked');
  t.same(
    (await client.searchIssues('billing', { includeComments: true })).nodes.map((i) => i.id),
    [typo.id],
  );
  const paged = await client.searchIssues('checkout', { first: 1 });
  t.equal(paged.nodes.length, 1);
  t.equal(paged.pageInfo.hasNextPage, true);
  t.equal(paged.totalCount, 2, 'the count is of every match, not the page');
  t.same((await client.searchIssues('checkout', { teamId: '00000000-0000-4000-8000-000000000000' })).nodes, [], 'another team finds none');
});

t.test('searchProjects finds stored projects', async (t) => {
  await client.createProject({ name: 'Checkout revamp', teamIds: [eng.id] });
  await client.createProject({ name: 'Mobile app', teamIds: [eng.id] });
  const found = await client.searchProjects('checkout');
  t.same(
    found.nodes.map((p) => p.name),
    ['Checkout revamp'],
  );
});

t.test('attachments: one per URL and issue, found by id and by URL; an unknown id is a GraphQL error', async (t) => {
  const url = 'https://github.com/acme/app/pull/12';
  const first = (await (await client.createAttachment({ issueId: crash.id, title: 'PR #12', url })).attachment)!;
  const again = (await (await client.createAttachment({ issueId: crash.id, title: 'PR #12 (merged)', url })).attachment)!;
  t.equal(again.id, first.id, 'the same URL on the same issue updates the attachment');
  t.equal(again.title, 'PR #12 (merged)');
  t.equal((await client.attachmentIssue(first.id)).id, crash.id);
  const forUrl = await client.attachmentsForURL(url, { first: 5 });
  t.same(
    forUrl.nodes.map((a) => a.id),
    [first.id],
  );
  const linked = (await (await client.attachmentLinkURL(crash.id, 'https://example.com/spec')).attachment)!;
  t.equal(linked.title, 'https://example.com/spec', 'a link without a title is titled by its URL');
  t.same((await (await client.issue(crash.id)).attachments()).nodes.map((a) => a.id).sort(), [first.id, linked.id].sort());
  const badUrl = await client.createAttachment({ issueId: crash.id, title: 'x', url: 'not a url' }).catch((e) => e);
  t.equal(badUrl.type, LinearErrorType.InvalidInput);
  await client.deleteAttachment(linked.id);
  for (const lookup of [() => client.attachment(linked.id), () => client.attachmentIssue('x'), () => client.attachment('x')]) {
    const missing = await lookup().catch((e) => e);
    t.equal(missing.type, LinearErrorType.InvalidInput);
    t.match(missing.message, /Entity not found: Attachment/);
  }
  const raw = await post('{ attachmentIssue(id: "x") { id } }');
  t.equal(raw.status, 400);
  t.match(raw.body.errors![0]!.extensions, { type: 'invalid input', userError: true, userPresentableMessage: 'Could not find referenced Attachment.' });
});

t.test('issue relations: created, listed from both sides, retyped, refused on itself, deleted', async (t) => {
  const made = (await (await client.createIssueRelation({ issueId: crash.identifier, relatedIssueId: typo.id, type: 'blocks' as never })).issueRelation)!;
  t.equal(made.type, 'blocks');
  t.equal((await made.issue)!.id, crash.id);
  t.same(
    (await (await client.issue(crash.id)).relations()).nodes.map((r) => r.id),
    [made.id],
  );
  t.same(
    (await (await client.issue(typo.id)).inverseRelations()).nodes.map((r) => r.id),
    [made.id],
    'the related issue sees it',
  );
  const again = await client.createIssueRelation({ issueId: crash.id, relatedIssueId: typo.id, type: 'blocks' as never }).catch((e) => e);
  t.equal(again.type, LinearErrorType.InvalidInput, 'one relation of a type between two issues');
  const self = await client.createIssueRelation({ issueId: crash.id, relatedIssueId: crash.id, type: 'related' as never }).catch((e) => e);
  t.equal(self.type, LinearErrorType.InvalidInput);
  const retyped = (await (await client.updateIssueRelation(made.id, { type: 'related' })).issueRelation)!;
  t.equal(retyped.type, 'related');
  await client.deleteIssueRelation(made.id);
  const gone = await client.issueRelation(made.id).catch((e) => e);
  t.match(gone.message, /Entity not found: IssueRelation/);
  t.same((await (await client.issue(typo.id)).inverseRelations()).nodes, []);
});

t.test('a branch finds its issue; labels renamed and deleted; comment threads resolved', async (t) => {
  const found = await client.issueVcsBranchSearch(`feature/${crash.identifier.toLowerCase()}-cart`);
  t.equal(found?.id, crash.id, 'an identifier in the branch name');
  t.equal(await client.issueVcsBranchSearch('main'), undefined, 'no issue for another branch');
  const label = (await (await client.createIssueLabel({ name: 'Checkout' })).issueLabel)!;
  await client.updateIssue(crash.id, { labelIds: [label.id] });
  const renamed = (await (await client.updateIssueLabel(label.id, { name: 'Payments' })).issueLabel)!;
  t.equal(renamed.name, 'Payments');
  await client.deleteIssueLabel(label.id);
  t.same((await (await client.issue(crash.id)).labels()).nodes, [], 'the issue lost the deleted label');
  t.match((await client.issueLabel(label.id).catch((e) => e)).message, /Entity not found: IssueLabel/);
  const thread = (await (await client.createComment({ issueId: crash.id, body: 'Is this still happening?' })).comment)!;
  const reply = (await (await client.createComment({ issueId: crash.id, body: 'Fixed in 1.2', parentId: thread.id })).comment)!;
  const resolved = (await (await client.commentResolve(thread.id, { resolvingCommentId: reply.id })).comment)!;
  t.ok(resolved.resolvedAt, 'resolved');
  t.equal((await resolved.resolvingComment)?.id, reply.id);
  const reopened = (await (await client.commentUnresolve(thread.id)).comment)!;
  t.equal(reopened.resolvedAt, undefined);
  t.equal((await client.commentResolve(reply.id).catch((e) => e)).type, LinearErrorType.InvalidInput, 'a reply is not a thread');
});

t.test('workflow states: added to a team, renamed, archived only when empty', async (t) => {
  const qa = (await (await client.createWorkflowState({ teamId: eng.id, name: 'QA', type: 'started', color: '#4cb782' })).workflowState)!;
  t.equal(qa.type, 'started');
  t.ok(
    (await eng.states()).nodes.some((s) => s.id === qa.id),
    'the team lists it',
  );
  const dup = await client.createWorkflowState({ teamId: eng.id, name: 'qa', type: 'started', color: '#4cb782' }).catch((e) => e);
  t.equal(dup.type, LinearErrorType.InvalidInput, 'one name per team');
  t.equal((await (await client.updateWorkflowState(qa.id, { name: 'Quality' })).workflowState)!.name, 'Quality');
  await client.updateIssue(typo.id, { stateId: qa.id });
  const busy = await client.archiveWorkflowState(qa.id).catch((e) => e);
  t.equal(busy.type, LinearErrorType.InvalidInput, 'a state with issues stays');
  const backlog = (await eng.states()).nodes.find((s) => s.type === 'backlog')!;
  await client.updateIssue(typo.id, { stateId: backlog.id });
  await client.archiveWorkflowState(qa.id);
  t.notOk(
    (await eng.states()).nodes.some((s) => s.id === qa.id),
    'archived: no longer listed',
  );
  const moved = await client.updateIssue(typo.id, { stateId: qa.id }).catch((e) => e);
  t.equal(moved.type, LinearErrorType.InvalidInput, 'no issue moves into an archived state');
});

t.test('projects archived, restored and deleted; cycles updated', async (t) => {
  const project = (await (await client.createProject({ name: 'Short-lived', teamIds: [eng.id] })).project)!;
  await client.archiveProject(project.id);
  t.notOk(
    (await client.projects()).nodes.some((p) => p.id === project.id),
    'archived: left out of the list',
  );
  t.ok(
    (await client.projects({ includeArchived: true })).nodes.some((p) => p.id === project.id),
    'unless archived ones are asked for',
  );
  t.ok((await client.project(project.id)).archivedAt, 'still found by id');
  await client.unarchiveProject(project.id);
  t.ok(
    (await client.projects()).nodes.some((p) => p.id === project.id),
    'restored',
  );
  await client.deleteProject(project.id);
  t.equal((await client.project(project.id)).trashed, true);
  t.match((await client.archiveProject('nope').catch((e) => e)).message, /Entity not found: Project/);
  const cycle = (await (
    await client.createCycle({ teamId: eng.id, startsAt: new Date('2026-03-02T00:00:00Z'), endsAt: new Date('2026-03-16T00:00:00Z') })
  ).cycle)!;
  const renamed = (await (await client.updateCycle(cycle.id, { name: 'Sprint 9', endsAt: new Date('2026-03-20T00:00:00Z') })).cycle)!;
  t.equal(renamed.name, 'Sprint 9');
  t.equal(new Date(renamed.endsAt).toISOString(), '2026-03-20T00:00:00.000Z');
  const backwards = await client.updateCycle(cycle.id, { endsAt: new Date('2026-03-01T00:00:00Z') }).catch((e) => e);
  t.equal(backwards.type, LinearErrorType.InvalidInput);
});

t.test("fields whose names hold acronyms take the SDK's arguments", async (t) => {
  const schema = linearSchema();
  const roots = [schema.getQueryType()!, schema.getMutationType()!].flatMap((r) => Object.values(r.getFields()));
  const acronyms = roots.filter((f) => /[A-Z]{2}/.test(f.name));
  t.ok(acronyms.length >= 6, 'attachmentsForURL, attachmentLinkURL, issueImportCheckCSV, …');
  for (const f of acronyms) t.ok(f.args.length > 0, `${f.name} takes arguments`);
  const paged = await post('{ attachmentsForURL(url: "https://x.example/a", first: 2, after: null) { nodes { id } pageInfo { hasNextPage } } }');
  t.equal(paged.status, 200);
  t.same(paged.body.data, { attachmentsForURL: { nodes: [], pageInfo: { hasNextPage: false } } });
});

t.test('an unknown id given to any modelled root query is a GraphQL error with extensions, never a 500', async (t) => {
  const query = linearSchema().getQueryType()!;
  const byId = Object.values(query.getFields()).filter(
    (f) => linearGraphQL.answers('Query', f.name) && f.args.some((a) => a.name === 'id' && String(a.type) === 'String!'),
  );
  t.ok(byId.length >= 8, `${byId.map((f) => f.name).join(', ')}`);
  for (const f of byId) {
    const required = f.args.filter((a) => String(a.type).endsWith('!') && a.name !== 'id');
    if (required.length) continue;
    const leaf = isScalarType(getNamedType(getNullableType(f.type))) ? '' : '{ __typename }';
    const { status, body } = await post(`{ ${f.name}(id: "no-such-id") ${leaf} }`);
    t.equal(status, 400, `${f.name}: 400`);
    t.equal(body.errors?.[0]?.extensions.type, 'invalid input', `${f.name}: ${body.errors?.[0]?.message}`);
    t.ok(body.errors?.[0]?.extensions.userPresentableMessage, `${f.name}: a message for the user`);
  }
});

t.test('queries past Linear’s complexity or nesting are refused in its shape', async (t) => {
  const complex = await post('{ issues(first: 250) { nodes { children(first: 250) { nodes { id title } } } } }');
  t.equal(complex.status, 400);
  t.match(complex.body.errors![0]!, {
    message: 'Query too complex',
    extensions: { type: 'invalid input', userPresentableMessage: /Maximum allowed complexity: 10000/ },
  });
  const deep = await post(`{ ${'issues { nodes { parent { '.repeat(40)}id${' } } }'.repeat(40)} }`);
  t.equal(deep.status, 400);
  t.equal(deep.body.errors![0]!.extensions.type, 'invalid input');
  const sdk = await client.client.rawRequest('{ issues(first: 250) { nodes { children(first: 250) { nodes { id } } } } }').catch((e) => e);
  t.equal(sdk.type, LinearErrorType.InvalidInput, 'the SDK raises it as invalid input');
});
