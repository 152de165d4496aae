// The Jira twin through the recording gateway, driven by jira.js (Version3Client, basic auth with
// the credential's email and token): projects, issue types, issues with ADF descriptions,
// transitions, assignees, comments, JQL search with pagination, errors, and an admin webhook
// whose X-Hub-Signature is verified as Atlassian documents (HMAC-SHA256 of the body).

import t from 'tap';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Version3Client } from 'jira.js';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';
import { parseJql } from '../../../twins/jira/model/jql.js';

const gw = await startGatewayTwin('jira', { clockStart: new Date('2026-03-02T09:00:00Z') });
t.teardown(() => gw.close());
const credential = gw.twin.server.host.credential();
const client = new Version3Client({ host: gw.url, authentication: { basic: { email: credential.email!, apiToken: credential.api_key } } });
const basic = `Basic ${Buffer.from(`${credential.email}:${credential.api_key}`).toString('base64')}`;
const adf = (text: string) => ({ type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] });

t.test('credential carries the email; myself, projects, issue types', async (t) => {
  t.equal(credential.email, 'ada@example.com');
  const me = await client.myself.getCurrentUser();
  t.equal(me.emailAddress, 'ada@example.com');
  const projects = await client.projects.searchProjects();
  t.same(
    projects.values.map((p) => p.key),
    ['DEMO'],
  );
  const types = await client.issueTypes.getIssueAllTypes();
  t.same(types.map((x) => x.name).sort(), ['Bug', 'Epic', 'Story', 'Subtask', 'Task']);
});

t.test('issues: create with ADF, transition, assign, comment, edit, sub-task', async (t) => {
  const me = await client.myself.getCurrentUser();
  const created = await client.issues.createIssue({
    fields: {
      project: { key: 'DEMO' },
      issuetype: { name: 'Bug' },
      summary: 'Login broken on Safari',
      description: adf('Safari 17 fails') as any,
      labels: ['web'],
    } as any,
  });
  t.match(created.key, /^DEMO-\d+$/);
  const transitions = await client.issues.getTransitions({ issueIdOrKey: created.key });
  t.same(
    transitions.transitions!.map((x) => x.name),
    ['In Progress', 'Done'],
  );
  await client.issues.doTransition({ issueIdOrKey: created.key, transition: { id: '21' } });
  await client.issues.assignIssue({ issueIdOrKey: created.key, accountId: me.accountId! });
  await client.issueComments.addComment({ issueIdOrKey: created.key, comment: adf('Reproduced') as any });
  await client.issues.editIssue({
    issueIdOrKey: created.key,
    fields: { summary: 'Login broken on Safari 17' },
    update: { labels: [{ add: 'regression' }] } as any,
  });
  const issue = await client.issues.getIssue({ issueIdOrKey: created.key });
  t.equal(issue.fields.status.name, 'In Progress');
  t.equal(issue.fields.status.statusCategory!.key, 'indeterminate');
  t.equal(issue.fields.assignee!.accountId, me.accountId);
  t.equal(issue.fields.summary, 'Login broken on Safari 17');
  t.same(issue.fields.labels, ['web', 'regression']);
  t.same((issue.fields.description as any).content[0].content[0].text, 'Safari 17 fails');
  const comments = await client.issueComments.getComments({ issueIdOrKey: created.key });
  t.equal(comments.total, 1);
  const sub = await client.issues.createIssue({
    fields: { project: { key: 'DEMO' }, issuetype: { name: 'Subtask' }, parent: { key: created.key }, summary: 'Check WebKit' } as any,
  });
  const parent = await client.issues.getIssue({ issueIdOrKey: created.key });
  t.same(
    parent.fields.subtasks!.map((s) => s.key),
    [sub.key],
  );
  await client.issues.doTransition({ issueIdOrKey: created.key, transition: { id: '31' } });
  t.ok((await client.issues.getIssue({ issueIdOrKey: created.key })).fields.resolutiondate, 'resolved when done');
});

t.test('JQL search: operators, currentUser(), ORDER BY, pagination', async (t) => {
  for (let i = 0; i < 6; i++) {
    await client.issues.createIssue({
      fields: {
        project: { key: 'DEMO' },
        issuetype: { name: 'Task' },
        summary: `Paged task ${i}`,
        labels: i % 2 ? ['odd'] : ['even'],
        priority: { id: i < 2 ? '1' : '3' },
      } as any,
    });
  }
  const mine = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
    jql: 'assignee = currentUser() AND statusCategory = Done',
    fields: ['summary'],
  });
  t.same(
    mine.issues!.map((i) => i.fields.summary),
    ['Login broken on Safari 17'],
  );
  const text = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
    jql: 'summary ~ "paged task" AND labels IN (odd) ORDER BY key ASC',
    fields: ['summary'],
  });
  t.same(
    text.issues!.map((i) => i.fields.summary),
    ['Paged task 1', 'Paged task 3', 'Paged task 5'],
  );
  const notEven = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
    jql: 'project = DEMO AND labels != even AND labels NOT IN (web) AND issuetype = Task',
    fields: ['summary'],
  });
  t.equal(notEven.issues!.length, 3);
  const either = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
    jql: '(priority = Highest OR summary ~ "WebKit") AND assignee IS EMPTY ORDER BY created ASC',
    fields: ['summary'],
  });
  t.same(
    either.issues!.map((i) => i.fields.summary),
    ['Check WebKit', 'Paged task 0', 'Paged task 1'],
  );
  const page1 = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
    jql: 'summary ~ paged ORDER BY key DESC',
    maxResults: 4,
    fields: ['summary'],
  });
  t.equal(page1.issues!.length, 4);
  t.equal((page1 as { isLast?: boolean }).isLast, false);
  t.ok(page1.nextPageToken, 'a token for the next page');
  const page2 = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
    jql: 'summary ~ paged ORDER BY key DESC',
    maxResults: 4,
    nextPageToken: page1.nextPageToken,
    fields: ['summary'],
  });
  t.equal(page2.issues!.length, 2);
  t.equal((page2 as { isLast?: boolean }).isLast, true);
  t.equal(page2.nextPageToken, undefined, 'no token after the last page');
  const offset = await client.issueSearch.searchForIssuesUsingJql({ jql: 'summary ~ paged', startAt: 2, maxResults: 2 });
  t.equal(offset.total, 6);
  t.equal(offset.issues!.length, 2);
});

