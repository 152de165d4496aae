// The origin (`scheme://host[:port]`) a caller used to reach a twin: the scheme and host the
// gateway saw (X-Forwarded-Proto, X-Forwarded-Host), or this server's own when called directly.
// Providers whose bodies carry absolute links (Jira's `self`) name the URL the caller used, so a
// client over https gets https links. A host that is not a plain host[:port] is not used.

import type { IncomingHttpHeaders } from 'node:http';

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim() || undefined;
}

/** The caller's origin, or undefined when the request names no usable host. */
export function requestOrigin(headers: IncomingHttpHeaders, encrypted: boolean): string | undefined {
  const proto = first(headers['x-forwarded-proto']);
  const scheme = proto === 'https' || proto === 'http' ? proto : encrypted ? 'https' : 'http';
  const host = first(headers['x-forwarded-host']) ?? first(headers.host);
  return host && HOST.test(host) ? `${scheme}://${host}` : undefined;
}
