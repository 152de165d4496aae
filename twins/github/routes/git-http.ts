// Git's smart HTTP protocol (gitprotocol-http, protocol v0 and v2) at the repository's clone URL,
// `/{owner}/{repo}.git` (also without `.git`, as GitHub answers both): `info/refs`,
// `git-upload-pack` (clone, fetch, ls-remote) and `git-receive-pack` (push, protocol v0 only, as
// git itself). The twin key is the password (`x-access-token:<key>`, any user name) or a bearer
// token; without one the answer is 401 with `WWW-Authenticate: Basic`, so git asks its credential
// helper. What the protocol cannot read is answered with an `ERR` packet git shows as
// "remote error"; nothing is kept then.

import { gunzipSync } from 'node:zlib';
import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import type { Json } from '../model/accounts.js';
import { findRepository, movedRepository } from '../model/repositories.js';
import { advertisedRefs, commonCommits, missingWant, objectsFor, packOf, receivePush, shallowBoundary, type RefCommand } from '../model/git-transfer.js';
import { ZERO } from '../model/pushes.js';
import { MAX_GIT_BODY_BYTES } from '../../../twin-runtime/body-limits.js';
import { DELIM, FLUSH, ProtocolError, line, pkt, readPackets, sideband, type Packet } from '../wire/pkt-line.js';

const AGENT = 'agent=git/github-twin';
/** Largest request body once un-gzipped: the same as a body sent as it is. */
const MAX_INFLATED_BYTES = MAX_GIT_BODY_BYTES;

const UPLOAD_CAPS_V0 = [
  'side-band',
  'side-band-64k',
  'no-progress',
  'include-tag',
  'allow-tip-sha1-in-want',
  'allow-reachable-sha1-in-want',
  'object-format=sha1',
  AGENT,
];
const RECEIVE_CAPS = ['report-status', 'delete-refs', 'side-band-64k', 'quiet', 'atomic', 'ofs-delta', 'object-format=sha1', AGENT];

type Service = 'git-upload-pack' | 'git-receive-pack';

function text(status: number, body: string, headers: Record<string, string> = {}): TwinResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body };
}

/** The key from `Authorization: Basic <user:key>` (or `<key>:`) or `Bearer|token <key>`. */
function presentedKey(req: TwinRequest): string | undefined {
  const h = req.headers.authorization?.trim();
  if (!h) return undefined;
  const basic = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(h);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return decoded;
    const password = decoded.slice(colon + 1);
    return password || decoded.slice(0, colon);
  }
  return /^(?:token|bearer)\s+(\S+)$/i.exec(h)?.[1] ?? '';
}

function unauthorized(): TwinResponse {
  return text(401, 'Invalid username or token. Password authentication is not supported for Git operations.\n', {
    'www-authenticate': 'Basic realm="GitHub"',
  });
}

function repositoryOf(req: TwinRequest, ctx: TwinContext): Json | undefined {
  const name = req.params.repo!.replace(/\.git$/, '');
  return findRepository(ctx, req.params.owner!, name);
}

/** Authenticate and find the repository; a response when either fails. */
function open(req: TwinRequest, ctx: TwinContext): Json | TwinResponse {
  const key = presentedKey(req);
  if (key !== ctx.apiKey) return unauthorized();
  const repo = repositoryOf(req, ctx);
  if (!repo) return movedTo(req, ctx) ?? text(404, 'Repository not found.\n');
  return repo;
}

/**
 * A renamed repository's old name: 301 to the same git path under the new name (git follows it
 * on its first request and says "redirecting to …", as with GitHub).
 */
function movedTo(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const suffix = req.params.repo!.endsWith('.git') ? '.git' : '';
  const moved = movedRepository(ctx, req.params.owner!, req.params.repo!.replace(/\.git$/, ''));
  if (!moved) return undefined;
  const prefix = `/${req.params.owner}/${req.params.repo}`;
  const rest = req.path.startsWith(prefix) ? req.path.slice(prefix.length) : '';
  const location = `${ctx.baseUrl}/${moved.full_name}${suffix}${rest}${req.queryString ? `?${req.queryString}` : ''}`;
  return text(301, `Moved to ${location}\n`, { location });
}

function isResponse(v: Json | TwinResponse): v is TwinResponse {
  return typeof (v as TwinResponse).status === 'number' && !('full_name' in v);
}

