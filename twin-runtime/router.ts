// Routing by exact template with find-my-way: static segments beat parameters (`commits/{ref}/status`
// is never swallowed by `commits/{ref}`), a `{name}` segment never spans `/`, a last `{+name}` is a
// wildcard taking the rest of the path. A twin's hand-written routes are registered first; the
// routes of its generic (spec-driven) layer only where no hand-written route has the same method
// and template.

import FindMyWay from 'find-my-way';
import type { HTTPMethod } from 'find-my-way';
import { findMyWayPath, parseTemplate, templateShape } from './path-template.js';
import type { TwinDefinition, TwinRoute } from './contract.js';

export interface RouteMatch<T> {
  value: T;
  /** The template that matched, as registered. */
  template: string;
  /** Bound parameters, percent-decoded; a `{+name}` binds the rest of the path under `name`. */
  params: Record<string, string>;
}

interface Stored<T> {
  value: T;
  template: string;
  /** Name of the `{+name}` parameter (find-my-way calls it `*`). */
  rest?: string;
}

/** Longer than any provider id or name a twin routes by; a longer segment is a route miss. */
const MAX_PARAM_LENGTH = 2048;

export class TemplateRouter<T> {
  private readonly fmw = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH, caseSensitive: true });
  private readonly shapes = new Map<string, string>();
  private readonly methods = new Set<string>();

  constructor(private readonly options: { ignoreTrailingSlash?: boolean } = {}) {}

  private key(method: string, template: string): string {
    return `${method.toUpperCase()} ${templateShape(template)}`;
  }

  /** Register `value` for `method` + `template`; a second route with the same shape throws. */
  add(method: string, template: string, value: T): void {
    const key = this.key(method, template);
    const existing = this.shapes.get(key);
    if (existing !== undefined) throw new Error(`Two routes for ${method} ${template} (already ${existing}).`);
    const rest = parseTemplate(template).find((p) => p.kind === 'rest')?.name;
    const stored: Stored<T> = { value, template, ...(rest ? { rest } : {}) };
    this.fmw.on(method.toUpperCase() as HTTPMethod, findMyWayPath(template), () => undefined, stored);
    this.shapes.set(key, template);
    this.methods.add(method.toUpperCase());
  }

  /** Whether a route with this method and template (any parameter names) is registered. */
  has(method: string, template: string): boolean {
    return this.shapes.has(this.key(method, template));
  }

  /** Every registered method + template, in registration order. */
  templates(): { method: string; template: string }[] {
    return [...this.shapes].map(([key, template]) => ({ method: key.slice(0, key.indexOf(' ')), template }));
  }

  find(method: string, path: string): RouteMatch<T> | undefined {
    const m = method.toUpperCase();
    if (!this.methods.has(m)) return undefined;
    const lookup = this.options.ignoreTrailingSlash && path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const found = this.fmw.find(m as HTTPMethod, lookup);
    if (!found) return undefined;
    const stored = found.store as Stored<T>;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(found.params)) {
      if (v === undefined) continue;
      if (k === '*') {
        // A wildcard needs something to bind: `contents/` alone is not `contents/{+path}`.
        if (v === '') return undefined;
        params[stored.rest ?? '*'] = v;
      } else params[k] = v;
    }
    return { value: stored.value, template: stored.template, params };
  }

  /** Methods with a route for this path (for a 405 with `Allow`). */
  methodsFor(path: string): string[] {
    return [...this.methods].filter((m) => this.find(m, path) !== undefined);
  }
}

export type RouteSource = 'modelled' | 'generic';

export interface RoutedTwin {
  router: TemplateRouter<{ route: TwinRoute; source: RouteSource }>;
  /** Generic routes not registered because a hand-written route has their method and template. */
  shadowedGeneric: TwinRoute[];
}

/**
 * A twin's router: its hand-written routes, then its generic layer's routes where no hand-written
 * route has the same method and template. Pure (no store, no server): the coverage matrix reads it too.
 */
export function routeTwin(twin: Pick<TwinDefinition, 'routes' | 'generic' | 'routing'>): RoutedTwin {
  const router = new TemplateRouter<{ route: TwinRoute; source: RouteSource }>({ ignoreTrailingSlash: twin.routing?.ignoreTrailingSlash });
  for (const route of twin.routes) router.add(route.method, route.path, { route, source: 'modelled' });
  const shadowedGeneric: TwinRoute[] = [];
  for (const route of twin.generic?.routes() ?? []) {
    if (router.has(route.method, route.path)) shadowedGeneric.push(route);
    else router.add(route.method, route.path, { route, source: 'generic' });
  }
  return { router, shadowedGeneric };
}
