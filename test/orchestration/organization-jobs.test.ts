// Heavy work as jobs per organization (issue 33): one organization's jobs wait behind each other,
// and organizations take turns for the places overall, so a tenant with a queue of long jobs does
// not stand in front of another tenant's job.

import t from 'tap';
import { OrganizationJobs } from '../../control-plane/orchestration/organization-jobs.js';

t.test("an organization's jobs wait behind each other, never in front of another's", async (t) => {
  const jobs = new OrganizationJobs({ perOrganization: 1, overall: 2 });
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const job = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      releases.set(name, () => resolve(name));
    });
  const busy = ['a1', 'a2', 'a3'].map((n) => jobs.run('org-a', 'advance', job(n)));
  await new Promise((r) => setImmediate(r));
  const other = jobs.run('org-b', 'seed', job('b1'));
  await new Promise((r) => setImmediate(r));
  t.same(started, ['a1', 'b1'], "org B's job starts while org A's first runs; A's others wait behind it");
  t.same(jobs.counts('org-a'), { waiting: 2, running: 1 });
  releases.get('b1')!();
  t.equal(await other, 'b1');
  releases.get('a1')!();
  await busy[0];
  await new Promise((r) => setImmediate(r));
  t.same(started, ['a1', 'b1', 'a2'], 'then the next of A');
  releases.get('a2')!();
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  releases.get('a3')!();
  t.same(await Promise.all(busy), ['a1', 'a2', 'a3'], 'each resolves with its own result');
  await jobs.idle();
  t.same(jobs.counts(), { waiting: 0, running: 0 });
});

t.test('a failing job rejects with its error and the queue goes on', async (t) => {
  const jobs = new OrganizationJobs({ perOrganization: 1, overall: 1 });
  const failed = jobs.run('org', 'export', async () => {
    throw new Error('boom');
  });
  const next = jobs.run('org', 'export', async () => 'next');
  await t.rejects(failed, /boom/);
  t.equal(await next, 'next');
});
