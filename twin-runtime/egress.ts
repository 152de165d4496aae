// Where a twin may send deliveries (webhooks, event callbacks): the egress policy of docs/decisions.md §12.
//   TWINS_EGRESS=any     anywhere (the embedded local setup: developers receive webhooks on localhost)
//   TWINS_EGRESS=public  public addresses only: loopback, private, link-local, carrier-grade NAT,
//                        metadata, multicast, reserved and unspecified addresses are refused, and so
//                        are the control plane's own addresses (TWINS_EGRESS_DENY, set by the driver).
//   TWINS_EGRESS=loopback  loopback addresses only (127.0.0.0/8, ::1): nothing a twin sends leaves the
//                        machine — for a developer who wants that, and for the test suite, whose
//                        traffic must stay on loopback.
// The check runs on every connection the delivery agent opens, after DNS resolution (so a name
// that resolves to 127.0.0.1 is refused, and a name re-resolving differently later is checked
// again), and for IP literals before connecting; deliveries do not follow redirects, and a
// connection a redirect would open goes through the same check.

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { createRequire } from 'node:module';
import type { Agent, buildConnector as BuildConnector } from 'undici';
import { loadOnce } from './load-once.js';

/**
 * undici, loaded on first use rather than at import: the whole package is ~150 ms of a twin's start,
 * and a twin needs it only when it sends something (a webhook, an app request).
 */
const require = createRequire(import.meta.url);
export const undici = loadOnce(() => require('undici') as typeof import('undici'));

export type EgressPolicy = 'any' | 'public' | 'loopback';
export const EGRESS_POLICIES = ['any', 'public', 'loopback'] as const satisfies readonly EgressPolicy[];

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'shared' | 'multicast' | 'unspecified' | 'reserved' | 'invalid';

/** Cloud instance-metadata endpoints (AWS, GCP, Azure, ECS, Alibaba, Oracle, AWS IPv6). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '169.254.169.123', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

const V4_CLASS: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'shared',
  multicast: 'multicast',
  broadcast: 'reserved',
  unspecified: 'unspecified',
  reserved: 'reserved',
};

const V6_CLASS: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  uniqueLocal: 'private',
  linkLocal: 'link-local',
  multicast: 'multicast',
  unspecified: 'unspecified',
};

function classifyV4(a: ipaddr.IPv4): AddressClass {
  if (METADATA.has(a.toString())) return 'metadata';
  return V4_CLASS[a.range()] ?? 'reserved';
}

/** The IPv4 address an IPv6 one carries (mapped, translated, NAT64, 6to4), if any. */
function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = a.range();
  // 64:ff9b:1::/48 (local-use NAT64) embeds addresses in a layout of its network's choosing.
  if (range === 'rfc6052' && a.parts[2] !== 0) return new ipaddr.IPv4([0, 0, 0, 0]);
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    const p = a.parts;
    return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  }
  if (range === '6to4') {
    const p = a.parts;
    return new ipaddr.IPv4([p[1]! >> 8, p[1]! & 0xff, p[2]! >> 8, p[2]! & 0xff]);
  }
  return undefined;
}

/**
 * What kind of address `ip` is (a pure function: no I/O). Accepts IPv4, IPv6 (with or without
 * brackets or a zone), IPv4-mapped and other IPv6 forms carrying an IPv4 address, which are judged
 * by the address they carry. Anything that is not an IP address is `invalid`.
 */
export function classifyAddress(ip: string): AddressClass {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  // Only the canonical textual forms (what DNS answers and URL parsing produce), not 0x7f.1 & co.
  if (isIP(text) === 0) return 'invalid';
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return classifyV4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  if (METADATA.has(v6.toString())) return 'metadata';
  const v4 = embeddedV4(v6);
  if (v4) return classifyV4(v4);
  return V6_CLASS[v6.range()] ?? 'reserved';
}

/** Addresses and ranges refused besides the classes above (the control plane's own). */
export function parseDenyList(text: string | undefined): (ipaddr.IPv4 | ipaddr.IPv6 | [ipaddr.IPv4 | ipaddr.IPv6, number])[] {
  const out: (ipaddr.IPv4 | ipaddr.IPv6 | [ipaddr.IPv4 | ipaddr.IPv6, number])[] = [];
  for (const raw of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    try {
      out.push(raw.includes('/') ? ipaddr.parseCIDR(raw) : ipaddr.parse(raw));
    } catch {
      // not an address: ignored
    }
  }
  return out;
}