t.test('jira.js pages through ordered JQL: every page in order, bare words as free text', async (t) => {
  for (const summary of ['Checkout crash on submit', 'Checkout totals wrong', 'Checkout slow', 'Profile page typo', 'Checkout coupon ignored']) {
    await client.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Bug' }, summary, labels: ['shop'] } as any });
  }
  const seen: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
      jql: 'labels = shop ORDER BY summary DESC',
      maxResults: 2,
      fields: ['summary'],
      ...(token ? { nextPageToken: token } : {}),
    });
    t.ok(page.issues!.length > 0 && page.issues!.length <= 2, 'each page holds at most maxResults issues');
    seen.push(...page.issues!.map((i) => i.fields.summary as string));
    token = page.nextPageToken ?? undefined;
    pages++;
  } while (token && pages < 10);
  t.equal(pages, 3, 'five issues in pages of two');
  t.same(
    seen,
    ['Profile page typo', 'Checkout totals wrong', 'Checkout slow', 'Checkout crash on submit', 'Checkout coupon ignored'],
    'ORDER BY summary DESC across pages',
  );
  const offset = await client.issueSearch.searchForIssuesUsingJql({
    jql: 'labels = shop ORDER BY summary ASC',
    startAt: 1,
    maxResults: 3,
    fields: ['summary'],
  });
  t.equal(offset.total, 5);
  t.equal(offset.startAt, 1);
  t.equal(offset.maxResults, 3);
  t.same(
    offset.issues!.map((i) => i.fields.summary),
    ['Checkout crash on submit', 'Checkout slow', 'Checkout totals wrong'],
  );
  const bare = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql: 'checkout AND labels = shop ORDER BY summary ASC', fields: ['summary'] });
  t.same(
    bare.issues!.map((i) => i.fields.summary),
    ['Checkout coupon ignored', 'Checkout crash on submit', 'Checkout slow', 'Checkout totals wrong'],
    'a bare word searches the text',
  );
  const phrase = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql: 'profile typo', fields: ['summary'] });
  t.same(
    phrase.issues!.map((i) => i.fields.summary),
    ['Profile page typo'],
  );
  t.same(parseJql('login').where, { kind: 'clause', field: 'text', op: '~', values: [{ kind: 'value', text: 'login', quoted: true }] });
});

t.test('issue-creation metadata through jira.js', async (t) => {
  const meta = await client.issues.getCreateIssueMeta({ projectKeys: ['DEMO'], issuetypeNames: ['Bug'], expand: 'projects.issuetypes.fields' });
  t.equal(meta.projects!.length, 1);
  t.equal(meta.projects![0]!.key, 'DEMO');
  t.same(
    meta.projects![0]!.issuetypes!.map((x) => x.name),
    ['Bug'],
  );
  const bugFields = meta.projects![0]!.issuetypes![0]!.fields as Record<string, { required: boolean }>;
  t.equal(bugFields.summary!.required, true);
  t.equal(bugFields.parent!.required, false);
  t.same((await client.issues.getCreateIssueMeta({ projectKeys: ['NOPE'] })).projects, [], 'an unknown project narrows the answer');
  const types = await client.issues.getCreateIssueMetaIssueTypes({ projectIdOrKey: 'DEMO', maxResults: 2 });
  t.equal(types.total, 5);
  t.equal(types.issueTypes!.length, 2);
  const subtask = (await client.issues.getCreateIssueMetaIssueTypes({ projectIdOrKey: 'DEMO' })).issueTypes!.find((x) => x.subtask);
  t.ok(subtask, 'the project offers a sub-task type');
  const fields = await client.issues.getCreateIssueMetaIssueTypeId({ projectIdOrKey: 'DEMO', issueTypeId: subtask!.id! });
  const byKey = new Map(fields.fields!.map((f) => [f.key, f]));
  t.ok(fields.fields!.length > 0);
  t.equal(byKey.get('parent')!.required, true, 'a sub-task needs its parent');
  t.equal(byKey.get('priority')!.hasDefaultValue, true);
  t.ok((byKey.get('priority')!.allowedValues ?? []).length > 0, 'priorities are offered');
  t.equal((await client.issues.getCreateIssueMetaIssueTypes({ projectIdOrKey: 'NOPE' }).catch((e) => e)).status, 404);
  t.equal((await client.issues.getCreateIssueMetaIssueTypeId({ projectIdOrKey: 'DEMO', issueTypeId: '99' }).catch((e) => e)).status, 404);
});

