// Routing by exact template on find-my-way: `{name}` segments as its `:name` parameters, static
// segments before parameters at every position (so `/commits/{ref}/status` is its own route, never
// `{ref}` = "<sha>/status"). The generic surface routes with it; the runtime's router can be the
// same class (register hand-written routes first: a later template of the same shape is refused).

import { createRequire } from 'node:module';
import type FindMyWayType from 'find-my-way';
import type { HttpMethod } from './spec-types.js';

const require = createRequire(import.meta.url);

export interface TemplateMatch<T> {
  value: T;
  /** The template that matched, in `{name}` spelling. */
  template: string;
  params: Record<string, string>;
}

/** `GET /v1/coupons/{}`: a template with its parameter names erased (one shape = one route). */
export function templateShape(method: string, template: string): string {
  return `${method.toUpperCase()} ${template.replace(/\{[^}]+\}/g, '{}')}`;
}

/** Segments of a template: `null` for a parameter, the text for a static segment. */
function segments(template: string): (string | null)[] {
  return template.split('/').slice(1).map((s) => (/^\{[^}]+\}$/.test(s) ? null : s));
}

/**
 * Whether some path matches both templates and `template` wins it: same length, the same text
 * where both are static, and at the first position where one is static and the other a
 * parameter, `template` is the static one.
 */
export function canOutrank(template: string, than: string): boolean {
  const a = segments(template);
  const b = segments(than);
  if (a.length !== b.length) return false;
  let winner: 'a' | 'b' | undefined;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== null && b[i] !== null) {
      if (a[i] !== b[i]) return false;
    } else if ((a[i] === null) !== (b[i] === null)) {
      winner ??= a[i] !== null ? 'a' : 'b';
    }
  }
  return winner === 'a';
}

/**
 * Which of two templates that both match a path is the more specific, as find-my-way decides:
 * at the first position where they differ, a static segment beats a parameter. > 0 when `a` wins.
 */
export function compareSpecificity(a: string, b: string): number {
  const sa = segments(a);
  const sb = segments(b);
  for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
    const x = sa[i];
    const y = sb[i];
    if (x === undefined || y === undefined) return 0;
    if (x !== null && y === null) return 1;
    if (x === null && y !== null) return -1;
  }
  return 0;
}

interface Stored<T> {
  value: T;
  template: string;
  /** find-my-way parameter name → the template's own name (`enterprise_team` → `enterprise-team`). */
  names: Record<string, string>;
}

export class TemplateRouter<T> {
  private readonly fmw: FindMyWayType.Instance<FindMyWayType.HTTPVersion.V1>;
  private readonly shapes = new Set<string>();
  private readonly list: { method: HttpMethod; path: string }[] = [];

  constructor(options: { ignoreTrailingSlash?: boolean } = {}) {
    // Loaded with the first router, not with every module that only compares templates.
    const FindMyWay = require('find-my-way') as typeof FindMyWayType;
    this.fmw = FindMyWay({ ignoreTrailingSlash: options.ignoreTrailingSlash ?? false, caseSensitive: true });
  }

  /** Register a template; false (and nothing registered) when one of the same shape is already there. */
  add(method: HttpMethod, template: string, value: T): boolean {
    const shape = templateShape(method, template);
    if (this.shapes.has(shape)) return false;
    const names: Record<string, string> = {};
    let n = 0;
    const path = template
      .split('/')
      .map((seg) => {
        const m = /^\{([^}]+)\}$/.exec(seg);
        if (!m) return seg.replace(/:/g, '::');
        // find-my-way ends a parameter name at `-` or `.`: use a plain alias.
        const alias = /^[A-Za-z_][A-Za-z0-9_]*$/.test(m[1]!) ? m[1]! : `p${n++}_${m[1]!.replace(/[^A-Za-z0-9_]/g, '_')}`;
        names[alias] = m[1]!;
        return `:${alias}`;
      })
      .join('/');
    const stored: Stored<T> = { value, template, names };
    this.fmw.on(method, path, () => undefined, stored);
    this.shapes.add(shape);
    this.list.push({ method, path: template });
    return true;
  }

  has(method: string, template: string): boolean {
    return this.shapes.has(templateShape(method, template));
  }

  find(method: string, path: string): TemplateMatch<T> | undefined {
    let found;
    try {
      found = this.fmw.find(method as HttpMethod, path);
    } catch {
      return undefined; // a malformed escape in the path
    }
    if (!found) return undefined;
    const stored = found.store as Stored<T>;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(found.params as Record<string, string | undefined>)) {
      if (v !== undefined) params[stored.names[k] ?? k] = v;
    }
    return { value: stored.value, template: stored.template, params };
  }

  /** Every registered route (method + template), in registration order. */
  routes(): { method: HttpMethod; path: string }[] {
    return [...this.list];
  }
}
