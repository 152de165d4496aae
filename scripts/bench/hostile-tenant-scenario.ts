// One organization doing everything hostile it can at once (issue 33), shared by the bench
// (scripts/bench/hostile-tenant.ts, with figures) and the test (test/security/hostile-tenant.test.ts,
// with verdicts): a test attempt whose 3,500-character pattern runs over 3,000 logged 5 KB rows, a
// GraphQL query of 30 fragments to its GitHub twin, four nested `#each` in a SendGrid dynamic
// template, a JSON body of 300,000 keys to its Stripe twin, and a long advance of that Stripe twin
// (a daily subscription). Every one of them must end — an answer or a refusal in the documented
// shape — and meanwhile another organization's API and gateway must keep answering.
// Loopback only: every request goes to the control plane or the twins it started.

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LOG_FILE_NAME, RequestLogStore, type RequestLogRow } from '../../control-plane/store/request-logs.js';
import { patternProblem } from '../../control-plane/testing/pattern.js';

export interface TenantTwin {
  id: string;
  url: string;
  key: string;
}

export interface Tenant {
  token: string;
  environmentId: string;
  twins: Record<string, TenantTwin>;
}

/** What one hostile request came to: its status (or the error that ended it) and how long it took. */
export interface HostileOutcome {
  what: string;
  status: number | 'error';
  ms: number;
  detail?: string;
}

export interface HostileRun {
  requests: HostileOutcome[];
  /** The advance as a job: how it ended and when (from the request). */
  advance: { status: string; ms: number };
}

/** A pattern of exactly `length` characters that RE2 accepts and that costs real work per row: nested repetition of classes. */
export function hostilePattern(length = 3500): string {
  const unit = '([a-z ]+[0-9]?)*';
  let pattern = unit.repeat(Math.floor((length - 1) / unit.length));
  pattern += 'q'.repeat(length - pattern.length);
  const problem = patternProblem(pattern);
  if (problem) throw new Error(`the hostile pattern is refused at creation, so it would test nothing: ${problem}`);
  return pattern;
}

/** 30 fragments, each spreading the previous three times (3^29 fields if expanded naively). */
export function fragmentQuery(count = 30): string {
  let text = 'fragment F0 on User { login }\n';
  for (let k = 1; k < count; k++) text += `fragment F${k} on User { ...F${k - 1} ...F${k - 1} ...F${k - 1} }\n`;
  return `query { viewer { ...F${count - 1} } }\n${text}`;
}

/** Four nested loops over the same 100 items: 100 million iterations if nothing stops it. */
export const NESTED_EACH = '{{#each a}}{{#each @root.a}}{{#each @root.a}}{{#each @root.a}}<b>{{this}}</b>{{/each}}{{/each}}{{/each}}{{/each}}';

/** A JSON object of `keys` keys (3.6 MB at 300,000). */
export function manyKeysJson(keys = 300_000): string {
  return `{${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(',')}}`;
}

export class ApiClient {
  constructor(readonly base: string) {}

