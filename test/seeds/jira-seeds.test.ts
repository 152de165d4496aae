// Every Jira suggestion generates with the built-in planner, loads into a twin started on the
// seed file, and jira.js reads the projects, issues, states, labels, sub-tasks and comments it
// promised (through JQL, as a user would look).

import t from 'tap';
import { Version3Client } from 'jira.js';
import { startTwin } from '../helpers/twin.js';
import { seedFixture } from './seed-fixture.js';

const { twin, seedFrom } = await seedFixture('jira', t.teardown.bind(t));

async function withJira(file: string, fn: (client: Version3Client) => Promise<void>): Promise<void> {
  const running = await startTwin('jira', { seedFile: file });
  try {
    const { email, api_key } = running.server.host.credential();
    await fn(new Version3Client({ host: running.url, authentication: { basic: { email: email!, apiToken: api_key } } }));
  } finally {
    await running.close();
  }
}

async function count(client: Version3Client, jql: string): Promise<number> {
  return (await client.issueSearch.searchForIssuesUsingJql({ jql, maxResults: 1 })).total!;
}

t.ok(twin.suggestions.length >= 5, 'at least five Jira suggestions');

t.test('team backlog: project Payments, 25 issues, 6 in progress, 8 done', async (t) => {
  await withJira(await seedFrom(twin.suggestions[0]!.prompt, 'backlog'), async (client) => {
    const projects = (await client.projects.searchProjects()).values.filter((p) => p.name === 'Payments');
    t.equal(projects.length, 1);
    const key = projects[0]!.key!;
    t.equal(await count(client, `project = ${key}`), 25);
    t.equal(await count(client, `project = ${key} AND status = "In Progress"`), 6);
    t.equal(await count(client, `project = ${key} AND status = Done`), 8);
  });
});

t.test('bug triage: 10 bugs labeled regression with 2 comments each', async (t) => {
  await withJira(await seedFrom(twin.suggestions[1]!.prompt, 'bugs'), async (client) => {
    const bugs = await client.issueSearch.searchForIssuesUsingJql({ jql: 'issuetype = Bug AND labels = regression', maxResults: 50, fields: ['comment'] });
    t.equal(bugs.total, 10);
    for (const b of bugs.issues!) t.equal((await client.issueComments.getComments({ issueIdOrKey: b.key })).total, 2);
  });
});

t.test('stories: 4 stories with 3 subtasks each', async (t) => {
  await withJira(await seedFrom(twin.suggestions[2]!.prompt, 'stories'), async (client) => {
    const stories = await client.issueSearch.searchForIssuesUsingJql({ jql: 'issuetype = Story', maxResults: 50, fields: ['subtasks'] });
    t.equal(stories.total, 4);
    for (const s of stories.issues!) t.equal(s.fields.subtasks!.length, 3);
    t.equal(await count(client, 'issuetype = Subtask'), 12);
  });
});

t.test('two projects with 8 issues each', async (t) => {
  await withJira(await seedFrom(twin.suggestions[3]!.prompt, 'projects'), async (client) => {
    const projects = (await client.projects.searchProjects()).values.filter((p) => p.key !== 'DEMO');
    t.equal(projects.length, 2);
    for (const p of projects) t.equal(await count(client, `project = ${p.key}`), 8);
  });
});

t.test('urgent and unassigned: 12 issues, 4 highest, 5 unassigned', async (t) => {
  await withJira(await seedFrom(twin.suggestions[4]!.prompt, 'urgent'), async (client) => {
    t.equal(await count(client, 'project = DEMO'), 12);
    t.equal(await count(client, 'priority = Highest'), 4);
    t.equal(await count(client, 'assignee IS EMPTY'), 5);
  });
});
