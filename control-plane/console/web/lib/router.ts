// Hash routes (`#/environments/<id>/requests`): the server serves one page at `/`, every view is
// addressable, and reloading or sharing an address keeps the view. Query parameters after `?`.

import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments, decoded: `#/tests/abc` → ['tests', 'abc']. */
  parts: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [path = '', search = ''] = raw.split('?', 2);
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  return { parts, query: new URLSearchParams(search) };
}

/** An address for links: href('environments', id, 'requests') → '#/environments/<id>/requests'. */
export function href(...parts: (string | undefined)[]): string {
  return (
    '#/' +
    parts
      .filter((p): p is string => p !== undefined && p !== '')
      .map(encodeURIComponent)
      .join('/')
  );
}

export function withQuery(base: string, query: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}

export function navigate(to: string, replace = false): void {
  if (replace) {
    history.replaceState(null, '', to);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = to.replace(/^#/, '');
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
