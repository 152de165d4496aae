// Reusable zod fields that fail the way Pydantic v2 fails (docs/decisions.md §2), so every area reports
// the same 422 entries: uuid_parsing, value_error (email), datetime parsing, int_parsing.
//
// Each failure is a zod `custom` issue carrying the Pydantic entry in `params.pydantic`;
// validation.ts turns it into `{type, loc, msg, input, ctx}`.

import { z } from 'zod';

export interface PydanticIssue {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
}

type RefineCtx = z.core.$RefinementCtx<unknown>;

function fail(ctx: RefineCtx, value: unknown, issue: PydanticIssue): void {
  ctx.addIssue({ code: 'custom', message: issue.msg, input: value, params: { pydantic: issue } });
}

const MISSING: PydanticIssue = { type: 'missing', msg: 'Field required' };

// ---------------------------------------------------------------------------------------------
// UUID — the `uuid` crate's parser as pydantic-core uses it: simple (32 hex), hyphenated,
// braced `{…}` and `urn:uuid:` forms; its diagnostics on failure.

const UUID_HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const UUID_SIMPLE = /^[0-9a-fA-F]{32}$/;

/** The canonical (lowercase, hyphenated) form of a UUID string, or undefined if it does not parse. */
export function parseUuid(input: string): string | undefined {
  let s = input;
  if (s.length === 38 && s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  else if (s.length === 45 && s.startsWith('urn:uuid:')) s = s.slice(9);
  else if (s.length === 32 && UUID_SIMPLE.test(s)) {
    const h = s.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  if (s.length === 36 && UUID_HYPHENATED.test(s)) return s.toLowerCase();
  return undefined;
}

/** Why a string is not a UUID, worded as the `uuid` crate words it. */
export function uuidFailureReason(input: string): string {
  const bytes = Buffer.from(input, 'utf8');
  let body = input;
  let offset = 0;
  let simple = true;
  if (input.startsWith('{') && input.endsWith('}') && input.length >= 2) {
    body = input.slice(1, -1);
    offset = 1;
    simple = false;
  } else if (input.startsWith('urn:uuid:')) {
    body = input.slice(9);
    offset = 9;
    simple = false;
  }
  let hyphens = 0;
  const groupBounds = [0, 0, 0, 0];
  let byteIndex = 0;
  for (const ch of body) {
    const code = ch.codePointAt(0)!;
    if (code > 0x7f || (ch !== '-' && !/[0-9a-fA-F]/.test(ch))) {
      return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${ch}\` at ${byteIndex + offset + 1}`;
    }
    if (ch === '-') {
      if (hyphens < 4) groupBounds[hyphens] = byteIndex;
      hyphens += 1;
    }
    byteIndex += Buffer.byteLength(ch, 'utf8');
  }
  if (hyphens === 0 && simple) return `invalid length: expected length 32 for simple format, found ${bytes.length}`;
  if (hyphens !== 4) return `invalid group count: expected 5, found ${hyphens + 1}`;
  const starts = [0, 9, 14, 19, 24];
  const expected = [8, 4, 4, 4, 12];
  for (let i = 0; i < 4; i++) {
    if (groupBounds[i] !== starts[i + 1]! - 1) {
      return `invalid group length in group ${i}: expected ${expected[i]}, found ${groupBounds[i]! - starts[i]!}`;
    }
  }
  return `invalid group length in group 4: expected 12, found ${bytes.length - starts[4]!}`;
}

/** A UUID string (path ids, body references). Normalised to lowercase hyphenated form. */
export function uuidString() {
  return z
    .string()
    .superRefine((value, ctx) => {
      if (parseUuid(value) !== undefined) return;
      const reason = uuidFailureReason(value);
      fail(ctx, value, { type: 'uuid_parsing', msg: `Input should be a valid UUID, ${reason}`, ctx: { error: reason } });
    })
    .overwrite((value) => parseUuid(value) ?? value)
    .meta({ format: 'uuid' });
}

// ---------------------------------------------------------------------------------------------
// Email — Pydantic's EmailStr: `Name <addr>` accepted, whitespace stripped, then the syntax rules
// of python-email-validator (check_deliverability=False) with its wording. Domain is lowercased.

const MAX_EMAIL_INPUT = 2048;
const EMAIL_MAX_LENGTH = 254;
const ATEXT_INTL_OR_DOT = /[.a-zA-Z0-9_!#$%&'*+\-/=?^`{|}~\u0080-\u{10FFFF}]/u;
const DOT_ATOM_INTL = /^[a-zA-Z0-9_!#$%&'*+\-/=?^`{|}~\u0080-\u{10FFFF}]+(?:\.[a-zA-Z0-9_!#$%&'*+\-/=?^`{|}~\u0080-\u{10FFFF}]+)*$/u;
const HOSTNAME_CHAR = /[a-zA-Z0-9\-.\u0080-\u{10FFFF}]/u;
const HOSTNAME = /^(?:(?:[a-zA-Z0-9][a-zA-Z0-9-]*)?[a-zA-Z0-9])(?:\.(?:(?:[a-zA-Z0-9][a-zA-Z0-9-]*)?[a-zA-Z0-9]))*$/;
const SPECIAL_USE_DOMAINS = ['arpa', 'invalid', 'local', 'localhost', 'onion', 'test'];
const PRETTY_EMAIL = /^\s*(?:([\w ]*?) *|"((?:[^"]|\\")+)" *)<\s*(.+)\s*>\s*$/;

export class EmailSyntaxError extends Error {}

/** Python's repr-ish display of one offending character, as email-validator shows it. */
function displayChar(c: string): string {
  if (c === '\\') return '"\\"';
  if (/[\p{L}\p{N}\p{P}\p{S}]/u.test(c)) return c === "'" ? `"'"` : `'${c}'`;
  if (c === ' ') return 'SPACE';
  if (c === '\t') return 'CHARACTER TABULATION';
  if (c === '\n') return 'LINE FEED (LF)';
  if (c === '\r') return 'CARRIAGE RETURN (CR)';
  const cp = c.codePointAt(0)!;
  return cp <= 0xffff ? `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` : `U+${cp.toString(16).toUpperCase().padStart(8, '0')}`;
}

function badChars(s: string, allowed: RegExp): string[] {
  const set = new Set<string>();
  for (const c of s) if (!allowed.test(c)) set.add(displayChar(c));
  return [...set].sort();
}

function checkDotAtom(label: string, startDescr: string, endDescr: string, hostname: boolean): void {
  if (label.endsWith('.')) throw new EmailSyntaxError(endDescr.replace('{}', 'period'));
  if (label.startsWith('.')) throw new EmailSyntaxError(startDescr.replace('{}', 'period'));
  if (label.includes('..')) throw new EmailSyntaxError('An email address cannot have two periods in a row.');
  if (hostname) {
    if (label.endsWith('-')) throw new EmailSyntaxError(endDescr.replace('{}', 'hyphen'));
    if (label.startsWith('-')) throw new EmailSyntaxError(startDescr.replace('{}', 'hyphen'));
    if (label.includes('.-') || label.includes('-.')) throw new EmailSyntaxError('An email address cannot have a period and a hyphen next to each other.');
  }
}

/**
 * Validate an email address (syntax only) and return its normalized form; throws EmailSyntaxError
 * with email-validator's sentence. Quoted local parts and bracketed IP domains are refused, as
 * email-validator's defaults do.
 */
export function normalizeEmail(raw: string): string {
  const at = raw.indexOf('@');
  if (at < 0) {
    if (raw.includes('＠')) throw new EmailSyntaxError('The email address has the "full-width" at-sign (@) character instead of a regular at-sign.');
    throw new EmailSyntaxError('An email address must have an @-sign.');
  }
  const local = raw.slice(0, at);
  const domain = raw.slice(at + 1);
  if (local.startsWith('"')) throw new EmailSyntaxError('Quoting the part before the @-sign is not allowed here.');
  if (local.length === 0) throw new EmailSyntaxError('There must be something before the @-sign.');
  if (!DOT_ATOM_INTL.test(local)) {
    const bad = badChars(local, ATEXT_INTL_OR_DOT);
    if (bad.length) throw new EmailSyntaxError(`The email address contains invalid characters before the @-sign: ${bad.join(', ')}.`);
    checkDotAtom(local, 'An email address cannot start with a {}.', 'An email address cannot have a {} immediately before the @-sign.', false);
    throw new EmailSyntaxError('The email address contains invalid characters before the @-sign.');
  }
  if (domain.length === 0) throw new EmailSyntaxError('There must be something after the @-sign.');
  if (domain.startsWith('[') && domain.endsWith(']')) throw new EmailSyntaxError('A bracketed IP address after the @-sign is not allowed here.');
  const badDomain = badChars(domain, HOSTNAME_CHAR);
  if (badDomain.length) throw new EmailSyntaxError(`The part after the @-sign contains invalid characters: ${badDomain.join(', ')}.`);
  const lowered = domain.toLowerCase();
  checkDotAtom(lowered, 'An email address cannot have a {} immediately after the @-sign.', 'An email address cannot end with a {}.', true);
  for (const label of lowered.split('.')) {
    if (/^(?!xn)..--/i.test(label)) {
      throw new EmailSyntaxError(
        'An email address cannot have two letters followed by two dashes immediately after the @-sign or after a period, except Punycode.',
      );
    }
  }
  let ascii = lowered;
  if (!HOSTNAME.test(lowered)) {
    // Internationalized domain names: the URL parser applies the IDNA (UTS-46) mapping.
    try {
      ascii = new URL(`http://${lowered}/`).hostname;
    } catch {
      throw new EmailSyntaxError('The part after the @-sign contains invalid characters.');
    }
    if (!HOSTNAME.test(ascii)) throw new EmailSyntaxError('The email address contains invalid characters after the @-sign after IDNA encoding.');
  }
  if (ascii.length > 253) {
    const diff = ascii.length - 253;
    throw new EmailSyntaxError(`The email address is too long after the @-sign (${diff} character${diff > 1 ? 's' : ''} too many).`);
  }
  for (const label of ascii.split('.')) {
    if (label.length > 63) {
      const diff = label.length - 63;
      throw new EmailSyntaxError(`After the @-sign, periods cannot be separated by so many characters (${diff} character${diff > 1 ? 's' : ''} too many).`);
    }
  }
  if (!ascii.includes('.')) throw new EmailSyntaxError('The part after the @-sign is not valid. It should have a period.');
  if (!/[A-Za-z]$/.test(ascii)) throw new EmailSyntaxError('The part after the @-sign is not valid. It is not within a valid top-level domain.');
  for (const d of SPECIAL_USE_DOMAINS) {
    if (ascii === d || ascii.endsWith(`.${d}`)) {
      throw new EmailSyntaxError('The part after the @-sign is a special-use or reserved name that cannot be used with email.');
    }
  }
  const normalized = `${local.normalize('NFC')}@${lowered.normalize('NFC')}`;
  if (normalized.length > EMAIL_MAX_LENGTH) {
    const diff = normalized.length - EMAIL_MAX_LENGTH;
    throw new EmailSyntaxError(`The email address is too long (${diff} character${diff > 1 ? 's' : ''} too many).`);
  }
  return normalized;
}

/** Pydantic EmailStr: the normalized address, or the Pydantic reason it is not one. */
export function parseEmailInput(value: string): { email: string } | { reason: string } {
  if (value.length > MAX_EMAIL_INPUT) return { reason: `Length must not exceed ${MAX_EMAIL_INPUT} characters` };
  const pretty = PRETTY_EMAIL.exec(value);
  const address = (pretty ? pretty[3]! : value).trim();
  try {
    return { email: normalizeEmail(address) };
  } catch (e) {
    if (e instanceof EmailSyntaxError) return { reason: e.message };
    throw e;
  }
}

/** An email address field (Pydantic EmailStr). The value becomes the normalized address. */
export function emailString() {
  return z
    .string()
    .superRefine((value, ctx) => {
      const r = parseEmailInput(value);
      if ('reason' in r) {
        fail(ctx, value, { type: 'value_error', msg: `value is not a valid email address: ${r.reason}`, ctx: { reason: r.reason } });
      }
    })
    .overwrite((value) => {
      const r = parseEmailInput(value);
      return 'email' in r ? r.email : value;
    })
    .meta({ format: 'email' });
}

// ---------------------------------------------------------------------------------------------
// Date-time — pydantic-core (speedate) in lax mode: RFC 3339-ish strings, numeric unix
// timestamps (seconds, or milliseconds past 2e10), and plain dates (midnight). A string that is
// none of these fails as `datetime_from_date_parsing` with the date parser's reason, exactly as
// pydantic-core falls back to date parsing.

const MS_WATERSHED = 20_000_000_000;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt _](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** speedate's date parser error for a string (the reason pydantic reports). */
function dateParseError(s: string): string | undefined {
  const b = Buffer.from(s, 'utf8');
  if (b.length < 10) return 'input is too short';
  const digit = (i: number) => b[i]! >= 0x30 && b[i]! <= 0x39;
  for (let i = 0; i < 4; i++) if (!digit(i)) return 'invalid character in year';
  if (b[4] !== 0x2d) return 'invalid date separator, expected `-`';
  if (!digit(5) || !digit(6)) return 'invalid character in month';
  if (b[7] !== 0x2d) return 'invalid date separator, expected `-`';
  if (!digit(8) || !digit(9)) return 'invalid character in day';
  const year = Number(s.slice(0, 4));
  const month = Number(s.slice(5, 7));
  const day = Number(s.slice(8, 10));
  if (month < 1 || month > 12) return 'month value is outside expected range of 1-12';
  if (day < 1 || day > daysInMonth(year, month)) return 'day value is outside expected range';
  if (b.length > 10) return 'unexpected extra characters at the end of the input';
  return undefined;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Parse a date-time input as pydantic-core does in lax mode; returns an ISO instant (UTC). */
export function parseDateTimeInput(value: unknown): { iso: string } | { issue: PydanticIssue } {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { issue: { type: 'datetime_parsing', msg: 'Input should be a finite number' } };
    return fromTimestamp(value);
  }
  if (typeof value !== 'string') return { issue: { type: 'datetime_type', msg: 'Input should be a valid datetime' } };
  const m = DATETIME_RE.exec(value);
  if (m) {
    const [, y, mo, d, h, mi, sec, frac, z, sign, tzh, tzm] = m;
    const year = Number(y),
      month = Number(mo),
      day = Number(d),
      hour = Number(h),
      minute = Number(mi),
      second = Number(sec ?? 0);
    const valid =
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= daysInMonth(year, month) &&
      hour <= 23 &&
      minute <= 59 &&
      second <= 59 &&
      (tzh === undefined || (Number(tzh) < 24 && Number(tzm) <= 59));
    if (valid) {
      const micros = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0;
      const offsetMinutes = z || !sign ? 0 : (sign === '-' ? -1 : 1) * (Number(tzh) * 60 + Number(tzm));
      const at = new Date(0);
      at.setUTCFullYear(year, month - 1, day);
      at.setUTCHours(hour, minute - offsetMinutes, second, 0);
      const fraction = micros ? `.${pad(micros, 6).replace(/0+$/, '')}` : '';
      return { iso: `${at.toISOString().slice(0, 19)}${fraction}Z` };
    }
  }
  const trimmed = value.trim();
  if (/^[+-]?\d+(?:\.\d+)?$/.test(trimmed) && trimmed === value) return fromTimestamp(Number(value));
  const dateError = dateParseError(value);
  if (dateError === undefined) return { iso: `${value.slice(0, 10)}T00:00:00Z` };
  return { issue: { type: 'datetime_from_date_parsing', msg: `Input should be a valid datetime or date, ${dateError}`, ctx: { error: dateError } } };
}

function fromTimestamp(n: number): { iso: string } | { issue: PydanticIssue } {
  const seconds = Math.abs(n) > MS_WATERSHED ? n / 1000 : n;
  const ms = seconds * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
    const error = Math.abs(n) > 0 && n < 0 ? 'dates before 0000 are not supported as unix timestamps' : 'dates after 9999 are not supported as unix timestamps';
    return { issue: { type: 'datetime_parsing', msg: `Input should be a valid datetime, ${error}`, ctx: { error } } };
  }
  const d = new Date(Math.round(ms));
  if (d.getUTCFullYear() > 9999 || d.getUTCFullYear() < 0) {
    const error = n < 0 ? 'dates before 0000 are not supported as unix timestamps' : 'dates after 9999 are not supported as unix timestamps';
    return { issue: { type: 'datetime_parsing', msg: `Input should be a valid datetime, ${error}`, ctx: { error } } };
  }
  return { iso: d.toISOString().replace('.000Z', 'Z') };
}

/**
 * A date-time field (Pydantic `datetime`): accepts ISO 8601 / RFC 3339 strings (naive = UTC),
 * unix timestamps and plain dates; the value becomes an ISO 8601 UTC string.
 * `future: true` adds Pydantic's FutureDatetime rule (`datetime_future`).
 */
export function dateTimeString(opts: { future?: boolean } = {}) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      if (value === undefined) return fail(ctx, value, MISSING);
      const r = parseDateTimeInput(value);
      if ('issue' in r) return fail(ctx, value, r.issue);
      if (opts.future && Date.parse(r.iso) <= Date.now()) fail(ctx, value, { type: 'datetime_future', msg: 'Input should be in the future' });
    })
    .transform((value) => {
      const r = parseDateTimeInput(value);
      return 'iso' in r ? r.iso : String(value);
    })
    .meta({ type: 'string', format: 'date-time' });
}

