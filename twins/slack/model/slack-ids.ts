// Slack-shaped identifiers: upper-case alphanumeric ids with a kind letter (`T…`, `U…`, `C…`,
// `D…`, `G…`, `B…`, `A…`, `Q…`, `Ev…`), and message timestamps `<clock seconds>.<6 digits>` that are
// unique and ordered. Both come from the twin's deterministic sources.

import type { TwinContext } from '../../../twin-runtime/contract.js';

const UPPER = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const TS_META = 'slack:last_ts';

export function slackId(ctx: TwinContext, prefix: string, length = 10): string {
  const bytes = ctx.ids.bytes(length);
  let out = prefix;
  // Slack ids start with a digit after the kind letter in current workspaces (`U061F7AUR`).
  out += String(bytes[0]! % 10);
  for (let i = 1; i < length; i++) out += UPPER[bytes[i]! % 36];
  return out;
}

/** Split a ts into whole seconds and the 6-digit suffix, for exact comparison (floats lose digits). */
function parts(ts: string): [number, number] {
  const [s, f = '0'] = ts.split('.');
  return [Number(s), Number(f.padEnd(6, '0').slice(0, 6))];
}

export function compareTs(a: string, b: string): number {
  const [as, af] = parts(a);
  const [bs, bf] = parts(b);
  return as !== bs ? as - bs : af - bf;
}

export function isTs(value: string): boolean {
  return /^\d{1,12}(\.\d{1,6})?$/.test(value);
}

/** The next message ts: the clock's second, with a counter that keeps later messages later. */
export function nextTs(ctx: TwinContext): string {
  const now = ctx.clock.nowSeconds();
  const last = ctx.store.getMeta(TS_META);
  let sec = now;
  let counter = 1;
  if (last !== undefined) {
    const [ls, lf] = parts(last);
    if (ls >= now) {
      sec = ls;
      counter = lf + 1;
      if (counter > 999_999) {
        sec = ls + 1;
        counter = 1;
      }
    }
  }
  const ts = `${sec}.${String(counter).padStart(6, '0')}`;
  ctx.store.setMeta(TS_META, ts);
  return ts;
}
