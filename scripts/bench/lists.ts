// List cost against store size, side by side in one run: a first page and a `starting_after` (or
// next-page) page with 10 records and with 50,000, through the twins' HTTP APIs on loopback:
//   Stripe customers      (modelled: keyset page through the record store's `created` index)
//   Stripe tax rates      (modelled: keyset page)
//   Stripe products       (modelled: keyset page)
//   Stripe webhook endpoints, subscriptions, invoices (modelled: keyset page)
//   Stripe coupons        (modelled: keyset page)
//   Stripe promotion codes, portal configurations, subscription schedules, customer balance
//                         transactions (modelled: keyset page)
//   Stripe events, type=coupon.* (modelled: keyset page filled by a test the index cannot answer)
//   Stripe customer search, name:'Bench' (modelled: the query is such a test; next page by token)
//   Stripe plans          (generic)
//   GitHub releases       (generic: per_page/page with a Link header)
// (Slack bookmarks were measured here while the generic layer served them; bookmarks.list is now
// modelled and, as on Slack, not paginated.)
// The 50,000 records are written straight into each twin's record store (copies of one record the
// API created, with fresh ids and times), so only the listing is measured.
//
//   node --import=tsx scripts/bench/lists.ts [--large 50000] [--iterations 200] [--only <parts of names, comma-separated>]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';

const isMain = !!process.argv[1] && import.meta.filename === resolve(process.argv[1]);
const { values } = parseArgs({
  args: isMain ? process.argv.slice(2) : [],
  options: { large: { type: 'string', default: '50000' }, iterations: { type: 'string', default: '200' }, only: { type: 'string' } },
});
const LARGE = Number(values.large);
const ITERATIONS = Number(values.iterations);
/** The twins' data files, for one listCosts() run. */
let dir = '';

interface Running {
  server: TwinServer;
  url: string;
  key: string;
}

async function start(slug: string, name: string): Promise<Running> {
  const server = new TwinServer(await loadTwin(slug), { dataFile: join(dir, `${name}.sqlite`), clockStart: new Date('2026-01-05T10:00:00Z') });
  const url = await server.listen(0, '127.0.0.1');
  return { server, url, key: server.apiKey };
}

async function call(t: Running, method: string, path: string, body?: Record<string, string>, json = false): Promise<any> {
  const headers: Record<string, string> = { authorization: `Bearer ${t.key}` };
  let payload: string | undefined;
  if (body) {
    headers['content-type'] = json ? 'application/json' : 'application/x-www-form-urlencoded';
    payload = json ? JSON.stringify(body) : new URLSearchParams(body).toString();
  }
  const res = await fetch(t.url + path, { method, headers, body: payload });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
  return { body: text ? JSON.parse(text) : undefined, link: res.headers.get('link') };
}

