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

/** An ISATAP interface identifier: routed by its IPv6 prefix once its IPv4 address is public. */
function isIsatap(a: ipaddr.IPv6): boolean {
  return (a.parts[4] === 0 || a.parts[4] === 0x200) && a.parts[5] === 0x5efe;
}

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/**
 * The IPv4 addresses an IPv6 one carries, judged in its place: IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`, deprecated but still routed by some stacks: `::7f00:1` is
 * 127.0.0.1), translated (RFC 6145), NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`), Teredo
 * (`2001::/32`: the server and, inverted, the client), ISATAP interface identifiers
 * (`…:0:5efe:a.b.c.d`). Empty when it carries none.
 */
function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = a.parts;
  const range = a.range();
  // 64:ff9b:1::/48 (local-use NAT64) embeds addresses in a layout of its network's choosing.
  if (range === 'rfc6052' && p[2] !== 0) return [new ipaddr.IPv4([0, 0, 0, 0])];
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return [v4(p[6]!, p[7]!)];
  if (range === '6to4') return [v4(p[1]!, p[2]!)];
  if (range === 'teredo') return [v4(~p[6]! & 0xffff, ~p[7]! & 0xffff), v4(p[2]!, p[3]!)];
  // ::/96 apart from :: and ::1 (their own classes): the IPv4-compatible form.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return [v4(p[6]!, p[7]!)];
  if (isIsatap(a)) return [v4(p[6]!, p[7]!)];
  return [];
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
  const carried = embeddedV4(v6).map(classifyV4);
  const refused = carried.find((c) => c !== 'public');
  if (refused) return refused;
  if (carried.length > 0 && !isIsatap(v6)) return 'public';
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
