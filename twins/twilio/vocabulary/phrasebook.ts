// Twilio's phrasebook: the operations a test outcome may name for this twin, the phrase that names
// each one, the route it compiles to and the modifiers it understands (docs/matchers.md lists the
// sentences; keep the two in step).

import { A, bodyContains, op, v, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

export const TWILIO_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'twilio',
    label: 'send a text message',
    phrase: op(`(?:${v('send', 'sent')}|${v('text', 'texted')})\\s+${A}(?:sms(?:es)?|texts?|(?:text\\s+)?messages?)|${v('text', 'texted')}`),
    method: 'POST',
    path: '/2010-04-01/Accounts/{AccountSid}/Messages.json',
    modifiers: { text: bodyContains('/Body') },
    produces: { noun: 'message', capture: 'response.body/sid' },
  },
  {
    twin: 'twilio',
    label: 'place a call',
    phrase: op(`(?:${v('place')}|${v('make', 'made')}|${v('start')})\\s+${A}(?:phone\\s+)?calls?|${v('call')}`),
    method: 'POST',
    path: '/2010-04-01/Accounts/{AccountSid}/Calls.json',
    modifiers: {},
    produces: { noun: 'call', capture: 'response.body/sid' },
  },
  {
    twin: 'twilio',
    label: 'send a verification code',
    phrase: op(`(?:${v('send', 'sent')}|${v('start')})\\s+${A}(?:verifications?|verification\\s+codes?|otps?)`),
    method: 'POST',
    path: '/v2/Services/{ServiceSid}/Verifications',
    modifiers: {},
  },
  {
    twin: 'twilio',
    label: 'check a verification code',
    phrase: op(`${v('check')}\\s+${A}(?:verifications?|verification\\s+codes?|codes?|otps?)`),
    method: 'POST',
    path: '/v2/Services/{ServiceSid}/VerificationCheck',
    modifiers: {},
  },
];
