// Routing by exact template with find-my-way: static segments beat parameters (`commits/{ref}/status`
// is never swallowed by `commits/{ref}`), a `{name}` segment never spans `/`, a last `{+name}` is a
// wildcard taking the rest of the path. A twin's hand-written routes are registered first; the
// routes of its generic (spec-driven) layer only where no hand-written route has the same method
// and template. One tree holds both, so a generic static route still beats a hand-written parameter.
//
// find-my-way compiles a few functions per route it registers (about 0.3 ms each on a busy 2-core
// machine: ~400 ms for GitHub's 1,223 operations), so registration is deferred: `add` only records,
// a method's routes enter the tree on its first lookup, and `warm()` fills the trees in small
// slices off the request path (the server calls it once it listens).

import FindMyWay from 'find-my-way';
import type { HTTPMethod } from 'find-my-way';
import { findMyWayPath, templateShape } from './path-template.js';
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
  /** The template's parameter names by position (find-my-way knows them as `p0`, `p1`…, `*`). */
  names: string[];
}

/** Longer than any provider id or name a twin routes by; a longer segment is a route miss. */
const MAX_PARAM_LENGTH = 2048;
/** Routes registered per slice while warming up in the background. */
const WARM_SLICE = 25;

export class TemplateRouter<T> {
  private readonly fmw = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH, caseSensitive: true });
  private readonly shapes = new Map<string, string>();
  /** Routes recorded but not yet in the tree, by method. */
  private readonly pending = new Map<string, { path: string; stored: Stored<T> }[]>();
  private readonly methods = new Set<string>();

  constructor(private readonly options: { ignoreTrailingSlash?: boolean } = {}) {}

  private key(method: string, template: string): string {
    return `${method.toUpperCase()} ${templateShape(template)}`;
  }

  /** Register `value` for `method` + `template`; a second route with the same shape throws. */
  add(method: string, template: string, value: T): void {
    const m = method.toUpperCase();
    const key = this.key(m, template);
    const existing = this.shapes.get(key);
    if (existing !== undefined) throw new Error(`Two routes for ${m} ${template} (already ${existing}).`);
    const { path, names } = findMyWayPath(template);
    this.shapes.set(key, template);
    this.methods.add(m);
    let list = this.pending.get(m);
    if (!list) this.pending.set(m, (list = []));
    list.push({ path, stored: { value, template, names } });
  }

  /** Whether a route with this method and template (any parameter names) is registered. */
  has(method: string, template: string): boolean {
    return this.shapes.has(this.key(method, template));
  }

  /** Every registered method + template, in registration order. */
  templates(): { method: string; template: string }[] {
    return [...this.shapes].map(([key, template]) => ({ method: key.slice(0, key.indexOf(' ')), template }));
  }

  private flush(method: string, limit = Infinity): void {
    const list = this.pending.get(method);
    if (!list) return;
    const slice = list.splice(0, limit);
    for (const { path, stored } of slice) this.fmw.on(method as HTTPMethod, path, () => undefined, stored);
    if (list.length === 0) this.pending.delete(method);
  }

  /** Put every recorded route into the tree, a slice at a time between other work. */
  async warm(): Promise<void> {
    for (const method of [...this.pending.keys()]) {
      while (this.pending.has(method)) {
        this.flush(method, WARM_SLICE);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  find(method: string, path: string): RouteMatch<T> | undefined {
    const m = method.toUpperCase();
    if (!this.methods.has(m)) return undefined;
    if (this.pending.has(m)) this.flush(m);
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
        params[stored.names[stored.names.length - 1]!] = v;
      } else params[stored.names[Number(k.slice(1))]!] = v;
    }
    return { value: stored.value, template: stored.template, params };
  }

  /** Methods with a route for this path (for a 405 with `Allow`). */
  methodsFor(path: string): string[] {
    return [...this.methods].filter((m) => this.find(m, path) !== undefined);
  }
}

export type RouteSource = 'modelled' | 'generic';

/** What routing needs of a twin definition (a generic layer's routes are plain routes here). */
export interface RoutableTwin extends Pick<TwinDefinition, 'routes' | 'routing'> {
  generic?: { routes(): TwinRoute[] };
}

export interface RoutedTwin {
  router: TemplateRouter<{ route: TwinRoute; source: RouteSource }>;
  /** Generic routes not registered because a hand-written route has their method and template. */
  shadowedGeneric: TwinRoute[];
}

/**
 * A twin's router: its hand-written routes, then its generic layer's routes where no hand-written
 * route has the same method and template. Pure (no store, no server): the coverage matrix reads it too.
 */
export function routeTwin(twin: RoutableTwin): RoutedTwin {
  const router = new TemplateRouter<{ route: TwinRoute; source: RouteSource }>({ ignoreTrailingSlash: twin.routing?.ignoreTrailingSlash });
  for (const route of twin.routes) router.add(route.method, route.path, { route, source: 'modelled' });
  const shadowedGeneric: TwinRoute[] = [];
  for (const route of twin.generic?.routes() ?? []) {
    if (router.has(route.method, route.path)) shadowedGeneric.push(route);
    else router.add(route.method, route.path, { route, source: 'generic' });
  }
  return { router, shadowedGeneric };
}
