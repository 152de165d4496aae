// The phrasebook's vocabulary: for each twin, the operations an outcome may name, the phrase that
// names each one, the provider route it compiles to, and the modifiers it understands. The
// sentences these accept are listed in docs/matchers.md; keep the two in step.

import type { Matcher } from './matcher-language.js';

/** A modifier the clause parser found (`with email x`, `labelled bug`, `$42`, `#general`, …). */
export type ModifierName =
  | 'email'
  | 'name'
  | 'title'
  | 'text'
  | 'label'
  | 'amount'
  | 'currency'
  | 'channel'
  | 'repo'
  | 'number'
  | 'thread'
  | 'emoji'
  | 'head'
  | 'base'
  | 'assignee'
  | 'description'
  | 'stripe_id';

export interface Modifier {
  name: ModifierName;
  value: string;
}

/** How a modifier narrows the operation's matcher; returns a sentence when the value cannot be used. */
export type ModifierRule = (m: Matcher, value: string) => string | void;

export interface Operation {
  twin: 'stripe' | 'github' | 'slack';
  /** Short label used in failure sentences (`create a customer`). */
  label: string;
  /** Verb and object, matched at the start of the clause after count words are removed. */
  phrase: RegExp;
  method: string;
  path: string | string[];
  modifiers: Partial<Record<ModifierName, ModifierRule>>;
  /** What the operation makes, so a later step can say "that customer"; the capture reads its id. */
  produces?: { noun: string; capture: string };
  /** Nouns a later step may refer back to ("that charge") → where the captured id is compared. */
  refers?: Record<string, (m: Matcher, variable: string) => void>;
  /** Slack answers 200 with `ok: false`; success there means `ok: true` in the body. */
  successBody?: Record<string, unknown>;
}

/** `create` → `(?:create|creates|created|creating)`; irregular past forms are passed in. */
function v(base: string, ...more: string[]): string {
  const stem = base.endsWith('e') ? base.slice(0, -1) : base;
  const past = base.endsWith('e') ? `${base}d` : `${base}ed`;
  return `(?:${[base, `${base}s`, past, `${stem}ing`, ...more].join('|')})`;
}

const A = String.raw`(?:(?:a|an|any|the|one|new|some|that|this|more|other)\s+)*`;
const op = (text: string) => new RegExp(String.raw`^\s*(?:` + text + String.raw`)(?=\s|$)`, 'i');

const bodyContains = (pointer: string) => (m: Matcher, value: string) => {
  m.body = { ...(m.body ?? {}), [pointer]: { contains: value } };
};
const bodyEq = (pointer: string) => (m: Matcher, value: string) => {
  m.body = { ...(m.body ?? {}), [pointer]: value };
};
const bodyIncludes = (pointer: string) => (m: Matcher, value: string) => {
  m.body = { ...(m.body ?? {}), [pointer]: { includes: value } };
};
const param = (name: string) => (m: Matcher, value: string) => {
  m.params = { ...(m.params ?? {}), [name]: value };
};
const paramVar = (name: string) => (m: Matcher, variable: string) => {
  m.params = { ...(m.params ?? {}), [name]: { var: variable } };
};
const bodyVar = (pointer: string) => (m: Matcher, variable: string) => {
  m.body = { ...(m.body ?? {}), [pointer]: { var: variable } };
};
const repoParams: ModifierRule = (m, value) => {
  const [owner, repo] = value.split('/');
  m.params = { ...(m.params ?? {}), owner: owner!, repo: repo! };
};
const amountIn = (where: 'body' | 'response') => (pointer: string) => (m: Matcher, value: string) => {
  if (where === 'body') m.body = { ...(m.body ?? {}), [pointer]: Number(value) };
  else m.response = { ...(m.response ?? {}), body: { ...(m.response?.body ?? {}), [pointer]: Number(value) } };
};
/** A Stripe id names different fields by its prefix (`cus_` → customer, `ch_` → charge). */
const stripeIdRule =
  (fields: Record<string, ModifierRule>): ModifierRule =>
  (m, value) => {
    const prefix = value.slice(0, value.indexOf('_') + 1);
    const rule = fields[prefix];
    if (!rule) return `the id ${value} does not fit this operation (it takes ${Object.keys(fields).map((p) => p + '…').join(', ')})`;
    return rule(m, value);
  };
