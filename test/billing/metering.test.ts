// Usage metering: how twin-hours are counted from run intervals (pure), the draft invoice filling as
// usage is reported, and a control-plane restart in the middle of metering — including answers
// lost after the processor took an event — never counting a twin-hour twice.

import t from 'tap';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchesOf, twinHourStarts, type UsageUnit } from '../../control-plane/billing/usage.js';
import { TWIN_HOUR_MS } from '../../control-plane/billing/prices.js';
import { startBillingControlPlane, upgradeWithCard, waitBillingReady, waitFor } from './helpers.js';
import { waitReady } from '../orchestration/helpers.js';

const H = TWIN_HOUR_MS;

t.test('twin-hours: per started hour, from the upgrade or the twin’s first start after it', async (t) => {
  const since = Date.parse('2026-03-01T10:00:00Z');
  // Running before the upgrade: counted from the upgrade; the hour holding `now` has started.
  t.same(twinHourStarts([{ startedAt: since - 5 * H, endedAt: null }], since, since + 2.5 * H), [since, since + H, since + 2 * H]);
  // Entirely before the upgrade: nothing.
  t.same(twinHourStarts([{ startedAt: since - 5 * H, endedAt: since - H }], since, since + 3 * H), []);
  // Started after the upgrade: its own hours.
  const s = since + 0.25 * H;
  t.same(twinHourStarts([{ startedAt: s, endedAt: s + 10 * 60_000 }], since, since + 5 * H), [s], 'ten minutes is one started hour');
  // Stopped and started again within the same hour: still one hour; a crash-restart too.
  t.same(
    twinHourStarts([{ startedAt: s, endedAt: s + 0.2 * H }, { startedAt: s + 0.5 * H, endedAt: s + 0.9 * H }], since, since + 5 * H),
    [s],
  );
  // A run ending exactly on an hour boundary does not start the next hour.
  t.same(twinHourStarts([{ startedAt: s, endedAt: s + 2 * H }], since, since + 5 * H), [s, s + H]);
  // A gap: hours 0 and 3 of the twin's own clock.
  t.same(
    twinHourStarts([{ startedAt: s, endedAt: s + 0.5 * H }, { startedAt: s + 3.2 * H, endedAt: s + 3.4 * H }], since, since + 9 * H),
    [s, s + 3 * H],
  );
  // None before a lower bound (the processor refuses old events); the hours keep their anchor.
  t.same(twinHourStarts([{ startedAt: s, endedAt: null }], since, s + 3.5 * H, s + 1.5 * H), [s + 2 * H, s + 3 * H]);
  // Nothing has started yet.
  t.same(twinHourStarts([], since, since + H), []);
});

t.test('units travel in one meter event per quantity, dated at the latest unit', async (t) => {
  const hour = Date.parse('2026-03-01T10:00:00Z');
  const unit = (twin: string, kind: UsageUnit['kind'], at: number, id: string): UsageUnit => ({ identifier: id, kind, twin, twinId: kind === 'twin_hours' ? id : null, sourceId: kind === 'twin_hours' ? null : id, at, quantity: 1 });
  const batches = batchesOf('org', [
    unit('stripe', 'twin_hours', hour + 60_000, 'a'),
    unit('stripe', 'twin_hours', hour + 1_800_000, 'b'),
    unit('github', 'twin_hours', hour + 60_000, 'c'),
    unit('stripe', 'twin_hours', hour + H + 5_000, 'd'),
    unit('stripe', 'ai_generations', hour + 120_000, 'e'),
  ]);
  const view = batches.map((b) => [b.row.kind, b.row.twin_slug, b.row.value, b.row.timestamp, b.units.map((u) => u.identifier).join('')]);
  t.same(view, [
    ['twin_hours', 'stripe', 3, (hour + H + 5_000) / 1000, 'abd'],
    ['twin_hours', 'github', 1, (hour + 60_000) / 1000, 'c'],
    ['ai_generations', 'stripe', 1, (hour + 120_000) / 1000, 'e'],
  ]);
  t.equal(new Set(batches.map((b) => b.row.identifier)).size, 3, 'each event its own identifier');
  t.same(batchesOf('org', []), []);
  const late = batchesOf('org', [unit('stripe', 'twin_hours', hour, 'a')], hour / 1000 + 7200);
  t.equal(late[0]!.row.timestamp, hour / 1000 + 7200, 'usage from before the current period is dated in it');
});

