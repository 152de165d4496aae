// The OpenAPI document: its header (description, tags, security), the statuses every route answers
// because of app-level hooks (added here, so a route lists only the statuses of its own rules), and
// a tidy pass over the components zod emits. `servers` and the README link come from each request.

import type { FastifyRequest } from 'fastify';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents as @fastify/swagger hands them over, rewritten in place
type Json = Record<string, any>;
type OpenApiDocument = Json & { paths?: Json; components?: Json };

/** Where the document sends a reader for the walk-through (served by routes/home.ts). */
export const README_PATH = '/readme';

const ERROR_REF = { $ref: '#/components/schemas/HTTPError' };
const VALIDATION_REF = { $ref: '#/components/schemas/HTTPValidationError' };

/** What each status means across the API (docs/decisions.md §1); a response keeps its own text when it has one. */
const STATUS_TEXT: Record<string, string> = {
  '200': 'Successful Response',
  '201': 'Created',
  '202': 'Accepted: still running',
  '204': 'No Content',
  '302': 'Found',
  '401': 'Not authenticated: the bearer token or API key is missing, invalid, expired or revoked',
  '402': "The organization's plan does not allow it",
  '403': 'Authenticated but not allowed (role, or an API key where an identity-provider session is required)',
  '404': 'Not found (or it belongs to another organization)',
  '409': 'Conflicts with the current state',
  '413': 'Request body too large',
  '415': 'Unsupported media type; send application/json',
  '422': 'Validation Error',
  '502': 'An upstream (identity provider, payment processor, twin) failed',
  '503': 'Not ready',
};

/** `twinNames`: the twins this build ships, as the catalog names them (twin-runtime/registry.ts). */
export function openapiInfo(version: string, areas: readonly (readonly [string, string])[], twinNames: readonly string[]) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Environment Twin Service API',
      version,
      description:
        `Isolated, stateful twins of third-party APIs (${twinNames.join(', ')}) behind a control plane: organizations, ` +
        'API keys, environments and their twins, request logs, records, seeds, scenarios and tests.\n\n' +
        `Start with the [README](${README_PATH}): it walks from \`make dev\` to reading an SDK call in the request log. ` +
        'Every error other than 422 has the body `{"detail": "<sentence>"}`; 422 has the FastAPI validation body. ' +
        'Authenticate with `Authorization: Bearer <access token or twk_ API key>`. ' +
        "Each organization's requests are admitted at most `TWINS_API_RATE` (default 200) a second: faster requests wait their turn, " +
        'and beyond 1,000 waiting the answer is 429 with `Retry-After`.',
      contact: { name: 'Twins', url: README_PATH },
    },
    tags: areas.map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: { bearer: { type: 'http' as const, scheme: 'bearer', description: 'An identity-provider access token or a `twk_` API key.' } },
    },
    security: [{ bearer: [] }],
  };
}

const hasInput = (schema: Json) => !!(schema.params || schema.querystring || schema.body);

/**
 * Per route, after zod's transform: public routes carry no security; every other route answers 401
 * (the authentication hook runs first); a route with input answers 422; a route with a body 413/415.
 */
export const transformRoute: NonNullable<FastifyDynamicSwaggerOptions['transform']> = (input) => {
  const out = jsonSchemaTransform(input as Parameters<typeof jsonSchemaTransform>[0]);
  const schema = out.schema as Json | undefined;
  if (!schema || schema.hide) return out;
  const route = input.route as { config?: { public?: boolean }; schema?: Json };
  const response: Json = { ...(schema.response ?? {}) };
  if (route.config?.public) schema.security = [];
  else response['401'] ??= ERROR_REF;
  if (hasInput(route.schema ?? {})) response['422'] ??= VALIDATION_REF;
  else delete response['422'];
  if (route.schema?.body) {
    response['413'] ??= ERROR_REF;
    response['415'] ??= ERROR_REF;
  }
  schema.response = response;
  return out;
};

/** Replace every `$ref` to `from` by one to `to`, in place. */
function renameRefs(node: unknown, from: string, to: string): void {
  if (Array.isArray(node)) {
    for (const n of node) renameRefs(n, from, to);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  if (obj.$ref === `#/components/schemas/${from}`) obj.$ref = `#/components/schemas/${to}`;
  for (const v of Object.values(obj)) renameRefs(v, from, to);
}

function collectRefs(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) collectRefs(n, into);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  if (typeof obj.$ref === 'string' && obj.$ref.startsWith('#/components/schemas/')) into.add(obj.$ref.slice('#/components/schemas/'.length));
  for (const v of Object.values(obj)) collectRefs(v, into);
}

/** Names reachable from the paths, following references between components. */
function reachable(doc: OpenApiDocument): Set<string> {
  const seen = new Set<string>();
  collectRefs(doc.paths, seen);
  const queue = [...seen];
  while (queue.length > 0) {
    const more = new Set<string>();
    collectRefs(doc.components?.schemas?.[queue.pop()!], more);
    for (const name of more) if (!seen.has(name)) seen.add(name), queue.push(name);
  }
  return seen;
}

/**
 * zod emits each named schema twice (`X` for responses, `XInput` for requests). Keep one: an
 * `XInput` equal to `X` becomes `X`; a request-only `XInput` is renamed `X`; unreferenced ones go.
 */
export function tidyComponents(doc: OpenApiDocument): OpenApiDocument {
  const schemas: Json = doc.components?.schemas ?? {};
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith('Input')) continue;
    const base = name.slice(0, -'Input'.length);
    if (!(base in schemas)) continue;
    const asOutput = JSON.parse(JSON.stringify(schemas[name]).replaceAll(/"#\/components\/schemas\/(\w+)Input"/g, '"#/components/schemas/$1"'));
    if (JSON.stringify(asOutput) === JSON.stringify(schemas[base])) {
      renameRefs(doc.paths, name, base);
      renameRefs(schemas, name, base);
      delete schemas[name];
    }
  }
  let used = reachable(doc);
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith('Input')) continue;
    const base = name.slice(0, -'Input'.length);
    if (used.has(name) && !used.has(base)) {
      schemas[base] = schemas[name];
      delete schemas[name];
      renameRefs(doc.paths, name, base);
      renameRefs(schemas, name, base);
    }
  }
  used = reachable(doc);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  for (const ops of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(ops as Json)) {
      for (const [status, res] of Object.entries((op as Json).responses ?? {})) {
        const r = res as Json;
        if (r.description === 'Default Response' || !r.description) r.description = STATUS_TEXT[status] ?? 'Response';
      }
    }
  }
  return doc;
}

export const transformDocument: NonNullable<FastifyDynamicSwaggerOptions['transformObject']> = (input) =>
  tidyComponents(jsonSchemaTransformObject(input as Parameters<typeof jsonSchemaTransformObject>[0]) as OpenApiDocument) as never;

/** The origin the caller used to reach us. */
export function requestOrigin(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

/** The cached document with `servers` and the README link pointing where this caller reached us. */
export function documentForRequest(doc: OpenApiDocument, req: FastifyRequest): OpenApiDocument {
  const origin = requestOrigin(req);
  return {
    ...doc,
    info: { ...doc.info, contact: { ...doc.info?.contact, url: origin + README_PATH } },
    servers: [{ url: origin, description: 'this control plane' }],
    externalDocs: { description: 'README: from `make dev` to an SDK call in the request log', url: origin + README_PATH },
  };
}