/** The sentence a refused delivery records. */
export const refusalMessage = (policy: EgressPolicy, reason: string) => `Refused by the egress policy (TWINS_EGRESS=${policy}): ${reason}.`;

export class EgressRefused extends Error {
  readonly refused = true;
  constructor(
    readonly reason: string,
    policy: EgressPolicy,
  ) {
    super(refusalMessage(policy, reason));
    this.name = 'EgressRefused';
  }
}

export class EgressGuard {
  private readonly deny;

  constructor(
    readonly policy: EgressPolicy,
    deny: string | undefined = undefined,
  ) {
    this.deny = parseDenyList(deny);
  }

  static fromEnv(env: NodeJS.ProcessEnv = process.env): EgressGuard {
    const policy = (EGRESS_POLICIES as readonly string[]).includes(env.TWINS_EGRESS ?? '') ? (env.TWINS_EGRESS as EgressPolicy) : 'any';
    return new EgressGuard(policy, env.TWINS_EGRESS_DENY);
  }

  /** What the policy lets a twin reach, as its refusals say it. */
  private get allowedKind(): string {
    return this.policy === 'loopback' ? 'loopback' : 'public';
  }

  /** Whether a connection to this (resolved) address may be opened. */
  allows(ip: string): boolean {
    if (this.policy === 'any') return true;
    if (this.policy === 'loopback') return classifyAddress(ip) === 'loopback';
    if (classifyAddress(ip) !== 'public') return false;
    const a = ipaddr.process(ip.replace(/^\[|\]$/g, ''));
    for (const d of this.deny) {
      if (Array.isArray(d)) {
        if (a.kind() === d[0].kind() && a.match(d as [ipaddr.IPv4, number])) return false;
      } else if (a.kind() === d.kind() && a.toString() === d.toString()) return false;
    }
    return true;
  }

  /** Why a URL may not be delivered to, after resolving its host; undefined when it may. */
  async check(url: string): Promise<string | undefined> {
    if (this.policy === 'any') return undefined;
    let host: string;
    try {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'only http and https URLs are delivered to';
      host = u.hostname.replace(/^\[|\]$/g, '');
    } catch {
      return 'the URL is not valid';
    }
    if (isIP(host)) return this.allows(host) ? undefined : `the address is not ${this.allowedKind}`;
    const addresses = await new Promise<LookupAddress[]>((resolve) => dnsLookup(host, { all: true }, (err, list) => resolve(err ? [] : list)));
    if (addresses.length === 0) return undefined; // unresolvable: the attempt fails on its own
    return addresses.every((a) => this.allows(a.address)) ? undefined : `the host resolves to an address that is not ${this.allowedKind}`;
  }

  /**
   * An undici agent whose every connection is checked: names after resolution (the addresses it
   * connects to are the ones checked), IP literals before connecting.
   */
  agent(timeoutMs: number): Agent | undefined {
    if (this.policy === 'any') return undefined;
    const lookup = (hostname: string, options: { all?: boolean; family?: number }, cb: (...a: unknown[]) => void) => {
      dnsLookup(hostname, { ...options, all: true }, (err, list) => {
        if (err) return cb(err);
        if (list.length === 0 || !list.every((a) => this.allows(a.address))) {
          return cb(new EgressRefused(`the host resolves to an address that is not ${this.allowedKind}`, this.policy));
        }
        if (options.all) cb(null, list);
        else cb(null, list[0]!.address, list[0]!.family);
      });
    };
    const { Agent: UndiciAgent, buildConnector } = undici();
    const connect = buildConnector({ timeout: timeoutMs, lookup } as BuildConnector.BuildOptions);
    return new UndiciAgent({
      connect: (opts, cb) => {
        const host = opts.hostname.replace(/^\[|\]$/g, '');
        if (isIP(host) && !this.allows(host)) {
          cb(new EgressRefused(`the address is not ${this.allowedKind}`, this.policy), null);
          return;
        }
        connect(opts, cb);
      },
    });
  }
}