t.test('project keys as Jira keeps them, an unknown URL as Jira answers it, self links in the caller’s scheme', async (t) => {
  t.equal((await client.projects.getProject({ projectIdOrKey: 'DEMO' })).key, 'DEMO');
  const lower = await client.projects.getProject({ projectIdOrKey: 'demo' }).catch((e) => e);
  t.equal(lower.status, 404, 'a lowercase key names no project');
  const unknown = await fetch(`${gw.url}/rest/api/3/no/such/thing?x=1`, { headers: { authorization: basic } });
  t.equal(unknown.status, 404);
  t.same(await unknown.json(), { message: `null for uri: ${gw.url}/rest/api/3/no/such/thing?x=1`, 'status-code': 404 });
  const tls = new Version3Client({
    host: gw.httpsUrl,
    authentication: { basic: { email: credential.email!, apiToken: credential.api_key } },
    baseRequestConfig: { httpsAgent: new Agent({ ca: readFileSync(gw.caFile) }) },
  });
  const created = await tls.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'Over TLS' } as any });
  t.equal(created.self, `${gw.httpsUrl}/rest/api/3/issue/${created.id}`, 'https in, https self');
  const issue = await tls.issues.getIssue({ issueIdOrKey: created.key, fields: ['project'] });
  t.match(issue.self, /^https:\/\//);
  t.match((issue.fields.project as { self: string }).self, /^https:\/\//);
  t.match((await client.issues.getIssue({ issueIdOrKey: created.key })).self, /^http:\/\//, 'http in, http self');
});

t.test('history, watchers, edit metadata and the site catalogue through jira.js', async (t) => {
  const me = await client.myself.getCurrentUser();
  const grace = (await client.userSearch.findUsers({ query: 'grace' }))[0]!;
  const created = await client.issues.createIssue({
    fields: { project: { key: 'DEMO' }, issuetype: { name: 'Story' }, summary: 'Track history', labels: ['history'] } as any,
  });
  await client.issues.editIssue({ issueIdOrKey: created.key, fields: { summary: 'Track the history' } });
  await client.issues.doTransition({ issueIdOrKey: created.key, transition: { id: '21' } });
  const log = await client.issues.getChangeLogs({ issueIdOrKey: created.key });
  t.equal(log.total, 2);
  t.same(
    log.values!.map((c) => c.items!.map((i) => `${i.field}:${i.fromString}->${i.toString}`)),
    [['summary:Track history->Track the history'], ['status:To Do->In Progress']],
    'oldest first, each with what changed',
  );
  t.equal(log.values![0]!.author!.accountId, me.accountId);
  const byId = await client.issues.getChangeLogsByIds({ issueIdOrKey: created.key, changelogIds: [Number(log.values![1]!.id)] });
  t.same(
    byId.histories!.map((h) => h.id),
    [log.values![1]!.id],
  );
  const expanded = await client.issues.getIssue({ issueIdOrKey: created.key, expand: 'changelog', fields: ['summary'] });
  t.equal((expanded.changelog as { total: number }).total, 2);

  const watching = await client.issueWatchers.getIssueWatchers({ issueIdOrKey: created.key });
  t.same(
    watching.watchers!.map((u) => u.accountId),
    [me.accountId],
    'the creator watches',
  );
  await client.issueWatchers.addWatcher({ issueIdOrKey: created.key, accountId: grace.accountId! });
  t.equal((await client.issueWatchers.getIssueWatchers({ issueIdOrKey: created.key })).watchCount, 2);
  await client.issueWatchers.removeWatcher({ issueIdOrKey: created.key, accountId: me.accountId! });
  const after = await client.issueWatchers.getIssueWatchers({ issueIdOrKey: created.key });
  t.equal(after.isWatching, false);
  t.same(
    after.watchers!.map((u) => u.accountId),
    [grace.accountId],
  );
  t.same((await client.issues.getIssue({ issueIdOrKey: created.key, fields: ['watches'] })).fields.watches, {
    self: `${gw.url}/rest/api/3/issue/${created.key}/watchers`,
    watchCount: 1,
    isWatching: false,
  });
  t.equal((await client.issueWatchers.addWatcher({ issueIdOrKey: created.key, accountId: 'nobody' }).catch((e) => e)).status, 404);

  const edit = await client.issues.getEditIssueMeta({ issueIdOrKey: created.key });
  t.same(Object.keys(edit.fields!).sort(), ['assignee', 'description', 'duedate', 'labels', 'parent', 'priority', 'summary']);

  const fields = await client.issueFields.getFields();
  const fieldById = new Map(fields.map((f) => [f.id, f]));
  const shown = Object.keys((await client.issues.getIssue({ issueIdOrKey: created.key })).fields);
  t.same(
    shown.filter((k) => !fieldById.has(k)),
    [],
    'every field an issue shows is listed',
  );
  t.same(fieldById.get('fixVersions')!.clauseNames, ['fixVersion']);
  t.equal(fieldById.get('summary')!.custom, false);
  t.equal((await client.issueTypes.getIssueType({ id: '10003' })).name, 'Bug');
  t.equal((await client.issueTypes.getIssueType({ id: '999' }).catch((e) => e)).status, 404);
  t.equal((await client.issuePriorities.getPriority({ id: '2' })).name, 'High');
  const priorities = await client.issuePriorities.searchPriorities({ maxResults: 2 });
  t.equal(priorities.total, 5);
  t.equal(priorities.values!.length, 2);
  t.equal((await client.workflowStatuses.getStatus({ idOrName: 'in progress' })).id, '3');
  t.same(
    (await client.workflowStatusCategories.getStatusCategories()).map((c) => c.key),
    ['undefined', 'new', 'indeterminate', 'done'],
  );
  t.equal((await client.workflowStatusCategories.getStatusCategory({ idOrKey: 'done' })).name, 'Done');
  const statuses = await client.projects.getAllStatuses({ projectIdOrKey: 'DEMO' });
  t.ok(statuses.length > 0 && statuses.every((x) => x.statuses!.length === 3), 'every issue type with the workflow');
  t.equal((await client.users.getAllUsersDefault({})).length, 3);
  t.ok((await client.labels.getAllLabels()).values!.includes('history'));
  const matches = await client.issueSearch.matchIssues({ jqls: ['labels = history', 'labels = nope', 'project = '], issueIds: [Number(created.id)] });
  t.same(
    matches.matches!.map((m) => m.matchedIssues),
    [[Number(created.id)], [], []],
  );
  t.ok(matches.matches![2]!.errors!.length > 0, 'a query Jira cannot read reports its error');

  const renamed = await client.projects.updateProject({ projectIdOrKey: 'DEMO', name: 'Demo project (renamed)', leadAccountId: grace.accountId });
  t.equal(renamed.name, 'Demo project (renamed)');
  t.equal((await client.projects.getProject({ projectIdOrKey: 'DEMO' })).lead!.accountId, grace.accountId);
  const rekey = await client.projects.updateProject({ projectIdOrKey: 'DEMO', key: 'DEMO2', leadAccountId: me.accountId! }).catch((e) => e);
  t.equal(rekey.status, 501, 'a new key is refused as not simulated');
  await client.projects.updateProject({ projectIdOrKey: 'DEMO', name: 'Demo project', leadAccountId: me.accountId });
});

t.test('the newer search endpoints and bulk fetch jira.js calls; archiving refused, not mistaken for an issue', async (t) => {
  const count = await client.issueSearch.countIssues({ jql: 'labels = shop' });
  t.equal(count.count, 5);
  const first = await client.issueSearch.searchForIssuesIds({ jql: 'labels = shop ORDER BY key ASC', maxResults: 3 });
  t.equal(first.issueIds!.length, 3);
  t.ok(first.nextPageToken, 'more to come');
  const rest = await client.issueSearch.searchForIssuesIds({ jql: 'labels = shop ORDER BY key ASC', maxResults: 3, nextPageToken: first.nextPageToken! });
  t.equal(rest.issueIds!.length, 2);
  t.notOk(rest.nextPageToken);
  const ids = [...first.issueIds!, ...rest.issueIds!];
  t.same(
    [...ids].sort((a, b) => a - b),
    ids,
    'ordered by key, ascending',
  );
  const fetched = await client.issues.bulkFetchIssues({ issueIdsOrKeys: [String(ids[0]), 'DEMO-9999'], fields: ['summary'] });
  t.same(
    fetched.issues!.map((i) => Number(i.id)),
    [ids[0]],
    'an unknown key is left out',
  );
  const archive = await fetch(`${gw.url}/rest/api/3/issue/archive`, {
    method: 'PUT',
    headers: { authorization: basic, 'content-type': 'application/json' },
    body: JSON.stringify({ issueIdsOrKeys: ['DEMO-1'] }),
  });
  t.equal(archive.status, 501);
  t.match(await archive.json(), { errorMessages: [/does not simulate PUT \/rest\/api\/3\/issue\/archive/] });
});

t.test('issue links through jira.js: each issue shows the other from its own side', async (t) => {
  const types = await client.issueLinkTypes.getIssueLinkTypes();
  t.same(
    types.issueLinkTypes!.map((x) => x.name),
    ['Blocks', 'Cloners', 'Duplicate', 'Relates'],
  );
  t.equal((await client.issueLinkTypes.getIssueLinkType({ issueLinkTypeId: '10000' })).outward, 'blocks');
  const a = await client.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'Migrate the database' } as any });
  const b = await client.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'Ship the release' } as any });
  await client.issueLinks.linkIssues({
    type: { name: 'Blocks' },
    inwardIssue: { key: a.key },
    outwardIssue: { key: b.key },
    comment: { body: adf('Release waits for the migration') as any },
  });
  const aLinks = (await client.issues.getIssue({ issueIdOrKey: a.key, fields: ['issuelinks'] })).fields.issuelinks!;
  t.equal(aLinks.length, 1);
  t.equal(aLinks[0]!.outwardIssue!.key, b.key, `${a.key} blocks ${b.key}`);
  const bLinks = (await client.issues.getIssue({ issueIdOrKey: b.key, fields: ['issuelinks'] })).fields.issuelinks!;
  t.equal(bLinks[0]!.inwardIssue!.key, a.key, `${b.key} is blocked by ${a.key}`);
  const link = await client.issueLinks.getIssueLink({ linkId: aLinks[0]!.id! });
  t.equal(link.type!.name, 'Blocks');
  t.equal((await client.issueComments.getComments({ issueIdOrKey: b.key })).total, 1, 'the comment went to the outward issue');
  const unknown = await client.issueLinks
    .linkIssues({ type: { name: 'Blocks' }, inwardIssue: { key: a.key }, outwardIssue: { key: 'DEMO-9999' } })
    .catch((e) => e);
  t.equal(unknown.status, 404);
  await client.issueLinks.deleteIssueLink({ linkId: link.id! });
  t.same((await client.issues.getIssue({ issueIdOrKey: b.key, fields: ['issuelinks'] })).fields.issuelinks, []);
  t.equal((await client.issueLinks.getIssueLink({ linkId: link.id! }).catch((e) => e)).status, 404);
});

