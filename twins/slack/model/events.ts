// Events API: each change the app could subscribe to becomes an `event_callback` envelope POSTed
// to the `events` setting's request URL, signed the way Slack signs (`v0=` HMAC-SHA256 of
// `v0:<timestamp>:<body>` with the signing secret). Channel events reach the app only for
// conversations its bot user is in, as on Slack; workspace events (channel_created…) always.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { getSetting } from './settings.js';
import { slackSignature } from './signature.js';
import { appLink, socketMode } from './app-link.js';
import { slackId } from './slack-ids.js';
import { botUser, currentTeam } from './workspace.js';

export interface SlackEvent {
  type: string;
  [key: string]: unknown;
}

/** Whether the bot user is in a conversation (decides whether channel events reach the app). */
function botIsMember(ctx: TwinContext, channel: string): boolean {
  return ctx.store.has('member', `${channel}:${botUser(ctx).id}`);
}

/**
 * Queue one event. `channel` scopes it to a conversation (delivered only when the bot is a member);
 * omit it for workspace-wide events. `eventTs` defaults to a fresh clock-based stamp.
 */
export function emitEvent(ctx: TwinContext, event: SlackEvent, opts: { channel?: string; eventTs?: string } = {}): void {
  const setting = getSetting(ctx, 'events');
  const overSocket = socketMode(ctx);
  if (!setting.request_url && !overSocket) return;
  if (setting.event_types && !setting.event_types.includes(event.type)) return;
  if (opts.channel && !botIsMember(ctx, opts.channel)) return;
  const team = currentTeam(ctx);
  const bot = botUser(ctx);
  const now = ctx.clock.nowSeconds();
  const eventTs = opts.eventTs ?? `${now}.${String(ctx.ids.sequence('event_ts') % 1_000_000).padStart(6, '0')}`;
  const eventId = slackId(ctx, 'Ev', 10);
  const envelope = {
    token: setting.verification_token,
    team_id: team.id,
    context_team_id: team.id,
    context_enterprise_id: null,
    api_app_id: bot.profile.api_app_id ?? null,
    event: { ...event, event_ts: eventTs },
    type: 'event_callback',
    event_id: eventId,
    event_time: now,
    authorizations: [{ enterprise_id: null, team_id: team.id, user_id: bot.id, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(JSON.stringify({ t: team.id, c: opts.channel ?? null, e: event.type })).toString('base64url')}`,
  };
  // The same envelope either way: Socket Mode wraps it in `{envelope_id, payload, type}`.
  if (overSocket) {
    appLink(ctx).stage({ type: 'events_api', payload: envelope });
    return;
  }
  ctx.deliveries.send({
    event: event.type,
    source_id: eventId,
    endpoint_id: 'events',
    url: setting.request_url!,
    payload: JSON.stringify(envelope),
    signing_secret: setting.signing_secret,
  });
}

export { slackSignature };

/** Headers of one delivery attempt; retries carry Slack's retry headers. */
export function signDelivery(delivery: DeliveryRecord, payload: string, wallNow: Date): Record<string, string> {
  const timestamp = Math.floor(wallNow.getTime() / 1000);
  const headers: Record<string, string> = {
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(delivery.signing_secret ?? '', timestamp, payload),
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
  };
  const previous = delivery.attempts.length;
  if (previous > 0) {
    const last = delivery.attempts[previous - 1]!;
    headers['x-slack-retry-num'] = String(previous);
    headers['x-slack-retry-reason'] = last.status_code === null ? 'http_timeout' : 'http_error';
  }
  return headers;
}