function protocolV2(req: TwinRequest): boolean {
  return /(?:^|:)version=2(?::|$)/.test(String(req.headers['git-protocol'] ?? ''));
}

function result(service: Service, parts: Buffer[]): TwinResponse {
  return {
    status: 200,
    headers: { 'content-type': `application/x-${service}-result`, 'cache-control': 'no-cache' },
    body: Buffer.concat(parts),
  };
}

/** The request body, un-gzipped when git compressed it. */
function requestBody(req: TwinRequest): Buffer {
  const enc = String(req.headers['content-encoding'] ?? '').toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip') {
    try {
      return gunzipSync(req.rawBody, { maxOutputLength: MAX_INFLATED_BYTES });
    } catch {
      throw new ProtocolError('protocol error: the request body is not valid gzip');
    }
  }
  return req.rawBody;
}

function errPacket(service: Service, e: unknown): TwinResponse {
  if (!(e instanceof ProtocolError)) throw e;
  return result(service, [pkt(`ERR ${e.message}\n`)]);
}

// ---- info/refs ---------------------------------------------------------------------------

function advertise(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const service = req.query.service;
  if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
    return text(403, 'Please upgrade your git client: this server speaks the smart HTTP protocol only.\n');
  }
  const repo = open(req, ctx);
  if (isResponse(repo)) return repo;
  const headers = { 'content-type': `application/x-${service}-advertisement`, 'cache-control': 'no-cache' };
  if (service === 'git-upload-pack' && protocolV2(req)) {
    const caps = ['version 2', AGENT, 'ls-refs=unborn', 'fetch=shallow', 'server-option', 'object-format=sha1'];
    return { status: 200, headers, body: Buffer.concat([...caps.map((c) => pkt(`${c}\n`)), FLUSH]) };
  }
  const { head, refs } = advertisedRefs(ctx, repo);
  const caps = service === 'git-upload-pack' ? [...UPLOAD_CAPS_V0, ...(head ? [`symref=HEAD:${head}`] : [])] : RECEIVE_CAPS;
  const lines: string[] = [];
  const headSha = head ? refs.find((r) => r.name === head)!.sha : undefined;
  if (service === 'git-upload-pack' && headSha) lines.push(`${headSha} HEAD`);
  for (const r of refs) {
    lines.push(`${r.sha} ${r.name}`);
    if (service === 'git-upload-pack' && r.peeled) lines.push(`${r.peeled} ${r.name}^{}`);
  }
  if (!lines.length) lines.push(`${ZERO} capabilities^{}`);
  const body = [pkt(`# service=${service}\n`), FLUSH];
  for (const [i, l] of lines.entries()) body.push(pkt(i === 0 ? `${l}\0${caps.join(' ')}\n` : `${l}\n`));
  body.push(FLUSH);
  return { status: 200, headers, body: Buffer.concat(body) };
}

// ---- upload-pack -------------------------------------------------------------------------

interface FetchRequest {
  wants: string[];
  haves: string[];
  done: boolean;
  caps: Set<string>;
  depth?: number;
}

const OID = /^[0-9a-f]{40}$/;

function oidArg(l: string, word: string): string {
  const oid = l.slice(word.length + 1, word.length + 41);
  if (!OID.test(oid)) throw new ProtocolError(`protocol error: expected '${word} <oid>', got '${l.slice(0, 60)}'`);
  return oid;
}

function readFetchLines(lines: string[], caps: Set<string>): FetchRequest {
  const out: FetchRequest = { wants: [], haves: [], done: false, caps };
  for (const l of lines) {
    if (l.startsWith('want ')) {
      out.wants.push(oidArg(l, 'want'));
      if (out.wants.length === 1 && caps.size === 0) for (const c of l.slice(46).split(' ').filter(Boolean)) caps.add(c);
    } else if (l.startsWith('have ')) out.haves.push(oidArg(l, 'have'));
    else if (l === 'done') out.done = true;
    else if (l.startsWith('deepen ')) {
      const n = Number(l.slice(7));
      if (!Number.isInteger(n) || n < 1) throw new ProtocolError(`protocol error: bad deepen '${l.slice(7, 30)}'`);
      out.depth = n;
    } else if (l.startsWith('shallow ')) oidArg(l, 'shallow');
    else if (
      !['thin-pack', 'no-progress', 'include-tag', 'ofs-delta', 'deepen-relative', 'wait-for-done', 'sideband-all'].includes(l) &&
      !l.startsWith('filter ') &&
      !l.startsWith('deepen-') &&
      !l.startsWith('want-ref ')
    ) {
      throw new ProtocolError(`protocol error: unexpected '${l.slice(0, 60)}'`);
    }
  }
  if (out.wants.length > 100_000 || out.haves.length > 100_000) throw new ProtocolError('protocol error: too many lines');
  return out;
}

