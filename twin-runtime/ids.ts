// Deterministic ids: the same seed and the same request sequence give the same ids. Each id is
// HMAC(seed, counter) rendered in base62, the counter persisted in the twin's file.

import { createHmac, randomBytes } from 'node:crypto';
import type { RecordStore } from './record-store.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Render bytes as base62 of the given length (rejection-free; a tiny bias is irrelevant here). */
export function base62(bytes: Buffer, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i++) out += ALPHABET[bytes[i % bytes.length]! % 62];
  return out;
}

/** Non-deterministic base62, for secrets such as minted keys and admin secrets. */
export function randomBase62(length: number): string {
  return base62(randomBytes(length), length);
}

export class IdSource {
  private readonly seed: string;

  constructor(
    private readonly store: RecordStore,
    defaultSeed: string,
  ) {
    const saved = store.getMeta('id_seed');
    this.seed = saved ?? defaultSeed;
    if (saved === undefined) store.setMeta('id_seed', this.seed);
  }

  private bump(name: string): number {
    const key = `counter:${name}`;
    const n = Number(this.store.getMeta(key) ?? '0') + 1;
    this.store.setMeta(key, String(n));
    return n;
  }

  private digest(label: string, n: number): Buffer {
    return createHmac('sha256', this.seed).update(`${label}:${n}`).digest();
  }

  /** A provider-style opaque id: `prefix` + base62 (`cus_` + 14 chars, for example). */
  next(prefix: string, length = 24): string {
    const n = this.bump('ids');
    return prefix + base62(this.digest('id', n), length);
  }

  /**
   * An opaque id from its own counter (`name`), so ids of one kind (request ids, say) never shift
   * the sequence of the others.
   */
  nextIn(name: string, prefix: string, length = 24): string {
    const n = this.bump(`ids:${name}`);
    return prefix + base62(this.digest(`id:${name}`, n), length);
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

  /** Deterministic base62 string (webhook secrets, client secrets). */
  token(length: number): string {
    return base62(this.bytes(length), length);
  }
}
