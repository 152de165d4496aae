// SendGrid's phrasebook: the operations a test outcome may name for this twin, the phrase that
// names each one, the route it compiles to and the modifiers it understands (docs/matchers.md
// lists the sentences; keep the two in step).

import { A, bodyContains, bodyEq, op, v, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

export const SENDGRID_OPERATIONS: PhrasebookOperation[] = [
  {
    twin: 'sendgrid',
    label: 'send an email',
    phrase: op(`${v('send', 'sent')}\\s+${A}(?:e-?mails?|mails?|messages?)|${v('email')}\\s+${A}(?:customers?|users?|recipients?)`),
    method: 'POST',
    path: '/v3/mail/send',
    modifiers: { title: bodyEq('/subject'), text: bodyContains('/subject') },
  },
  {
    twin: 'sendgrid',
    label: 'create a template',
    phrase: op(`${v('create')}\\s+${A}(?:dynamic\\s+|transactional\\s+)?(?:e-?mail\\s+)?templates?`),
    method: 'POST',
    path: '/v3/templates',
    modifiers: { name: bodyEq('/name') },
    produces: { noun: 'template', capture: 'response.body/id' },
  },
];
