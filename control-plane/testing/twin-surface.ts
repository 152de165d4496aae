// What a twin serves, for checking assertions at compile time: its hand-written routes and the
// operations its generic layer answers, and, for request fields, the names the provider's spec gives
// each operation. Both come from the twin module and its generated spec artefacts
// (`twins/<slug>/spec/`), which ship with the package, so the checks work in a production image too.

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
  routes: SurfaceRoute[];
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
  const routes: SurfaceRoute[] = def.routes.map((r) => ({ method: r.method, path: r.path }));
  for (const r of def.generic?.routes() ?? []) routes.push({ method: r.method, path: r.path });
  return {
    slug,
    routes,
    fields: (method, template) => def.generic?.requestFields(method.toUpperCase(), template),
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
