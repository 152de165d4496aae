// The Stripe twin's own MCP server, driven by the MCP SDK's Client over streamable HTTP with only
// the credential's `mcp_url` and key: its tools are @stripe/agent-toolkit's as published (names and
// input schemas, spec/mcp-tools.json), their results the toolkit's shapes, a writing tool's record
// reads back with the `stripe` SDK, and what the twin does not simulate is a tool error.

import t from 'tap';
import Stripe from 'stripe';
import published from '../../../twins/stripe/spec/mcp-tools.json' with { type: 'json' };
import { startTwin } from '../../helpers/twin.js';
import { caller, checkPublishedTools, connectMcp } from '../../helpers/twin-mcp.js';

const twin = await startTwin('stripe', { clockStart: new Date('2026-01-01T00:00:00Z') });
t.teardown(() => twin.close());
const stripe = new Stripe(twin.apiKey, { host: '127.0.0.1', port: Number(new URL(twin.url).port), protocol: 'http', maxNetworkRetries: 0 });
const credential = (await (await fetch(`${twin.url}/_twin/credential`)).json()) as { api_key: string; mcp_url?: string };
const client = await connectMcp(credential.mcp_url!, credential.api_key);
t.teardown(() => client.close());
const { call, text, json } = caller(client);

t.test('the tool list is the agent toolkit as published', async (t) => {
  t.equal(credential.mcp_url, `${twin.url}/mcp`);
  const matched = await checkPublishedTools(t, client, published.tools, `@stripe/agent-toolkit ${published.version}`);
  t.equal(matched, published.tools.length);
  t.same(client.getServerVersion(), published.server, "the toolkit server's own serverInfo");
});

t.test('create_customer acts on the twin and reads back with the stripe SDK', async (t) => {
  const made = await call('create_customer', { name: 'Ann Agent', email: 'ann@example.com' });
  t.notOk(made.isError, text(made));
  const { id } = json(made);
  t.match(id, /^cus_/);
  t.same(Object.keys(json(made)), ['id'], "the toolkit's result: the id only");
  const customer = await stripe.customers.retrieve(id);
  t.match(customer, { id, name: 'Ann Agent', email: 'ann@example.com' });
  const listed = json(await call('list_customers', { email: 'ann@example.com' }));
  t.same(listed, [{ id }]);
});

t.test('product, price, payment link: each through the twin, in the toolkit shapes', async (t) => {
  const product = json(await call('create_product', { name: 'Seat', description: 'one seat' }));
  t.equal(product.object, 'product');
  const price = json(await call('create_price', { product: product.id, unit_amount: 1200, currency: 'usd' }));
  t.equal(price.product, product.id);
  const link = await call('create_payment_link', { price: price.id, quantity: 2, redirect_url: 'https://example.com/thanks' });
  t.notOk(link.isError, text(link));
  const { id, url } = json(link);
  t.match(id, /^plink_/);
  t.type(url, 'string');
  const stored = await stripe.paymentLinks.retrieve(id);
  t.equal(stored.after_completion.redirect?.url, 'https://example.com/thanks');
  const items = await stripe.paymentLinks.listLineItems(id);
  t.match(items.data, [{ price: { id: price.id }, quantity: 2 }]);
});

t.test('a Stripe error is the tool error, in the toolkit words plus the message', async (t) => {
  const bad = await call('create_price', { product: 'prod_missing', unit_amount: 100, currency: 'usd' });
  t.equal(bad.isError, true);
  t.match(text(bad), /^Failed to create price: POST \/v1\/prices: 4\d\d No such product/);
  const docs = await call('search_stripe_documentation', { question: 'How do refunds work?' });
  t.equal(docs.isError, true);
  t.match(text(docs), /does not simulate the MCP tool search_stripe_documentation/);
});