/** `count` copies of a stored record, each with a fresh id (and `created` a second apart). */
function fill(t: Running, resource: string, template: Record<string, unknown>, count: number, key: (i: number) => { external: string; id: unknown }): void {
  const store = t.server.store;
  const created = typeof template.created === 'number' ? template.created : 0;
  store.transaction(() => {
    for (let i = 0; i < count; i++) {
      const k = key(i);
      const body: Record<string, unknown> = { ...template, id: k.id };
      if (typeof template.created === 'number') body.created = created - count + i;
      store.put(resource, k.external, body);
    }
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Medians of the four page requests (first/next at each size), taken in turn so a change in the
 * machine's load lands on all four alike: ITERATIONS rounds, or what 10 s allow (at least 5).
 */
async function timeTogether(fns: (() => Promise<unknown>)[]): Promise<number[]> {
  for (const fn of fns) for (let i = 0; i < 3; i++) await fn();
  const samples: number[][] = fns.map(() => []);
  const until = performance.now() + 10_000;
  for (let i = 0; i < ITERATIONS && (i < 5 || performance.now() < until); i++) {
    for (const [k, fn] of fns.entries()) {
      const t0 = performance.now();
      await fn();
      samples[k]!.push(performance.now() - t0);
    }
  }
  return samples.map(median);
}

interface Case {
  name: string;
  /** Make `count` records in a fresh twin; answer the two page requests to time. */
  prepare(count: number): Promise<{ twin: Running; first: () => Promise<unknown>; next: () => Promise<unknown> }>;
}

type CreateBody = Record<string, string> | ((twin: Running) => Promise<Record<string, string>>);

/**
 * A Stripe list: one record made through `createPath` (`path` unless given), `count - 1` copies of it
 * (or of the newest record of `listed`, the resource listed, when the list shows something the
 * create made on the side, like an event), then `path` listed with `query`.
 */
const stripeCase = (
  name: string,
  resource: string,
  path: string,
  create: CreateBody,
  opts: { createPath?: (twin: Running) => Promise<string>; query?: string; listed?: string; pageToken?: boolean } = {},
): Case => ({
  name,
  async prepare(count) {
    const twin = await start('stripe', `${resource}-${count}`);
    const body = typeof create === 'function' ? await create(twin) : create;
    const createPath = opts.createPath ? await opts.createPath(twin) : path;
    let made = (await call(twin, 'POST', createPath, body)).body as Record<string, unknown>;
    const listPath = path.replace('{customer}', String(made.customer));
    const copied = opts.listed ?? resource;
    if (opts.listed) made = twin.server.store.list<Record<string, unknown>>(opts.listed).at(-1)!;
    const prefix = String(made.id).replace(/[^_]*$/, '');
    fill(twin, copied, made, count - 1, (i) => ({
      external: `${prefix}bench${String(i).padStart(8, '0')}`,
      id: `${prefix}bench${String(i).padStart(8, '0')}`,
    }));
    const q = `${listPath}?limit=3${opts.query ? '&' + opts.query : ''}`;
    const firstPage = (await call(twin, 'GET', q)).body as { data: { id: string }[]; next_page?: string };
    const next = opts.pageToken ? `${q}&page=${firstPage.next_page}` : `${q}&starting_after=${firstPage.data[2]!.id}`;
    return {
      twin,
      first: () => call(twin, 'GET', q),
      next: () => call(twin, 'GET', next),
    };
  },
});

const newCustomer = async (twin: Running) => ((await call(twin, 'POST', '/v1/customers', { name: 'Bench' })).body as { id: string }).id;
const monthlyPrice = async (twin: Running) => {
  const product = ((await call(twin, 'POST', '/v1/products', { name: 'Bench' })).body as { id: string }).id;
  return ((await call(twin, 'POST', '/v1/prices', { product, unit_amount: '100', currency: 'usd', 'recurring[interval]': 'month' })).body as { id: string }).id;
};

const CASES: Case[] = [
  stripeCase('Stripe customers (modelled)', 'customer', '/v1/customers', { name: 'Bench' }),
  stripeCase('Stripe tax rates (modelled)', 'tax_rate', '/v1/tax_rates', { display_name: 'VAT', percentage: '20', inclusive: 'false' }),
  stripeCase('Stripe products (modelled)', 'product', '/v1/products', { name: 'Bench' }),
  stripeCase('Stripe webhook endpoints (modelled)', 'webhook_endpoint', '/v1/webhook_endpoints', { url: 'https://example.com/hook', 'enabled_events[0]': '*' }),
  stripeCase('Stripe invoices (modelled)', 'invoice', '/v1/invoices', async (twin) => ({ customer: await newCustomer(twin) })),
  stripeCase('Stripe subscriptions (modelled)', 'subscription', '/v1/subscriptions', async (twin) => ({
    customer: await newCustomer(twin),
    'items[0][price]': await monthlyPrice(twin),
    payment_behavior: 'default_incomplete',
  })),
  stripeCase('Stripe promotion codes (modelled)', 'promotion_code', '/v1/promotion_codes', async (twin) => ({
    'promotion[type]': 'coupon',
    'promotion[coupon]': ((await call(twin, 'POST', '/v1/coupons', { percent_off: '10', duration: 'once' })).body as { id: string }).id,
  })),
  stripeCase('Stripe portal configurations (modelled)', 'billing_portal_configuration', '/v1/billing_portal/configurations', {
    'features[invoice_history][enabled]': 'true',
  }),
  stripeCase('Stripe subscription schedules (modelled)', 'subscription_schedule', '/v1/subscription_schedules', async (twin) => ({
    customer: await newCustomer(twin),
    start_date: '1800000000',
    'phases[0][items][0][price]': await monthlyPrice(twin),
  })),
  stripeCase(
    'Stripe customer balance txns (modelled)',
    'customer_balance_transaction',
    '/v1/customers/{customer}/balance_transactions',
    { amount: '-500', currency: 'usd' },
    {
      createPath: async (twin) => `/v1/customers/${await newCustomer(twin)}/balance_transactions`,
    },
  ),
  stripeCase(
    'Stripe events, type=coupon.* (modelled)',
    'event',
    '/v1/events',
    { percent_off: '10', duration: 'once' },
    {
      createPath: async () => '/v1/coupons',
      query: 'type=coupon.*',
      listed: 'event',
    },
  ),
  stripeCase(
    "Stripe customer search, name:'Bench' (modelled)",
    'customer',
    '/v1/customers/search',
    { name: 'Bench' },
    {
      createPath: async () => '/v1/customers',
      query: `query=${encodeURIComponent("name:'Bench'")}`,
      pageToken: true,
    },
  ),
  stripeCase('Stripe plans (generic)', 'plan', '/v1/plans', { amount: '100', currency: 'usd', interval: 'month', 'product[name]': 'Bench' }),
  stripeCase('Stripe coupons (modelled)', 'coupon', '/v1/coupons', { percent_off: '10', duration: 'once' }),
  {
    name: 'GitHub releases (generic)',
    async prepare(count) {
      const twin = await start('github', `releases-${count}`);
      const me = (await call(twin, 'GET', '/user')).body.login as string;
      await call(twin, 'POST', '/user/repos', { name: 'bench' }, true);
      const made = (await call(twin, 'POST', `/repos/${me}/bench/releases`, { tag_name: 'v0' }, true)).body as Record<string, unknown>;
      fill(twin, 'repos.releases', made, count - 1, (i) => ({ external: `${me}/bench/${1000000 + i}`, id: 1000000 + i }));
      return {
        twin,
        first: () => call(twin, 'GET', `/repos/${me}/bench/releases?per_page=3`),
        next: () => call(twin, 'GET', `/repos/${me}/bench/releases?per_page=3&page=2`),
      };
    },
  },
];

export interface ListFigure {
  name: string;
  small: { first: number; next: number };
  large: { first: number; next: number };
}

export async function listCosts(): Promise<ListFigure[]> {
  dir = mkdtempSync(join(tmpdir(), 'bench-lists-'));
  try {
    return await measureAll();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureAll(): Promise<ListFigure[]> {
  const out: ListFigure[] = [];
  for (const c of CASES.filter((x) => !values.only || values.only.split(',').some((part) => x.name.toLowerCase().includes(part.toLowerCase())))) {
    const small = await c.prepare(10);
    const large = await c.prepare(LARGE);
    try {
      const [sf, lf, sn, ln] = await timeTogether([small.first, large.first, small.next, large.next]);
      out.push({ name: c.name, small: { first: sf!, next: sn! }, large: { first: lf!, next: ln! } });
    } finally {
      await small.twin.server.close();
      await large.twin.server.close();
    }
  }
  return out;
}

if (isMain) {
  console.log(`list pages (limit 3), medians of up to ${ITERATIONS} interleaved rounds, 10 records vs ${LARGE.toLocaleString('en')}`);
  console.log('list                                          first@10  first@N   ratio   next@10  next@N    ratio');
  for (const f of await listCosts()) {
    console.log(
      `${f.name.padEnd(45)} ${f.small.first.toFixed(2).padStart(6)}ms ${f.large.first.toFixed(2).padStart(7)}ms ${(f.large.first / f.small.first).toFixed(2).padStart(5)}×  ${f.small.next.toFixed(2).padStart(6)}ms ${f.large.next.toFixed(2).padStart(7)}ms ${(f.large.next / f.small.next).toFixed(2).padStart(5)}×`,
    );
  }
}
