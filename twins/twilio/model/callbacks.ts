// Outgoing requests Twilio makes to the account's URLs (status callbacks, inbound SMS webhooks):
// form-encoded, signed with the auth token (X-Twilio-Signature), sent through the runtime's
// deliveries (retries, egress guard).

import type { TwinContext } from '../../../twin-runtime/contract.js';

export function postToUrl(ctx: TwinContext, event: string, sourceId: string, url: string, params: Record<string, string>): void {
  const payload = new URLSearchParams(Object.entries(params)).toString();
  ctx.deliveries.send({
    event,
    source_id: sourceId,
    endpoint_id: url,
    url,
    payload,
    headers: {
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      'user-agent': 'TwilioProxy/1.1',
      'i-twilio-idempotency-token': ctx.ids.nextIn('idempotency', '', 36),
    },
    signing_secret: ctx.apiKey,
  });
}
