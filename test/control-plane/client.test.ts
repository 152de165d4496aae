// The typed client: its checked-in types are what openapi-typescript makes of the served document
// (regenerate with `npm run generate-client`), it is reachable as the package's `twins/client`
// export, and it turns answers into data or into the API's own sentence.

import t from 'tap';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { renderSchema, SCHEMA_FILE } from '../../scripts/generate-client.js';
import { createTwinsClient, ok, TwinsApiError, TwinsUnreachableError } from '../../control-plane/client/index.js';

t.test('the checked-in client types match the served document', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const doc = (await cp.call('GET', '/openapi.json')).body;
  const fresh = await renderSchema(doc);
  t.ok(fresh === readFileSync(SCHEMA_FILE, 'utf8'), 'control-plane/client/schema.ts is stale: run `npm run generate-client`');
  const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) =>
    Object.values(ops).map((op) => op.operationId),
  );
  t.ok(ids.length >= 50);
  t.equal(ids.filter((id) => !id).length, 0, 'every operation has an operationId');
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

t.test('the client answers data or the API sentence', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ role: 'admin' });
  // A token function is asked before each request.
  let asked = 0;
  const twins = createTwinsClient({ url: cp.url, token: () => (asked++, token) });

  const catalog = await ok(twins.GET('/twins/catalog'));
  t.same(catalog.map((c) => c.slug).sort(), [...TWIN_SLUGS].sort());
  t.equal(asked, 1);

  const key = await ok(twins.POST('/organizations/current/api-keys', { body: { name: 'client test' } }));
  t.match(key.token, /^twk_/);
  const withKey = createTwinsClient({ url: cp.url, token: key.token });
  t.equal((await ok(withKey.GET('/users/me'))).email, 'ada@example.com');

  const missing = await ok(twins.GET('/environments/{environment_id}', { params: { path: { environment_id: '7b0f0a9e-4a1f-4d59-9b8c-0a1d2e3f4a5b' } } })).catch(
    (e: unknown) => e,
  );
  t.ok(missing instanceof TwinsApiError);
  t.equal((missing as TwinsApiError).status, 404);
  t.equal((missing as TwinsApiError).message, 'Environment 7b0f0a9e-4a1f-4d59-9b8c-0a1d2e3f4a5b not found.');

  const invalid = await ok(twins.POST('/environments', { body: { name: '' } })).catch((e: unknown) => e);
  t.equal((invalid as TwinsApiError).status, 422);
  t.match((invalid as TwinsApiError).message, /^body\.name: String should have at least 1 character/);

  const anonymous = await ok(createTwinsClient({ url: cp.url }).GET('/users/me')).catch((e: unknown) => e);
  t.equal((anonymous as TwinsApiError).message, 'Not authenticated');
});

t.test('an unreachable control plane is one sentence', async (t) => {
  const cp = await startTestControlPlane();
  const url = cp.url;
  await cp.stop();
  const err = await ok(createTwinsClient({ url }).GET('/twins/catalog')).catch((e: unknown) => e);
  t.ok(err instanceof TwinsUnreachableError);
  t.match((err as Error).message, new RegExp(`^Cannot reach the control plane at ${url.replace(/\./g, '\\.')}: ECONNREFUSED\\.$`));
});

const built = existsSync(join(import.meta.dirname, '../../dist/control-plane/client/index.js'));
t.test('the package exports ./client', { skip: built ? false : 'dist/ is not built (make build)' }, async (t) => {
  const mod = (await import('twins/client')) as typeof import('../../control-plane/client/index.js');
  t.type(mod.createTwinsClient, 'function');
  t.type(mod.ok, 'function');
});