t.test('with TWINS_USAGE_INTERVAL_S=1 the draft invoice shows twin-hours of the twins that ran after the upgrade', async (t) => {
  const cp = await startBillingControlPlane({ usageIntervalSeconds: 1 });
  t.teardown(() => cp.stop());
  const admin = await cp.token({ org: 'hooli' });
  await waitBillingReady(cp, admin);
  // A twin that ran and stopped before the upgrade is never charged.
  const before = await cp.call('POST', '/environments', { token: admin, body: { name: 'before', twins: [{ twin: 'slack' }] } });
  await waitReady(cp, admin, before.body.id);
  t.equal((await cp.call('DELETE', `/environments/${before.body.id}`, { token: admin })).status, 204);

  await upgradeWithCard(cp, admin);
  // Explicit assertions are no AI generation; an outcome compiled from words is one (under its first twin).
  const explicit = { name: 'explicit', twins: ['stripe'], assertions: [{ says: 'never deleted a customer', never: { method: 'DELETE', path: '/v1/customers/{customer}' } }] };
  t.equal((await cp.call('POST', '/tests', { token: admin, body: explicit })).status, 201);
  const compiled = await cp.call('POST', '/tests', { token: admin, body: { name: 'words', twins: ['github', 'stripe'], outcome: 'The agent refunded charge ch_dup exactly once and never deleted a customer.' } });
  t.equal(compiled.status, 201);
  const env = await cp.call('POST', '/environments', { token: admin, body: { name: 'after', twins: [{ twin: 'stripe' }, { twin: 'stripe' }, { twin: 'github' }] } });
  await waitReady(cp, admin, env.body.id);
  const summary = await waitFor(
    'twin-hour lines',
    async () => {
      const res = await cp.call('GET', '/organizations/current/billing', { token: admin });
      const lines: { quantity: number }[] = res.body.invoice?.line_items ?? [];
      // All three twins' first hours and the compilation reported (a pass may see them one at a time).
      return lines.reduce((n, l) => n + l.quantity, 0) === 4 ? res.body : undefined;
    },
    20_000,
  );
  const lines = [...summary.invoice.line_items].sort((a: any, b: any) => a.name.localeCompare(b.name));
  t.same(lines, [
    { name: 'GitHub AI generations', total_cents: 20, twin: 'github', quantity: 1, unit_price_cents: 20 },
    { name: 'GitHub twin-hours', total_cents: 5, twin: 'github', quantity: 1, unit_price_cents: 5 },
    { name: 'Stripe twin-hours', total_cents: 10, twin: 'stripe', quantity: 2, unit_price_cents: 5 },
  ]);
  t.equal(summary.invoice.total_cents, 35);
  t.equal(summary.remaining_credit_cents, 0);
  t.notOk(lines.some((l: any) => l.twin === 'slack'), 'the twin that ran before the upgrade is not on it');

  // Credit on the customer's balance is applied to the draft and what is left is spendable.
  const orgId = (await cp.call('GET', '/organizations/current', { token: admin })).body.id;
  const account = cp.services.billing.store.account(orgId)!;
  const state = JSON.parse(readFileSync(cp.services.billing.house!.stateFile, 'utf8'));
  const res = await fetch(`${state.url}/v1/customers/${account.customer_id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${state.api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'balance=-100',
  });
  t.equal(res.status, 200);
  const credited = (await cp.call('GET', '/organizations/current/billing', { token: admin })).body;
  t.equal(credited.invoice.credits_applied_cents, 35);
  t.equal(credited.remaining_credit_cents, 65);
});

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
  await waitReady(cp, admin, env.body.id);

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
  t.same(firstPass.map((b) => [b.twin_slug, b.value, b.state]).sort(), [['github', 4, 'reported'], ['stripe', 4, 'reported']], 'carried by one meter event per twin kind');

  // The answer to one event was lost: written down and sent, never marked as taken.
  const lost = cp.services.db.prepare(`UPDATE meter_batches SET state = 'pending', reported_at = NULL WHERE identifier = ?`).run(firstPass[0]!.identifier).changes;
  t.equal(lost, 1);
  await cp.stop({ keepData: true });

  // Restarted; the twins run again, and another hour passes.
  cp = await startBillingControlPlane({ dataDir, usageIntervalSeconds: 3600 });
  const db = cp.services.db;
  await waitFor('the twins running again', async () => (db.prepare('SELECT COUNT(*) AS n FROM twin_runs WHERE organization_id = ? AND ended_at IS NULL').get(orgId) as { n: number }).n === 2);
  await passTo(start + 4 * H + 120_000);
  await cp.services.billing.meterOnce();

  const units = cp.services.billing.store.reports(orgId).filter((r) => r.kind === 'twin_hours');
  const batches = cp.services.billing.store.batches(orgId);
  const account = cp.services.billing.store.account(orgId)!;
  const events = (await cp.services.billing.house!.records<{ payload: Record<string, string>; event_name: string; identifier: string }>('meter_event')).filter(
    (e) => e.body.payload.stripe_customer_id === account.customer_id && e.body.event_name.startsWith('twins_twin_hours_'),
  );
  // Expected from the runs themselves: each twin ran since its first start (the restart's gap is
  // seconds), so its started hours are the whole hours since then plus the one under way.
  const runs = db.prepare('SELECT twin_id, started_at FROM twin_runs WHERE organization_id = ? ORDER BY started_at').all(orgId) as { twin_id: string; started_at: string }[];
  t.equal(runs.length, 4, 'a run before and one after the restart, for each twin');
  const now = cp.services.billing.now();
  const firsts = new Map<string, number>();
  for (const r of runs) if (!firsts.has(r.twin_id)) firsts.set(r.twin_id, Date.parse(r.started_at));
  const expected = [...firsts.values()].reduce((n, first) => n + Math.floor((now - first) / H) + 1, 0);
  t.equal(expected, 10, 'five started hours for each twin');
  t.equal(events.reduce((s, e) => s + Number(e.body.payload.value), 0), expected, 'the meter events at the processor add up to the twin-hours, each once');
  t.equal(new Set(events.map((e) => e.body.identifier)).size, events.length, 'no meter event twice');
  t.same(events.map((e) => e.body.identifier).sort(), batches.map((b) => b.identifier).sort(), 'the pending ones were sent again under their identifiers');
  t.ok(batches.every((b) => b.state === 'reported'));
  t.equal(units.length, expected, 'every twin-hour written down once');
  t.equal(new Set(units.map((u) => u.identifier)).size, units.length);
});
