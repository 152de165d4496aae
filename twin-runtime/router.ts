// Routing by exact template with find-my-way: static segments beat parameters (`commits/{ref}/status`
// is never swallowed by `commits/{ref}`), a `{name}` segment never spans `/`, a last `{+name}` is a
// wildcard taking the rest of the path. A twin's hand-written routes are registered first; the
// routes of its generic (spec-driven) layer only where no hand-written route has the same method
// and template. One router answers both, exactly as one find-my-way tree would: where both layers
// match a path, the more specific template wins (a generic static route beats a hand-written
// parameter).
//
// find-my-way compiles a few functions per route it registers (about 0.3 ms each on a busy 2-core
// machine: ~400 ms for GitHub's 1,223 operations) and keeps them (~8 MiB for GitHub), so routes go
// into their trees late. `add` only records; a method's routes enter the tree on its first lookup;
// `warm()` fills the eager tree in small slices off the request path (the server calls it once it
// listens). Routes added as `deferred` (the generic layer's) live in a second tree that is filled
// only when a lookup needs it: when no eager route matches, or when a deferred template could
// outrank the eager match. An idle twin, and one whose calls stay on its hand-written routes,
// never builds it.

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
  /** The template's parameter names by position (find-my-way knows them as `p0`, `p1`…, `*`). */
  names: string[];
}

/** Longer than any provider id or name a twin routes by; a longer segment is a route miss. */
const MAX_PARAM_LENGTH = 2048;
/** Routes registered per slice while warming up in the background. */
const WARM_SLICE = 25;

/** What a path segment of a template is, in find-my-way's order of preference. */
type SegmentKind = 0 | 1 | 2; // static, parameter, rest
function segmentKinds(template: string): SegmentKind[] {
  const rest = parseTemplate(template).some((p) => p.kind === 'rest');
  const segs = template.split('/').slice(1);
  return segs.map((seg, i) => (rest && i === segs.length - 1 && seg.includes('{+') ? 2 : seg.includes('{') ? 1 : 0));
}

/**
 * Of two templates that match the same path, > 0 when `a` is the one find-my-way picks: at the first
 * segment where their kinds differ, static beats parameter beats rest.
 */
function compareSpecificity(a: string, b: string): number {
  const ka = segmentKinds(a);
  const kb = segmentKinds(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) if (ka[i] !== kb[i]) return kb[i]! - ka[i]!;
  return 0;
}

/**
 * Whether some path matches both templates with `a` winning it: the same static text wherever both
 * are static, and `a` more specific at the first segment where their kinds differ.
 */
function canOutrank(a: string, b: string): boolean {
  const sa = a.split('/');
  const sb = b.split('/');
  const ka = segmentKinds(a);
  const kb = segmentKinds(b);
  const restA = ka[ka.length - 1] === 2;
  const restB = kb[kb.length - 1] === 2;
  if (!restA && !restB && ka.length !== kb.length) return false;
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    if (ka[i] === 0 && kb[i] === 0 && sa[i + 1] !== sb[i + 1]) return false;
  }
  return compareSpecificity(a, b) > 0;
}

/** One find-my-way tree and the routes recorded for it but not yet in it. */
class Tree<T> {
  readonly fmw = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH, caseSensitive: true });
  readonly pending = new Map<string, { path: string; stored: Stored<T> }[]>();
  /** Every template recorded, by method (what `canOutrank` looks through). */
  readonly templates = new Map<string, string[]>();

  record(method: string, template: string, stored: Stored<T>): void {
    const { path } = findMyWayPath(template);
    let list = this.pending.get(method);
    if (!list) this.pending.set(method, (list = []));
    list.push({ path, stored });
    let all = this.templates.get(method);
    if (!all) this.templates.set(method, (all = []));
    all.push(template);
  }

  flush(method: string, limit = Infinity): void {
    const list = this.pending.get(method);
    if (!list) return;
    const slice = list.splice(0, limit);
    for (const { path, stored } of slice) this.fmw.on(method as HTTPMethod, path, () => undefined, stored);
    if (list.length === 0) this.pending.delete(method);
  }

  find(method: string, path: string): RouteMatch<T> | undefined {
    if (!this.templates.has(method)) return undefined;
    if (this.pending.has(method)) this.flush(method);
    const found = this.fmw.find(method as HTTPMethod, path);
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
}

export class TemplateRouter<T> {
  private readonly eager = new Tree<T>();
  private readonly deferred = new Tree<T>();
  private readonly shapes = new Map<string, string>();
  /** `METHOD template` of an eager route → whether some deferred template could outrank it. */
  private readonly outranked = new Map<string, boolean>();

  constructor(private readonly options: { ignoreTrailingSlash?: boolean } = {}) {}

  private key(method: string, template: string): string {
    return `${method.toUpperCase()} ${templateShape(template)}`;
  }

  /**
   * Register `value` for `method` + `template`; a second route with the same shape throws.
   * `deferred` routes enter their tree only when a lookup needs them (see the header).
   */
  add(method: string, template: string, value: T, opts: { deferred?: boolean } = {}): void {
    const m = method.toUpperCase();
    const key = this.key(m, template);
    const existing = this.shapes.get(key);
    if (existing !== undefined) throw new Error(`Two routes for ${m} ${template} (already ${existing}).`);
    this.shapes.set(key, template);
    this.outranked.clear();
    (opts.deferred ? this.deferred : this.eager).record(m, template, { value, template, names: findMyWayPath(template).names });
  }

  /** Whether a route with this method and template (any parameter names) is registered. */
  has(method: string, template: string): boolean {
    return this.shapes.has(this.key(method, template));
  }

  /** Every registered method + template, in registration order. */
  templates(): { method: string; template: string }[] {
    return [...this.shapes].map(([key, template]) => ({ method: key.slice(0, key.indexOf(' ')), template }));
  }

  /** Put every recorded eager route into its tree, a slice at a time between other work. */
  async warm(): Promise<void> {
    for (const method of [...this.eager.pending.keys()]) {
      while (this.eager.pending.has(method)) {
        this.eager.flush(method, WARM_SLICE);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  /** Whether a deferred route of `method` could win a path `template` matches (cached). */
  private mayOutrank(method: string, template: string): boolean {
    const key = `${method} ${template}`;
    let v = this.outranked.get(key);
    if (v === undefined) {
      v = (this.deferred.templates.get(method) ?? []).some((d) => canOutrank(d, template));
      this.outranked.set(key, v);
    }
    return v;
  }

  find(method: string, path: string): RouteMatch<T> | undefined {
    const m = method.toUpperCase();
    const lookup = this.options.ignoreTrailingSlash && path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const hit = this.eager.find(m, lookup);
    if (hit && !this.mayOutrank(m, hit.template)) return hit;
    const other = this.deferred.find(m, lookup);
    if (!hit || !other) return hit ?? other;
    return compareSpecificity(other.template, hit.template) > 0 ? other : hit;
  }

  /** Methods with a route for this path (for a 405 with `Allow`). */
  methodsFor(path: string): string[] {
    const methods = new Set([...this.eager.templates.keys(), ...this.deferred.templates.keys()]);
    return [...methods].filter((m) => this.find(m, path) !== undefined);
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
    else router.add(route.method, route.path, { route, source: 'generic' }, { deferred: true });
  }
  return { router, shadowedGeneric };
}
