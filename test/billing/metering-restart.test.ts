// A control-plane restart in the middle of metering — including an answer lost after the processor
// took a meter event — never counts a twin-hour twice: the meter events at the processor add up to
// the twin-hours the runs give, each once.

import t from 'tap';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TWIN_HOUR_MS } from '../../control-plane/billing/prices.js';
import { startBillingControlPlane, upgradeWithCard, waitBillingReady, waitFor } from './helpers.js';
import { waitReady } from '../orchestration/helpers.js';

const H = TWIN_HOUR_MS;

t.test('a control-plane restart in the middle of metering counts no twin-hour twice', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-metering-'));
  // A long interval: the test runs each metering pass itself.
  let cp = await startBillingControlPlane({ dataDir, usageIntervalSeconds: 3600 });
  t.teardown(async () => {
    await cp.stop({ keepData: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const admin = await cp.token({ org: 'pied-piper' });
  await waitBillingReady(cp, admin);
  await upgradeWithCard(cp, admin);
  const orgId = (await cp.call('GET', '/organizations/current', { token: admin })).body.id;
  const env = await cp.call('POST', '/environments', { token: admin, body: { name: 'e', twins: [{ twin: 'stripe' }, { twin: 'github' }] } });
  await waitReady(cp, admin, env.body.id, 60_000);

  // Three hours and a minute pass (the billing clock and the processor's move on together).
  const start = Date.now();
  const passTo = async (at: number) => {
    cp.services.billing.now = () => at + (Date.now() - start);
    await cp.services.billing.house!.advance(new Date(cp.services.billing.now()));
  };
  await passTo(start + 3 * H + 60_000);
  await cp.services.billing.meterOnce();
  t.equal(cp.services.billing.store.reports(orgId).length, 8, 'four started hours for each of the two twins');
  const firstPass = cp.services.billing.store.batches(orgId);
  t.same(
    firstPass.map((b) => [b.twin_slug, b.value, b.state]).sort(),
    [
      ['github', 4, 'reported'],
      ['stripe', 4, 'reported'],
    ],
    'carried by one meter event per twin kind',
  );

  // The answer to one event was lost: written down and sent, never marked as taken.
  const lost = cp.services.db
    .prepare(`UPDATE meter_batches SET state = 'pending', reported_at = NULL WHERE identifier = ?`)
    .run(firstPass[0]!.identifier).changes;
  t.equal(lost, 1);
  const keyBefore = JSON.parse(readFileSync(cp.services.billing.house!.stateFile, 'utf8')).api_key as string;
  await cp.stop({ keepData: true });

  // Restarted; the twins run again, and another hour passes.
  cp = await startBillingControlPlane({ dataDir, usageIntervalSeconds: 3600 });
  const db = cp.services.db;
  await waitFor(
    'the twins running again',
    async () => (db.prepare('SELECT COUNT(*) AS n FROM twin_runs WHERE organization_id = ? AND ended_at IS NULL').get(orgId) as { n: number }).n === 2,
    60_000,
  );
  await passTo(start + 4 * H + 120_000);
  await cp.services.billing.meterOnce();
  t.equal(JSON.parse(readFileSync(cp.services.billing.house!.stateFile, 'utf8')).api_key, keyBefore, 'the house twin kept its key');
  const customers = await cp.services.billing.house!.records('customer');
  t.ok(
    customers.some((c) => c.external_id === cp.services.billing.store.account(orgId)!.customer_id),
    'and its customers',
  );

  const units = cp.services.billing.store.reports(orgId).filter((r) => r.kind === 'twin_hours');
  const batches = cp.services.billing.store.batches(orgId);
  const account = cp.services.billing.store.account(orgId)!;
  const events = (await cp.services.billing.house!.records<{ payload: Record<string, string>; event_name: string; identifier: string }>('meter_event')).filter(
    (e) => e.body.payload.stripe_customer_id === account.customer_id && e.body.event_name.startsWith('twins_twin_hours_'),
  );
  // Expected from the runs themselves: each twin ran since its first start (the restart's gap is
  // seconds), so its started hours are the whole hours since then plus the one under way.
  const runs = db.prepare('SELECT twin_id, started_at FROM twin_runs WHERE organization_id = ? ORDER BY started_at').all(orgId) as {
    twin_id: string;
    started_at: string;
  }[];
  t.equal(runs.length, 4, 'a run before and one after the restart, for each twin');
  const now = cp.services.billing.now();
  const firsts = new Map<string, number>();
  for (const r of runs) if (!firsts.has(r.twin_id)) firsts.set(r.twin_id, Date.parse(r.started_at));
  const expected = [...firsts.values()].reduce((n, first) => n + Math.floor((now - first) / H) + 1, 0);
  t.equal(expected, 10, 'five started hours for each twin');
  t.equal(
    events.reduce((s, e) => s + Number(e.body.payload.value), 0),
    expected,
    'the meter events at the processor add up to the twin-hours, each once',
  );
  t.equal(new Set(events.map((e) => e.body.identifier)).size, events.length, 'no meter event twice');
  t.same(events.map((e) => e.body.identifier).sort(), batches.map((b) => b.identifier).sort(), 'the pending ones were sent again under their identifiers');
  t.ok(batches.every((b) => b.state === 'reported'));
  t.equal(units.length, expected, 'every twin-hour written down once');
  t.equal(new Set(units.map((u) => u.identifier)).size, units.length);
});
