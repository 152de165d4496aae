// Reminders (user tokens): `Rm…` records with a time on the environment clock; "in 5 minutes",
// "in 2 hours", "tomorrow" or a Unix timestamp. A due reminder is marked fired when the clock is
// advanced past it (Slackbot's DM is not modelled).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError } from '../wire/errors.js';
import { slackId } from './slack-ids.js';

export interface Reminder {
  id: string;
  creator: string;
  user: string;
  text: string;
  recurring: false;
  time: number;
  complete_ts: number;
}

const UNITS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400, week: 604800 };

export function parseReminderTime(now: number, raw: string | undefined): number {
  if (!raw) throw new SlackError('cannot_parse');
  const s = raw.trim().toLowerCase();
  if (/^\d{9,11}$/.test(s)) return Number(s);
  if (/^\d{1,8}$/.test(s)) return now + Number(s); // seconds from now
  const m = /^in\s+(\d{1,6})\s+(second|minute|hour|day|week)s?$/.exec(s);
  if (m) return now + Number(m[1]) * UNITS[m[2]!]!;
  if (s === 'tomorrow') return now + 86400;
  throw new SlackError('cannot_parse');
}

export function addReminder(ctx: TwinContext, creator: string, user: string, text: string, time: number): Reminder {
  if (time <= ctx.clock.nowSeconds()) throw new SlackError('time_in_past');
  const r: Reminder = { id: slackId(ctx, 'Rm', 10), creator, user, text, recurring: false, time, complete_ts: 0 };
  ctx.store.put('reminder', r.id, r);
  return r;
}

export function getReminder(ctx: TwinContext, actor: string, id: string | undefined): Reminder {
  const r = id ? ctx.store.get<Reminder>('reminder', id) : undefined;
  if (!r || (r.user !== actor && r.creator !== actor)) throw new SlackError('not_found');
  return r;
}

export function completeReminder(ctx: TwinContext, r: Reminder): void {
  if (r.complete_ts !== 0) throw new SlackError('already_complete');
  ctx.store.put('reminder', r.id, { ...r, complete_ts: ctx.clock.nowSeconds() });
}

export function listReminders(ctx: TwinContext, actor: string): Reminder[] {
  return ctx.store.list<Reminder>('reminder').filter((r) => r.user === actor || r.creator === actor);
}
