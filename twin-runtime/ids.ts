// Deterministic ids: the same seed and the same request sequence give the same ids. Each id is an
// HMAC(seed, counter) stream rendered in base62, the counter persisted in the twin's file.

import { createHmac, randomBytes } from 'node:crypto';
import type { RecordStore } from './record-store.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 4 × 62: a byte below it maps to one character uniformly; a byte at or above it is skipped. */
const BYTE_LIMIT = 248;

/**
 * `length` base62 characters by rejection sampling from a byte stream: each byte is used at most
 * once and only below 248, so every character is uniform and carries log2(62) ≈ 5.95 bits.
 * `next(n)` gives the stream's next n bytes (randomBytes, or hmacStream for derived strings).
 */
export function base62(next: (n: number) => Buffer, length: number): string {
  let out = '';
  while (out.length < length) {
    // A few spare bytes, so that a skipped byte rarely costs another call.
    for (const b of next(length - out.length + 4)) {
      if (b >= BYTE_LIMIT) continue;
      out += ALPHABET[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A deterministic byte stream of any length: HMAC-SHA256(key, `label:0`), `label:1`, … concatenated. */
export function hmacStream(key: string | Buffer, label: string): (n: number) => Buffer {
  let block = 0;
  let pending = Buffer.alloc(0);
  return (n) => {
    const parts = [pending];
    let have = pending.length;
    while (have < n) {
      const digest = createHmac('sha256', key).update(`${label}:${block++}`).digest();
      parts.push(digest);
      have += digest.length;
    }
    const all = Buffer.concat(parts);
    pending = all.subarray(n);
    return all.subarray(0, n);
  };
}

/**
 * `base62(hmacStream(key, label), length)` without the stream's buffers: the same bytes in the
 * same order (HMAC blocks `label:0`, `label:1`, …; a byte at or above 248 skipped), so the same
 * string. Every id drawn goes through here (a dozen per billing cycle of an advance).
 */
export function hmacBase62(key: Buffer, label: string, length: number): string {
  let out = '';
  for (let block = 0; out.length < length; block++) {
    const digest = createHmac('sha256', key).update(`${label}:${block}`).digest();
    for (let i = 0; i < digest.length && out.length < length; i++) {
      const b = digest[i]!;
      if (b < BYTE_LIMIT) out += ALPHABET[b % 62];
    }
  }
  return out;
}

/** Non-deterministic base62, for secrets such as minted keys and admin secrets. */
export function randomBase62(length: number): string {
  return base62(randomBytes, length);
}

export class IdSource {
  private readonly seed: string;
  /** The seed as an HMAC key (a string key is converted again on every call). */
  private readonly key: Buffer;

  constructor(
    private readonly store: RecordStore,
    defaultSeed: string,
  ) {
    const saved = store.getMeta('id_seed');
    this.seed = saved ?? defaultSeed;
    if (saved === undefined) store.setMeta('id_seed', this.seed);
    this.key = Buffer.from(this.seed);
  }

  private bump(name: string): number {
    return this.store.incrementMeta(`counter:${name}`);
  }

  private digest(label: string, n: number): Buffer {
    return createHmac('sha256', this.seed).update(`${label}:${n}`).digest();
  }

  /** A provider-style opaque id: `prefix` + base62 (`cus_` + 14 chars, for example). */
  next(prefix: string, length = 24): string {
    const n = this.bump('ids');
    return prefix + hmacBase62(this.key, `id:${n}`, length);
  }

  /**
   * An opaque id from its own counter (`name`), so ids of one kind (request ids, say) never shift
   * the sequence of the others.
   */
  nextIn(name: string, prefix: string, length = 24): string {
    const n = this.bump(`ids:${name}`);
    return prefix + hmacBase62(this.key, `id:${name}:${n}`, length);
  }

  /** 1, 2, 3… per name (GitHub numeric ids, issue numbers per repository, Slack ts suffixes). */
  sequence(name: string): number {
    return this.bump(`seq:${name}`);
  }

  /** Deterministic random bytes (card fingerprints, signing secrets shown to users). */
  bytes(length: number): Buffer {
    const n = this.bump('bytes');
    const chunks: Buffer[] = [];
    for (let i = 0; chunks.length * 32 < length; i++) chunks.push(this.digest(`bytes:${i}`, n));
    return Buffer.concat(chunks).subarray(0, length);
  }

  /** A deterministic uniform draw in [0, 1) from its own counter (`name`): fault injection's probabilities. */
  fraction(name: string): number {
    const n = this.bump(`draw:${name}`);
    return this.digest(`draw:${name}`, n).readUIntBE(0, 6) / 2 ** 48;
  }

  /** Deterministic base62 string (webhook secrets, client secrets). */
  token(length: number): string {
    const n = this.bump('bytes');
    return hmacBase62(this.key, `token:${n}`, length);
  }
}
