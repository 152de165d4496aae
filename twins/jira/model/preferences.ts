// The caller's preferences: any key with a text value of up to 255 characters, Jira's system keys
// answering their documented defaults until set, and the locale (`en_US` until set). Setting
// `user.autowatch.disabled` to `true` stops the user watching the issues they create.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { JiraError } from '../wire/errors.js';
import { viewer } from './workspace.js';

/** Jira's system preferences and their defaults (the deprecated locale and time zone keys aside). */
const SYSTEM_DEFAULTS: Record<string, string> = {
  'user.notifications.mimetype': 'html',
  'user.notify.own.changes': 'false',
  'user.default.share.private': 'true',
  'user.keyboard.shortcuts.disabled': 'false',
};

export const DEFAULT_LOCALE = 'en_US';
const LOCALE = /^[a-z]{2}_[A-Z]{2}$/;

type Preference = { accountId: string; key: string; value: string };
const recordKey = (accountId: string, key: string) => `${accountId}:${key}`;

function stored(ctx: TwinContext, accountId: string, key: string): string | undefined {
  return ctx.store.get<Preference>('preference', recordKey(accountId, key))?.value;
}

export function getPreference(ctx: TwinContext, key: string): string {
  const value = stored(ctx, viewer(ctx).accountId, key) ?? SYSTEM_DEFAULTS[key];
  if (value === undefined) throw new JiraError(404, [`Preference with key '${key}' does not exist.`]);
  return value;
}

export function setPreference(ctx: TwinContext, key: string, value: string): void {
  if (key === '') throw new JiraError(400, ['The key query parameter is required.']);
  if (value === '') throw new JiraError(400, ['The preference value is required (plain text in the request body).']);
  if (value.length > 255) throw new JiraError(400, ['The preference value must not be longer than 255 characters.']);
  const accountId = viewer(ctx).accountId;
  ctx.store.put('preference', recordKey(accountId, key), { accountId, key, value });
}

export function removePreference(ctx: TwinContext, key: string): void {
  const accountId = viewer(ctx).accountId;
  if (!ctx.store.delete('preference', recordKey(accountId, key))) throw new JiraError(404, [`Preference with key '${key}' does not exist.`]);
}

export function locale(ctx: TwinContext): string {
  return stored(ctx, viewer(ctx).accountId, 'jira.user.locale') ?? DEFAULT_LOCALE;
}

export function setLocale(ctx: TwinContext, value: unknown): void {
  if (typeof value !== 'string' || !LOCALE.test(value)) throw new JiraError(400, [], { locale: 'The locale must look like en_US.' });
  setPreference(ctx, 'jira.user.locale', value);
}

export function resetLocale(ctx: TwinContext): void {
  ctx.store.delete('preference', recordKey(viewer(ctx).accountId, 'jira.user.locale'));
}

/** Whether a user watches the issues they create (Jira's default, unless they turned it off). */
export function autowatches(ctx: TwinContext, accountId: string): boolean {
  return stored(ctx, accountId, 'user.autowatch.disabled') !== 'true';
}
