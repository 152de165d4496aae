// GitHub Enterprise Server's spelling of the API: REST under `/api/v3/…` and GraphQL at
// `/api/graphql`. Clients that talk to any host other than github.com (the `gh` CLI, Octokit with
// an Enterprise base URL) use it, so every REST route also answers under the prefix.

import type { GenericSurface, TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';

export const ENTERPRISE_PREFIX = '/api/v3';

/** The routes, each also under `/api/v3` (the root `/` becomes `/api/v3`). */
export function alsoUnderEnterprisePrefix(list: TwinRoute[]): TwinRoute[] {
  const prefixed = list
    .filter((r) => !r.path.startsWith('/_twin') && !r.path.startsWith('/api/'))
    .map((r) => ({ ...r, path: r.path === '/' ? ENTERPRISE_PREFIX : `${ENTERPRISE_PREFIX}${r.path}` }));
  return [...list, ...prefixed];
}

/** A path or template as api.github.com spells it (the prefix removed). */
export function withoutEnterprisePrefix(path: string): string {
  if (path === ENTERPRISE_PREFIX || path === `${ENTERPRISE_PREFIX}/`) return '/';
  return path.startsWith(`${ENTERPRISE_PREFIX}/`) ? path.slice(ENTERPRISE_PREFIX.length) : path;
}

/**
 * The generic layer with its routes also under `/api/v3`. Its records are keyed by request path,
 * so a prefixed request is handed on with the prefix removed: `/api/v3/repos/o/r/releases` and
 * `/repos/o/r/releases` are the same collection.
 */
export function genericAlsoUnderEnterprisePrefix<T extends GenericSurface>(surface: T): T {
  const wrapped = Object.create(surface) as T;
  wrapped.routes = () => {
    const own = surface.routes();
    const prefixed = own.map((r) => {
      // A copy of the same class (a generic route reads its level when it answers).
      const copy = Object.assign(Object.create(Object.getPrototypeOf(r)) as typeof r, r);
      copy.path = `${ENTERPRISE_PREFIX}${r.path}`;
      copy.handler = (req: TwinRequest, ctx: TwinContext) => r.handler({ ...req, path: withoutEnterprisePrefix(req.path) }, ctx);
      return copy;
    });
    return [...own, ...prefixed];
  };
  return wrapped;
}