// ---------------------------------------------------------------------------------------------
// Integers from query strings and JSON — pydantic-core's lax int parsing.

/** The integer a value stands for under Pydantic's lax rules, or undefined (int_parsing / int_type). */
export function parsePydanticInt(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  let s = value.trim();
  if (s.startsWith('+')) s = s.slice(1);
  let negative = false;
  if (s.startsWith('-')) {
    negative = true;
    s = s.slice(1);
  }
  if (!/^[0-9]/.test(s)) return undefined;
  s = s.replace(/^(\d)\.0+$/, '$1').replace(/^(\d+)\.0+$/, '$1');
  if (/^\d+(?:_\d+)*$/.test(s)) {
    const n = Number(s.replace(/_/g, ''));
    return Number.isSafeInteger(n) ? (negative ? -n : n) : undefined;
  }
  return undefined;
}

/**
 * An integer (query, path or body) with Pydantic's lax parsing and bounds:
 * int_parsing / int_type, greater_than_equal, less_than_equal. Repeated query keys: last wins.
 */
export function intField(opts: { ge?: number; le?: number } = {}) {
  return z
    .unknown()
    .superRefine((raw, ctx) => {
      const value = Array.isArray(raw) ? raw.at(-1) : raw;
      if (value === undefined) return fail(ctx, value, MISSING);
      const n = parsePydanticInt(value);
      if (n === undefined) {
        if (typeof value === 'string')
          return fail(ctx, value, { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' });
        if (typeof value === 'number')
          return fail(ctx, value, { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' });
        return fail(ctx, value, { type: 'int_type', msg: 'Input should be a valid integer' });
      }
      if (opts.ge !== undefined && n < opts.ge)
        fail(ctx, value, { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${opts.ge}`, ctx: { ge: opts.ge } });
      if (opts.le !== undefined && n > opts.le)
        fail(ctx, value, { type: 'less_than_equal', msg: `Input should be less than or equal to ${opts.le}`, ctx: { le: opts.le } });
    })
    .transform((raw) => parsePydanticInt(Array.isArray(raw) ? raw.at(-1) : raw) as number)
    .meta({ type: 'integer', ...(opts.ge !== undefined ? { minimum: opts.ge } : {}), ...(opts.le !== undefined ? { maximum: opts.le } : {}) });
}

/** The organization roles (OrganizationRole). */
export const organizationRole = z.enum(['admin', 'member']);

/** Aliases with the names the brief gives other areas. */
