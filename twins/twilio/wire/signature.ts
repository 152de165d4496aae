// Twilio's request signature: `X-Twilio-Signature` = base64(HMAC-SHA1(auth token, URL + every POST
// parameter's name and value, names sorted)), what `twilio.validateRequest` checks. Callbacks are
// form-encoded; the signature is computed per attempt from the stored URL and body.

import { createHmac } from 'node:crypto';
import type { DeliveryRecord } from '../../../twin-runtime/deliveries.js';

export function twilioSignature(authToken: string, url: string, params: [string, string][]): string {
  const data = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).reduce((acc, [k, v]) => acc + k + v, url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

export function signDelivery(delivery: DeliveryRecord, payload: string): Record<string, string> {
  if (!delivery.signing_secret) return {};
  return { 'x-twilio-signature': twilioSignature(delivery.signing_secret, delivery.url, [...new URLSearchParams(payload)]) };
}
