// The bounce list (`/v3/suppression/bounces`): a hard bounce puts the address on it, and SendGrid
// then drops later mail to that address (a `dropped` event, reason `Bounced Address`) until the
// address is removed. Records of kind `bounce`, keyed by the lower-cased address.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SendGridError } from '../wire/errors.js';
import { own, type Json } from '../wire/params.js';

export interface BounceRecord {
  created: number;
  email: string;
  reason: string;
  status: string;
}

const key = (email: string) => email.toLowerCase();

export function addBounce(ctx: TwinContext, email: string, reason: string, status: string): void {
  ctx.store.put('bounce', key(email), { created: ctx.clock.nowSeconds(), email, reason, status } satisfies BounceRecord);
}

export function isBounced(ctx: TwinContext, email: string): boolean {
  return ctx.store.has('bounce', key(email));
}

export function listBounces(ctx: TwinContext, startTime?: number, endTime?: number): BounceRecord[] {
  return ctx.store
    .list<BounceRecord>('bounce')
    .filter((b) => (startTime === undefined || b.created >= startTime) && (endTime === undefined || b.created <= endTime));
}

export function getBounce(ctx: TwinContext, email: string): BounceRecord | undefined {
  return ctx.store.get<BounceRecord>('bounce', key(email));
}

export function deleteBounce(ctx: TwinContext, email: string): boolean {
  return ctx.store.delete('bounce', key(email));
}

/** `DELETE /v3/suppression/bounces` with `{delete_all: true}` or `{emails: [...]}` (not both). */
export function deleteBounces(ctx: TwinContext, body: Json): void {
  const all = own(body, 'delete_all');
  const emails = own(body, 'emails');
  if (all === true && emails !== undefined)
    throw new SendGridError(400, [{ field: null, message: 'delete_all and emails are mutually exclusive', help: null }]);
  if (all === true) {
    for (const b of ctx.store.list<BounceRecord>('bounce')) deleteBounce(ctx, b.email);
    return;
  }
  if (!Array.isArray(emails) || emails.length === 0 || !emails.every((e) => typeof e === 'string')) {
    throw new SendGridError(400, [{ field: 'emails', message: 'emails must be a non-empty array of strings, or delete_all true', help: null }]);
  }
  for (const e of emails as string[]) deleteBounce(ctx, e);
}