function dataLines(packets: Packet[]): string[] {
  return packets.filter((p) => p.kind === 'data').map((p) => line(p)!);
}

function packBands(ctx: TwinContext, repo: Json, f: FetchRequest, common: string[], max: number, shallow?: Set<string>): Buffer[] {
  return sideband(1, packOf(ctx, repo, objectsFor(ctx, repo, f.wants, common, f.caps.has('include-tag'), shallow)), max);
}

function uploadPackV0(ctx: TwinContext, repo: Json, body: Buffer): TwinResponse {
  const { packets } = readPackets(body);
  const f = readFetchLines(dataLines(packets), new Set());
  if (!f.wants.length) return result('git-upload-pack', []);
  const missing = missingWant(ctx, repo, f.wants);
  if (missing) return result('git-upload-pack', [pkt(`ERR upload-pack: not our ref ${missing}\n`)]);
  if (f.depth) return result('git-upload-pack', [pkt('ERR shallow fetches need protocol v2 (git -c protocol.version=2)\n')]);
  // Non-multi-ack negotiation as upload-pack does it: ACK the first common commit, NAK when none.
  const common = commonCommits(ctx, repo, f.haves);
  const out: Buffer[] = [pkt(common.length ? `ACK ${common[0]}\n` : 'NAK\n')];
  if (!f.done) return result('git-upload-pack', out);
  const band = f.caps.has('side-band-64k') ? 65515 : f.caps.has('side-band') ? 995 : 0;
  if (band) {
    out.push(...packBands(ctx, repo, f, common, band), FLUSH);
  } else {
    out.push(...packOf(ctx, repo, objectsFor(ctx, repo, f.wants, common, f.caps.has('include-tag'))));
  }
  return result('git-upload-pack', out);
}

/** `command=…`, capability lines, delim, arguments, flush. */
function readCommandV2(body: Buffer): { command: string; args: string[] } {
  const { packets } = readPackets(body, (p) => p.kind === 'flush');
  let command = '';
  const args: string[] = [];
  let inArgs = false;
  for (const p of packets) {
    if (p.kind === 'delim') inArgs = true;
    else if (p.kind === 'data') {
      const l = line(p)!;
      if (inArgs) args.push(l);
      else if (l.startsWith('command=')) command = l.slice(8);
    }
  }
  if (!command) throw new ProtocolError('protocol error: no command requested');
  return { command, args };
}

function lsRefsV2(ctx: TwinContext, repo: Json, args: string[]): Buffer[] {
  const prefixes = args.filter((a) => a.startsWith('ref-prefix ')).map((a) => a.slice(11));
  const wanted = (name: string) => !prefixes.length || prefixes.some((p) => name.startsWith(p));
  const symrefs = args.includes('symrefs');
  const peel = args.includes('peel');
  const { head, refs } = advertisedRefs(ctx, repo);
  const out: Buffer[] = [];
  if (wanted('HEAD')) {
    const target = `refs/heads/${repo.default_branch}`;
    if (head) out.push(pkt(`${refs.find((r) => r.name === head)!.sha} HEAD${symrefs ? ` symref-target:${head}` : ''}\n`));
    else if (args.includes('unborn')) out.push(pkt(`unborn HEAD${symrefs ? ` symref-target:${target}` : ''}\n`));
  }
  for (const r of refs) {
    if (!wanted(r.name)) continue;
    out.push(pkt(`${r.sha} ${r.name}${peel && r.peeled ? ` peeled:${r.peeled}` : ''}\n`));
  }
  out.push(FLUSH);
  return out;
}

