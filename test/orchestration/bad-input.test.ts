import t from 'tap';
import { startOrchestratedControlPlane } from './helpers.js';

t.test('bad input to the environments, twins, catalog and sandboxes areas is a clear 4xx', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ org: 'bad-input' });
  const unknown = '2b0f4c55-2a8b-4d6b-9d37-1a1d3f0b8f11';
  const cases: [string, string, unknown, number][] = [
    ['POST', '/environments', { name: '', twins: [{ twin: 'stripe' }] }, 422],
    ['POST', '/environments', { name: 'x', twins: 'stripe' }, 422],
    ['POST', '/environments', { name: 'x', twins: [{ twin: 'stripe' }], ttl_seconds: 0 }, 422],
    ['POST', '/environments', { name: 'x', twins: [{ twin: 'stripe', seed_id: 'nope' }] }, 404],
    ['POST', '/environments', [], 422],
    ['PATCH', `/environments/${unknown}`, { name: 'x' }, 404],
    ['POST', `/environments/${unknown}/twins`, { twin: 'stripe' }, 404],
    ['POST', `/environments/${unknown}/reset`, undefined, 404],
    ['DELETE', `/environments/${unknown}/twins/${unknown}`, undefined, 404],
    ['GET', `/environments/${unknown}/logs?page=0`, undefined, 422],
    ['GET', `/environments/${unknown}/logs`, undefined, 404],
    ['GET', `/environments/${unknown}/twins/${unknown}/records/customer`, undefined, 404],
    ['PUT', `/environments/${unknown}/twins/${unknown}/records/customer/cus_1`, { fields: 'x' }, 422],
    ['PUT', `/environments/${unknown}/twins/${unknown}/records/customer/cus_1`, { fields: {} }, 404],
    ['POST', `/twins/${unknown}/advance`, { at: 'yesterday' }, 422],
    ['POST', `/twins/${unknown}/advance`, { at: '2030-01-01T00:00:00Z' }, 404],
    ['POST', `/twins/${unknown}/credential`, undefined, 404],
    ['GET', `/twins/not-a-uuid`, undefined, 422],
    ['GET', `/sandboxes/${unknown}`, undefined, 404],
    ['GET', '/sandboxes?size=0', undefined, 422],
  ];
  for (const [method, path, body, status] of cases) {
    const res = await cp.call(method, path, { token, body });
    t.equal(res.status, status, `${method} ${path} ${JSON.stringify(body) ?? ''}`);
    if (status === 422) t.ok(Array.isArray(res.body.detail), 'Pydantic-style detail list');
    else t.type(res.body.detail, 'string', 'a sentence');
  }
  t.equal((await cp.call('GET', '/environments')).status, 401, 'a credential is required');
});
