// How GitHub names things: numeric ids per object type, legacy base64 node ids, git-style SHA-1s,
// timestamps without milliseconds, and the canonical URLs every stored body carries. Records keep
// https://api.github.com / https://github.com URLs (exactly as GitHub's own objects read); the
// HTTP layer points them at the twin's base URL when it answers (see wire/http.ts).

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';

export const API = 'https://api.github.com';
export const WEB = 'https://github.com';
/** Release asset uploads (`upload_url`); GitHub Enterprise serves them at `<host>/api/uploads`. */
export const UPLOADS = 'https://uploads.github.com';

/** Next numeric id of one GitHub id space (accounts share one, as users and orgs do on GitHub). */
export function nextId(ctx: TwinContext, space: string): number {
  return ctx.ids.sequence(`github:id:${space}`);
}

/** Legacy global node id: base64("0<len>:<Type><id>"), e.g. MDQ6VXNlcjE= for User 1. */
export function nodeId(type: string, id: number): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString('base64');
}

export function sha1(text: string | Buffer): string {
  return createHash('sha1').update(text).digest('hex');
}

/** ISO 8601 without milliseconds, as GitHub writes timestamps. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function now(ctx: TwinContext): string {
  return isoSeconds(ctx.clock.nowMs());
}

/** A v4-shaped GUID from the deterministic id source (X-GitHub-Delivery, request ids). */
export function guid(ctx: TwinContext): string {
  const b = ctx.ids.bytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