t.test('votes and user lookups through jira.js', async (t) => {
  const issue = await client.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Bug' }, summary: 'Vote on me' } as any });
  t.equal((await client.issueVotes.getVotes({ issueIdOrKey: issue.key })).votes, 0);
  await client.issueVotes.addVote({ issueIdOrKey: issue.key });
  const voted = await client.issueVotes.getVotes({ issueIdOrKey: issue.key });
  t.equal(voted.votes, 1);
  t.equal(voted.hasVoted, true);
  t.same((await client.issues.getIssue({ issueIdOrKey: issue.key, fields: ['votes'] })).fields.votes, {
    self: `${gw.url}/rest/api/3/issue/${issue.key}/votes`,
    votes: 1,
    hasVoted: true,
  });
  await client.issueVotes.removeVote({ issueIdOrKey: issue.key });
  t.equal((await client.issueVotes.getVotes({ issueIdOrKey: issue.key })).hasVoted, false);

  const everyone = await client.users.getAllUsersDefault({});
  const ids = everyone.map((u) => u.accountId!);
  // jira.js 5 joins an array of ids into one encoded value, so several ids go as repeated parameters here.
  t.same(
    (await client.users.bulkGetUsers({ accountId: [ids[0]!] })).values!.map((u) => u.accountId),
    [ids[0]],
  );
  const bulk = await fetch(`${gw.url}/rest/api/3/user/bulk?accountId=${ids[0]}&accountId=${ids[1]}&accountId=nobody`, { headers: { authorization: basic } });
  t.same(
    ((await bulk.json()) as { values: { accountId: string }[] }).values.map((u) => u.accountId).sort(),
    [ids[0], ids[1]].sort(),
    'unknown ids are left out',
  );
  const assignable = await client.userSearch.findBulkAssignableUsers({ projectKeys: 'DEMO', query: 'grace' });
  t.same(
    assignable.map((u) => u.displayName),
    ['Grace Hopper'],
  );
  t.equal((await client.userSearch.findBulkAssignableUsers({ projectKeys: 'NOPE' }).catch((e) => e)).status, 404);
  t.equal((await client.userSearch.findUsersWithBrowsePermission({ issueKey: issue.key })).length, 3);
  t.equal((await client.userSearch.findUsersWithAllPermissions({ permissions: 'BROWSE_PROJECTS', query: 'alan' })).length, 1);
});

