// Amounts as Stripe checks and writes them: the smallest and largest chargeable amounts by
// currency (on every create and capture), and `$20.00` as Stripe's messages print money.

import { invalidRequest } from '../wire/errors.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';

const SYMBOLS: Record<string, string> = { usd: '$', gbp: '£', eur: '€', cad: 'CA$', aud: 'A$', jpy: '¥' };
const ZERO_DECIMAL = new Set(['jpy', 'krw', 'vnd', 'clp', 'isk', 'ugx', 'xaf', 'xof', 'pyg', 'rwf', 'kmf', 'gnf', 'djf', 'bif', 'mga', 'vuv', 'xpf']);

// Built on the first amount shown, not at import: ICU's number formatting costs ~10 ms and pages in
// its data at a twin's start otherwise (scripts/bench/twin-start.ts).
const WHOLE = loadOnce(() => new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }));
const CENTS = loadOnce(() => new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));

/** `$20.00` (`$999,999.99`) the way Stripe writes amounts in messages. */
export function formatMoney(amount: number, currency: string): string {
  const value = ZERO_DECIMAL.has(currency) ? WHOLE().format(amount) : CENTS().format(amount / 100);
  const symbol = SYMBOLS[currency];
  return symbol ? `${symbol}${value}` : `${value} ${currency.toUpperCase()}`;
}

/** Smallest chargeable amounts Stripe enforces, by currency (minor units). */
const MINIMUM: Record<string, number> = { usd: 50, eur: 50, gbp: 30, cad: 50, aud: 50, chf: 50, jpy: 50, inr: 50, sek: 300, nok: 300, dkk: 250, mxn: 1000 };
/** The largest amount a single charge may take (Stripe's eight digits). */
const MAXIMUM = 99_999_999;

/** Refuse an amount below the currency's minimum or past Stripe's maximum, as Stripe words it. */
export function checkAmount(amount: number, currency: string, param = 'amount'): void {
  const min = MINIMUM[currency] ?? 50;
  if (amount < min) {
    throw invalidRequest(`Amount must be at least ${formatMoney(min, currency)} ${currency}`, param, 'amount_too_small');
  }
  if (amount > MAXIMUM) {
    throw invalidRequest(`Amount must be no more than ${formatMoney(MAXIMUM, currency)} ${currency}`, param, 'amount_too_large');
  }
}
