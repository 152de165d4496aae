// Customer tax ids through the official SDK: `tax_id_data` on a customer create, the
// /v1/customers/{id}/tax_ids routes (create, retrieve, list, delete), format checks per type
// (`tax_id_invalid`), Stripe's test values that verify or fail (`customer.tax_id.updated`), and the
// includable `tax_ids` list (`expand[]=tax_ids`).

import t from 'tap';
import type Stripe from 'stripe';
import { startBillingTwin, type BillingTwin } from './billing-helpers.js';
import { checkSchema } from './spec-schema.js';

let bt: BillingTwin;
let stripe: Stripe;
t.before(async () => {
  bt = await startBillingTwin();
  stripe = bt.stripe;
});
t.teardown(() => bt.close());

const raw = async (path: string) => (await fetch(`${bt.twin.url}${path}`, { headers: { authorization: `Bearer ${bt.twin.apiKey}` } })).json();

t.test('a customer made with tax_id_data lists its tax ids', async (t) => {
  const customer = await stripe.customers.create({
    name: 'Acme GmbH',
    tax_id_data: [
      { type: 'eu_vat', value: 'DE123456789' },
      { type: 'us_ein', value: '12-3456789' },
    ],
  });
  const ids = await stripe.customers.listTaxIds(customer.id);
  t.equal(ids.data.length, 2);
  const vat = ids.data.find((x) => x.type === 'eu_vat')!;
  t.match(vat.id, /^txi_/);
  t.equal(vat.value, 'DE123456789');
  t.equal(vat.country, 'DE');
  t.equal(vat.customer, customer.id);
  t.same(vat.owner, { customer: customer.id, type: 'customer' });
  t.equal(vat.verification?.status, 'pending', 'a value that is no test value stays pending');
  const ein = ids.data.find((x) => x.type === 'us_ein')!;
  t.equal(ein.country, 'US');
  t.equal(ein.verification, null, 'Stripe does not verify every type');
  checkSchema(t, 'tax_id', await raw(`/v1/customers/${customer.id}/tax_ids/${vat.id}`));

  const expanded = await stripe.customers.retrieve(customer.id, { expand: ['tax_ids'] });
  const list = (expanded as Stripe.Customer).tax_ids! as Stripe.ApiList<Stripe.TaxId> & { total_count: number };
  t.equal(list.total_count, 2);
  t.same(list.data.map((x) => x.id).sort(), ids.data.map((x) => x.id).sort());
  t.notOk('tax_ids' in (await stripe.customers.retrieve(customer.id)), 'not included unless expanded');

  const invalid = await stripe.customers.create({ tax_id_data: [{ type: 'eu_vat', value: 'DE12' }] }).catch((e) => e);
  t.equal(invalid.statusCode, 400);
  t.equal(invalid.code, 'tax_id_invalid');
  t.equal(invalid.message, 'Invalid value for eu_vat.');
  t.equal(invalid.param, 'tax_id_data[0][value]');
  t.equal(
    (await stripe.customers.list({ limit: 100 })).data.filter((c) => c.name === null && c.id !== customer.id).length,
    0,
    'the refused create left no customer',
  );
});

t.test('/v1/customers/{id}/tax_ids: create, verify with test values, retrieve, delete', async (t) => {
  const customer = await stripe.customers.create({ email: 'billing@example.com' });
  const verified = await stripe.customers.createTaxId(customer.id, { type: 'eu_vat', value: 'DE000000000' });
  t.equal(verified.verification?.status, 'pending', 'the create answers pending');
  t.equal((await stripe.customers.retrieveTaxId(customer.id, verified.id)).verification?.status, 'verified');
  const failed = await stripe.customers.createTaxId(customer.id, { type: 'gb_vat', value: 'GB111111111' });
  t.equal((await stripe.customers.retrieveTaxId(customer.id, failed.id)).verification?.status, 'unverified');
  t.equal(failed.country, 'GB');

  const events = await stripe.events.list({ type: 'customer.tax_id.updated' });
  const updated = events.data.find((e) => (e.data.object as Stripe.TaxId).id === verified.id);
  t.ok(updated, 'customer.tax_id.updated announces the verdict');
  t.equal((updated?.data.previous_attributes as { verification?: { status?: string } })?.verification?.status, 'pending');
  t.ok((await stripe.events.list({ type: 'customer.tax_id.created' })).data.some((e) => (e.data.object as Stripe.TaxId).id === failed.id));

  for (const [type, value] of [
    ['au_abn', '1234'],
    ['us_ein', 'ABCDEFGHI'],
    ['gb_vat', 'DE123456789'],
    ['eu_vat', 'XX123456789'],
  ] as const) {
    const bad = await stripe.customers.createTaxId(customer.id, { type, value }).catch((e) => e);
    t.equal(bad.code, 'tax_id_invalid', `${type} ${value}`);
    t.equal(bad.param, 'value');
  }
  const unknownType = await stripe.customers.createTaxId(customer.id, { type: 'zz_nope' as 'eu_vat', value: '1' }).catch((e) => e);
  t.equal(unknownType.statusCode, 400);

  const other = await stripe.customers.create({ email: 'other@example.com' });
  const foreign = await stripe.customers.retrieveTaxId(other.id, verified.id).catch((e) => e);
  t.equal(foreign.code, 'resource_missing', "another customer's tax id is not found");

  const gone = await stripe.customers.deleteTaxId(customer.id, verified.id);
  t.same(gone, { id: verified.id, object: 'tax_id', deleted: true });
  t.equal((await stripe.customers.listTaxIds(customer.id)).data.length, 1);
  const again = await stripe.customers.retrieveTaxId(customer.id, verified.id).catch((e) => e);
  t.equal(again.statusCode, 404);
});