t.test('worklogs through jira.js: logged, summed on the issue, edited, listed, deleted', async (t) => {
  const issue = await client.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'Log time here' } as any });
  const first = await client.issueWorklogs.addWorklog({ issueIdOrKey: issue.key, timeSpent: '1d 2h', comment: adf('Investigation') as any });
  t.equal(first.timeSpentSeconds, 10 * 3600, 'a day is 8 hours');
  t.equal(first.timeSpent, '1d 2h');
  const second = await client.issueWorklogs.addWorklog({ issueIdOrKey: issue.key, timeSpentSeconds: 1800, started: '2026-03-02T10:00:00.000+0000' });
  t.equal(second.started, '2026-03-02T10:00:00.000+0000');
  t.equal((await client.issues.getIssue({ issueIdOrKey: issue.key, fields: ['timespent'] })).fields.timespent, 10 * 3600 + 1800);
  const updated = await client.issueWorklogs.updateWorklog({ issueIdOrKey: issue.key, id: second.id!, timeSpent: '45m' });
  t.equal(updated.timeSpentSeconds, 2700);
  const listed = await client.issueWorklogs.getIssueWorklog({ issueIdOrKey: issue.key });
  t.equal(listed.total, 2);
  t.same(
    listed.worklogs!.map((w) => w.id),
    [first.id, second.id],
  );
  t.same(
    (await client.issueWorklogs.getWorklogsForIds({ ids: [Number(second.id)] })).map((w) => w.timeSpent),
    ['45m'],
  );
  const bad = await client.issueWorklogs.addWorklog({ issueIdOrKey: issue.key, timeSpent: 'a while' }).catch((e) => e);
  t.equal(bad.status, 400);
  await client.issueWorklogs.deleteWorklog({ issueIdOrKey: issue.key, id: first.id! });
  t.equal((await client.issueWorklogs.getIssueWorklog({ issueIdOrKey: issue.key })).total, 1);
  t.equal((await client.issueWorklogs.getWorklog({ issueIdOrKey: issue.key, id: first.id! }).catch((e) => e)).status, 404);
});

