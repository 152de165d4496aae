// One organization does everything hostile at once (issue 33; the scenario is shared with
// scripts/bench/hostile-tenant.ts, which measures the latencies): a test attempt with a
// 3,500-character pattern over 3,000 logged 5 KB rows, a GraphQL query of 30 fragments, four nested
// handlebars loops, a JSON body of 300,000 keys and a year's advance of a daily subscription. Each
// ends with its documented answer or refusal — none is a 5xx or a hang — and another organization
// meanwhile gets every request it sends through its gateway and the API answered.

import t from 'tap';
import { startOrchestratedControlPlane } from '../orchestration/helpers.js';
import { ApiClient, dailySubscription, fillLog, runHostileTenant } from '../../scripts/bench/hostile-tenant-scenario.js';

const cp = await startOrchestratedControlPlane({ defaultPlan: 'paygo' });
t.teardown(() => cp.stop());
const api = new ApiClient(cp.url);
const tokenX = await cp.token({ email: 'x@example.com', org: 'hostile', role: 'admin' });
const tokenV = await cp.token({ email: 'v@example.com', org: 'victim', role: 'admin' });

const [x, v] = await Promise.all([api.readyTenant(tokenX, 'hostile', ['stripe', 'github', 'sendgrid']), api.readyTenant(tokenV, 'victim', ['stripe'])]);
fillLog(cp.dataDir, cp.services.orchestration.store.environmentById(x.environmentId)!.organization_id, x, 3000, 5000);
await dailySubscription(x.twins.stripe!);
const victimStripe = v.twins.stripe!;
const customer = (await (
  await fetch(`${victimStripe.url}/v1/customers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${victimStripe.key}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=v%40example.com',
  })
).json()) as { id: string };

t.test('every hostile request ends with its answer or refusal while the other organization is served', async (t) => {
  // The other organization reads its customer through the gateway and its environment through the API, one after another, until X is done.
  let done = false;
  const victim = { gateway: { ok: 0, failed: [] as string[] }, api: { ok: 0, failed: [] as string[] } };
  const read = async (kind: 'gateway' | 'api', url: string, token: string) => {
    while (!done) {
      try {
        const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status === 200) victim[kind].ok++;
        else victim[kind].failed.push(String(res.status));
      } catch (e) {
        victim[kind].failed.push((e as Error).message);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const reading = Promise.all([
    read('gateway', `${victimStripe.url}/v1/customers/${customer.id}`, victimStripe.key),
    read('api', `${cp.url}/environments/${v.environmentId}`, tokenV),
  ]);
  const run = await runHostileTenant(api, x, 1).finally(() => {
    done = true;
  });
  await reading;

  const by = Object.fromEntries(run.requests.map((r) => [r.what.split(':')[0], r]));
  t.equal(run.requests.length, 5, 'five hostile requests');
  for (const r of run.requests) t.ok(typeof r.status === 'number' && r.status < 500, `${r.what}: ${r.status} (${Math.round(r.ms)} ms)`);

  const attempt = run.bodies['test attempt: 3,500-character pattern over the log'];
  t.equal(by['test attempt']!.status, 201, 'the attempt ends with a verdict');
  t.equal(typeof attempt.passed, 'boolean', 'passed or failed, never pending');
  t.ok(Array.isArray(attempt.results) && attempt.results.length === 1, 'one result for the one assertion');

  const graphql = run.bodies['GitHub GraphQL: 30 fragments'];
  t.equal(by['GitHub GraphQL']!.status, 200);
  t.type(graphql.data?.viewer?.login, 'string', 'measured once per fragment and run');

  const sendgrid = run.bodies['SendGrid: 4 nested #each over 100 items'];
  t.equal(by.SendGrid!.status, 400, 'the render budget refuses it');
  t.match(sendgrid.errors, [{ field: 'personalizations.0.dynamic_template_data', message: /loops ran more than/ }]);

  t.equal(by.Stripe!.status, 400, "refused in Stripe's error shape");
  t.equal(run.bodies['Stripe: JSON body of 300,000 keys'].error?.type, 'invalid_request_error');

  t.ok([200, 202].includes(by['advance the Stripe twin 1 years (the request)']!.status as number), 'the advance is accepted as a job');
  t.equal(run.advance.status, 'succeeded', 'and the job finishes');

  t.ok(victim.gateway.ok > 0, `the other organization's gateway reads answered (${victim.gateway.ok})`);
  t.ok(victim.api.ok > 0, `its API reads answered (${victim.api.ok})`);
  t.same(victim.gateway.failed, [], 'no gateway read failed');
  t.same(victim.api.failed, [], 'no API read failed');
});
