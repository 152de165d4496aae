// Slack's request signature: `v0=` HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret.

import { createHmac } from 'node:crypto';

/** `X-Slack-Signature` for a body at a timestamp (seconds). */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
}