t.test('components and versions through jira.js: on issues, in JQL, counted, deleted with their issues moved', async (t) => {
  const web = await client.projectComponents.createComponent({ project: 'DEMO', name: 'Web', description: 'The storefront' });
  const api = await client.projectComponents.createComponent({ project: 'DEMO', name: 'API' });
  t.equal(web.project, 'DEMO');
  const dup = await client.projectComponents.createComponent({ project: 'DEMO', name: 'web' }).catch((e) => e);
  t.equal(dup.status, 400, 'one name per project');
  const v1 = await client.projectVersions.createVersion({ projectId: 10000, name: '1.0', releaseDate: '2026-04-01' });
  const v2 = await client.projectVersions.createVersion({ projectId: 10000, name: '1.1' });
  const issue = await client.issues.createIssue({
    fields: {
      project: { key: 'DEMO' },
      issuetype: { name: 'Bug' },
      summary: 'Cart total off',
      components: [{ name: 'Web' }],
      fixVersions: [{ id: v1.id }],
    } as any,
  });
  const got = await client.issues.getIssue({ issueIdOrKey: issue.key, fields: ['components', 'fixVersions'] });
  t.same(
    got.fields.components!.map((c) => c.name),
    ['Web'],
  );
  t.same(
    got.fields.fixVersions!.map((v) => v.name),
    ['1.0'],
  );
  const found = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql: 'component = Web AND fixVersion = "1.0"', fields: ['summary'] });
  t.same(
    found.issues!.map((i) => i.key),
    [issue.key],
  );
  t.equal((await client.projectComponents.getComponentRelatedIssues({ id: web.id! })).issueCount, 1);
  t.same((await client.projectComponents.getProjectComponents({ projectIdOrKey: 'DEMO' })).map((c) => c.name).sort(), ['API', 'Web']);
  const pagedComponents = await client.projectComponents.getProjectComponentsPaginated({ projectIdOrKey: 'DEMO', query: 'store' });
  t.same(
    pagedComponents.values!.map((c) => c.name),
    ['Web'],
  );
  const released = await client.projectVersions.updateVersion({ id: v1.id!, released: true });
  t.equal(released.released, true);
  t.same(
    (await client.projectVersions.getProjectVersionsPaginated({ projectIdOrKey: 'DEMO', status: 'unreleased' })).values!.map((v) => v.name),
    ['1.1'],
  );
  t.same(await client.projectVersions.getVersionUnresolvedIssues({ id: v1.id! }), {
    self: `${gw.url}/rest/api/3/version/${v1.id}/unresolvedIssueCount`,
    issuesCount: 1,
    issuesUnresolvedCount: 1,
  });
  await client.issues.editIssue({ issueIdOrKey: issue.key, fields: { components: [{ id: web.id }, { id: api.id }] } as any });
  await client.projectComponents.deleteComponent({ id: web.id!, moveIssuesTo: api.id });
  t.same(
    (await client.issues.getIssue({ issueIdOrKey: issue.key, fields: ['components'] })).fields.components!.map((c) => c.name),
    ['API'],
    'the deleted component left the issue',
  );
  await client.projectVersions.deleteAndReplaceVersion({ id: v1.id!, moveFixIssuesTo: Number(v2.id) });
  t.same(
    (await client.issues.getIssue({ issueIdOrKey: issue.key, fields: ['fixVersions'] })).fields.fixVersions!.map((v) => v.name),
    ['1.1'],
    'fixed issues moved to the replacement',
  );
  t.equal((await client.projectVersions.getVersion({ id: v1.id! }).catch((e) => e)).status, 404);
  const wrong = await client.issues
    .createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Bug' }, summary: 'x', components: [{ name: 'Nope' }] } as any })
    .catch((e) => e);
  t.equal(wrong.status, 400);
});

t.test('saved filters through jira.js: created with checked JQL, found, favourited, handed over, deleted', async (t) => {
  const me = await client.myself.getCurrentUser();
  const grace = (await client.userSearch.findUsers({ query: 'grace' }))[0]!;
  const filter = await client.filters.createFilter({ name: 'Shop bugs', jql: 'labels = shop ORDER BY created DESC', favourite: true });
  t.equal(filter.owner!.accountId, me.accountId);
  t.equal(filter.favourite, true);
  const run = await fetch(filter.searchUrl!, { headers: { authorization: basic } });
  t.equal(((await run.json()) as { total: number }).total, 5, 'its searchUrl runs the query');
  const bad = await client.filters.createFilter({ name: 'Broken', jql: 'nosuchfield = 1' }).catch((e) => e);
  t.equal(bad.status, 400, 'a query the search refuses is refused');
  const same = await client.filters.createFilter({ name: 'shop bugs', jql: 'labels = shop' }).catch((e) => e);
  t.equal(same.status, 400, 'one name per owner');
  await client.filters.updateFilter({ id: Number(filter.id), name: 'Shop bugs (open)', jql: 'labels = shop AND statusCategory != Done' });
  t.equal((await client.filters.getFilter({ id: Number(filter.id) })).jql, 'labels = shop AND statusCategory != Done');
  const found = await client.filters.getFiltersPaginated({ filterName: 'open' });
  t.same(
    found.values!.map((f) => f.id),
    [filter.id],
  );
  t.same(
    (await client.filters.getFavouriteFilters()).map((f) => f.id),
    [filter.id],
  );
  await client.filters.deleteFavouriteForFilter({ id: Number(filter.id) });
  t.same(await client.filters.getFavouriteFilters(), []);
  t.same(
    (await client.filters.getMyFilters()).map((f) => f.id),
    [filter.id],
  );
  await client.filters.changeFilterOwner({ id: Number(filter.id), accountId: grace.accountId! });
  t.same(await client.filters.getMyFilters(), [], 'handed to Grace');
  t.equal((await client.filters.deleteFilter({ id: Number(filter.id) }).catch((e) => e)).status, 400, 'only its owner deletes it');
  const mine = await client.filters.createFilter({ name: 'Temporary', jql: 'project = DEMO' });
  await client.filters.deleteFilter({ id: Number(mine.id) });
  t.equal((await client.filters.getFilter({ id: Number(mine.id) }).catch((e) => e)).status, 400);
});

