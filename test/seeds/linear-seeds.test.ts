// Every Linear suggestion generates with the built-in planner, loads into a twin started on the
// seed file, and @linear/sdk reads the teams, issues, states, labels, sub-issues, comments,
// projects and cycles it promised.

import t from 'tap';
import { LinearClient } from '@linear/sdk';
import { startTwin } from '../helpers/twin.js';
import { seedFixture } from './seed-fixture.js';

const { twin, seedFrom } = await seedFixture('linear', t.teardown.bind(t));

async function withLinear(file: string, fn: (client: LinearClient) => Promise<void>): Promise<void> {
  const running = await startTwin('linear', { seedFile: file });
  try {
    await fn(new LinearClient({ apiKey: running.apiKey, apiUrl: `${running.url}/graphql` }));
  } finally {
    await running.close();
  }
}

t.ok(twin.suggestions.length >= 5, 'at least five Linear suggestions');

t.test('engineering backlog: team Platform, 20 issues, 5 in progress, 4 done, 3 urgent', async (t) => {
  await withLinear(await seedFrom(twin.suggestions[0]!.prompt, 'backlog'), async (client) => {
    const platform = (await client.teams({ filter: { name: { eq: 'Platform' } } })).nodes[0];
    t.ok(platform, 'team Platform exists');
    const issues = (await platform!.issues({ first: 100 })).nodes;
    t.equal(issues.length, 20);
    const byState = async (type: string) => (await platform!.issues({ first: 100, filter: { state: { name: { eq: type } } } })).nodes.length;
    t.equal(await byState('In Progress'), 5);
    t.equal(await byState('Done'), 4);
    t.equal((await platform!.issues({ first: 100, filter: { priority: { eq: 1 } } })).nodes.length, 3);
  });
});

t.test('bugs with discussion: 8 issues labeled Bug with 3 comments each', async (t) => {
  await withLinear(await seedFrom(twin.suggestions[1]!.prompt, 'bugs'), async (client) => {
    const bugs = (await client.issues({ first: 100, filter: { labels: { name: { eq: 'Bug' } } } })).nodes;
    t.equal(bugs.length, 8);
    for (const b of bugs) t.equal((await b.comments()).nodes.length, 3);
  });
});

t.test('epics: 3 issues with 4 sub-issues each', async (t) => {
  await withLinear(await seedFrom(twin.suggestions[2]!.prompt, 'epics'), async (client) => {
    const parents = (await client.issues({ first: 100, filter: { parent: { null: true } } })).nodes;
    t.equal(parents.length, 3);
    for (const p of parents) t.equal((await p.children()).nodes.length, 4);
  });
});

t.test('roadmap: 2 projects with 6 issues each', async (t) => {
  await withLinear(await seedFrom(twin.suggestions[3]!.prompt, 'roadmap'), async (client) => {
    const projects = (await client.projects()).nodes;
    t.equal(projects.length, 2);
    for (const p of projects) t.equal((await p.issues()).nodes.length, 6);
  });
});

t.test('sprint: a cycle with 10 issues, 4 done, 2 in progress', async (t) => {
  await withLinear(await seedFrom(twin.suggestions[4]!.prompt, 'sprint'), async (client) => {
    const cycles = (await client.cycles()).nodes;
    t.equal(cycles.length, 1);
    const issues = (await cycles[0]!.issues()).nodes;
    t.equal(issues.length, 10);
    const states = await Promise.all(issues.map(async (i) => (await i.state)!.name));
    t.equal(states.filter((s) => s === 'Done').length, 4);
    t.equal(states.filter((s) => s === 'In Progress').length, 2);
  });
});
