// Git's pkt-line framing (gitprotocol-common): four hex digits of length (itself included), then
// the payload; 0000 flush, 0001 delim, 0002 response-end. Reading is bounded: a length that is not
// hex, below 4 or past the end of the body is a protocol error, never a guess.

export const FLUSH = Buffer.from('0000');
export const DELIM = Buffer.from('0001');

/** Largest payload git writes in one packet (LARGE_PACKET_MAX 65520 minus the length). */
export const MAX_PKT_PAYLOAD = 65516;

export class ProtocolError extends Error {}

export function pkt(payload: string | Buffer): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  if (data.length > MAX_PKT_PAYLOAD) throw new Error('pkt-line payload too long');
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data]);
}

export type Packet = { kind: 'data'; data: Buffer } | { kind: 'flush' } | { kind: 'delim' } | { kind: 'end' };

/** Read packets from the start of `buf` until `stop` says so or the body ends; `rest` is what follows. */
export function readPackets(buf: Buffer, stop: (p: Packet) => boolean = () => false, maxPackets = 100_000): { packets: Packet[]; rest: Buffer } {
  const packets: Packet[] = [];
  let i = 0;
  while (i < buf.length) {
    if (packets.length >= maxPackets) throw new ProtocolError('too many pkt-lines');
    if (i + 4 > buf.length) throw new ProtocolError('protocol error: truncated pkt-line length');
    const head = buf.toString('latin1', i, i + 4);
    if (!/^[0-9a-f]{4}$/i.test(head)) throw new ProtocolError(`protocol error: bad line length character: ${head.replace(/[^\x20-\x7e]/g, '?')}`);
    const len = parseInt(head, 16);
    let p: Packet;
    if (len === 0) p = { kind: 'flush' };
    else if (len === 1) p = { kind: 'delim' };
    else if (len === 2) p = { kind: 'end' };
    else if (len < 4) throw new ProtocolError(`protocol error: bad line length ${len}`);
    else {
      if (i + len > buf.length) throw new ProtocolError('protocol error: truncated pkt-line');
      p = { kind: 'data', data: buf.subarray(i + 4, i + len) };
    }
    i += Math.max(4, len);
    packets.push(p);
    if (stop(p)) break;
  }
  return { packets, rest: buf.subarray(i) };
}

/** A data packet as text without its trailing newline. */
export function line(p: Packet): string | undefined {
  return p.kind === 'data' ? p.data.toString('utf8').replace(/\n$/, '') : undefined;
}

/**
 * Split `data` (one buffer, or several read as one stream) into side-band packets on `band`
 * (1 pack data, 2 progress, 3 error). The packets' bodies are views of `data`, not copies: a
 * clone's pack is copied once, into the response.
 */
export function sideband(band: 1 | 2 | 3, data: Buffer | readonly Buffer[], max = 65515): Buffer[] {
  const parts = Buffer.isBuffer(data) ? [data] : data;
  const out: Buffer[] = [];
  let packet: Buffer[] = [];
  let room = max;
  const flush = () => {
    const size = max - room;
    if (size === 0) return;
    const head = Buffer.from(`${(size + 5).toString(16).padStart(4, '0')}_`, 'latin1');
    head[4] = band;
    out.push(head, ...packet);
    packet = [];
    room = max;
  };
  for (const part of parts) {
    for (let i = 0; i < part.length; ) {
      const take = Math.min(room, part.length - i);
      packet.push(part.subarray(i, i + take));
      room -= take;
      i += take;
      if (room === 0) flush();
    }
  }
  flush();
  return out;
}
