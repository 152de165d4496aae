// The generic layer's lies of issue 32, asked again through the providers' official SDKs (`stripe`,
// `@octokit/rest`, `@slack/web-api`): each probe must get the truth (what the provider answers, the
// state after it checked) or an honest refusal: the provider's error envelope naming the operation
// ("This twin does not simulate …"), raised by the SDK as its own error class, with
// `Twin-Fidelity: unsupported`. A 2xx that invents a result is a lie and fails the test. The counts
// (faithful / refused) are printed per twin.

import t, { type Test } from 'tap';
import Stripe from 'stripe';
import { WebClient } from '@slack/web-api';
import { startTwin } from '../helpers/twin.js';
import { startGitHub } from '../twins/github/setup.js';

type Verdict = { kind: 'faithful' | 'refused' | 'lie'; detail: string };

const NOT_SIMULATED = /^This twin does not simulate (GET|POST|PUT|PATCH|DELETE) \/\S+\./;

/** Run each probe, fail any lie or malformed refusal, and print the counts. */
async function runProbes(t: Test, twin: string, probes: [string, () => Promise<Verdict>][]): Promise<void> {
  const counts = { faithful: 0, refused: 0, lie: 0 };
  for (const [name, probe] of probes) {
    let verdict: Verdict;
    try {
      verdict = await probe();
    } catch (e) {
      verdict = { kind: 'lie', detail: `unexpected: ${(e as Error).message}` };
    }
    counts[verdict.kind]++;
    t.not(verdict.kind, 'lie', `${name}: ${verdict.kind} (${verdict.detail})`);
  }
  t.equal(counts.faithful + counts.refused, probes.length, `every probe of ${twin} answers faithfully or refuses honestly`);
  t.comment(`${twin}: ${probes.length} probes, ${counts.faithful} faithful, ${counts.refused} refused honestly, ${counts.lie} lies`);
}

