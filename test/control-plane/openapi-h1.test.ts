// The OpenAPI document describes the identity, organization, api-key and billing routes fully:
// tags = areas, request bodies, every response status with its schema.

import t from 'tap';
import { startTestControlPlane } from '../helpers/control-plane.js';

t.test('openapi for the foundation routes', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const spec = (await cp.call('GET', '/openapi.json')).body;
  t.equal(spec.info.version, '0.1.0');
  const expectations: [string, string, string, string[]][] = [
    ['/users/me', 'get', 'users', ['200', '401']],
    ['/organizations/current', 'get', 'organizations', ['200', '401']],
    ['/organizations/current/members', 'get', 'organizations', ['200', '401', '422']],
    ['/organizations/current/invitations', 'post', 'organizations', ['201', '401', '403', '409', '422', '502']],
    ['/organizations/current/invitations', 'get', 'organizations', ['200', '401', '422']],
    ['/organizations/current/invitations/{invitation_id}', 'delete', 'organizations', ['204', '401', '403', '404', '422', '502']],
    ['/organizations/current/api-keys', 'post', 'api-keys', ['201', '401', '403', '422']],
    ['/organizations/current/api-keys', 'get', 'api-keys', ['200', '401', '422']],
    ['/organizations/current/api-keys/{api_key_id}', 'delete', 'api-keys', ['204', '401', '404', '422']],
    ['/organizations/current/billing', 'get', 'billing', ['200', '401']],
    ['/organizations/current/billing/upgrade', 'post', 'billing', ['200', '401', '403', '409', '422', '502']],
  ];
  for (const [path, method, tag, statuses] of expectations) {
    const op = spec.paths?.[path]?.[method];
    t.ok(op, `${method} ${path} documented`);
    if (!op) continue;
    t.same(op.tags, [tag], `${method} ${path} tag`);
    for (const s of statuses) t.ok(op.responses?.[s], `${method} ${path} documents ${s}`);
  }
  const invite = spec.paths['/organizations/current/invitations'].post.requestBody.content['application/json'].schema;
  const resolved = invite.$ref ? spec.components.schemas[invite.$ref.split('/').pop()] : invite;
  t.equal(resolved.additionalProperties, false, 'the invitation body rejects unknown properties');
  t.same(resolved.required.sort(), ['email', 'role']);
  t.equal(resolved.properties.email.format, 'email');
  const keyBody = spec.paths['/organizations/current/api-keys'].post.requestBody.content['application/json'].schema;
  const keySchema = keyBody.$ref ? spec.components.schemas[keyBody.$ref.split('/').pop()] : keyBody;
  t.same(keySchema.required, ['name']);
  t.match(JSON.stringify(keySchema.properties.expires_at), /date-time/);
  t.match(keySchema.properties.name, { minLength: 1, maxLength: 100 });
  const del = spec.paths['/organizations/current/api-keys/{api_key_id}'].delete.parameters[0];
  t.equal(del.schema.format, 'uuid');
  t.equal(del.in, 'path');
});