const slackChannel: ModifierRule = (m, value) => {
  // Callers may name a channel with or without '#', or by its id (C…).
  const bare = value.replace(/^#/, '');
  m.body = { ...(m.body ?? {}), '/channel': /^[CGD][A-Z0-9]{6,}$/.test(bare) ? bare : { one_of: [`#${bare}`, bare] } };
};

const stripeCurrency: ModifierRule = (m, value) => {
  m.body = { ...(m.body ?? {}), '/currency': value.toLowerCase() };
};

export const OPERATIONS: Operation[] = [
  // ---- Stripe ----
  {
    twin: 'stripe',
    label: 'create a customer',
    phrase: op(`${v('create')}\\s+${A}customers?|${v('add')}\\s+${A}customers?`),
    method: 'POST',
    path: '/v1/customers',
    modifiers: { email: bodyEq('/email'), name: bodyEq('/name'), description: bodyEq('/description') },
    produces: { noun: 'customer', capture: 'response.body/id' },
  },
  {
    twin: 'stripe',
    label: 'update a customer',
    phrase: op(`${v('update')}\\s+${A}customers?`),
    method: 'POST',
    path: '/v1/customers/{customer}',
    modifiers: { email: bodyEq('/email'), name: bodyEq('/name'), description: bodyEq('/description'), stripe_id: stripeIdRule({ cus_: param('customer') }) },
    refers: { customer: paramVar('customer') },
  },
  {
    twin: 'stripe',
    label: 'delete a customer',
    phrase: op(`${v('delete')}\\s+${A}customers?`),
    method: 'DELETE',
    path: '/v1/customers/{customer}',
    modifiers: { stripe_id: stripeIdRule({ cus_: param('customer') }) },
    refers: { customer: paramVar('customer') },
  },
  {
    twin: 'stripe',
    label: 'create a charge',
    phrase: op(`(?:${v('create')}|${v('make', 'made')})\\s+${A}charges?|${v('charge')}(?:\\s+${A}customer)?`),
    method: 'POST',
    path: '/v1/charges',
    modifiers: { amount: amountIn('body')('/amount'), currency: stripeCurrency, description: bodyEq('/description'), stripe_id: stripeIdRule({ cus_: bodyEq('/customer') }) },
    produces: { noun: 'charge', capture: 'response.body/id' },
    refers: { customer: bodyVar('/customer') },
  },
  {
    twin: 'stripe',
    label: 'refund a charge or payment',
    phrase: op(`${v('refund')}(?:\\s+${A}(?:charges?|payments?|payment\\s+intents?))?|${v('create')}\\s+${A}refunds?|${v('issue')}\\s+${A}refunds?`),
    method: 'POST',
    path: '/v1/refunds',
    // The refund's own amount is in its response whether or not the request named one.
    modifiers: { amount: amountIn('response')('/amount'), stripe_id: stripeIdRule({ ch_: bodyEq('/charge'), py_: bodyEq('/charge'), pi_: bodyEq('/payment_intent') }) },
    produces: { noun: 'refund', capture: 'response.body/id' },
    refers: { charge: bodyVar('/charge'), payment: bodyVar('/payment_intent'), 'payment intent': bodyVar('/payment_intent') },
  },
  {
    twin: 'stripe',
    label: 'create a payment intent',
    phrase: op(`${v('create')}\\s+${A}payment\\s+intents?`),
    method: 'POST',
    path: '/v1/payment_intents',
    modifiers: { amount: amountIn('body')('/amount'), currency: stripeCurrency, description: bodyEq('/description'), stripe_id: stripeIdRule({ cus_: bodyEq('/customer') }) },
    produces: { noun: 'payment intent', capture: 'response.body/id' },
    refers: { customer: bodyVar('/customer') },
  },
  ...(['confirm', 'capture', 'cancel'] as const).map(
    (verb): Operation => ({
      twin: 'stripe',
      label: `${verb} a payment intent`,
      phrase: op(`${verb === 'cancel' ? v('cancel', 'cancelled', 'canceled', 'cancelling') : v(verb)}\\s+${A}(?:payment\\s+intents?|payments?)`),
      method: 'POST',
      path: `/v1/payment_intents/{intent}/${verb}`,
      modifiers: { stripe_id: stripeIdRule({ pi_: param('intent') }), amount: verb === 'capture' ? amountIn('body')('/amount_to_capture') : undefined },
      refers: { 'payment intent': paramVar('intent'), payment: paramVar('intent') },
    }),
  ),
  {
    twin: 'stripe',
    label: 'create a subscription',
    phrase: op(`${v('create')}\\s+${A}subscriptions?|${v('subscribe')}`),
    method: 'POST',
    path: '/v1/subscriptions',
    modifiers: { stripe_id: stripeIdRule({ cus_: bodyEq('/customer'), price_: bodyEq('/items/0/price') }) },
    produces: { noun: 'subscription', capture: 'response.body/id' },
    refers: { customer: bodyVar('/customer') },
  },
  {
    twin: 'stripe',
    label: 'cancel a subscription',
    phrase: op(`${v('cancel', 'cancelled', 'canceled', 'cancelling')}\\s+${A}subscriptions?`),
    method: 'DELETE',
    path: '/v1/subscriptions/{subscription_exposed_id}',
    modifiers: { stripe_id: stripeIdRule({ sub_: param('subscription_exposed_id') }) },
    refers: { subscription: paramVar('subscription_exposed_id') },
  },
  {
    twin: 'stripe',
    label: 'create a product',
    phrase: op(`${v('create')}\\s+${A}products?`),
    method: 'POST',
    path: '/v1/products',
    modifiers: { name: bodyEq('/name'), description: bodyEq('/description') },
    produces: { noun: 'product', capture: 'response.body/id' },
  },
  {
    twin: 'stripe',
    label: 'create a price',
    phrase: op(`${v('create')}\\s+${A}prices?`),
    method: 'POST',
    path: '/v1/prices',
    modifiers: { amount: amountIn('body')('/unit_amount'), currency: stripeCurrency, stripe_id: stripeIdRule({ prod_: bodyEq('/product') }) },
    produces: { noun: 'price', capture: 'response.body/id' },
    refers: { product: bodyVar('/product') },
  },
  {
    twin: 'stripe',
    label: 'create an invoice',
    phrase: op(`${v('create')}\\s+${A}invoices?`),
    method: 'POST',
    path: '/v1/invoices',
    modifiers: { description: bodyEq('/description'), stripe_id: stripeIdRule({ cus_: bodyEq('/customer') }) },
    produces: { noun: 'invoice', capture: 'response.body/id' },
    refers: { customer: bodyVar('/customer') },
  },
  {
    twin: 'stripe',
    label: 'list customers',
    phrase: op(`${v('list')}\\s+${A}customers`),
    method: 'GET',
    path: '/v1/customers',
    modifiers: { email: (m, value) => void (m.query = { ...(m.query ?? {}), email: value }) },
  },
  {
    twin: 'stripe',
    label: 'list charges',
    phrase: op(`${v('list')}\\s+${A}charges`),
    method: 'GET',
    path: '/v1/charges',
    modifiers: { stripe_id: stripeIdRule({ cus_: (m, value) => void (m.query = { ...(m.query ?? {}), customer: value }) }) },
  },
  {
    twin: 'stripe',
    label: 'retrieve a customer',
    phrase: op(`(?:${v('retrieve')}|${v('fetch')}|${v('look')}\\s+up|${v('read')})\\s+${A}customers?`),
    method: 'GET',
    path: '/v1/customers/{customer}',
    modifiers: { stripe_id: stripeIdRule({ cus_: param('customer') }) },
    refers: { customer: paramVar('customer') },
  },

  // ---- GitHub ----
  {
    twin: 'github',
    label: 'open an issue',
    phrase: op(`(?:${v('open')}|${v('create')}|${v('file')}|${v('raise')})\\s+${A}issues?`),
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues',
    modifiers: { title: bodyEq('/title'), label: bodyIncludes('/labels'), text: bodyContains('/body'), repo: repoParams, assignee: bodyIncludes('/assignees') },
    produces: { noun: 'issue', capture: 'response.body/number' },
  },
  {
    twin: 'github',
    label: 'close an issue',
    phrase: op(`${v('close')}\\s+${A}issues?`),
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/issues/{issue_number}',
    modifiers: { number: param('issue_number'), repo: repoParams },
    refers: { issue: paramVar('issue_number') },
  },
  {
    twin: 'github',
    label: 'comment on an issue',
    phrase: op(`${v('comment')}\\s+on\\s+${A}(?:issues?|pull\\s+requests?|prs?)|${v('add')}\\s+${A}comments?(?:\\s+(?:on|to)\\s+${A}(?:issues?|pull\\s+requests?))?`),
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    modifiers: { number: param('issue_number'), repo: repoParams, text: bodyContains('/body') },
    refers: { issue: paramVar('issue_number'), 'pull request': paramVar('issue_number') },
  },
  {
    twin: 'github',
    label: 'add a label to an issue',
    phrase: op(`(?:${v('add')}|${v('apply', 'applied')})\\s+${A}labels?`),
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{issue_number}/labels',
    modifiers: { number: param('issue_number'), repo: repoParams, name: bodyIncludes('/labels'), label: bodyIncludes('/labels') },
    refers: { issue: paramVar('issue_number') },
  },
  {
    twin: 'github',
    label: 'open a pull request',
    phrase: op(`(?:${v('open')}|${v('create')})\\s+${A}(?:pull\\s+requests?|prs?)`),
    method: 'POST',
    path: '/repos/{owner}/{repo}/pulls',
    modifiers: { title: bodyEq('/title'), head: bodyEq('/head'), base: bodyEq('/base'), repo: repoParams, text: bodyContains('/body') },
    produces: { noun: 'pull request', capture: 'response.body/number' },
  },
  {
    twin: 'github',
    label: 'merge a pull request',
    phrase: op(`${v('merge')}\\s+${A}(?:pull\\s+requests?|prs?)`),
    method: 'PUT',
    path: '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
    modifiers: { number: param('pull_number'), repo: repoParams },
    refers: { 'pull request': paramVar('pull_number') },
  },
  {
    twin: 'github',
    label: 'create a repository',
    phrase: op(`${v('create')}\\s+${A}(?:repositor(?:y|ies)|repos?)`),
    method: 'POST',
    path: ['/user/repos', '/orgs/{org}/repos'],
    modifiers: { name: bodyEq('/name'), description: bodyEq('/description') },
  },
  {
    twin: 'github',
    label: 'delete a repository',
    phrase: op(`${v('delete')}\\s+${A}(?:repositor(?:y|ies)|repos?)`),
    method: 'DELETE',
    path: '/repos/{owner}/{repo}',
    modifiers: { repo: repoParams },
  },

  // ---- Slack ----
  {
    twin: 'slack',
    label: 'post a message',
    phrase: op(`(?:${v('post')}|${v('send', 'sent')}|${v('write', 'wrote', 'written')})\\s+${A}(?:messages?|replies|reply)|${v('reply', 'replied')}`),
    method: 'POST',
    path: '/api/chat.postMessage',
    modifiers: { channel: slackChannel, text: bodyContains('/text'), thread: (m) => void (m.body = { ...(m.body ?? {}), '/thread_ts': { present: true } }) },
    produces: { noun: 'message', capture: 'response.body/ts' },
    refers: { message: bodyVar('/thread_ts'), thread: bodyVar('/thread_ts') },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'update a message',
    phrase: op(`(?:${v('update')}|${v('edit')})\\s+${A}messages?`),
    method: 'POST',
    path: '/api/chat.update',
    modifiers: { channel: slackChannel, text: bodyContains('/text') },
    refers: { message: bodyVar('/ts') },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'delete a message',
    phrase: op(`${v('delete')}\\s+${A}messages?`),
    method: 'POST',
    path: '/api/chat.delete',
    modifiers: { channel: slackChannel },
    refers: { message: bodyVar('/ts') },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'add a reaction',
    phrase: op(`${v('react')}(?:\\s+to\\s+${A}messages?)?|${v('add')}\\s+${A}reactions?(?:\\s+to\\s+${A}messages?)?`),
    method: 'POST',
    path: '/api/reactions.add',
    modifiers: { emoji: bodyEq('/name'), channel: slackChannel },
    refers: { message: bodyVar('/timestamp') },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'create a channel',
    phrase: op(`${v('create')}\\s+${A}channels?`),
    method: 'POST',
    path: '/api/conversations.create',
    modifiers: { name: (m, value) => void (m.body = { ...(m.body ?? {}), '/name': value.replace(/^#/, '') }), channel: (m, value) => void (m.body = { ...(m.body ?? {}), '/name': value.replace(/^#/, '') }) },
    produces: { noun: 'channel', capture: 'response.body/channel/id' },
    successBody: { '/ok': true },
  },
  {
    twin: 'slack',
    label: 'archive a channel',
    phrase: op(`${v('archive')}\\s+${A}channels?`),
    method: 'POST',
    path: '/api/conversations.archive',
    modifiers: { channel: slackChannel },
    refers: { channel: bodyVar('/channel') },
    successBody: { '/ok': true },
  },
];
