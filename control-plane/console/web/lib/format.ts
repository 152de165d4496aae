// How the console writes times, money, sizes and bodies, and the little arithmetic it does on them.
// Pure (no DOM), so it is tested without a browser.

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
}

export function time(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(11, 23);
}

/** "in 59 min", "3 h ago". */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const ms = new Date(iso).getTime() - now;
  const abs = Math.abs(ms);
  const unit =
    abs < 60_000
      ? [Math.round(abs / 1000), 's']
      : abs < 3_600_000
        ? [Math.round(abs / 60_000), 'min']
        : abs < 172_800_000
          ? [Math.round(abs / 3_600_000), 'h']
          : [Math.round(abs / 86_400_000), 'days'];
  return ms >= 0 ? `in ${unit[0]} ${unit[1]}` : `${unit[0]} ${unit[1]} ago`;
}

export function cents(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return `$${(n / 100).toFixed(2)}`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function seconds(n: number | null): string {
  if (n === null) return 'no limit';
  if (n % 86400 === 0) return `${n / 86400} days`;
  if (n % 3600 === 0) return `${n / 3600} h`;
  if (n % 60 === 0) return `${n / 60} min`;
  return `${n} s`;
}

export interface PrettyBody {
  kind: 'json' | 'form' | 'text' | 'empty';
  text: string;
  /** Decoded pairs of a form body. */
  pairs?: [string, string][];
}

/** A logged body for reading: JSON indented, forms decoded into pairs, anything else as sent. */
export function prettyBody(body: string | null, contentType: string | null): PrettyBody {
  if (body === null || body === '') return { kind: 'empty', text: '' };
  const type = (contentType ?? '').toLowerCase();
  const looksJson = type.includes('json') || /^\s*[[{]/.test(body);
  if (looksJson) {
    try {
      return { kind: 'json', text: JSON.stringify(JSON.parse(body), null, 2) };
    } catch {
      // not JSON after all (or cut at the cap): shown as sent
    }
  }
  if (type.includes('application/x-www-form-urlencoded')) {
    const pairs: [string, string][] = [];
    for (const [k, v] of new URLSearchParams(body)) pairs.push([k, v]);
    return { kind: 'form', text: body, pairs };
  }
  return { kind: 'text', text: body };
}

/** Where a JSON.parse error points, as "line L, column C", when the engine says. */
export function jsonErrorPlace(source: string, message: string): string | undefined {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) return `line ${lc[1]}, column ${lc[2]}`;
  const pos = /position (\d+)/.exec(message);
  if (!pos) return undefined;
  const upTo = source.slice(0, Number(pos[1]));
  const line = upTo.split('\n').length;
  const column = upTo.length - upTo.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

export function statusClass(code: number | null): 'ok' | 'warn' | 'bad' {
  if (code === null) return 'warn';
  if (code < 400) return 'ok';
  if (code < 500) return 'warn';
  return 'bad';
}

/** `404`, `4xx`, `2xx`, or a prefix like `40`. */
export function statusMatches(code: number | null, filter: string): boolean {
  const f = filter.trim().toLowerCase();
  if (!f) return true;
  if (code === null) return 'unanswered'.startsWith(f);
  if (/^[1-5]xx$/.test(f)) return Math.floor(code / 100) === Number(f[0]);
  return String(code).startsWith(f);
}

export function addDays(iso: string, days: number): Date {
  const d = new Date(iso);
  d.setUTCDate(d.getUTCDate() + days);
  return d;
}

/** One calendar month later (UTC), clamped to the month's last day (Jan 31 → Feb 28/29). */
export function addMonth(iso: string): Date {
  const d = new Date(iso);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + 1);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}
