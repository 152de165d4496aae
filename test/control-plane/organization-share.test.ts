// Each organization's API requests are admitted at most TWINS_API_RATE a second (issue 20: one
// tenant's closed-loop log listers took a core from every other tenant's gateway). The excess
// waits in arrival order instead of failing; another organization is admitted at once meanwhile;
// only a backlog beyond the limit is refused, 429 with Retry-After.

import t from 'tap';
import { OrganizationShare } from '../../control-plane/http/organization-share.js';
import { startTestControlPlane } from '../helpers/control-plane.js';

t.test('the bucket: burst at once, then the rate, in arrival order, and a bounded backlog', async (t) => {
  // The clock stands still while requests arrive (on a loaded machine, 20 ms between two calls
  // would refill a token), then runs on from there for the waiters.
  const stood = performance.now();
  let clock = () => stood;
  const share = new OrganizationShare({ rate: 50, burst: 3, maxWaiting: 4, now: () => clock() });
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
  const resumed = performance.now();
  clock = () => stood + (performance.now() - resumed);
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
  const waited: boolean[] = [];
  const requests = Array.from({ length: 8 }, async () => {
    const a = share.admit('dear');
    t.ok(a.admitted);
    waited.push(a.admitted && a.wait !== undefined);
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
  t.equal(waited[0], false, 'the first is admitted at once');
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
  const quietCall = await cp.call('GET', '/environments', { token: quiet });
  const quietAt = performance.now() - started;
  const statuses = await Promise.all(burst);
  t.ok(statuses.length === 15 && statuses.every((s) => s === 200), 'every request of the busy organization is answered 200');
  t.equal(quietCall.status, 200);
  finished.sort((a, b) => a - b);
  // Orders, not durations (a loaded machine slows everything): the quiet organization did not
  // queue behind the busy one's backlog, which drains at 5 a second after its burst of 5.
  t.ok(
    quietAt < finished[14]!,
    `the quiet organization is answered before the busy one's backlog is through (${quietAt.toFixed(0)} < ${finished[14]!.toFixed(0)} ms)`,
  );
  t.ok(finished[14]! >= 1500, `the busy organization's last answer came after ${finished[14]!.toFixed(0)} ms (≥ 1500: 10 beyond the burst at 5 a second)`);
});
