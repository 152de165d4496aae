// Every status an operation answers is in the OpenAPI document: each documented operation is
// called without a credential, with unknown ids, with malformed ids, with an empty body and with
// a body of another media type, and each answer's status must be one the operation lists.

import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startTestControlPlane } from '../helpers/control-plane.js';

type Op = { security?: unknown[]; responses: Record<string, unknown>; requestBody?: unknown; parameters?: { in: string; name: string }[] };

t.test('documented statuses cover the answers', async (t) => {
  const cp = await startTestControlPlane({}, { TWINS_DEFAULT_PLAN: 'free' });
  t.teardown(() => cp.stop());
  const token = await cp.token({ role: 'admin' });
  const doc = (await cp.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Op>> };
  const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
  t.ok(ops.length >= 50, `${ops.length} operations documented`);

  const fill = (path: string, value: () => string) => path.replace(/\{[^}]+\}/g, value);
  let calls = 0;
  for (const { path, method, op } of ops) {
    const documented = Object.keys(op.responses);
    const check = async (label: string, target: string, opts: Parameters<typeof cp.call>[2]) => {
      const res = await cp.call(method, target, opts);
      calls++;
      t.ok(documented.includes(String(res.status)), `${method} ${path} ${label}: answered ${res.status}, documents ${documented.join(',')}`);
      return res.status;
    };
    const body = op.requestBody ? {} : undefined;
    const known = fill(path, () => randomUUID());
    if (op.security === undefined || op.security.length > 0) {
      t.equal(await check('without a credential', known, { body }), 401, `${method} ${path} needs a credential`);
    } else {
      t.not(await check('public', known, {}), 401, `${method} ${path} answers without a credential`);
      continue;
    }
    await check('unknown ids', known, { token, body });
    if (path.includes('{'))
      await check(
        'malformed ids',
        fill(path, () => 'not-a-uuid'),
        { token, body },
      );
    if (op.requestBody) {
      await check('another media type', known, { token, rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      await check('malformed JSON', known, { token, rawBody: '{"name":' });
    }
  }
  t.ok(calls > 150, `${calls} calls made`);
});
