import t from 'tap';
import { startTestControlPlane } from '../helpers/control-plane.js';

t.test('health, OpenAPI and unknown routes', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());

  const live = await cp.call('GET', '/health/live');
  t.equal(live.status, 200);
  t.same(live.body, { status: 'ok' });

  const ready = await cp.call('GET', '/health/ready');
  t.equal(ready.status, 200);
  t.equal(ready.body.driver, 'process');

  const spec = await cp.call('GET', '/openapi.json');
  t.equal(spec.status, 200);
  t.equal(spec.body.info.version, '0.1.0');
  t.ok(spec.body.tags.some((tag: { name: string }) => tag.name === 'api-keys'));

  const unknown = await cp.call('GET', '/nope', { token: await cp.token({}) });
  t.equal(unknown.status, 404);
  t.same(unknown.body, { detail: 'Not Found' });

  t.equal((await cp.call('GET', '/nope')).status, 404, 'unknown route is 404 even without a credential');
  const anonymous = await cp.call('GET', '/openapi.json');
  t.equal(anonymous.status, 200, 'public route needs no credential');
});
