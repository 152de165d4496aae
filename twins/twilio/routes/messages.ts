// Messages of the 2010-04-01 API, and the twin-only inbound-message helper.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { ownAccount } from '../wire/auth.js';
import { envelope2010, newestFirst, pageOf } from '../wire/pagination.js';
import { callbackUrl, list, str } from '../wire/params.js';
import { badParam, notFound } from '../wire/errors.js';
import { account } from '../model/account.js';
import { createMessage, deleteMessage, messageView, receiveMessage, updateMessage } from '../model/messages.js';
import { settleIfImmediate, setLifecycleMode } from '../model/progress.js';
import { API, type Message } from '../model/records.js';

export const json = (status: number, body: unknown): TwinResponse => ({ status, headers: { 'content-type': 'application/json; charset=utf-8' }, body });

/** The record of `kind` the path's `{Sid}` names, or Twilio's 404 for the path. */
export function named<T>(req: TwinRequest, ctx: TwinContext, kind: string): T {
  const record = ctx.store.get<T>(kind, req.params.Sid!);
  if (!record) throw notFound(req.path);
  return record;
}

const LIST = `${API}/Accounts/{AccountSid}/Messages.json`;
const ONE = `${API}/Accounts/{AccountSid}/Messages/{Sid}.json`;

/** `DateSent` filters: `YYYY-MM-DD` (or a full date), exact day or before / after. */
function dateFilter(req: TwinRequest, name: string): number | undefined {
  const v = str(req, name);
  if (v === undefined || v === '') return undefined;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(ms)) throw badParam(20001, `Invalid ${name}: ${v}`);
  return ms;
}

function listMessages(req: TwinRequest, all: Message[]): { items: Message[]; filters: Record<string, string | undefined> } {
  const to = str(req, 'To');
  const from = str(req, 'From');
  const on = dateFilter(req, 'DateSent');
  const before = dateFilter(req, 'DateSent<');
  const after = dateFilter(req, 'DateSent>');
  const DAY = 86_400_000;
  const items = newestFirst(all)
    .filter((m) => (to === undefined || m.to === to) && (from === undefined || m.from === from))
    .filter((m) => {
      const sent = m.sent ?? m.created;
      if (on !== undefined && !(sent >= on && sent < on + DAY)) return false;
      if (before !== undefined && !(sent < before + DAY)) return false;
      if (after !== undefined && !(sent >= after)) return false;
      return true;
    });
  return { items, filters: { To: to, From: from, DateSent: str(req, 'DateSent'), 'DateSent<': str(req, 'DateSent<'), 'DateSent>': str(req, 'DateSent>') } };
}

export const messageRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: LIST,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      const m = createMessage(ctx, {
        to: str(req, 'To'),
        from: str(req, 'From'),
        messaging_service_sid: str(req, 'MessagingServiceSid'),
        body: str(req, 'Body'),
        media_url: list(req, 'MediaUrl'),
        status_callback: callbackUrl(req, 'StatusCallback'),
      });
      // The create answer shows the status at create, as Twilio's does; the moves follow.
      const created = messageView(acct, m);
      settleIfImmediate(ctx, 'message', m.sid);
      return json(201, created);
    },
  },
  {
    method: 'GET',
    path: LIST,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      const { items, filters } = listMessages(req, ctx.store.list<Message>('message'));
      return json(
        200,
        envelope2010(`${API}/Accounts/${acct}/Messages.json`, 'messages', filters, pageOf(req, items), (m) => messageView(acct, m)),
      );
    },
  },
  { method: 'GET', path: ONE, handler: (req, ctx) => json(200, messageView(ownAccount(req, ctx), named<Message>(req, ctx, 'message'))) },
  {
    method: 'POST',
    path: ONE,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      return json(200, messageView(acct, updateMessage(ctx, named<Message>(req, ctx, 'message'), { body: str(req, 'Body'), status: str(req, 'Status') })));
    },
  },
  {
    method: 'DELETE',
    path: ONE,
    handler(req, ctx) {
      ownAccount(req, ctx);
      deleteMessage(ctx, named<Message>(req, ctx, 'message'));
      return { status: 204 };
    },
  },
  {
    // Twin-only: a text from a phone to one of the account's numbers (posted to its SmsUrl).
    method: 'POST',
    path: '/twin/messages/inbound',
    unmetered: true,
    handler(req, ctx) {
      const m = receiveMessage(ctx, { from: str(req, 'From') ?? '', to: str(req, 'To') ?? '', body: str(req, 'Body') ?? '', media_url: list(req, 'MediaUrl') });
      return json(201, messageView(account(ctx).sid, m));
    },
  },
  {
    // Twin-only: `Lifecycle=immediate` runs each new message's and call's moves at create;
    // `advance` (the default) waits for the clock.
    method: 'POST',
    path: '/twin/settings',
    unmetered: true,
    handler(req, ctx) {
      const mode = str(req, 'Lifecycle');
      if (mode !== 'immediate' && mode !== 'advance') throw badParam(20001, 'Lifecycle must be immediate or advance');
      setLifecycleMode(ctx, mode);
      return json(200, { lifecycle: mode });
    },
  },
];
