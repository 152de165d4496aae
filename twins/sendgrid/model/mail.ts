// Mail send (`POST /v3/mail/send`): SendGrid's validation (every problem at once, each naming its
// dotted field), rendering per personalization (dynamic templates with handlebars from
// `dynamic_template_data`, legacy templates and `substitutions`), and the mailbox: one `message`
// record per personalization, since SendGrid sends each personalization as its own email with its
// own recipients, subject, body and `sg_message_id`.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { isForbiddenKey } from '../../../twin-runtime/safe-input.js';
import { SendGridError, mailError, plainError, type SendGridErrorItem } from '../wire/errors.js';
import { isObject, own, type Json } from '../wire/params.js';
import { emitEvents, eventExtra } from './events.js';
import { addBounce, isBounced } from './suppressions.js';
import { asMessage, type Address, type AttachmentMeta, type MessageRecord, type PendingEvent } from './records.js';
import { activeVersion, findTemplate, RenderBudgetExceeded, renderHandlebars } from './templates.js';

export const MAX_PERSONALIZATIONS = 1000;
export const MAX_RECIPIENTS = 1000;
export const MAX_CATEGORIES = 10;
/** SendGrid schedules at most 72 hours ahead. */
const MAX_SCHEDULE_SECONDS = 72 * 3600;
/** How long after `processed` the receiving server answers (delivered or bounce) on `advance`. */
export const DEFAULT_DELIVERY_DELAY_MS = 3000;

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[A-Za-z0-9-]{2,}$/;

/** The twin's bounce rule: a local part `bounce` or `bounce+anything` bounces (any domain). */
export function bounces(email: string): boolean {
  return /^bounce(\+[^@]*)?@/i.test(email);
}

interface Personalization {
  /** A personalization may send from its own address (v3 `personalizations[].from`). */
  from?: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  subject?: string;
  headers: Record<string, string>;
  substitutions: Record<string, string>;
  dynamic_template_data: Record<string, unknown> | null;
  custom_args: Record<string, string>;
  send_at?: number;
}

interface Checked {
  from: Address;
  reply_to: Address | null;
  reply_to_list: Address[];
  subject?: string;
  content: { type: string; value: string }[];
  personalizations: Personalization[];
  template_id: string | null;
  attachments: AttachmentMeta[];
  categories: string[];
  custom_args: Record<string, string>;
  headers: Record<string, string>;
  send_at?: number;
  batch_id: string | null;
  sandbox: boolean;
}

/** Own string values of an object (prototype keys ignored); non-strings are reported. */
function stringMap(value: unknown, field: string, errors: SendGridErrorItem[], anchor: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined || value === null) return out;
  if (!isObject(value)) {
    errors.push(mailError(field, `The ${field.split('.').pop()} parameter must be an object.`, anchor));
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    if (isForbiddenKey(k)) continue;
    if (typeof v !== 'string') errors.push(mailError(`${field}.${k}`, `The ${field.split('.').pop()} values must be strings.`, anchor));
    else out[k] = v;
  }
  return out;
}

function address(
  value: unknown,
  field: string,
  errors: SendGridErrorItem[],
  anchor: string,
  invalid = 'Does not contain a valid address.',
): Address | undefined {
  if (!isObject(value)) {
    errors.push(mailError(field, invalid, anchor));
    return undefined;
  }
  const email = own(value, 'email');
  if (typeof email !== 'string' || !EMAIL.test(email.trim())) {
    errors.push(mailError(`${field}.email`, invalid, anchor));
    return undefined;
  }
  const name = own(value, 'name');
  return typeof name === 'string' && name !== '' ? { email: email.trim(), name } : { email: email.trim() };
}

function addressList(value: unknown, field: string, errors: SendGridErrorItem[], anchor: string): Address[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    errors.push(mailError(field, `The ${field.split('.').pop()} parameter must be an array of email objects.`, anchor));
    return [];
  }
  const out: Address[] = [];
  value.forEach((v, j) => {
    const a = address(v, `${field}.${j}`, errors, anchor);
    if (a) out.push(a);
  });
  return out;
}

function sendAt(value: unknown, field: string, now: number, errors: SendGridErrorItem[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    errors.push(mailError(field, 'The send_at parameter must be a valid UNIX timestamp.', 'message.send_at'));
    return undefined;
  }
  if (value > now + MAX_SCHEDULE_SECONDS) {
    errors.push(mailError(field, 'The send_at parameter must be no more than 72 hours in the future.', 'message.send_at'));
    return undefined;
  }
  return value;
}

