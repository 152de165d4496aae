// Billing-cycle arithmetic: month-end anchors clamp to the month's last day and come back.

import t from 'tap';
import { addCycles, formatAmount, nextBoundary } from '../../../twins/stripe/model/billing-cycle.js';

const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const iso = (s: number) => new Date(s * 1000).toISOString();
const monthly = { interval: 'month' as const, interval_count: 1 };

t.test('monthly cycles anchored on the 31st', async (t) => {
  const anchor = at('2026-01-31T09:30:00Z');
  t.equal(iso(addCycles(anchor, monthly, 1)), '2026-02-28T09:30:00.000Z');
  t.equal(iso(addCycles(anchor, monthly, 2)), '2026-03-31T09:30:00.000Z');
  t.equal(iso(addCycles(anchor, monthly, 3)), '2026-04-30T09:30:00.000Z');
  t.equal(iso(addCycles(at('2027-12-31T00:00:00Z'), monthly, 2)), '2028-02-29T00:00:00.000Z', 'leap year');
  t.equal(iso(nextBoundary(anchor, monthly, at('2026-02-28T09:30:00Z'))), '2026-03-31T09:30:00.000Z', 'strictly after');
  t.equal(iso(nextBoundary(anchor, monthly, at('2028-06-01T00:00:00Z'))), '2028-06-30T09:30:00.000Z');
});

t.test('other intervals and amounts', async (t) => {
  const anchor = at('2026-03-01T00:00:00Z');
  t.equal(iso(addCycles(anchor, { interval: 'week', interval_count: 2 }, 1)), '2026-03-15T00:00:00.000Z');
  t.equal(iso(addCycles(anchor, { interval: 'year', interval_count: 1 }, 1)), '2027-03-01T00:00:00.000Z');
  t.equal(iso(addCycles(anchor, { interval: 'month', interval_count: 3 }, 1)), '2026-06-01T00:00:00.000Z');
  t.equal(iso(nextBoundary(anchor, { interval: 'day', interval_count: 1 }, anchor + 10)), '2026-03-02T00:00:00.000Z');
  t.equal(formatAmount(2000, 'usd'), '$20.00');
  t.equal(formatAmount(500, 'jpy'), '¥500');
  t.equal(formatAmount(1234, 'chf'), 'CHF 12.34');
});
