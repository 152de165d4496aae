// Routing by exact template with find-my-way: static segments beat parameters (`commits/{ref}/status`
// is never swallowed by `commits/{ref}`), a `{name}` segment never spans `/`, a last `{+name}` is a
// wildcard taking the rest of the path. A twin's hand-written routes are registered first; the
// routes of its generic (spec-driven) layer only where no hand-written route has the same method
// and template. Where several routes match a path, the router answers exactly as one find-my-way
// tree holding them all would: at the first segment where two templates differ, static beats
// parameter beats rest (a generic static route beats a hand-written parameter).
//
// find-my-way compiles a few functions per route it registers (about 0.3 ms each on a busy 2-core
// machine: ~400 ms for GitHub's 1,223 operations) and keeps them (~8 MiB for GitHub), so routes are
// kept in small trees, one per method, first segment and length (`GET /repos/…` of four segments;
// templates whose first segment is a parameter, and those ending in `{+name}`, in trees of their
// own), and go into their tree only when a lookup first needs it (5–10 ms for GitHub's largest tree),
// so an idle twin holds no tree. Building the trees of hand-written routes ahead, once the server
// listened, cost a GitHub twin 7–20 MiB of idle memory for those first lookups.

import FindMyWay from 'find-my-way';
import type { HTTPMethod } from 'find-my-way';
import { findMyWayPath, templateShape, withoutPrefix } from './path-template.js';
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
  /** What each path segment is: 0 static, 1 parameter, 2 rest (`{+name}`, last only). */
  kinds: number[];
}

/** Longer than any provider id or name a twin routes by; a longer segment is a route miss. */
const MAX_PARAM_LENGTH = 2048;

function segmentKinds(template: string): number[] {
  const segs = template.split('/').slice(1);
  return segs.map((seg, i) => (i === segs.length - 1 && seg.startsWith('{+') ? 2 : seg.includes('{') ? 1 : 0));
}

/** Which tree a template lives in: method, then its first segment and length, or `rest`. */
function treeKey(method: string, template: string, kinds: number[]): string {
  if (kinds[kinds.length - 1] === 2) return `${method} rest`;
  const first = kinds[0] === 0 ? template.split('/')[1] : '{}';
  return `${method} ${kinds.length} ${first}`;
}

/**
 * Of two routes that match the same path, > 0 when `a` is the one find-my-way picks: at the first
 * segment where their kinds differ, static beats parameter beats rest.
 */
function compareSpecificity(a: Stored<unknown>, b: Stored<unknown>): number {
  for (let i = 0; i < Math.min(a.kinds.length, b.kinds.length); i++) if (a.kinds[i] !== b.kinds[i]) return b.kinds[i]! - a.kinds[i]!;
  return 0;
}

/** One find-my-way tree and the routes recorded for it but not yet in it. */
class Tree<T> {
  private fmw: ReturnType<typeof FindMyWay> | undefined;
  private readonly pending: { path: string; stored: Stored<T> }[] = [];
  constructor(private readonly method: HTTPMethod) {}

  record(path: string, stored: Stored<T>): void {
    this.pending.push({ path, stored });
  }

  get built(): boolean {
    return this.pending.length === 0;
  }

  /** Move the recorded routes into the tree. */
  fill(): void {
    this.fmw ??= FindMyWay({ maxParamLength: MAX_PARAM_LENGTH, caseSensitive: true });
    for (const { path, stored } of this.pending.splice(0)) this.fmw.on(this.method, path, () => undefined, stored);
  }

  find(path: string): { stored: Stored<T>; params: Record<string, string> } | undefined {
    if (!this.built) this.fill();
    const found = this.fmw!.find(this.method, path);
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
    return { stored, params };
  }
}

