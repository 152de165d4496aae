// What a twin serves, for checking assertions at compile time: its hand-written routes and the
// operations its generic layer answers, and, for request fields, the names the provider's spec gives
// each operation. Both come from the twin module and its generated spec artefacts
// (`twins/<slug>/spec/`), which ship with the package, so the checks work in a production image too.

import { loadTwin } from '../../twin-runtime/registry.js';
import { compilePathTemplate } from './request-matcher.js';
import { templateShape, withoutPrefix } from '../../twin-runtime/path-template.js';

export interface SurfaceRoute {
  method: string;
  /** Template in the twin's own spelling (`/v1/customers/{customer}`). */
  path: string;
  /** Not served under the twin's `routing.prefixes`. */
  rootOnly?: boolean;
}

export interface TwinSurface {
  slug: string;
  routes: SurfaceRoute[];
  /** Path prefixes every route but `rootOnly` ones also answers under (GitHub Enterprise's `/api/v3`). */
  prefixes: readonly string[];
  /** Request body and query field names of an operation, when the provider documents them. */
  fields(method: string, template: string): { body?: Set<string>; query?: Set<string> } | undefined;
}

const shape = (template: string) => templateShape(template).replace(/\/$/, '');

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
  let def;
  try {
    def = await loadTwin(slug);
  } catch {
    return undefined;
  }
  const routes: SurfaceRoute[] = def.routes.map((r) => ({ method: r.method, path: r.path, ...(r.rootOnly ? { rootOnly: true } : {}) }));
  for (const r of def.generic?.routes() ?? []) routes.push({ method: r.method, path: r.path });
  return {
    slug,
    routes,
    prefixes: def.routing?.prefixes ?? [],
    fields: (method, template) => def.generic?.requestFields(method.toUpperCase(), template),
  };
}

/** Routes of the surface a matcher's path fits: a template by shape, a concrete path by matching. */
export function routesFor(surface: TwinSurface, method: string | undefined, path: string): SurfaceRoute[] {
  const isTemplate = /\{[^}]+\}/.test(path);
  const fits = (r: SurfaceRoute, p: string) =>
    (!method || r.method === method.toUpperCase()) && (isTemplate ? shape(r.path) === shape(p) : compilePathTemplate(r.path).regex.test(p));
  const asSent = surface.routes.filter((r) => fits(r, path));
  if (asSent.length > 0) return asSent;
  // Under a prefix (`/api/v3/…`): the routes the path without it reaches, as the twin's router does.
  const under = withoutPrefix(surface.prefixes, path);
  return under ? surface.routes.filter((r) => !r.rootOnly && fits(r, under.rest)) : [];
}
