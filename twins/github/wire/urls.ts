// Stored bodies carry GitHub's canonical URLs; answers and webhook payloads point them at the
// twin. Only URL-valued fields are rewritten (`url`, `*_url`, `href`), never user text such as an
// issue body that happens to contain a github.com link.

import { API, UPLOADS, WEB } from '../model/identity.js';

function isUrlKey(key: string): boolean {
  return key === 'url' || key === 'href' || key.endsWith('_url');
}

function rewrite(value: string, base: string): string {
  if (value.startsWith(API)) return base + value.slice(API.length);
  // Uploads live at `/api/uploads` on the twin's one host, as on GitHub Enterprise Server.
  if (value.startsWith(UPLOADS)) return `${base}/api/uploads${value.slice(UPLOADS.length)}`;
  if (value.startsWith(WEB)) return base + value.slice(WEB.length);
  return value;
}

/** GraphQL's spelling of URL-valued fields: `url`, `*Url`, `permalink`. */
export function isGraphQLUrlKey(key: string): boolean {
  return key === 'url' || key === 'permalink' || key.endsWith('Url');
}

export function toTwinUrls<T>(value: T, baseUrl: string, urlKey: (key: string) => boolean = isUrlKey): T {
  if (!baseUrl) return value;
  const base = baseUrl.replace(/\/$/, '');
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') return urlKey(key) ? rewrite(v, base) : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, k);
      return out;
    }
    return v;
  };
  return walk(value, '') as T;
}
