// Email Activity (`GET /v3/messages`, `GET /v3/messages/{msg_id}`) read from the mailbox: one row
// per mailbox message, filtered by SendGrid's query language subset `field="value"` joined by AND
// (fields `msg_id`, `from_email`, `to_email`, `subject`, `status`, `template_id`).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SendGridError, plainError } from '../wire/errors.js';
import { asMessage, type MessageRecord } from './records.js';

const FIELDS = ['msg_id', 'from_email', 'to_email', 'subject', 'status', 'template_id'] as const;
type Field = (typeof FIELDS)[number];
const MAX_QUERY = 2048;

/** SendGrid's activity statuses: `processed`, `delivered`, `not_delivered`. */
function activityStatus(m: MessageRecord): string {
  if (m.status === 'bounced' || m.status === 'dropped') return 'not_delivered';
  if (m.status === 'delivered') return 'delivered';
  return 'processed';
}

function row(m: MessageRecord): Record<Field, string> & { opens_count: number; clicks_count: number; last_event_time: string } {
  const last = m.events[m.events.length - 1];
  return {
    from_email: m.from.email,
    msg_id: m.sg_message_id,
    subject: m.subject,
    to_email: m.to[0]?.email ?? '',
    status: activityStatus(m),
    template_id: m.template_id ?? '',
    opens_count: m.events.filter((e) => e.event === 'open').length,
    clicks_count: m.events.filter((e) => e.event === 'click').length,
    last_event_time: new Date((last?.timestamp ?? Date.parse(m.created_at) / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  };
}

/** `status="delivered" AND to_email="a@b.c"` → conditions; anything else is SendGrid's 400. */
export function parseActivityQuery(query: string): { field: Field; value: string }[] {
  if (query.length > MAX_QUERY) throw new SendGridError(400, [{ field: 'query', message: 'query is too long', help: null }]);
  const text = query.trim();
  if (text === '') return [];
  const out: { field: Field; value: string }[] = [];
  for (const clause of text.split(/\s+AND\s+/i)) {
    const m = /^\(?\s*([a-z_]+)\s*=\s*"((?:[^"\\]|\\.)*)"\s*\)?$/.exec(clause.trim());
    if (!m || !(FIELDS as readonly string[]).includes(m[1]!))
      throw new SendGridError(400, [{ field: 'query', message: `invalid query: ${clause.trim().slice(0, 100)}`, help: null }]);
    out.push({ field: m[1] as Field, value: m[2]!.replace(/\\(.)/g, '$1') });
  }
  return out;
}

export function listActivity(ctx: TwinContext, query: string, limit: number): Record<string, unknown>[] {
  const conds = parseActivityQuery(query);
  const rows: Record<string, unknown>[] = [];
  // Newest first, as the activity feed shows them.
  for (const body of ctx.store.list('message').reverse()) {
    const m = asMessage(body);
    if (!m) continue;
    const r = row(m);
    const recipients = [...m.to, ...m.cc, ...m.bcc].map((a) => a.email.toLowerCase());
    const ok = conds.every((c) =>
      c.field === 'to_email' ? recipients.includes(c.value.toLowerCase()) : String(r[c.field]).toLowerCase() === c.value.toLowerCase(),
    );
    if (!ok) continue;
    rows.push(r);
    if (rows.length >= limit) break;
  }
  return rows;
}

export function activityDetail(ctx: TwinContext, msgId: string): Record<string, unknown> {
  const m = asMessage(ctx.store.get('message', msgId));
  if (!m) throw plainError(404, 'Not Found');
  const r = row(m);
  return {
    from_email: r.from_email,
    msg_id: r.msg_id,
    subject: r.subject,
    to_email: r.to_email,
    status: r.status,
    template_id: m.template_id,
    categories: m.categories,
    unique_args: m.custom_args,
    outbound_ip: '149.72.0.1',
    outbound_ip_type: 'shared',
    events: m.events.map((e) => ({
      event_name: e.event === 'open' ? 'opened' : e.event === 'click' ? 'clicked' : e.event === 'bounce' ? 'bounced' : e.event,
      processed: new Date(e.timestamp * 1000).toISOString(),
      email: e.email,
    })),
  };
}
