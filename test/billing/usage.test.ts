// How usage is counted, as pure functions: twin-hours from run intervals (per started hour, from
// the upgrade), and units grouped into the meter events that carry them.

import t from 'tap';
import { batchesOf, twinHourStarts, type UsageUnit } from '../../control-plane/billing/usage.js';
import { TWIN_HOUR_MS } from '../../control-plane/billing/prices.js';

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
    twinHourStarts(
      [
        { startedAt: s, endedAt: s + 0.2 * H },
        { startedAt: s + 0.5 * H, endedAt: s + 0.9 * H },
      ],
      since,
      since + 5 * H,
    ),
    [s],
  );
  // A run ending exactly on an hour boundary does not start the next hour.
  t.same(twinHourStarts([{ startedAt: s, endedAt: s + 2 * H }], since, since + 5 * H), [s, s + H]);
  // A gap: hours 0 and 3 of the twin's own clock.
  t.same(
    twinHourStarts(
      [
        { startedAt: s, endedAt: s + 0.5 * H },
        { startedAt: s + 3.2 * H, endedAt: s + 3.4 * H },
      ],
      since,
      since + 9 * H,
    ),
    [s, s + 3 * H],
  );
  // None before a lower bound (the processor refuses old events); the hours keep their anchor.
  t.same(twinHourStarts([{ startedAt: s, endedAt: null }], since, s + 3.5 * H, s + 1.5 * H), [s + 2 * H, s + 3 * H]);
  // Nothing has started yet.
  t.same(twinHourStarts([], since, since + H), []);
});

t.test('units travel in one meter event per quantity, dated at the latest unit', async (t) => {
  const hour = Date.parse('2026-03-01T10:00:00Z');
  const unit = (twin: string, kind: UsageUnit['kind'], at: number, id: string): UsageUnit => ({
    identifier: id,
    kind,
    twin,
    twinId: kind === 'twin_hours' ? id : null,
    sourceId: kind === 'twin_hours' ? null : id,
    at,
    quantity: 1,
  });
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
