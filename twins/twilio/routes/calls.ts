// Calls of the 2010-04-01 API.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ownAccount } from '../wire/auth.js';
import { envelope2010, newestFirst, pageOf } from '../wire/pagination.js';
import { callbackUrl, list, str } from '../wire/params.js';
import { callView, createCall, deleteCall, updateCall } from '../model/calls.js';
import { settleIfImmediate } from '../model/progress.js';
import { API, type Call } from '../model/records.js';
import { json, named } from './messages.js';

const LIST = `${API}/Accounts/{AccountSid}/Calls.json`;
const ONE = `${API}/Accounts/{AccountSid}/Calls/{Sid}.json`;

export const callRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: LIST,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      const c = createCall(ctx, {
        to: str(req, 'To'),
        from: str(req, 'From'),
        url: callbackUrl(req, 'Url', 21205),
        twiml: str(req, 'Twiml'),
        application_sid: str(req, 'ApplicationSid'),
        status_callback: callbackUrl(req, 'StatusCallback'),
        status_callback_method: str(req, 'StatusCallbackMethod'),
        status_callback_event: list(req, 'StatusCallbackEvent', true),
      });
      const created = callView(acct, c);
      settleIfImmediate(ctx, 'call', c.sid);
      return json(201, created);
    },
  },
  {
    method: 'GET',
    path: LIST,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      const filters = { To: str(req, 'To'), From: str(req, 'From'), Status: str(req, 'Status'), ParentCallSid: str(req, 'ParentCallSid') };
      const items = newestFirst(ctx.store.list<Call>('call')).filter(
        (c) =>
          (filters.To === undefined || c.to === filters.To) &&
          (filters.From === undefined || c.from === filters.From) &&
          (filters.Status === undefined || c.status === filters.Status) &&
          filters.ParentCallSid === undefined,
      );
      return json(
        200,
        envelope2010(`${API}/Accounts/${acct}/Calls.json`, 'calls', filters, pageOf(req, items), (c) => callView(acct, c)),
      );
    },
  },
  { method: 'GET', path: ONE, handler: (req, ctx) => json(200, callView(ownAccount(req, ctx), named<Call>(req, ctx, 'call'))) },
  {
    method: 'POST',
    path: ONE,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      return json(
        200,
        callView(
          acct,
          updateCall(ctx, named<Call>(req, ctx, 'call'), { status: str(req, 'Status'), url: callbackUrl(req, 'Url', 21205), twiml: str(req, 'Twiml') }),
        ),
      );
    },
  },
  {
    method: 'DELETE',
    path: ONE,
    handler(req, ctx) {
      ownAccount(req, ctx);
      deleteCall(ctx, named<Call>(req, ctx, 'call'));
      return { status: 204 };
    },
  },
];
