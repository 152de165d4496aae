// Seed vocabulary and suggested starting states of the SendGrid twin, and how a plan becomes
// SendGrid objects: through the twin's own v3 API, as an app would — templates and their first
// version, mail sends (moved on with `advance` until delivered or bounced, engagement through the
// twin's open/click helper), verified senders and unsubscribe groups (the generic layer).

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';
import { DEFAULT_DELIVERY_DELAY_MS } from '../model/mail.js';

export const suggestions: SeedSuggestion[] = [
  { name: 'Transactional templates', prompt: '4 dynamic templates and 2 legacy templates' },
  { name: 'Sent mail with bounces', prompt: '10 emails, 3 of them bounced' },
  { name: 'Engaged newsletter', prompt: '8 emails, 4 of them opened and 2 of them clicked' },
  { name: 'Verified senders', prompt: '3 verified senders' },
  { name: 'Unsubscribe groups', prompt: '5 unsubscribe groups' },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    template: ['template', 'templates', 'email template', 'email templates'],
    message: ['email', 'emails', 'message', 'messages', 'sent email', 'sent emails', 'mail'],
    verified_sender: ['verified sender', 'verified senders', 'sender', 'senders', 'sender identity', 'sender identities'],
    unsubscribe_group: ['unsubscribe group', 'unsubscribe groups', 'suppression group', 'suppression groups'],
  },
  states: {
    dynamic: ['dynamic'],
    legacy: ['legacy'],
    bounced: ['bounced', 'bouncing'],
    opened: ['opened', 'read'],
    clicked: ['clicked'],
  },
  stateResources: {
    dynamic: ['template'],
    legacy: ['template'],
    bounced: ['message'],
    opened: ['message'],
    clicked: ['message'],
  },
  phrases: [{ pattern: /\b(?:about|titled)\s+"([^"]+)"/, attribute: 'name', value: (g) => g[1]! }],
  fillers: ['sendgrid', 'sent', 'each', 'are', 'is', 'of'],
};

const FROM = 'team@example.com';

async function template(ctx: SeedExpansionContext, e: SeedEntity): Promise<void> {
  const v = ctx.values;
  const dynamic = !e.states.includes('legacy');
  const name = e.attributes.name ?? `${v.pick(e.key, 'template.name', v.builtInPool('word'))} ${dynamic ? 'notice' : 'letter'}`;
  await ctx.api.advanceBy(v.int(e.key, 'delay', 60, 3600) * 1000);
  const t = (await ctx.api.call('POST', '/v3/templates', { name: name.slice(0, 100), generation: dynamic ? 'dynamic' : 'legacy' })).body as { id: string };
  const line = v.pick(e.key, 'template.body', v.builtInPool('sentence'));
  await ctx.api.call(
    'POST',
    `/v3/templates/${t.id}/versions`,
    dynamic
      ? { name: 'v1', subject: `${name}: {{subject_line}}`, html_content: `<p>Hello {{first_name}},</p><p>${line}</p>`, active: 1 }
      : { name: 'v1', subject: `<%subject%>`, html_content: `<div><%body%></div><p>${line}</p>`, active: 1 },
  );
}

async function message(ctx: SeedExpansionContext, e: SeedEntity): Promise<void> {
  const v = ctx.values;
  await ctx.api.advanceBy(v.int(e.key, 'delay', 60, 1800) * 1000);
  const word =
    v
      .pick(e.key, 'message.who', v.builtInPool('word'))
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '') || 'customer';
  const to = e.states.includes('bounced') ? `bounce+${word}${v.int(e.key, 'n', 1, 999)}@example.com` : `${word}${v.int(e.key, 'n', 1, 999)}@example.com`;
  const subject = e.attributes.name ?? v.pick(e.key, 'message.subject', v.builtInPool('sentence')).replace(/\.$/, '');
  const send = await ctx.api.call('POST', '/v3/mail/send', {
    personalizations: [{ to: [{ email: to }] }],
    from: { email: FROM, name: 'Example Team' },
    subject,
    content: [
      { type: 'text/plain', value: v.pick(e.key, 'message.text', v.builtInPool('sentence')) },
      { type: 'text/html', value: `<p>${v.pick(e.key, 'message.text', v.builtInPool('sentence'))}</p><a href="https://example.com/offer">Offer</a>` },
    ],
    categories: ['seed'],
  });
  if (send.status !== 202) throw new SeedExpansionError(`SendGrid refused a seeded email (${send.status}).`);
  // Move past the receiving server's answer: delivered, or bounced for a bounce address.
  await ctx.api.advanceBy(DEFAULT_DELIVERY_DELAY_MS + 1000);
  const found = (await ctx.api.call('GET', `/v3/messages?limit=1&query=${encodeURIComponent(`to_email="${to}"`)}`)).body as { messages: { msg_id: string }[] };
  const msgId = found.messages[0]?.msg_id;
  if (!msgId) throw new SeedExpansionError('A seeded email is not in the mailbox.');
  // A click is its own engagement (images off, no open pixel): "4 opened and 2 clicked" are six emails.
  if (e.states.includes('opened')) await ctx.api.call('POST', `/v3/twin/messages/${encodeURIComponent(msgId)}/events`, { event: 'open', email: to });
  if (e.states.includes('clicked'))
    await ctx.api.call('POST', `/v3/twin/messages/${encodeURIComponent(msgId)}/events`, { event: 'click', email: to, url: 'https://example.com/offer' });
}

async function verifiedSender(ctx: SeedExpansionContext, e: SeedEntity, i: number): Promise<void> {
  const v = ctx.values;
  const nickname = e.attributes.name ?? `${v.pick(e.key, 'sender.name', v.builtInPool('word'))} sender`;
  // The first verified sender is the seeded mail's own `from`, so sending keeps working.
  const email =
    i === 0
      ? FROM
      : `${
          nickname
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '.')
            .replace(/^\.|\.$/g, '') || 'sender'
        }${i}@example.com`;
  await ctx.api.call('POST', '/v3/verified_senders', {
    nickname,
    from_email: email,
    from_name: nickname,
    reply_to: email,
    address: `${v.int(e.key, 'street', 1, 999)} Market Street`,
    city: 'San Francisco',
    state: 'CA',
    zip: '94105',
    country: 'USA',
  });
}

async function unsubscribeGroup(ctx: SeedExpansionContext, e: SeedEntity, i: number): Promise<void> {
  const v = ctx.values;
  const name = (e.attributes.name ?? `${v.pick(e.key, 'group.name', v.builtInPool('word'))} updates ${i + 1}`).slice(0, 30);
  await ctx.api.call('POST', '/v3/asm/groups', {
    name,
    description: v.pick(e.key, 'group.description', v.builtInPool('sentence')).slice(0, 100),
    is_default: false,
  });
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  const counts: Record<string, number> = {};
  for (const e of entities) {
    const i = (counts[e.resource] = (counts[e.resource] ?? 0) + 1) - 1;
    if (e.resource === 'template') await template(ctx, e);
    else if (e.resource === 'message') await message(ctx, e);
    else if (e.resource === 'verified_sender') await verifiedSender(ctx, e, i);
    else if (e.resource === 'unsubscribe_group') await unsubscribeGroup(ctx, e, i);
    else throw new SeedExpansionError(`The SendGrid twin cannot seed ${e.resource} records.`);
  }
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'json', expand };
