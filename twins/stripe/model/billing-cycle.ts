// Billing-cycle arithmetic: period boundaries of a recurring price anchored on a
// `billing_cycle_anchor`. Monthly and yearly cycles keep the anchor's day of month, clamped to the
// month's last day (an anchor on the 31st bills on Feb 28/29, then on Mar 31 again), as Stripe does.

export type Interval = 'day' | 'week' | 'month' | 'year';

export interface Recurrence {
  interval: Interval;
  interval_count: number;
}

/** The instant `n` whole cycles after `anchor` (unix seconds). */
export function addCycles(anchor: number, r: Recurrence, n: number): number {
  if (r.interval === 'day') return anchor + n * r.interval_count * 86_400;
  if (r.interval === 'week') return anchor + n * r.interval_count * 7 * 86_400;
  const d = new Date(anchor * 1000);
  const months = n * r.interval_count * (r.interval === 'year' ? 12 : 1);
  const total = d.getUTCMonth() + months;
  const year = d.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return Math.floor(Date.UTC(year, month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()) / 1000);
}

/** The first boundary of the cycle anchored at `anchor` that is strictly after `t`. */
export function nextBoundary(anchor: number, r: Recurrence, t: number): number {
  if (anchor > t) return anchor;
  // Jump close with an estimate, then walk; cycles are never shorter than a day.
  const approx = r.interval === 'day' ? 86_400 : r.interval === 'week' ? 604_800 : r.interval === 'month' ? 2_629_746 : 31_556_952;
  let n = Math.max(1, Math.floor((t - anchor) / (approx * r.interval_count)) - 1);
  while (addCycles(anchor, r, n) <= t) n++;
  while (n > 1 && addCycles(anchor, r, n - 1) > t) n--;
  return addCycles(anchor, r, n);
}

/** Stripe's phrase for a cycle: "month", "3 months", "year". */
export function cyclePhrase(r: Recurrence): string {
  return r.interval_count === 1 ? r.interval : `${r.interval_count} ${r.interval}s`;
}

const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);
const SYMBOLS: Record<string, string> = { usd: '$', eur: '€', gbp: '£', jpy: '¥', cad: 'CA$', aud: 'A$' };

/** "$10.00", "€9.50", "¥500", "CHF 12.00": how invoice line descriptions show amounts. */
export function formatAmount(amount: number, currency: string): string {
  const zero = ZERO_DECIMAL.has(currency);
  const value = zero ? String(amount) : (amount / 100).toFixed(2);
  const symbol = SYMBOLS[currency];
  return symbol ? `${symbol}${value}` : `${currency.toUpperCase()} ${value}`;
}