t.test('remote links through jira.js: created, updated by globalId, listed, deleted', async (t) => {
  const issue = await client.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'Has a PR' } as any });
  const pr = { url: 'https://github.com/acme/shop/pull/7', title: 'PR #7' };
  const made = await client.issueRemoteLinks.createOrUpdateRemoteIssueLink({ issueIdOrKey: issue.key, globalId: 'github-pr-7', object: pr });
  t.ok(made.id);
  const again = await client.issueRemoteLinks.createOrUpdateRemoteIssueLink({
    issueIdOrKey: issue.key,
    globalId: 'github-pr-7',
    object: { ...pr, title: 'PR #7 (merged)' },
  });
  t.equal(again.id, made.id, 'the same globalId updates the link');
  const listed = await client.issueRemoteLinks.getRemoteIssueLinks({ issueIdOrKey: issue.key });
  t.same(
    (listed as unknown as { object: { title: string } }[]).map((l) => l.object.title),
    ['PR #7 (merged)'],
  );
  await client.issueRemoteLinks.createOrUpdateRemoteIssueLink({ issueIdOrKey: issue.key, object: { url: 'https://docs.example/spec', title: 'Spec' } });
  t.equal(((await client.issueRemoteLinks.getRemoteIssueLinks({ issueIdOrKey: issue.key })) as unknown as unknown[]).length, 2);
  const bad = await client.issueRemoteLinks.createOrUpdateRemoteIssueLink({ issueIdOrKey: issue.key, object: { title: 'no url' } as never }).catch((e) => e);
  t.equal(bad.status, 400);
  await client.issueRemoteLinks.deleteRemoteIssueLinkByGlobalId({ issueIdOrKey: issue.key, globalId: 'github-pr-7' });
  t.equal((await client.issueRemoteLinks.getRemoteIssueLinkById({ issueIdOrKey: issue.key, linkId: String(made.id) }).catch((e) => e)).status, 404);
  t.equal(((await client.issueRemoteLinks.getRemoteIssueLinks({ issueIdOrKey: issue.key })) as unknown as unknown[]).length, 1);
});

t.test('preferences and locale: set as plain text, system defaults, autowatch off stops watching', async (t) => {
  const put = (path: string, body: string, type = 'text/plain') =>
    fetch(`${gw.url}/rest/api/3/${path}`, { method: 'PUT', headers: { authorization: basic, 'content-type': type }, body });
  t.equal(await client.myself.getPreference({ key: 'user.notifications.mimetype' }), 'html', 'a system key answers its default');
  t.equal((await client.myself.getPreference({ key: 'my.own.key' }).catch((e) => e)).status, 404);
  t.equal((await put('mypreferences?key=my.own.key', 'blue')).status, 204);
  t.equal(await client.myself.getPreference({ key: 'my.own.key' }), 'blue');
  t.equal((await client.myself.setPreference({ key: 'my.own.key' }).catch((e) => e)).status, 400, 'jira.js sends no value: refused');
  await client.myself.removePreference({ key: 'my.own.key' });
  t.equal((await client.myself.getPreference({ key: 'my.own.key' }).catch((e) => e)).status, 404);

  t.same(await client.myself.getLocale(), { locale: 'en_US' });
  t.equal((await put('mypreferences/locale', JSON.stringify({ locale: 'de_DE' }), 'application/json')).status, 204);
  t.equal((await client.myself.getCurrentUser()).locale, 'de_DE');
  await fetch(`${gw.url}/rest/api/3/mypreferences/locale`, { method: 'DELETE', headers: { authorization: basic } });
  t.same(await client.myself.getLocale(), { locale: 'en_US' });

  await put('mypreferences?key=user.autowatch.disabled', 'true');
  const quiet = await client.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'Not watched' } as any });
  t.equal((await client.issueWatchers.getIssueWatchers({ issueIdOrKey: quiet.key })).watchCount, 0, 'autowatch off: the creator does not watch');
  await client.myself.removePreference({ key: 'user.autowatch.disabled' });
});

