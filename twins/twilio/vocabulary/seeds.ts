// Seed vocabulary and suggested starting states of the Twilio twin, and how a plan becomes Twilio
// objects: through the twin's own REST API, as the account's code would — buy numbers, send
// messages (the lifecycle runs on the clock: delivered, or undelivered / failed by the twin's
// outcome numbers), receive texts (the inbound helper), place calls, start verifications.

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';

export const suggestions: SeedSuggestion[] = [
  { name: 'Outbound texts', prompt: '20 messages, 3 of them undelivered and 2 of them failed' },
  { name: 'Two numbers', prompt: '2 phone numbers each with 6 messages' },
  { name: 'Inbound conversation', prompt: '8 inbound messages and 5 messages' },
  { name: 'Call log', prompt: '12 calls, 3 of them busy and 2 of them unanswered' },
  { name: 'Verification backlog', prompt: 'A verify service with 6 verifications, 4 of them approved' },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    phone_number: ['phone number', 'phone numbers', 'number', 'numbers'],
    message: ['message', 'messages', 'text', 'texts', 'sms'],
    inbound_message: ['inbound message', 'inbound messages', 'incoming message', 'incoming messages', 'reply', 'replies'],
    call: ['call', 'calls', 'phone call', 'phone calls'],
    verify_service: ['verify service', 'verify services', 'verification service', 'verification services'],
    verification: ['verification', 'verifications', 'otp', 'otps'],
  },
  states: {
    delivered: ['delivered'],
    undelivered: ['undelivered'],
    failed: ['failed'],
    completed: ['completed', 'answered'],
    busy: ['busy'],
    no_answer: ['unanswered', 'no-answer', 'not answered'],
    pending: ['pending'],
    approved: ['approved', 'verified'],
    canceled: ['canceled', 'cancelled'],
  },
  stateResources: {
    delivered: ['message'],
    undelivered: ['message'],
    failed: ['message', 'call'],
    completed: ['call'],
    busy: ['call'],
    no_answer: ['call'],
    pending: ['verification'],
    approved: ['verification'],
    canceled: ['verification'],
  },
  phrases: [{ pattern: /\bsaying\s+"([^"]+)"/, attribute: 'body', value: (g) => g[1]! }],
  ownedBy: { message: 'phone_number', inbound_message: 'phone_number', call: 'phone_number', verification: 'verify_service' },
  fillers: ['twilio', 'each', 'are', 'is', 'an', 'of', 'sent'],
};

const MESSAGE_TO: Record<string, string> = { undelivered: '+15005550010', failed: '+15005550011' };
const CALL_TO: Record<string, string> = { busy: '+15005550010', no_answer: '+15005550011', failed: '+15005550012' };
const FORM = { encoding: 'form' as const };

class TwilioSeedSession {
  private accountSid = '';
  private defaultNumber = '';
  constructor(private readonly ctx: SeedExpansionContext) {}

  private get api() {
    return `/2010-04-01/Accounts/${this.accountSid}`;
  }

  async start(): Promise<void> {
    this.accountSid = (await this.ctx.api.call('GET', '/2010-04-01/Accounts.json')).body.accounts[0].sid;
    this.defaultNumber = (await this.ctx.api.call('GET', `${this.api}/IncomingPhoneNumbers.json`)).body.incoming_phone_numbers[0].phone_number;
  }

  private phone(e: SeedEntity, name: string): string {
    return `+1415${String(this.ctx.values.int(e.key, name, 2000000, 9999999))}`;
  }

  async phoneNumber(e: SeedEntity): Promise<void> {
    const area = String(this.ctx.values.int(e.key, 'area', 201, 989));
    const n = (await this.ctx.api.call('POST', `${this.api}/IncomingPhoneNumbers.json`, { AreaCode: area, SmsUrl: 'https://example.com/sms' }, FORM)).body as {
      phone_number: string;
    };
    for (const c of e.children) await this.owned(c, n.phone_number);
  }

  async owned(e: SeedEntity, from: string): Promise<void> {
    if (e.resource === 'message') await this.message(e, from);
    else if (e.resource === 'inbound_message') await this.inbound(e, from);
    else if (e.resource === 'call') await this.call(e, from);
    else throw new SeedExpansionError(`A Twilio phone number sends messages and calls and receives messages, not ${e.resource} records.`);
  }

  async message(e: SeedEntity, from = this.defaultNumber): Promise<void> {
    const v = this.ctx.values;
    const state = e.states.find((s) => MESSAGE_TO[s]);
    const body = e.attributes.body ?? v.pick(e.key, 'message.body', v.builtInPool('sentence'));
    await this.ctx.api.call('POST', `${this.api}/Messages.json`, { To: state ? MESSAGE_TO[state] : this.phone(e, 'to'), From: from, Body: body }, FORM);
    // The lifecycle finishes within 5 s; the next one starts a little later.
    await this.ctx.api.advanceBy(v.int(e.key, 'delay', 10, 600) * 1000);
  }

  async inbound(e: SeedEntity, to = this.defaultNumber): Promise<void> {
    const v = this.ctx.values;
    const body = e.attributes.body ?? v.pick(e.key, 'inbound.body', v.builtInPool('sentence'));
    await this.ctx.api.call('POST', '/twin/messages/inbound', { From: this.phone(e, 'from'), To: to, Body: body }, FORM);
    await this.ctx.api.advanceBy(v.int(e.key, 'delay', 10, 600) * 1000);
  }

  async call(e: SeedEntity, from = this.defaultNumber): Promise<void> {
    const state = e.states.find((s) => CALL_TO[s]);
    await this.ctx.api.call(
      'POST',
      `${this.api}/Calls.json`,
      { To: state ? CALL_TO[state] : this.phone(e, 'to'), From: from, Url: 'https://example.com/twiml' },
      FORM,
    );
    await this.ctx.api.advanceBy(this.ctx.values.int(e.key, 'delay', 60, 900) * 1000);
  }

  async verifyService(e: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    const name = e.attributes.name ?? `${v.pick(e.key, 'service.name', v.builtInPool('word'))} login`;
    const service = (await this.ctx.api.call('POST', '/v2/Services', { FriendlyName: name }, FORM)).body as { sid: string };
    for (const c of e.children) {
      if (c.resource !== 'verification') throw new SeedExpansionError(`A Verify service holds verifications, not ${c.resource} records.`);
      const started = (await this.ctx.api.call('POST', `/v2/Services/${service.sid}/Verifications`, { To: this.phone(c, 'to'), Channel: 'sms' }, FORM))
        .body as { sid: string };
      const status = c.states.includes('approved') ? 'approved' : c.states.includes('canceled') ? 'canceled' : undefined;
      if (status) await this.ctx.api.call('POST', `/v2/Services/${service.sid}/Verifications/${started.sid}`, { Status: status }, FORM);
      await this.ctx.api.advanceBy(v.int(c.key, 'delay', 5, 60) * 1000);
    }
  }
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  const session = new TwilioSeedSession(ctx);
  await session.start();
  for (const e of entities) {
    if (e.resource === 'phone_number') await session.phoneNumber(e);
    else if (e.resource === 'verify_service') await session.verifyService(e);
    else if (e.resource === 'verification')
      throw new SeedExpansionError('Twilio verifications belong to a Verify service ("a verify service with 5 verifications").');
    else if (e.resource === 'message') await session.message(e);
    else if (e.resource === 'inbound_message') await session.inbound(e);
    else if (e.resource === 'call') await session.call(e);
    else throw new SeedExpansionError(`Twilio seeds make phone numbers, messages, calls and Verify services, not ${e.resource} records.`);
  }
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'form', expand };