/** Every problem of a mail send body, in SendGrid's order; throws a 400 listing them all. */
export function checkMailSend(ctx: TwinContext, body: Json): Checked {
  const errors: SendGridErrorItem[] = [];
  const now = ctx.clock.nowSeconds();

  // personalizations
  const rawP = own(body, 'personalizations');
  const personalizations: Personalization[] = [];
  if (!Array.isArray(rawP) || rawP.length === 0) {
    errors.push(
      mailError('personalizations', 'The personalizations field is required and must have at least one personalization.', '-Personalizations-Errors'),
    );
  } else if (rawP.length > MAX_PERSONALIZATIONS) {
    errors.push(
      mailError(
        'personalizations',
        `The personalization block is limited to ${MAX_PERSONALIZATIONS} personalizations per API request. You have provided ${rawP.length} personalizations. Please consider splitting this into multiple requests and resending your request.`,
        '-Personalizations-Errors',
      ),
    );
  } else {
    let recipients = 0;
    rawP.forEach((p, i) => {
      const f = `personalizations.${i}`;
      if (!isObject(p)) {
        errors.push(mailError(f, 'Each personalization must be an object.', '-Personalizations-Errors'));
        return;
      }
      const rawTo = own(p, 'to');
      if (!Array.isArray(rawTo) || rawTo.length === 0) {
        errors.push(
          mailError(
            `${f}.to`,
            'The to array is required for all personalization objects, and must have at least one email object with a valid email address.',
            'message.personalizations.to',
          ),
        );
      }
      const to = addressList(rawTo, `${f}.to`, errors, 'message.personalizations.to');
      const cc = addressList(own(p, 'cc'), `${f}.cc`, errors, 'message.personalizations.cc');
      const bcc = addressList(own(p, 'bcc'), `${f}.bcc`, errors, 'message.personalizations.bcc');
      recipients += to.length + cc.length + bcc.length;
      const seen = new Set<string>();
      for (const [list, name] of [
        [to, 'to'],
        [cc, 'cc'],
        [bcc, 'bcc'],
      ] as const) {
        for (const a of list) {
          const key = a.email.toLowerCase();
          if (seen.has(key)) {
            errors.push(
              mailError(
                f,
                `Each email address in the personalization block should be unique between to, cc, and bcc. We found the first duplicate instance of [${a.email}] in the ${f}.${name} field.`,
                'message.recipient_errors',
              ),
            );
            break;
          }
          seen.add(key);
        }
      }
      const pFrom =
        own(p, 'from') === undefined
          ? undefined
          : address(own(p, 'from'), `${f}.from`, errors, 'message.personalizations.from', 'The from email does not contain a valid address.');
      const subject = own(p, 'subject');
      if (subject !== undefined && (typeof subject !== 'string' || subject === ''))
        errors.push(
          mailError(
            `${f}.subject`,
            'The subject of your personalization must be a string at least one character in length.',
            'message.personalizations.subject',
          ),
        );
      const data = own(p, 'dynamic_template_data');
      if (data !== undefined && !isObject(data))
        errors.push(
          mailError(`${f}.dynamic_template_data`, 'The dynamic_template_data parameter must be an object.', 'message.personalizations.dynamic_template_data'),
        );
      personalizations.push({
        from: pFrom,
        to,
        cc,
        bcc,
        subject: typeof subject === 'string' && subject !== '' ? subject : undefined,
        headers: stringMap(own(p, 'headers'), `${f}.headers`, errors, 'message.personalizations.headers'),
        substitutions: stringMap(own(p, 'substitutions'), `${f}.substitutions`, errors, 'message.personalizations.substitutions'),
        dynamic_template_data: isObject(data) ? data : null,
        custom_args: stringMap(own(p, 'custom_args'), `${f}.custom_args`, errors, 'message.personalizations.custom_args'),
        send_at: sendAt(own(p, 'send_at'), `${f}.send_at`, now, errors),
      });
    });
    if (recipients > MAX_RECIPIENTS)
      errors.push(
        mailError(
          'personalizations',
          `There is a limit of ${MAX_RECIPIENTS} total recipients (to + cc + bcc) per request. You have provided ${recipients} recipients.`,
          '-Personalizations-Errors',
        ),
      );
  }

  // from, reply_to
  const rawFrom = own(body, 'from');
  let from: Address | undefined;
  if (!isObject(rawFrom)) {
    errors.push(
      mailError(
        'from',
        'The from object must be provided for every email send. It is an object that requires the email parameter, but may also contain a name parameter.',
        'message.from',
      ),
    );
  } else from = address(rawFrom, 'from', errors, 'message.from', 'The from email does not contain a valid address.');
  const rawReply = own(body, 'reply_to');
  const rawReplyList = own(body, 'reply_to_list');
  if (rawReply !== undefined && rawReplyList !== undefined)
    errors.push(mailError('reply_to', 'The reply_to parameter is mutually exclusive with reply_to_list.', 'message.reply_to'));
  const reply_to =
    rawReply === undefined ? null : (address(rawReply, 'reply_to', errors, 'message.reply_to', 'The reply_to email does not contain a valid address.') ?? null);
  const reply_to_list = addressList(rawReplyList, 'reply_to_list', errors, 'message.reply_to_list');

  // template
  const rawTemplate = own(body, 'template_id');
  let template_id: string | null = null;
  if (rawTemplate !== undefined) {
    if (typeof rawTemplate !== 'string' || !/^(d-[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.test(rawTemplate)) {
      errors.push(mailError('template_id', `The template_id must be a valid GUID, you provided '${String(rawTemplate)}'.`, 'message.template_id'));
    } else if (!findTemplate(ctx, rawTemplate) || !activeVersion(ctx, rawTemplate)) {
      errors.push(mailError('template_id', `The template_id '${rawTemplate}' does not exist or has no active version.`, 'message.template_id'));
    } else template_id = rawTemplate;
  }

  // subject
  const rawSubject = own(body, 'subject');
  if (rawSubject !== undefined && typeof rawSubject !== 'string') errors.push(mailError('subject', 'The subject must be a string.', 'message.subject'));
  const subject = typeof rawSubject === 'string' && rawSubject !== '' ? rawSubject : undefined;
  const templateSubject = template_id ? activeVersion(ctx, template_id)?.subject : undefined;
  if (!subject && !templateSubject && rawTemplate === undefined && personalizations.some((p) => !p.subject)) {
    errors.push(
      mailError(
        'subject',
        'The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.',
        'message.subject',
      ),
    );
  }

  // content
  const rawContent = own(body, 'content');
  const content: { type: string; value: string }[] = [];
  if (rawContent !== undefined && !Array.isArray(rawContent))
    errors.push(mailError('content', 'The content parameter must be an array of content objects.', 'message.content'));
  else if (Array.isArray(rawContent)) {
    rawContent.forEach((c, i) => {
      const type = own(c, 'type');
      const value = own(c, 'value');
      if (typeof type !== 'string' || type === '')
        errors.push(
          mailError(`content.${i}.type`, 'The content type must be provided and must be a string at least one character in length.', 'message.content.type'),
        );
      if (typeof value !== 'string' || value === '')
        errors.push(mailError(`content.${i}.value`, 'The content value must be a string at least one character in length.', 'message.content.value'));
      if (typeof type === 'string' && typeof value === 'string' && value !== '') content.push({ type, value });
    });
    const plain = content.findIndex((c) => c.type === 'text/plain');
    const html = content.findIndex((c) => c.type === 'text/html');
    if (plain > 0 || (html >= 0 && html !== (plain === 0 ? 1 : 0))) {
      errors.push(
        mailError(
          'content',
          'If present, text/plain and text/html may only be provided in that order and must be the first content blocks.',
          'message.content',
        ),
      );
    }
  }
  if (rawTemplate === undefined && (!Array.isArray(rawContent) || rawContent.length === 0)) {
    errors.push(
      mailError(
        'content',
        'Unless a valid template_id is provided, the content parameter is required. There must be at least one defined content block. We typically suggest both text/plain and text/html blocks are included, but only one block is required.',
        'message.content',
      ),
    );
  }

  // attachments
  const rawAttachments = own(body, 'attachments');
  const attachments: AttachmentMeta[] = [];
  if (rawAttachments !== undefined) {
    if (!Array.isArray(rawAttachments)) errors.push(mailError('attachments', 'The attachments parameter must be an array.', 'message.attachments'));
    else
      rawAttachments.forEach((a, i) => {
        const f = `attachments.${i}`;
        const contentB64 = own(a, 'content');
        const filename = own(a, 'filename');
        const type = own(a, 'type');
        const disposition = own(a, 'disposition') ?? 'attachment';
        const contentId = own(a, 'content_id');
        if (typeof contentB64 !== 'string' || contentB64 === '')
          errors.push(mailError(`${f}.content`, 'The attachment content is required.', 'message.attachments.content'));
        else if (!/^[A-Za-z0-9+/\r\n]*={0,2}$/.test(contentB64))
          errors.push(mailError(`${f}.content`, 'The attachment content must be base64 encoded.', 'message.attachments.content'));
        if (typeof filename !== 'string' || filename === '')
          errors.push(mailError(`${f}.filename`, 'The attachment filename parameter is required.', 'message.attachments.filename'));
        if (disposition !== 'attachment' && disposition !== 'inline')
          errors.push(
            mailError(`${f}.disposition`, 'The disposition of your attachment can be either "inline" or "attachment".', 'message.attachments.disposition'),
          );
        if (disposition === 'inline' && (typeof contentId !== 'string' || contentId === ''))
          errors.push(
            mailError(`${f}.content_id`, 'The content_id parameter is required if your content disposition is "inline".', 'message.attachments.content_id'),
          );
        if (typeof contentB64 === 'string' && typeof filename === 'string' && filename !== '' && (disposition === 'attachment' || disposition === 'inline')) {
          attachments.push({
            filename,
            type: typeof type === 'string' ? type : null,
            disposition,
            content_id: typeof contentId === 'string' ? contentId : null,
            size: Buffer.from(contentB64, 'base64').length,
          });
        }
      });
  }

  // categories
  const rawCategories = own(body, 'categories');
  const categories: string[] = [];
  if (rawCategories !== undefined) {
    if (!Array.isArray(rawCategories)) errors.push(mailError('categories', 'The categories parameter must be an array of strings.', 'message.categories'));
    else if (rawCategories.length > MAX_CATEGORIES)
      errors.push(mailError('categories', `Too many categories. There is a maximum of ${MAX_CATEGORIES} categories per email.`, 'message.categories'));
    else
      rawCategories.forEach((c, i) => {
        if (typeof c !== 'string' || c === '' || c.length > 255)
          errors.push(mailError(`categories.${i}`, 'A category must be a string of 1 to 255 characters.', 'message.categories'));
        else if (categories.includes(c))
          errors.push(mailError(`categories.${i}`, 'The categories parameter may not contain duplicates.', 'message.categories'));
        else categories.push(c);
      });
  }

  const custom_args = stringMap(own(body, 'custom_args'), 'custom_args', errors, 'message.custom_args');
  const headers = stringMap(own(body, 'headers'), 'headers', errors, 'message.headers');
  const send_at = sendAt(own(body, 'send_at'), 'send_at', now, errors);
  const batchId = own(body, 'batch_id');
  const mailSettings = own(body, 'mail_settings');
  const sandbox = isObject(mailSettings) && own(own(mailSettings, 'sandbox_mode'), 'enable') === true;

  if (errors.length) throw new SendGridError(400, errors);
  return {
    from: from!,
    reply_to,
    reply_to_list,
    subject,
    content,
    personalizations,
    template_id,
    attachments,
    categories,
    custom_args,
    headers,
    send_at,
    batch_id: typeof batchId === 'string' ? batchId : null,
    sandbox,
  };
}

function substitute(text: string, subs: Record<string, string>): string {
  let out = text;
  // Longest keys first, so `-name-` does not eat part of `-name_full-`.
  for (const k of Object.keys(subs).sort((a, b) => b.length - a.length)) if (k !== '') out = out.split(k).join(subs[k]!);
  return out;
}

/** Visible text of an HTML body (SendGrid's "generate plain content"). */
function plainFromHtml(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function render(ctx: TwinContext, m: Checked, p: Personalization): { subject: string; text: string | null; html: string | null; version: string | null } {
  const text0 = m.content.find((c) => c.type === 'text/plain')?.value ?? null;
  const html0 = m.content.find((c) => c.type === 'text/html')?.value ?? null;
  const version = m.template_id ? activeVersion(ctx, m.template_id) : undefined;
  const template = m.template_id ? findTemplate(ctx, m.template_id) : undefined;
  if (version && template?.generation === 'dynamic') {
    const data = p.dynamic_template_data ?? {};
    const html = version.html_content ? renderHandlebars(version.html_content, data) : null;
    const text = version.plain_content ? renderHandlebars(version.plain_content, data) : html && version.generate_plain_content ? plainFromHtml(html) : null;
    // A dynamic template's subject is its own (rendered with the same data).
    return { subject: renderHandlebars(version.subject || p.subject || m.subject || '', data), text, html, version: version.id };
  }
  const subs = p.substitutions;
  let subject = p.subject ?? m.subject ?? '';
  let html = html0;
  let text = text0;
  if (version) {
    // Legacy template: the message's subject and bodies go in at <%subject%> and <%body%>.
    subject = version.subject.split('<%subject%>').join(subject);
    html = version.html_content ? version.html_content.split('<%body%>').join(html0 ?? '') : html0;
    text = version.plain_content ? version.plain_content.split('<%body%>').join(text0 ?? '') : text0;
  }
  return {
    subject: substitute(subject, subs),
    text: text === null ? null : substitute(text, subs),
    html: html === null ? null : substitute(html, subs),
    version: version?.id ?? null,
  };
}

/**
 * A personalization rendered, or the send refused when its template passes the render budget: the
 * twin cannot show what SendGrid would deliver, and says why rather than storing a partial message.
 */
function renderWithin(ctx: TwinContext, m: Checked, p: Personalization, i: number): ReturnType<typeof render> {
  try {
    return render(ctx, m, p);
  } catch (e) {
    if (!(e instanceof RenderBudgetExceeded)) throw e;
    throw new SendGridError(400, [
      mailError(
        `personalizations.${i}.dynamic_template_data`,
        `${e.message} The twin renders a template within a budget; make the loops smaller.`,
        'message.personalizations.dynamic_template_data',
      ),
    ]);
  }
}

/** What an event does to its message (and, for a bounce, to the bounce list). */
function settle(ctx: TwinContext, m: MessageRecord, event: string, email: string): void {
  if (event === 'processed') {
    if (m.status === 'scheduled') m.status = 'processed';
  } else if (event === 'dropped') {
    if (m.status === 'scheduled' || m.status === 'processed') m.status = 'dropped';
  } else if (event === 'bounce') {
    m.status = 'bounced';
    const extra = eventExtra('bounce')!;
    addBounce(ctx, email, String(extra.reason), String(extra.status));
  } else if (event === 'delivered' && m.status !== 'bounced') m.status = 'delivered';
}

type Happening = { message: MessageRecord; event: string; email: string };

function emitHappenings(ctx: TwinContext, items: Happening[]): void {
  for (const x of items) settle(ctx, x.message, x.event, x.email);
  emitEvents(
    ctx,
    items.map((x) => ({ message: x.message, event: { event: x.event, email: x.email, extra: x.event === 'dropped' ? DROPPED : eventExtra(x.event) } })),
  );
}

const DROPPED = { reason: 'Bounced Address', status: '5.0.0' };

/**
 * Accept a checked send: one mailbox record per personalization, `processed` now or at send_at
 * (`dropped` instead for an address on the bounce list), delivered or bounce after the delay.
 */
export function acceptMail(ctx: TwinContext, m: Checked): { xMessageId: string; messages: MessageRecord[] } {
  const xMessageId = ctx.ids.nextIn('x-message-id', '', 22);
  const nowMs = ctx.clock.nowMs();
  const delay = deliveryDelayMs(ctx);
  const messages: MessageRecord[] = [];
  const firstNow: Happening[] = [];
  const outcomeNow: Happening[] = [];
  m.personalizations.forEach((p, i) => {
    const r = renderWithin(ctx, m, p, i);
    const sendAtS = p.send_at ?? m.send_at ?? null;
    const startMs = sendAtS !== null && sendAtS * 1000 > nowMs ? sendAtS * 1000 : nowMs;
    const recipients = [...p.to, ...p.cc, ...p.bcc].map((a) => a.email);
    const live = recipients.filter((e) => !isBounced(ctx, e));
    const suppressed = recipients.filter((e) => isBounced(ctx, e));
    // The first event of each recipient (processed, or dropped), then the receiving server's answer.
    const first: { event: PendingEvent['event']; email: string }[] = [
      ...live.map((email) => ({ event: 'processed' as const, email })),
      ...suppressed.map((email) => ({ event: 'dropped' as const, email })),
    ];
    const outcome = live.map((email) => ({ event: bounces(email) ? ('bounce' as const) : ('delivered' as const), email }));
    const later = startMs > nowMs;
    const pending: PendingEvent[] = [];
    if (!m.sandbox) {
      if (later) for (const f of first) pending.push({ ...f, due_ms: startMs });
      if (later || delay > 0) for (const o of outcome) pending.push({ ...o, due_ms: startMs + delay });
    }
    const record: MessageRecord = {
      sg_message_id: `${xMessageId}.filterdrecv-${ctx.ids.sequence('filter')}-${i}.0`,
      x_message_id: xMessageId,
      personalization_index: i,
      status: m.sandbox ? 'sandbox' : later ? 'scheduled' : 'processed',
      sandbox: m.sandbox,
      from: p.from ?? m.from,
      reply_to: m.reply_to,
      reply_to_list: m.reply_to_list,
      to: p.to,
      cc: p.cc,
      bcc: p.bcc,
      subject: r.subject,
      text: r.text,
      html: r.html,
      template_id: m.template_id,
      template_version_id: r.version,
      dynamic_template_data: p.dynamic_template_data,
      substitutions: p.substitutions,
      headers: { ...m.headers, ...p.headers },
      attachments: m.attachments,
      categories: m.categories,
      custom_args: { ...m.custom_args, ...p.custom_args },
      send_at: sendAtS,
      batch_id: m.batch_id,
      created_at: new Date(nowMs).toISOString(),
      events: [],
      pending,
    };
    ctx.store.put('message', record.sg_message_id, record);
    messages.push(record);
    if (!m.sandbox && !later) {
      for (const f of first) firstNow.push({ message: record, ...f });
      if (delay === 0) for (const o of outcome) outcomeNow.push({ message: record, ...o });
    }
  });
  emitHappenings(ctx, firstNow);
  if (outcomeNow.length) emitHappenings(ctx, outcomeNow);
  return { xMessageId, messages };
}

/** Every pending event due by `to`, earliest first, one webhook batch per instant. */
export function runDueEvents(ctx: TwinContext, to: Date): void {
  const toMs = to.getTime();
  const due: { at: number; message: MessageRecord; event: PendingEvent }[] = [];
  for (const body of ctx.store.list('message')) {
    const m = asMessage(body);
    if (!m) continue;
    for (const e of m.pending) if (e && typeof e.due_ms === 'number' && e.due_ms <= toMs) due.push({ at: e.due_ms, message: m, event: e });
  }
  due.sort((a, b) => a.at - b.at);
  let i = 0;
  while (i < due.length) {
    const at = due[i]!.at;
    const batch: typeof due = [];
    while (i < due.length && due[i]!.at === at) batch.push(due[i++]!);
    if (at > ctx.clock.nowMs()) ctx.clock.advanceTo(at);
    for (const b of batch) b.message.pending = b.message.pending.filter((e) => e !== b.event);
    emitHappenings(
      ctx,
      batch.map((b) => ({ message: b.message, event: b.event.event, email: b.event.email })),
    );
  }
}

/** An engagement event (open, click) a recipient caused (a twin-only helper triggers it). */
export function engage(ctx: TwinContext, sgMessageId: string, body: Json): MessageRecord {
  const m = asMessage(ctx.store.get('message', sgMessageId));
  if (!m) throw plainError(404, 'Not Found');
  const event = own(body, 'event');
  if (event !== 'open' && event !== 'click') throw new SendGridError(400, [{ field: 'event', message: "event must be 'open' or 'click'", help: null }]);
  const recipients = [...m.to, ...m.cc, ...m.bcc].map((a) => a.email);
  const email = own(body, 'email') ?? recipients[0];
  if (typeof email !== 'string' || !recipients.includes(email))
    throw new SendGridError(400, [{ field: 'email', message: 'email must be a recipient of the message', help: null }]);
  const url = own(body, 'url');
  if (event === 'click' && (typeof url !== 'string' || url === ''))
    throw new SendGridError(400, [{ field: 'url', message: 'url is required for a click', help: null }]);
  emitEvents(ctx, [{ message: m, event: { event, email, extra: eventExtra(event, { url: url as string | undefined }) } }]);
  return m;
}

export function deliveryDelayMs(ctx: TwinContext): number {
  return ctx.store.get<{ delivery_delay_ms: number }>('twin_settings', '@')?.delivery_delay_ms ?? DEFAULT_DELIVERY_DELAY_MS;
}

export function setDeliveryDelayMs(ctx: TwinContext, ms: unknown): number {
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > 7 * 86_400_000) {
    throw new SendGridError(400, [
      { field: 'delivery_delay_ms', message: 'delivery_delay_ms must be a whole number of milliseconds from 0 to 604800000', help: null },
    ]);
  }
  ctx.store.put('twin_settings', '@', { delivery_delay_ms: ms });
  return ms;
}