function fetchV2(ctx: TwinContext, repo: Json, args: string[]): Buffer[] {
  const f = readFetchLines(args, new Set(args.filter((a) => ['include-tag', 'no-progress', 'thin-pack', 'ofs-delta'].includes(a))));
  const missing = missingWant(ctx, repo, f.wants);
  if (missing) return [pkt(`ERR upload-pack: not our ref ${missing}\n`)];
  const common = commonCommits(ctx, repo, f.haves);
  const out: Buffer[] = [];
  if (!f.done) {
    out.push(pkt('acknowledgments\n'));
    if (!common.length) return [...out, pkt('NAK\n'), FLUSH];
    for (const c of common) out.push(pkt(`ACK ${c}\n`));
    out.push(pkt('ready\n'), DELIM);
  }
  let shallow: Set<string> | undefined;
  if (f.depth) {
    shallow = shallowBoundary(ctx, repo, f.wants, f.depth);
    out.push(pkt('shallow-info\n'), ...[...shallow].map((s) => pkt(`shallow ${s}\n`)), DELIM);
  }
  out.push(pkt('packfile\n'), ...packBands(ctx, repo, f, common, 65515, shallow), FLUSH);
  return out;
}

async function uploadPack(req: TwinRequest, ctx: TwinContext): Promise<TwinResponse> {
  const repo = open(req, ctx);
  if (isResponse(repo)) return repo;
  try {
    const body = requestBody(req);
    if (!protocolV2(req)) return uploadPackV0(ctx, repo, body);
    const { command, args } = readCommandV2(body);
    if (command === 'ls-refs') return result('git-upload-pack', lsRefsV2(ctx, repo, args));
    if (command === 'fetch') return result('git-upload-pack', fetchV2(ctx, repo, args));
    throw new ProtocolError(`protocol error: unknown command '${command.slice(0, 40)}'`);
  } catch (e) {
    return errPacket('git-upload-pack', e);
  }
}

// ---- receive-pack ------------------------------------------------------------------------

async function receivePack(req: TwinRequest, ctx: TwinContext): Promise<TwinResponse> {
  const repo = open(req, ctx);
  if (isResponse(repo)) return repo;
  let commands: RefCommand[];
  let caps = new Set<string>();
  let pack: Buffer;
  try {
    const { packets, rest } = readPackets(requestBody(req), (p) => p.kind === 'flush', 10_001);
    if (packets[packets.length - 1]?.kind !== 'flush') throw new ProtocolError('protocol error: expected flush after ref updates');
    commands = [];
    for (const p of packets) {
      if (p.kind !== 'data') continue;
      let l = p.data.toString('utf8').replace(/\n$/, '');
      const nul = l.indexOf('\0');
      if (nul >= 0) {
        if (commands.length === 0)
          caps = new Set(
            l
              .slice(nul + 1)
              .split(' ')
              .filter(Boolean),
          );
        l = l.slice(0, nul);
      }
      if (l.startsWith('shallow ')) continue;
      const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.+)$/.exec(l);
      if (!m) throw new ProtocolError(`protocol error: expected old/new/ref, got '${l.slice(0, 60)}'`);
      commands.push({ old: m[1]!, new: m[2]!, ref: m[3]! });
    }
    pack = rest;
  } catch (e) {
    return errPacket('git-receive-pack', e);
  }
  const outcome = await receivePush(ctx, repo, commands, pack, caps.has('atomic'));
  if (!caps.has('report-status')) return result('git-receive-pack', caps.has('side-band-64k') ? [FLUSH] : []);
  const report = Buffer.concat([
    pkt(outcome.unpack === 'ok' ? 'unpack ok\n' : `unpack ${outcome.unpack}\n`),
    ...outcome.refs.map((r) => pkt(r.error ? `ng ${r.ref} ${r.error}\n` : `ok ${r.ref}\n`)),
    FLUSH,
  ]);
  return result('git-receive-pack', caps.has('side-band-64k') ? [...sideband(1, report), FLUSH] : [report]);
}

function gitRoute(method: 'GET' | 'POST', suffix: string, handler: TwinRoute['handler']): TwinRoute {
  // The handler checks the key itself (git's Basic credentials), and git traffic is not metered
  // against the REST rate limit.
  return { method, path: `/{owner}/{repo}/${suffix}`, handler, public: true, unmetered: true };
}

export const gitHttpRoutes: TwinRoute[] = [
  gitRoute('GET', 'info/refs', advertise),
  gitRoute('POST', 'git-upload-pack', uploadPack),
  gitRoute('POST', 'git-receive-pack', receivePack),
];
