// Each organization's API requests are admitted at most TWINS_API_RATE a second (issue 20: one
// tenant's closed-loop log listers took a core from every other tenant's gateway). The excess
// waits in arrival order instead of failing; another organization is admitted at once meanwhile;
// only a backlog beyond the limit is refused, 429 with Retry-After.

import t from 'tap';
import { OrganizationShare } from '../../control-plane/http/organization-share.js';
import { startTestControlPlane } from '../helpers/control-plane.js';

t.test('the bucket: burst at once, then the rate, in arrival order, and a bounded backlog', async (t) => {
  const share = new OrganizationShare({ rate: 50, burst: 3, maxWaiting: 4 });
  const first = [1, 2, 3].map(() => share.admit('b'));
  t.ok(
    first.every((a) => a.admitted && a.wait === undefined),
    'the burst is admitted without waiting',
  );
  const started = performance.now();
  const order: number[] = [];
  const waits: Promise<void>[] = [];
  for (let i = 0; i < 4; i++) {
    const a = share.admit('b');
    t.ok(a.admitted && a.wait, `request ${i + 4} waits`);
    if (a.admitted && a.wait) waits.push(a.wait.then(() => void order.push(i)));
  }
  const refused = share.admit('b');
  t.same(refused, { admitted: false, retryAfterSeconds: 1 }, 'beyond the backlog: refused with a retry time');
  t.equal(share.waiting, 4);
  const other = share.admit('a');
  t.ok(other.admitted && other.wait === undefined, 'another organization is admitted at once');
  await Promise.all(waits);
  const took = performance.now() - started;
  t.same(order, [0, 1, 2, 3], 'waiters are admitted in arrival order');
  t.ok(took >= 4 * (1000 / 50) - 5, `four waiters at 50/s took ${took.toFixed(0)} ms (≥ 75)`);
  t.equal(share.waiting, 0);
});

t.test('cost-based: an organization whose requests cost more than its share of the API thread waits, another does not', async (t) => {
  const share = new OrganizationShare({ rate: 1000, burst: 1000, maxWaiting: 100, costMsPerSecond: 200 });
  const started = performance.now();
  const admittedAt: number[] = [];
  const requests = Array.from({ length: 8 }, async () => {
    const a = share.admit('dear');
    t.ok(a.admitted);
    if (a.admitted && a.wait) await a.wait;
    admittedAt.push(performance.now() - started);
    // Each one uses 100 ms of the API thread.
    share.finish('dear', 100);
  });
  await new Promise((r) => setTimeout(r, 5));
  const cheap = share.admit('cheap');
  t.ok(cheap.admitted && cheap.wait === undefined, 'another organization is admitted at once');
  share.finish('cheap', 1);
  await Promise.all(requests);
  t.equal(admittedAt.length, 8);
  t.ok(admittedAt[0]! < 50, `the first at once (${admittedAt[0]!.toFixed(0)} ms)`);
  // 800 ms of work at 200 ms a second, less the one-second burst: the last about 3 s later.
  t.ok(admittedAt[7]! >= 2000, `the last after ${admittedAt[7]!.toFixed(0)} ms (>= 2000): paced by cost, not count`);
});

t.test('the control plane: an organization over its rate is slowed, never failed, and others are not', async (t) => {
  const cp = await startTestControlPlane({}, { TWINS_API_RATE: '5' });
  t.teardown(() => cp.stop());
  const busy = await cp.token({ email: 'b@example.com', org: 'busy' });
  const quiet = await cp.token({ email: 'a@example.com', org: 'quiet' });
  // Their first calls (which create the organizations) use up none of the measured window.
  await cp.call('GET', '/users/me', { token: busy });
  await cp.call('GET', '/users/me', { token: quiet });
  await new Promise((r) => setTimeout(r, 1100));

  const started = performance.now();
  const finished: number[] = [];
  const burst = Array.from({ length: 15 }, () =>
    cp.call('GET', '/environments', { token: busy }).then((r) => {
      finished.push(performance.now() - started);
      return r.status;
    }),
  );
  await new Promise((r) => setTimeout(r, 50));
  const q0 = performance.now();
  const quietCall = await cp.call('GET', '/environments', { token: quiet });
  const quietMs = performance.now() - q0;
  const statuses = await Promise.all(burst);
  t.ok(statuses.length === 15 && statuses.every((s) => s === 200), 'every request of the busy organization is answered 200');
  t.equal(quietCall.status, 200);
  t.ok(quietMs < 500, `the quiet organization is answered at once (${quietMs.toFixed(0)} ms)`);
  finished.sort((a, b) => a - b);
  // 5 at once (the burst), then 10 more at 5 a second: the last about 2 s later.
  t.ok(finished[14]! >= 1500, `the busy organization's last answer came after ${finished[14]!.toFixed(0)} ms (≥ 1500)`);
  t.ok(finished[4]! < 1000, `its first five came at once (${finished[4]!.toFixed(0)} ms)`);
});