export class TemplateRouter<T> {
  private readonly trees = new Map<string, Tree<T>>();
  private readonly shapes = new Map<string, string>();
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
    this.shapes.set(key, template);
    this.methods.add(m);
    const { path, names } = findMyWayPath(template);
    const kinds = segmentKinds(template);
    const tk = treeKey(m, template, kinds);
    let tree = this.trees.get(tk);
    if (!tree) this.trees.set(tk, (tree = new Tree<T>(m as HTTPMethod)));
    tree.record(path, { value, template, names, kinds });
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
    const segs = lookup.split('/');
    // The trees a route matching this path can live in; of their matches the most specific wins.
    let best: { stored: Stored<T>; params: Record<string, string> } | undefined;
    for (const key of [`${m} ${segs.length - 1} ${segs[1]}`, `${m} ${segs.length - 1} {}`, `${m} rest`]) {
      const found = this.trees.get(key)?.find(lookup);
      if (found && (!best || compareSpecificity(found.stored, best.stored) > 0)) best = found;
    }
    return best && { value: best.stored.value, template: best.stored.template, params: best.params };
  }

  /** Methods with a route for this path (for a 405 with `Allow`). */
  methodsFor(path: string): string[] {
    return [...this.methods].filter((m) => this.find(m, path) !== undefined);
  }
}

export type RouteSource = 'modelled' | 'generic';

/** What routing needs of a twin definition (a generic layer's routes are plain routes here). */
export interface RoutableTwin extends Pick<TwinDefinition, 'routes' | 'routing'> {
  generic?: { routes(): TwinRoute[]; handWritten?(answers: (method: string, template: string) => boolean): void };
}

export interface RoutedTwin {
  router: TemplateRouter<{ route: TwinRoute; source: RouteSource }>;
  /** Generic routes not registered because a hand-written route has their method and template. */
  shadowedGeneric: TwinRoute[];
  /** The route a request takes, with the twin's `routing` rules (prefixes, HEAD as GET); undefined: a route miss. */
  match(method: string, path: string): RouteMatch<{ route: TwinRoute; source: RouteSource }> | undefined;
}

/**
 * The matcher of a twin's requests. Under a prefix the path without it is tried first, as if every
 * route were also registered under the prefix (its static segments beat any parameter the path as
 * sent could match); a `rootOnly` route does not answer there. The template keeps the prefix.
 */
function matcher(router: RoutedTwin['router'], routing: RoutableTwin['routing']): RoutedTwin['match'] {
  const headAsGet = !!routing?.headAsGet;
  const find = (method: string, path: string) => router.find(method, path) ?? (headAsGet && method === 'HEAD' ? router.find('GET', path) : undefined);
  const prefixes = routing?.prefixes ?? [];
  if (prefixes.length === 0) return find;
  return (method, path) => {
    const under = withoutPrefix(prefixes, path);
    if (under) {
      const found = find(method, under.rest);
      if (found && !found.value.route.rootOnly) return { ...found, template: found.template === '/' ? under.prefix : under.prefix + found.template };
    }
    return find(method, path);
  };
}

/**
 * A twin's router: its hand-written routes, then its generic layer's routes where no hand-written
 * route has the same method and template. Pure (no store, no server): the coverage matrix reads it too.
 */
export function routeTwin(twin: RoutableTwin): RoutedTwin {
  const router = new TemplateRouter<{ route: TwinRoute; source: RouteSource }>({ ignoreTrailingSlash: twin.routing?.ignoreTrailingSlash });
  for (const route of twin.routes) router.add(route.method, route.path, { route, source: 'modelled' });
  // The generic layer's levels depend on which records hand-written models keep.
  twin.generic?.handWritten?.((method, template) => router.has(method, template));
  const shadowedGeneric: TwinRoute[] = [];
  for (const route of twin.generic?.routes() ?? []) {
    if (router.has(route.method, route.path)) shadowedGeneric.push(route);
    else router.add(route.method, route.path, { route, source: 'generic' });
  }
  return { router, shadowedGeneric, match: matcher(router, twin.routing) };
}
