// Stripe's phrasebook: the operations a test outcome may name for this twin, the phrase that names
// each one, the route it compiles to and the modifiers it understands (docs/matchers.md lists the
// sentences; keep the two in step).

import { A, amountIn, bodyEq, bodyVar, op, param, paramVar, v, type ModifierRule, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

/** A Stripe id names different fields by its prefix (`cus_` → customer, `ch_` → charge). */
const stripeIdRule =
  (fields: Record<string, ModifierRule>): ModifierRule =>
  (m, value) => {
    const prefix = value.slice(0, value.indexOf('_') + 1);
    const rule = fields[prefix];
    if (!rule)
      return `the id ${value} does not fit this operation (it takes ${Object.keys(fields)
        .map((p) => p + '…')
        .join(', ')})`;
    return rule(m, value);
  };
const stripeCurrency: ModifierRule = (m, value) => {
  m.body = { ...(m.body ?? {}), '/currency': value.toLowerCase() };
};

export const STRIPE_OPERATIONS: PhrasebookOperation[] = [
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
    modifiers: {
      amount: amountIn('body')('/amount'),
      currency: stripeCurrency,
      description: bodyEq('/description'),
      stripe_id: stripeIdRule({ cus_: bodyEq('/customer') }),
    },
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
    modifiers: {
      amount: amountIn('response')('/amount'),
      stripe_id: stripeIdRule({ ch_: bodyEq('/charge'), py_: bodyEq('/charge'), pi_: bodyEq('/payment_intent') }),
    },
    produces: { noun: 'refund', capture: 'response.body/id' },
    refers: { charge: bodyVar('/charge'), payment: bodyVar('/payment_intent'), 'payment intent': bodyVar('/payment_intent') },
  },
  {
    twin: 'stripe',
    label: 'create a payment intent',
    phrase: op(`${v('create')}\\s+${A}payment\\s+intents?`),
    method: 'POST',
    path: '/v1/payment_intents',
    modifiers: {
      amount: amountIn('body')('/amount'),
      currency: stripeCurrency,
      description: bodyEq('/description'),
      stripe_id: stripeIdRule({ cus_: bodyEq('/customer') }),
    },
    produces: { noun: 'payment intent', capture: 'response.body/id' },
    refers: { customer: bodyVar('/customer') },
  },
  ...(['confirm', 'capture', 'cancel'] as const).map(
    (verb): PhrasebookOperation => ({
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
];
