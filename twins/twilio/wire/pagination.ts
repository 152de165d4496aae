// Twilio's two list envelopes. 2010-04-01: the list under its own key beside `first_page_uri`,
// `next_page_uri`, `previous_page_uri`, `page`, `page_size`, `start`, `end`, `uri` (relative
// URIs carrying the filters, `PageSize`, `Page` and a `PageToken`). v2 products (Verify): the list
// under its key beside `meta {page, page_size, first_page_url, previous_page_url, url,
// next_page_url, key}` (absolute URLs). `PageToken` is `PA`/`PB` + the SID the page starts
// after/before, so pages stay put while records are added.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { badParam } from './errors.js';
import { int, str } from './params.js';

export interface PageWindow<T> {
  items: T[];
  page: number;
  pageSize: number;
  start: number;
  hasMore: boolean;
  /** SID of the last item (the next page's token), or undefined. */
  lastSid?: string;
  firstSid?: string;
}

/** One page of `all` (already filtered and in Twilio's order) by `PageSize`, `Page`, `PageToken`. */
export function pageOf<T extends { sid: string }>(req: TwinRequest, all: T[]): PageWindow<T> {
  const pageSize = int(req, 'PageSize', 50, 1, 1000);
  const page = int(req, 'Page', 0, 0, 1_000_000);
  const token = str(req, 'PageToken');
  let start = page * pageSize;
  if (token !== undefined && token !== '') {
    const m = /^P([AB])(.+)$/.exec(token);
    if (!m) throw badParam(20001, `Invalid PageToken: ${token}`);
    const at = all.findIndex((x) => x.sid === m[2]);
    if (at === -1) start = page * pageSize;
    else start = m[1] === 'A' ? at + 1 : Math.max(0, at - pageSize);
  }
  const items = all.slice(start, start + pageSize);
  return { items, page, pageSize, start, hasMore: start + items.length < all.length, lastSid: items.at(-1)?.sid, firstSid: items[0]?.sid };
}

function query(filters: Record<string, string | undefined>, extra: Record<string, string | number>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined) q.append(k, v);
  for (const [k, v] of Object.entries(extra)) q.append(k, String(v));
  return q.toString();
}

/** The 2010-04-01 envelope; `path` is the list's relative URI (`/2010-04-01/Accounts/AC…/Messages.json`). */
export function envelope2010<T extends { sid: string }>(
  path: string,
  key: string,
  filters: Record<string, string | undefined>,
  w: PageWindow<T>,
  render: (x: T) => unknown,
): Record<string, unknown> {
  const size = { PageSize: w.pageSize };
  return {
    end: w.items.length ? w.start + w.items.length - 1 : 0,
    first_page_uri: `${path}?${query(filters, { ...size, Page: 0 })}`,
    [key]: w.items.map(render),
    next_page_uri: w.hasMore ? `${path}?${query(filters, { ...size, Page: w.page + 1, PageToken: `PA${w.lastSid}` })}` : null,
    page: w.page,
    page_size: w.pageSize,
    previous_page_uri: w.page > 0 && w.firstSid ? `${path}?${query(filters, { ...size, Page: w.page - 1, PageToken: `PB${w.firstSid}` })}` : null,
    start: w.start,
    uri: `${path}?${query(filters, { ...size, Page: w.page })}`,
  };
}

/** The v2 envelope; `url` is the list's absolute URL. */
export function envelopeV2<T extends { sid: string }>(url: string, key: string, w: PageWindow<T>, render: (x: T) => unknown): Record<string, unknown> {
  return {
    [key]: w.items.map(render),
    meta: {
      page: w.page,
      page_size: w.pageSize,
      first_page_url: `${url}?PageSize=${w.pageSize}&Page=0`,
      previous_page_url: w.page > 0 && w.firstSid ? `${url}?PageSize=${w.pageSize}&Page=${w.page - 1}&PageToken=PB${w.firstSid}` : null,
      url: `${url}?PageSize=${w.pageSize}&Page=${w.page}`,
      next_page_url: w.hasMore ? `${url}?PageSize=${w.pageSize}&Page=${w.page + 1}&PageToken=PA${w.lastSid}` : null,
      key,
    },
  };
}

/** Twilio's list order: newest first, later-created first within one instant. */
export function newestFirst<T extends { created: number }>(items: T[]): T[] {
  return [...items].reverse().sort((a, b) => b.created - a.created);
}
