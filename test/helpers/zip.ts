// Reading a zip a twin answers with (skill contents): entry names and texts from its central
// directory, stored or deflated entries only.

import { inflateRawSync } from 'node:zlib';

/** The stored (or deflated) entries' names and contents of a zip, from its central directory. */
export function unzip(zip: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(at + 10);
  at = zip.readUInt32LE(at + 16);
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLen = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLen);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataAt, dataAt + size);
    out[name] = (method === 8 ? inflateRawSync(raw) : raw).toString('utf8');
    at += 46 + nameLen + extra + comment;
  }
  return out;
}