t.test('Stripe: refunds past the charge, quotes, payment links, tokens, upcoming invoice', async (t) => {
  const twin = await startTwin('stripe');
  t.teardown(() => twin.close());
  const u = new URL(twin.url);
  const stripe = new Stripe(twin.apiKey, { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 });

  /** An honest refusal as the `stripe` SDK raises it: `StripeAPIError`, 501, the sentence, the header. */
  const refusal = (e: unknown): Verdict | undefined => {
    if (!(e instanceof Stripe.errors.StripeAPIError) || e.statusCode !== 501) return undefined;
    const header = (e.headers as Record<string, string> | undefined)?.['twin-fidelity'];
    if (header !== 'unsupported' || !NOT_SIMULATED.test(e.message) || e.type !== 'StripeAPIError') {
      return { kind: 'lie', detail: `a 501 without the envelope: ${header} ${e.message}` };
    }
    return { kind: 'refused', detail: e.message };
  };
  /** What a call that should fail answered: the provider's own refusal (`faithful`), an honest one, or a lie. */
  const failing = async (call: Promise<unknown>, faithful: (e: InstanceType<typeof Stripe.errors.StripeError>) => boolean): Promise<Verdict> => {
    try {
      const ok = await call;
      return { kind: 'lie', detail: `2xx: ${JSON.stringify(ok).slice(0, 160)}` };
    } catch (e) {
      const r = refusal(e);
      if (r) return r;
      if (e instanceof Stripe.errors.StripeError && faithful(e)) return { kind: 'faithful', detail: `${e.statusCode} ${e.type}: ${e.message}` };
      return { kind: 'lie', detail: String(e) };
    }
  };

  const customer = await stripe.customers.create({ email: 'probe@example.com' });
  const product = await stripe.products.create({ name: 'Seat' });
  const monthly = await stripe.prices.create({ product: product.id, currency: 'usd', unit_amount: 1200, recurring: { interval: 'month' } });
  const setup = await stripe.prices.create({ product: product.id, currency: 'usd', unit_amount: 500, recurring: { interval: 'month' } });

  await runProbes(t, 'stripe', [
    [
      'POST /v1/charges/{charge}/refunds amount=999999 on a 3,000 charge',
      async () => {
        const charge = await stripe.charges.create({ amount: 3000, currency: 'usd', source: 'tok_visa' });
        const verdict = await failing(
          stripe.rawRequest('POST', `/v1/charges/${charge.id}/refunds`, { amount: 999999 }),
          (e) => e.statusCode === 400 && e.type === 'StripeInvalidRequestError',
        );
        const after = await stripe.charges.retrieve(charge.id);
        if (after.amount_refunded !== 0 || after.refunded) return { kind: 'lie', detail: `the charge changed: ${after.amount_refunded} refunded` };
        return verdict;
      },
    ],
    [
      'POST /v1/refunds amount=999999 on a 3,000 charge',
      async () => {
        const charge = await stripe.charges.create({ amount: 3000, currency: 'usd', source: 'tok_visa' });
        const verdict = await failing(
          stripe.refunds.create({ charge: charge.id, amount: 999999 }),
          (e) => e.statusCode === 400 && e.type === 'StripeInvalidRequestError' && /greater than/i.test(e.message),
        );
        if ((await stripe.charges.retrieve(charge.id)).amount_refunded !== 0) return { kind: 'lie', detail: 'the charge changed' };
        return verdict;
      },
    ],
    [
      'quotes.create with two line items',
      async () => {
        try {
          const quote = await stripe.quotes.create({
            customer: customer.id,
            line_items: [
              { price: monthly.id, quantity: 2 },
              { price: setup.id, quantity: 1 },
            ],
          });
          const lines = await stripe.quotes.listLineItems(quote.id);
          if (quote.status !== 'draft' || quote.amount_total !== 2900 || lines.data.length !== 2) {
            return { kind: 'lie', detail: `${quote.status}, ${quote.amount_total}, ${lines.data.length} lines` };
          }
          return { kind: 'faithful', detail: 'a draft quote with its lines and total' };
        } catch (e) {
          return refusal(e) ?? { kind: 'lie', detail: String(e) };
        }
      },
    ],
    [
      'quotes.accept',
      async () => {
        const quotes = await stripe.quotes.list({ limit: 1 }).catch((e) => e);
        const id = Array.isArray(quotes?.data) && quotes.data[0] ? quotes.data[0].id : 'qt_1NoSuchQuote00000000000';
        return failing(stripe.quotes.accept(id), (e) => e.statusCode === 400 || e.statusCode === 404);
      },
    ],
    [
      'paymentLinks.create with a price that does not exist',
      () =>
        failing(
          stripe.paymentLinks.create({ line_items: [{ price: 'price_1NoSuchPrice000000000000', quantity: 1 }] }),
          (e) => e.type === 'StripeInvalidRequestError' && /No such price/.test(e.message),
        ),
    ],
    [
      "tokens.create({card: {number: '1234'}})",
      () =>
        failing(
          stripe.tokens.create({ card: { number: '1234', exp_month: '12', exp_year: '2030', cvc: '123' } }),
          (e) => e.type === 'StripeCardError' && e.code === 'incorrect_number',
        ),
    ],
    [
      'GET /v1/invoices/upcoming (removed in 2025)',
      () =>
        failing(
          // The SDK takes a GET's parameters in the path only.
          stripe.rawRequest('GET', `/v1/invoices/upcoming?customer=${customer.id}`, null as never),
          // At the SDK's version `upcoming` is an invoice id: Stripe refuses the parameter, or knows no such invoice.
          (e) => e.type === 'StripeInvalidRequestError' && (e.code === 'parameter_unknown' || e.code === 'resource_missing'),
        ),
    ],
  ]);
});

