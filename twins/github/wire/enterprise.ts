// GitHub Enterprise Server's spelling of the API: REST under `/api/v3/…` and GraphQL at
// `/api/graphql`. Clients that talk to any host other than github.com (the `gh` CLI, Octokit with
// an Enterprise base URL) use it, so every REST route also answers under the prefix: the twin
// declares it in `routing.prefixes` and the runtime's router strips it to match (registering every
// route twice cost ~25–80 ms of CPU at each start). Handlers see the path as sent, so the Link
// headers and URLs they build keep the client's `/api/v3`.

import type { GenericSurface, TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';

export const ENTERPRISE_PREFIX = '/api/v3';

/** The routes served only at the host's root, never under `/api/v3` (git smart HTTP, downloads, twin-only helpers). */
export function onlyAtRoot(list: TwinRoute[]): TwinRoute[] {
  return list.map((r) => ({ ...r, rootOnly: true }));
}

/** The API's routes; its twin-only helpers (`/_twin…`) and other hosts' paths (`/api/…`) are not under `/api/v3`. */
export function underEnterprisePrefix(list: TwinRoute[]): TwinRoute[] {
  return list.map((r) => (r.path.startsWith('/_twin') || r.path.startsWith('/api/') ? { ...r, rootOnly: true } : r));
}

/** A path or template as api.github.com spells it (the prefix removed). */
export function withoutEnterprisePrefix(path: string): string {
  if (path === ENTERPRISE_PREFIX || path === `${ENTERPRISE_PREFIX}/`) return '/';
  return path.startsWith(`${ENTERPRISE_PREFIX}/`) ? path.slice(ENTERPRISE_PREFIX.length) : path;
}

/**
 * The generic layer, its handlers given the path without `/api/v3`: its records are keyed by
 * request path, so `/api/v3/repos/o/r/releases` and `/repos/o/r/releases` are the same collection.
 */
export function genericWithoutEnterprisePrefix<T extends GenericSurface>(surface: T): T {
  const wrapped = Object.create(surface) as T;
  wrapped.routes = () =>
    surface.routes().map((r) => {
      // A copy of the same class (a generic route reads its level when it answers).
      const copy = Object.assign(Object.create(Object.getPrototypeOf(r)) as typeof r, r);
      copy.handler = (req: TwinRequest, ctx: TwinContext) =>
        r.handler(req.path.startsWith(ENTERPRISE_PREFIX) ? { ...req, path: withoutEnterprisePrefix(req.path) } : req, ctx);
      return copy;
    });
  return wrapped;
}