t.test('project key and name validation through jira.js', async (t) => {
  t.same(await client.projectKeyAndNameValidation.validateProjectKey({ key: 'NEWKEY' }), { errorMessages: [], errors: {} });
  t.same((await client.projectKeyAndNameValidation.validateProjectKey({ key: 'DEMO' })).errors, {
    projectKey: 'A project with that project key already exists.',
  });
  t.match((await client.projectKeyAndNameValidation.validateProjectKey({ key: 'demo' })).errors, { projectKey: /uppercase letter/ });
  t.equal(await client.projectKeyAndNameValidation.getValidProjectKey({ key: 'SHOP' }), 'SHOP');
  t.equal(await client.projectKeyAndNameValidation.getValidProjectKey({ key: 'DEMO' }), 'DEMO1', 'a taken key numbered until free');
  t.equal(await client.projectKeyAndNameValidation.getValidProjectName({ name: 'Shop' }), 'Shop');
  t.equal(await client.projectKeyAndNameValidation.getValidProjectName({ name: 'Demo project' }), 'Demo project 1');
});

t.test('a project deleted into the recycle bin and restored, or deleted for good', async (t) => {
  const create = (key: string) =>
    fetch(`${gw.url}/rest/api/3/project`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({ key, name: `Project ${key}`, projectTypeKey: 'software' }),
    });
  t.equal((await create('OPS')).status, 201);
  const issue = await client.issues.createIssue({ fields: { project: { key: 'OPS' }, issuetype: { name: 'Task' }, summary: 'Ops work' } as any });
  await client.projects.deleteProject({ projectIdOrKey: 'OPS' });
  t.equal((await client.projects.getProject({ projectIdOrKey: 'OPS' }).catch((e) => e)).status, 404, 'in the bin: not found');
  t.equal((await client.issues.getIssue({ issueIdOrKey: issue.key }).catch((e) => e)).status, 404, 'its issues are out of reach');
  t.equal((await client.issueSearch.countIssues({ jql: 'summary ~ "Ops work"' })).count, 0);
  const bin = await client.projects.searchProjects({ status: ['deleted'] });
  t.same(
    bin.values.map((p) => p.key),
    ['OPS'],
  );
  t.equal((bin.values[0] as { deleted?: boolean }).deleted, true);
  t.equal((await create('OPS')).status, 400, 'its key stays taken');
  const restored = await client.projects.restore({ projectIdOrKey: 'OPS' });
  t.equal(restored.key, 'OPS');
  t.equal((await client.issues.getIssue({ issueIdOrKey: issue.key })).key, issue.key, 'restored with its issues');
  await client.projects.deleteProject({ projectIdOrKey: 'OPS', enableUndo: false });
  t.same((await client.projects.searchProjects({ status: ['deleted'] })).values, [], 'deleted for good: not in the bin');
  t.equal((await client.projects.restore({ projectIdOrKey: 'OPS' }).catch((e) => e)).status, 404);
  t.equal((await create('OPS')).status, 201, 'the key is free again');
});

t.test('errors as Jira answers them', async (t) => {
  const missing = await client.issues.getIssue({ issueIdOrKey: 'DEMO-999' }).catch((e) => e);
  t.equal(missing.status, 404);
  const plain = await client.issues
    .createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'x', description: { type: 'paragraph', content: [] } } as any })
    .catch((e) => e);
  t.equal(plain.status, 400, 'a description that is not an ADF document is refused');
  t.match(JSON.stringify(plain.response ?? plain.cause ?? plain.message), /Atlassian Document/);
  const badJql = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql: 'project = ' }).catch((e) => e);
  t.equal(badJql.status, 400);
  const badTransition = await client.issues.doTransition({ issueIdOrKey: 'DEMO-1', transition: { id: '99' } }).catch((e) => e);
  t.equal(badTransition.status, 400);
  const stranger = new Version3Client({ host: gw.url, authentication: { basic: { email: 'ada@example.com', apiToken: 'wrong' } } });
  t.equal((await stranger.myself.getCurrentUser().catch((e) => e)).status, 401);
  t.throws(() => parseJql('status = "open'), 'unclosed string refused');
  t.same(parseJql('a = 1 ORDER BY created').orderBy, [{ field: 'created', direction: 'DESC' }]);
});

t.test('webhook with a secret: X-Hub-Signature verified, JQL filter applied', async (t) => {
  const received: { body: Buffer; signature: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks), signature: String(req.headers['x-hub-signature']) });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jira`;
  const reg = await fetch(`${gw.url}/rest/webhooks/1.0/webhook`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'ci',
      url,
      events: ['jira:issue_created'],
      filters: { 'issue-related-events-section': 'labels = hooked' },
      secret: 'jira-secret',
    }),
  });
  t.equal(reg.status, 201);
  await client.issues.createIssue({ fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'Not hooked' } as any });
  const hooked = await client.issues.createIssue({
    fields: { project: { key: 'DEMO' }, issuetype: { name: 'Task' }, summary: 'Hooked', labels: ['hooked'] } as any,
  });
  for (let i = 0; i < 100 && received.length < 1; i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100));
  t.equal(received.length, 1, 'only the issue the JQL filter matches');
  const expected = `sha256=${createHmac('sha256', 'jira-secret').update(received[0]!.body).digest('hex')}`;
  t.ok(timingSafeEqual(Buffer.from(expected), Buffer.from(received[0]!.signature)), 'signature matches');
  const payload = JSON.parse(received[0]!.body.toString());
  t.equal(payload.webhookEvent, 'jira:issue_created');
  t.equal(payload.issue.key, hooked.key);
});
