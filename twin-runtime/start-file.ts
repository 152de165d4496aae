// A twin's starting file (seed or snapshot) fetched from the control plane at first start, when the
// twin runs where the control plane's files are out of reach (a Pod under the kubernetes driver):
// TWIN_START_FILE_URL names the internal route, TWIN_START_FILE_TOKEN the short-lived token minted
// for this twin alone. The file is kept beside the data file: a restarted container (same data
// volume) does not fetch again, and a reset returns to it.

import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Every SQLite database file starts with these 16 bytes. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export interface StartFileOptions {
  /** Largest file accepted (a seed of 10,000 Stripe records is ~10 MB). */
  maxBytes?: number;
  attempts?: number;
  /** Pause before the second attempt; doubles after each. */
  retryDelayMs?: number;
  timeoutMs?: number;
}

export class StartFileError extends Error {}

/** Where the fetched starting file of `dataFile` is kept. */
export function startFileFor(dataFile: string): string {
  return `${dataFile}.start`;
}

/**
 * The starting file of the twin whose data file is `dataFile`, fetched once from `url` with `token`
 * (kept afterwards). Throws StartFileError with a sentence when it cannot be had: refused (no retry),
 * too large, not SQLite, or the control plane unreachable after the attempts.
 */
export async function fetchStartFile(url: string, token: string, dataFile: string, opts: StartFileOptions = {}): Promise<string> {
  const dest = startFileFor(dataFile);
  if (existsSync(dest)) return dest;
  const attempts = opts.attempts ?? 5;
  let delay = opts.retryDelayMs ?? 500;
  let last = '';
  for (let i = 0; i < attempts; i++) {
    if (i > 0) {
      await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
    let res: Response;
    try {
      res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000) });
    } catch (e) {
      last = `the control plane did not answer (${(e as Error).message})`;
      continue;
    }
    if (res.status >= 500) {
      await res.body?.cancel();
      last = `the control plane answered ${res.status}`;
      continue;
    }
    if (res.status !== 200 || !res.body) {
      const detail = await res.text().catch(() => '');
      throw new StartFileError(`The control plane refused this twin's starting file (${res.status}): ${detail.slice(0, 300)}`);
    }
    await download(res, dest, opts.maxBytes ?? 2 * 1024 ** 3);
    return dest;
  }
  throw new StartFileError(`This twin's starting file could not be fetched from ${new URL(url).origin}: ${last}.`);
}

async function download(res: Response, dest: string, maxBytes: number): Promise<void> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new StartFileError(`The starting file is ${declared} bytes, more than the ${maxBytes} a twin accepts.`);
  }
  const part = `${dest}.part`;
  let seen = 0;
  const head: Buffer[] = [];
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes) return done(new StartFileError(`The starting file is more than the ${maxBytes} bytes a twin accepts.`));
      if (seen - chunk.length < SQLITE_HEADER.length) head.push(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), check, createWriteStream(part, { mode: 0o600 }));
    if (!Buffer.concat(head).subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)) {
      throw new StartFileError('The starting file the control plane sent is not an SQLite database.');
    }
    renameSync(part, dest);
  } catch (e) {
    rmSync(part, { force: true });
    throw e;
  }
}