t.test('GitHub: git objects, gists, merges, computed reads, update-branch, deployments, secrets key', async (t) => {
  const gh = await startGitHub();
  t.teardown(() => gh.close());
  const { octokit } = gh;
  const me = (await octokit.users.getAuthenticated()).data.login;
  const repo = 'probes';
  await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
  const at = { owner: me, repo };
  const issue = await octokit.issues.create({ ...at, title: 'needle in the haystack', assignees: [me] });

  const SHA = /^[0-9a-f]{40}$/;
  /** An honest refusal as Octokit raises it: `RequestError`, 501, `{message, documentation_url}`, the header. */
  const refusal = (e: any): Verdict | undefined => {
    if (e?.name !== 'HttpError' || e.status !== 501) return undefined;
    const body = e.response?.data;
    const header = e.response?.headers?.['twin-fidelity'];
    if (header !== 'unsupported' || !NOT_SIMULATED.test(body?.message ?? '') || typeof body?.documentation_url !== 'string') {
      return { kind: 'lie', detail: `a 501 without the envelope: ${header} ${JSON.stringify(body)}` };
    }
    return { kind: 'refused', detail: body.message };
  };
  /** A call whose 2xx is checked by `truth`; a GitHub 404/422 counts as faithful when `refusesToo`. */
  const probe = async <T>(
    call: () => Promise<{ status: number; data: T }>,
    truth: (data: T, status: number) => string | undefined,
    refusesToo = false,
  ): Promise<Verdict> => {
    try {
      const res = await call();
      const wrong = truth(res.data, res.status);
      return wrong ? { kind: 'lie', detail: wrong } : { kind: 'faithful', detail: `${res.status}` };
    } catch (e: any) {
      const r = refusal(e);
      if (r) return r;
      if (refusesToo && (e?.status === 404 || e?.status === 422) && typeof e.response?.data?.message === 'string') {
        return { kind: 'faithful', detail: `${e.status} ${e.response.data.message}` };
      }
      return { kind: 'lie', detail: `${e?.status} ${JSON.stringify(e?.response?.data ?? String(e)).slice(0, 160)}` };
    }
  };

  await runProbes(t, 'github', [
    [
      'POST git/blobs',
      () =>
        probe(
          () => octokit.git.createBlob({ ...at, content: 'hello', encoding: 'utf-8' }),
          (d) => (SHA.test(d.sha) ? undefined : `sha ${d.sha}`),
        ),
    ],
    [
      'POST git/trees',
      () =>
        probe(
          () => octokit.git.createTree({ ...at, tree: [{ path: 'a.txt', mode: '100644', type: 'blob', content: 'a' }] }),
          (d) => (SHA.test(d.sha) ? undefined : `sha ${d.sha}`),
        ),
    ],
    [
      'POST git/commits',
      () =>
        probe(
          () => octokit.git.createCommit({ ...at, message: 'm', tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904' }),
          (d) => (SHA.test(d.sha) ? undefined : `sha ${d.sha}`),
          true,
        ),
    ],
    [
      'POST /gists',
      () =>
        probe(
          () => octokit.gists.create({ files: { 'a.txt': { content: 'a' } } }),
          (d) => (d.id && d.html_url && d.files?.['a.txt'] ? undefined : `id ${d.id}, url ${d.html_url}`),
        ),
    ],
    [
      'POST /merges',
      () =>
        probe(
          () => octokit.repos.merge({ ...at, base: 'main', head: 'main' }),
          (d, status) => (status === 204 || SHA.test((d as { sha?: string })?.sha ?? '') ? undefined : `${status} ${JSON.stringify(d)}`),
          true,
        ),
    ],
    [
      'GET /readme',
      () =>
        probe(
          () => octokit.repos.getReadme(at),
          (d) => (Buffer.from(d.content ?? '', 'base64').length > 0 ? undefined : 'empty content'),
          true,
        ),
    ],
    [
      'GET releases/latest',
      async () => {
        await octokit.repos.createRelease({ ...at, tag_name: 'v1.0.0', name: 'one' }).catch(() => undefined);
        return probe(
          () => octokit.repos.getLatestRelease(at),
          (d) => (d.tag_name === 'v1.0.0' ? undefined : `tag_name ${JSON.stringify(d.tag_name)}`),
        );
      },
    ],
    [
      'GET search/code',
      () =>
        probe(
          // The auto-initialised README's content is `# <repo name>`: code search reads contents.
          () => octokit.search.code({ q: `${repo} repo:${me}/${repo}` }),
          (d) => (d.items.some((i) => i.path === 'README.md') ? undefined : `${d.total_count} results, the README not among them`),
        ),
    ],
    [
      'GET search/issues',
      () =>
        probe(
          () => octokit.search.issuesAndPullRequests({ q: `needle repo:${me}/${repo}` }),
          (d) => (d.items.some((i) => i.number === issue.data.number) ? undefined : `${d.total_count} results, the issue not among them`),
        ),
    ],
    [
      'GET /issues',
      () =>
        probe(
          () => octokit.issues.list({ filter: 'assigned' }),
          (d) => (d.some((i) => i.number === issue.data.number) ? undefined : `${d.length} issues, the assigned one not among them`),
        ),
    ],
    [
      'PUT pulls/{n}/update-branch',
      () =>
        probe(
          () => octokit.pulls.updateBranch({ ...at, pull_number: 4242 }),
          (_d, status) => `${status} for a pull request that does not exist`,
          true,
        ),
    ],
    [
      'POST deployments',
      () =>
        probe(
          // 201 a deployment, or 202 `{message}` when GitHub merged the default branch first.
          () =>
            octokit.repos.createDeployment({ ...at, ref: 'main', auto_merge: false, required_contexts: [] }) as unknown as Promise<{
              status: number;
              data: { sha?: string };
            }>,
          (d) => (SHA.test(d.sha ?? '') ? undefined : `sha ${JSON.stringify(d.sha)}`),
          true,
        ),
    ],
    [
      'GET actions/secrets/public-key',
      () =>
        probe(
          () => octokit.actions.getRepoPublicKey(at),
          (d) => (Buffer.from(d.key, 'base64').length === 32 && d.key_id ? undefined : `key ${JSON.stringify(d.key)}`),
        ),
    ],
  ]);
});

t.test('Slack: rtm.connect, tooling.tokens.rotate, oauth.access', async (t) => {
  const twin = await startTwin('slack');
  t.teardown(() => twin.close());
  // The SDK's platform error carries the body, not the headers: its own `fetch` option sees them.
  let fidelity: string | null = null;
  const web = new WebClient(twin.apiKey, {
    slackApiUrl: `${twin.url}/api/`,
    retryConfig: { retries: 0 },
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await fetch(input, init);
      fidelity = res.headers.get('twin-fidelity');
      return res;
    },
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} } as never,
  } as ConstructorParameters<typeof WebClient>[1]);

  /** A call whose `ok: true` is checked by `truth`; Slack's own `ok: false` errors in `faithfulErrors`. */
  const probe = async (
    method: string,
    args: Record<string, unknown>,
    truth: (d: any) => string | undefined,
    faithfulErrors: string[] = [],
  ): Promise<Verdict> => {
    try {
      const res = await web.apiCall(method, args);
      const wrong = truth(res);
      return wrong ? { kind: 'lie', detail: wrong } : { kind: 'faithful', detail: 'ok' };
    } catch (e: any) {
      // `@slack/web-api` raises `ok: false` as a platform error (`code: slack_webapi_platform_error`).
      if (e?.code !== 'slack_webapi_platform_error') return { kind: 'lie', detail: String(e) };
      const data = e.data;
      if (data?.error === 'not_supported_by_twin') {
        const said = data.response_metadata?.messages?.[0]?.replace(/^\[ERROR\] /, '') ?? '';
        if (fidelity !== 'unsupported' || !NOT_SIMULATED.test(said)) return { kind: 'lie', detail: `a refusal without the sentence: ${fidelity} ${said}` };
        return { kind: 'refused', detail: said };
      }
      if (faithfulErrors.includes(data?.error)) return { kind: 'faithful', detail: data.error };
      return { kind: 'lie', detail: JSON.stringify(data) };
    }
  };

  await runProbes(t, 'slack', [
    [
      'rtm.connect',
      () => probe('rtm.connect', {}, (d) => (typeof d.url === 'string' && /^wss?:\/\/(127\.0\.0\.1|localhost)/.test(d.url) ? undefined : `url ${d.url}`)),
    ],
    [
      'tooling.tokens.rotate',
      () =>
        probe(
          'tooling.tokens.rotate',
          { refresh_token: 'xoxe-1-nope' },
          (d) => (typeof d.token === 'string' && d.token.startsWith('xoxe') ? undefined : `token ${JSON.stringify(d.token)}`),
          ['invalid_refresh_token'],
        ),
    ],
    [
      'oauth.access',
      () =>
        probe(
          'oauth.access',
          { client_id: '1.2', client_secret: 'nope', code: 'nope' },
          (d) => `ok: true for a code never issued: ${JSON.stringify(d).slice(0, 120)}`,
          ['invalid_code', 'invalid_client_id', 'bad_client_secret'],
        ),
    ],
  ]);
});