  async call(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
    const res = await fetch(this.base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** An environment with these twins, ready, and a key for each. */
  async readyTenant(token: string, name: string, slugs: string[]): Promise<Tenant> {
    let env = (await this.call(token, 'POST', '/environments', { name, twins: slugs.map((twin) => ({ twin })) })).body;
    for (let i = 0; env.status !== 'ready'; i++) {
      if (i > 6000 || env.status === 'failed') throw new Error(`${name}: environment ${env.status}`);
      await new Promise((r) => setTimeout(r, 20));
      env = (await this.call(token, 'GET', `/environments/${env.id}`)).body;
    }
    const twins: Record<string, TenantTwin> = {};
    for (const twin of env.twins as { id: string; twin_slug: string; url: string }[]) {
      const key = (await this.call(token, 'POST', `/twins/${twin.id}/credential`)).body.api_key as string;
      twins[twin.twin_slug] = { id: twin.id, url: twin.url, key };
    }
    return { token, environmentId: env.id, twins };
  }
}

/**
 * `rows` logged requests of `bytes` each in the tenant's Stripe log, written straight to the log
 * file of the control plane in `dataDir` (setup, not traffic; `organizationId` is the tenant's).
 */
export function fillLog(dataDir: string, organizationId: string, tenant: Tenant, rows: number, bytes = 5000): void {
  const db = new Database(join(dataDir, LOG_FILE_NAME));
  db.pragma('busy_timeout = 10000');
  const store = new RequestLogStore(db);
  const note = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, bytes - 40);
  const stripe = tenant.twins.stripe!;
  const start = Date.now() - rows;
  const batch: RequestLogRow[] = [];
  for (let i = 0; i < rows; i++) {
    batch.push({
      id: randomUUID(),
      organization_id: organizationId,
      environment_id: tenant.environmentId,
      environment_twin_id: stripe.id,
      twin_slug: 'stripe',
      actor: 'agent',
      method: 'POST',
      path: '/v1/customers',
      query_string: '',
      status_code: 200,
      duration_ms: 1,
      occurred_at: new Date(start + i).toISOString(),
      request_headers: '{"user-agent":"bench"}',
      request_content_type: 'application/json',
      request_body: JSON.stringify({ email: `user${i}@example.com`, note }),
      request_body_truncated: 0,
      response_content_type: 'application/json',
      response_body: `{"id":"cus_${i}","object":"customer"}`,
      response_body_truncated: 0,
    });
  }
  store.append(batch);
  db.close();
}

/** A daily subscription on the tenant's Stripe twin, for the advance to bill. */
export async function dailySubscription(twin: TenantTwin): Promise<void> {
  const form = async (path: string, fields: Record<string, string>) => {
    const res = await fetch(twin.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${twin.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const product = await form('/v1/products', { name: 'Daily' });
  const price = await form('/v1/prices', { product: product.id, unit_amount: '100', currency: 'usd', 'recurring[interval]': 'day' });
  const customer = await form('/v1/customers', { email: 'daily@example.com' });
  const pm = await form('/v1/payment_methods/pm_card_visa/attach', { customer: customer.id });
  await form('/v1/subscriptions', { customer: customer.id, 'items[0][price]': price.id, default_payment_method: pm.id });
}

async function timed(what: string, run: () => Promise<Response>): Promise<HostileOutcome & { body?: any; location?: string }> {
  const t0 = performance.now();
  try {
    const res = await run();
    const location = res.headers.get('location') ?? undefined;
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { what, status: res.status, ms: performance.now() - t0, body, location };
  } catch (e) {
    return { what, status: 'error', ms: performance.now() - t0, detail: (e as Error).message };
  }
}

/**
 * Everything at once from `x`: the attempt, the GraphQL query, the template send, the JSON body and
 * the advance by `advanceYears` (followed to its end). Each request's own answer time is recorded.
 */
export async function runHostileTenant(api: ApiClient, x: Tenant, advanceYears: number): Promise<HostileRun & { bodies: Record<string, any> }> {
  const github = x.twins.github!;
  const sendgrid = x.twins.sendgrid!;
  const stripe = x.twins.stripe!;
  // Setup first (not measured): the test and the template.
  const test = await api.call(x.token, 'POST', '/tests', {
    name: 'hostile pattern',
    twins: ['stripe'],
    assertions: [{ says: 'a customer note matches the pattern', match: { body: { '/note': { matches: hostilePattern() } } } }],
  });
  if (test.status !== 201) throw new Error(`POST /tests: ${test.status} ${JSON.stringify(test.body)}`);
  const sg = (path: string, body: unknown) =>
    fetch(sendgrid.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${sendgrid.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const template = (await (await sg('/v3/templates', { name: 'Loops', generation: 'dynamic' })).json()) as { id: string };
  const version = await sg(`/v3/templates/${template.id}/versions`, { name: 'v1', subject: 'loops', html_content: NESTED_EACH });
  if (version.status !== 201) throw new Error(`template version: ${version.status}`);
  // Each path once with benign input first (not measured): a twin builds its GraphQL schema and
  // compiles a template on first use (~2 s for GitHub's schema), which no hostile input causes.
  await (
    await fetch(`${github.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `bearer ${github.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { login } }' }),
    })
  ).arrayBuffer();
  const benign = await sg('/v3/mail/send', {
    from: { email: 'x@example.com' },
    template_id: template.id,
    personalizations: [{ to: [{ email: 'y@example.com' }], dynamic_template_data: { a: [1, 2] } }],
  });
  if (benign.status !== 202) throw new Error(`benign send: ${benign.status}`);
  const manyKeys = manyKeysJson();
  const env = (await api.call(x.token, 'GET', `/environments/${x.environmentId}`)).body;
  const to = new Date(Date.parse(env.clock));
  to.setUTCFullYear(to.getUTCFullYear() + advanceYears);

  const advanceStarted = performance.now();
  const outcomes = await Promise.all([
    timed('test attempt: 3,500-character pattern over the log', () =>
      fetch(`${api.base}/tests/${test.body.id}/attempts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${x.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ environment_id: x.environmentId }),
      }),
    ),
    timed('GitHub GraphQL: 30 fragments', () =>
      fetch(`${github.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `bearer ${github.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: fragmentQuery() }),
      }),
    ),
    timed('SendGrid: 4 nested #each over 100 items', () =>
      sg('/v3/mail/send', {
        from: { email: 'x@example.com' },
        template_id: template.id,
        personalizations: [{ to: [{ email: 'y@example.com' }], dynamic_template_data: { a: Array.from({ length: 100 }, (_, i) => i) } }],
      }),
    ),
    timed('Stripe: JSON body of 300,000 keys', () =>
      fetch(`${stripe.url}/v1/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stripe.key}`, 'content-type': 'application/json' },
        body: manyKeys,
      }),
    ),
    timed(`advance the Stripe twin ${advanceYears} years (the request)`, () =>
      fetch(`${api.base}/twins/${stripe.id}/advance`, {
        method: 'POST',
        headers: { authorization: `Bearer ${x.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ at: to.toISOString() }),
      }),
    ),
  ]);
  const bodies: Record<string, any> = {};
  for (const o of outcomes) bodies[o.what] = o.body;
  // The advance job, followed to its end.
  const asked = outcomes.at(-1)!;
  let advance = { status: asked.status === 200 ? 'succeeded' : String(asked.status), ms: asked.ms };
  if (asked.status === 202) {
    const location = asked.location;
    if (!location) throw new Error(`advance: 202 without a Location: ${JSON.stringify(asked.body)}`);
    for (;;) {
      await new Promise((r) => setTimeout(r, 200));
      const got = (await api.call(x.token, 'GET', location)).body;
      if (got.status !== 'running' && got.status !== 'queued') {
        advance = { status: got.status, ms: performance.now() - advanceStarted };
        break;
      }
    }
  }
  return { requests: outcomes.map(({ body: _body, location: _location, ...o }) => o), advance, bodies };
}
