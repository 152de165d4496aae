// Walks of a twin's whole operation table over HTTP (loopback only), shared by the breadth
// benchmark and test/generic/:
//   levelWalk    one request per operation the generic layer answers (every level but modelled):
//                none may be a route miss (every published path is answered or refused honestly),
//                none the coverage calls `unsupported` may answer 2xx, and every answer's
//                `Twin-Fidelity` header is its coverage level (or `unsupported` with a refusal);
//   schemaWalk   every `inferred`/`stored` operation in a scripted order (creates first, deletes
//                last, ids carried from answer to path), each 2xx answer checked with ajv +
//                ajv-formats against the operation's response schema from the generated
//                artefacts, no new record with an empty required id or URL nor an empty or
//                terminal lifecycle state the caller did not give (`status: null`, a quote born
//                `accepted`), and then every
//                reference (a parent the path names, an object the input names) sent missing,
//                which must be refused.

import { createRequire } from 'node:module';
import type { TwinServer } from '../../twin-runtime/server.js';
import type { GenericEngine } from '../../twin-runtime/generic/engine.js';
import { SchemaResolver, isNullable, synthesize, type Schema } from '../../twin-runtime/generic/schema.js';
import type { OperationEntry } from '../../twin-runtime/generic/spec-types.js';
import { countedSurface, coverageOf } from '../../twin-runtime/generic/coverage.js';
import { STATE_FIELDS, TERMINAL_STATES, enumOf, madeField } from '../../twin-runtime/generic/levels.js';
import { PLACEHOLDER_URL } from '../../twin-runtime/generic/schema.js';
import type { Action, GenericOperation } from '../../twin-runtime/generic/types.js';
import { FIDELITY_HEADER, isFidelityLevel, type FidelityLevel } from '../../twin-runtime/fidelity.js';
import { SPEC_API_VERSION } from '../../twins/stripe/wire/versions.js';

export interface WalkTwin {
  url: string;
  apiKey: string;
  server: TwinServer;
}

interface Answer {
  status: number;
  body: any;
  text: string;
  /** The `Twin-Fidelity` header. */
  level?: FidelityLevel;
}

/** A 2xx answer (Slack: `ok: true` too). */
export const answered = (slug: string, a: Answer) => a.status >= 200 && a.status < 300 && (slug !== 'slack' || a.body?.ok === true);

/** Bracket-notation form encoding (Stripe), objects as JSON strings (Slack). */
function formEncode(value: Record<string, unknown>, nestedJson: boolean): string {
  const out = new URLSearchParams();
  const put = (key: string, v: unknown): void => {
    if (v === undefined) return;
    if (v === null) out.append(key, '');
    else if (Array.isArray(v)) {
      if (nestedJson) out.append(key, JSON.stringify(v));
      else for (const [i, x] of v.entries()) put(`${key}[${i}]`, x);
    } else if (typeof v === 'object') {
      if (nestedJson) out.append(key, JSON.stringify(v));
      else for (const [k, x] of Object.entries(v)) put(`${key}[${k}]`, x);
    } else out.append(key, String(v));
  };
  for (const [k, v] of Object.entries(value)) put(k, v);
  return out.toString();
}

export async function send(
  twin: WalkTwin,
  slug: string,
  method: string,
  path: string,
  body?: Record<string, unknown>,
  query?: Record<string, unknown>,
): Promise<Answer> {
  // Twilio authenticates with the account SID and its token (HTTP Basic); the others with a bearer key.
  const sid = slug === 'twilio' ? twin.server.host.credential().account_sid : undefined;
  const headers: Record<string, string> = { authorization: sid ? `Basic ${Buffer.from(`${sid}:${twin.apiKey}`).toString('base64')}` : `Bearer ${twin.apiKey}` };
  // Stripe answers in the version its bundled spec describes, which is what the answers are checked against.
  if (slug === 'stripe') headers['stripe-version'] = SPEC_API_VERSION;
  let payload: string | undefined;
  if (body && method !== 'GET') {
    if (slug === 'github' || slug === 'jira') {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    } else {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = formEncode(body, slug === 'slack');
    }
  }
  const qs = query && Object.keys(query).length ? '?' + formEncode(query, slug === 'slack') : '';
  const res = await fetch(twin.url + path + qs, { method, headers, body: payload });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const level = res.headers.get(FIDELITY_HEADER);
  return { status: res.status, body: parsed, text, level: isFidelityLevel(level) ? level : undefined };
}

/** Does an answer say "no such route"? */
export function isRouteMiss(slug: string, a: Answer): boolean {
  if (slug === 'stripe') return a.status === 404 && typeof a.body?.error?.message === 'string' && a.body.error.message.startsWith('Unrecognized request URL');
  if (slug === 'github') return a.status === 404 && a.body?.message === 'Not Found' && a.body?.documentation_url === 'https://docs.github.com/rest';
  if (slug === 'slack') return a.body?.ok === false && a.body?.error === 'unknown_method';
  return a.status === 404;
}

/** Values for path parameters that name things the twin has (the viewer, a repository, a channel). */
export type Fixtures = Record<string, string>;

export async function prepareFixtures(twin: WalkTwin, slug: string): Promise<Fixtures> {
  if (slug === 'github') {
    const me = (await send(twin, slug, 'GET', '/user')).body.login as string;
    await send(twin, slug, 'POST', '/user/repos', { name: 'walk', auto_init: true });
    const orgs = (await send(twin, slug, 'GET', '/user/orgs')).body as { login: string }[];
    return { owner: me, repo: 'walk', username: me, org: orgs[0]?.login ?? me, branch: 'main', ref: 'main' };
  }
  if (slug === 'slack') {
    const channels = (await send(twin, slug, 'POST', '/api/conversations.list', {})).body.channels as { id: string }[];
    const channel = channels[0]!.id;
    const ts = (await send(twin, slug, 'POST', '/api/chat.postMessage', { channel, text: 'walk' })).body.ts as string;
    const user = (await send(twin, slug, 'POST', '/api/auth.test', {})).body.user_id as string;
    return { channel, channel_id: channel, timestamp: ts, ts, user, user_id: user };
  }
  if (slug === 'stripe') {
    const customer = (await send(twin, slug, 'POST', '/v1/customers', { name: 'Walk' })).body.id as string;
    const product = (await send(twin, slug, 'POST', '/v1/products', { name: 'Walk' })).body.id as string;
    const price = (await send(twin, slug, 'POST', '/v1/prices', { product, currency: 'usd', unit_amount: 100 })).body.id as string;
    return { customer, product, price };
  }
  if (slug === 'twilio') return { AccountSid: twin.server.host.credential().account_sid! };
  if (slug === 'jira') {
    const project = (await send(twin, slug, 'GET', '/rest/api/3/project/DEMO')).body as { id: string; key: string };
    const types = (await send(twin, slug, 'GET', `/rest/api/3/issuetype/project`, undefined, { projectId: project.id })).body as { id: string }[];
    const fields = { project: { key: project.key }, issuetype: { id: types[0]!.id }, summary: 'walk' };
    const issue = (await send(twin, slug, 'POST', '/rest/api/3/issue', { fields })).body as { id: string; key: string };
    const comment = (await send(twin, slug, 'POST', `/rest/api/3/issue/${issue.key}/comment`, { body: { type: 'doc', version: 1, content: [] } })).body as {
      id: string;
    };
    return {
      issueIdOrKey: issue.key,
      issueId: issue.id,
      issueKey: issue.key,
      projectIdOrKey: project.key,
      projectKeyOrId: project.key,
      projectId: project.id,
      projectKey: project.key,
      issueTypeId: types[0]!.id,
      commentId: comment.id,
    };
  }
  return {};
}

function fillPath(template: string, values: (name: string) => string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(values(name)));
}

export interface LevelWalk {
  /** Operations walked (every one the generic layer answers). */
  walked: number;
  /** Of the counted surface (countedSurface): how many, and how many answered by a route (not the route miss). */
  counted: number;
  served: number;
  /** Operations whose request found no route (a route miss: a lie for a published path). */
  misses: string[];
  /** `unsupported` operations that answered 2xx, and 2xx answers marked `unsupported`. */
  lies: string[];
  /** Answers whose `Twin-Fidelity` is neither the coverage level nor an honest refusal. */
  mismatched: string[];
  /** Answers per `Twin-Fidelity` level. */
  levels: Partial<Record<FidelityLevel, number>>;
}

/** One request per operation the generic layer answers; see the file's head. */
export async function levelWalk(twin: WalkTwin, slug: string, fixtures: Fixtures): Promise<LevelWalk> {
  const surface = twin.server.twin.generic!;
  const rows = new Map(coverageOf(twin.server.twin).map((r) => [`${r.method} ${r.path}`, r.level]));
  const out: LevelWalk = { walked: 0, counted: 0, served: 0, misses: [], lies: [], mismatched: [], levels: {} };
  for (const { entry } of surface.operations()) {
    const level = rows.get(`${entry.method} ${entry.path}`)!;
    const path = fillPath(entry.path, (n) => fixtures[n] ?? '1');
    const routed = twin.server.host.match(entry.method, path) !== undefined;
    if (countedSurface(twin.server.twin, entry)) {
      out.counted++;
      if (routed) out.served++;
    }
    // A modelled row is answered by a hand-written route (or, removed by the provider, as it answers an unknown URL).
    if (level === 'modelled') continue;
    if (!routed) {
      out.misses.push(`${entry.method} ${entry.path}`);
      continue;
    }
    out.walked++;
    const a = await send(twin, slug, entry.method, path, entry.method === 'GET' || entry.method === 'DELETE' ? undefined : {});
    const name = `${entry.method} ${entry.path} (${level}) → ${a.status} ${a.level ?? 'no Twin-Fidelity'}`;
    if (a.level) out.levels[a.level] = (out.levels[a.level] ?? 0) + 1;
    if (answered(slug, a) && (level === 'unsupported' || a.level === 'unsupported')) out.lies.push(name);
    else if (a.level !== level && !(a.level === 'unsupported' && !answered(slug, a))) out.mismatched.push(name);
  }
  return out;
}

// ---- response schemas ------------------------------------------------------------------------

const require = createRequire(import.meta.url);

/** An ajv instance holding every component schema of the twin's artefacts under `spec#`. */
function responseAjv(engine: GenericEngine): { validate(schema: unknown, value: unknown): string | undefined } {
  const AjvModule = require('ajv');
  const Ajv = AjvModule.default ?? AjvModule;
  const formatsModule = require('ajv-formats');
  const addFormats = formatsModule.default ?? formatsModule;
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  addFormats(ajv);
  for (const f of engine.artefacts.table.formats) if (!ajv.formats[f]) ajv.addFormat(f, true);
  const schemas: Record<string, unknown> = {};
  for (const name of Object.keys(engine.artefacts.table.pieces)) if (!name.startsWith('op:')) schemas[name] = engine.artefacts.schema(name);
  const rewrite = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(rewrite);
    if (n && typeof n === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(n)) o[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#/, 'spec#') : rewrite(v);
      return o;
    }
    return n;
  };
  ajv.addSchema({ components: { schemas } }, 'spec');
  const compiled = new Map<unknown, any>();
  return {
    validate(schema, value) {
      let v = compiled.get(schema);
      if (!v) {
        v = ajv.compile(rewrite(schema));
        compiled.set(schema, v);
      }
      if (v(value)) return undefined;
      return (v.errors ?? [])
        .slice(0, 3)
        .map((e: any) => `${e.instancePath || '/'} ${e.message}`)
        .join('; ');
    },
  };
}

const ORDER: Action[] = ['create', 'upsert', 'set-one', 'get-one', 'list', 'search', 'retrieve', 'check', 'update', 'act', 'answer', 'delete', 'delete-one'];

export interface SchemaWalk {
  /** Generic operations walked. */
  walked: number;
  /** Of those, answered 2xx with a JSON body (what can be checked). */
  reached: number;
  /** Of those, valid against the response schema. */
  valid: number;
  /** Answered 2xx without a body (204) or a non-JSON one. */
  noBody: number;
  failures: string[];
  /** Operations that did not answer 2xx, with the status (preconditions the walk does not set up). */
  refused: string[];
  /** New records answered with an empty required id, URL, secret or hash (or a placeholder URL). */
  empty: string[];
  /**
   * Creates the coverage calls simulated that refused as not simulated (a level the operation's
   * answers do not keep).
   */
  refusedCreates: string[];
  /** References sent missing (a parent the path names, an object the input names), each refused or not. */
  references: number;
  unrefused: string[];
}

/** A value no record of any twin has. */
const MISSING = 'missing_walk_0';

/** The body with the value at a reference path (`line_items.[].price`) replaced, or undefined when the body has none there. */
function withMissing(body: unknown, path: string[]): Record<string, unknown> | undefined {
  const copy = structuredClone(body) as Record<string, unknown>;
  let at: any = copy;
  for (let i = 0; i < path.length - 1; i++) {
    at = path[i] === '[]' ? (Array.isArray(at) ? at[0] : undefined) : at?.[path[i]!];
    if (at === undefined || at === null || typeof at !== 'object') return undefined;
  }
  const last = path[path.length - 1]!;
  if (typeof at[last] === 'string') at[last] = MISSING;
  else if (Array.isArray(at[last]) && typeof at[last][0] === 'string') at[last][0] = MISSING;
  else return undefined;
  return copy;
}

/**
 * Fields of a new record the provider makes (its key, required URLs, secrets, hashes) answered
 * empty, and a lifecycle state (`status`, `state` with an enum) answered empty, or terminal on a
 * create when the caller did not ask for it.
 */
function emptyMade(engine: GenericEngine, op: GenericOperation, record: Record<string, unknown>, body: Record<string, unknown>): string[] {
  const schema = engine.recordSchema(op);
  const object = engine.resolver.objectSchema(schema);
  const required = new Set<string>(object?.required ?? []);
  const key = op.action === 'create' ? (op.keyField ?? 'id') : undefined;
  const out: string[] = [];
  for (const [name, sub] of Object.entries<Schema>(object?.properties ?? {})) {
    if (!madeField(name, engine.resolver.flatten(sub), required.has(name), key)) continue;
    if (record[name] === '' || record[name] === PLACEHOLDER_URL) out.push(name);
  }
  for (const field of STATE_FIELDS) {
    if (!(field in record) || body[field] !== undefined || !enumOf(engine.resolver, schema, field).length) continue;
    const v = record[field];
    const nullable = isNullable(engine.resolver.flatten(object?.properties?.[field] ?? {}));
    if (v === '' || (v === null && !nullable) || (op.action === 'create' && typeof v === 'string' && TERMINAL_STATES.has(v)))
      out.push(`${field}: ${JSON.stringify(v)}`);
  }
  return out;
}

/** Every `inferred`/`stored` operation in a scripted order; see the file's head. */
export async function schemaWalk(twin: WalkTwin, slug: string, fixtures: Fixtures): Promise<SchemaWalk> {
  const engine = twin.server.twin.generic as GenericEngine;
  const resolver = new SchemaResolver(engine.artefacts);
  const ajv = responseAjv(engine);
  const rows = new Map(coverageOf(twin.server.twin).map((r) => [`${r.method} ${r.path}`, r.level]));
  const simulated = (l: FidelityLevel | undefined) => l === 'inferred' || l === 'stored';
  const ops = engine
    .operations()
    .filter((s) => simulated(rows.get(`${s.entry.method} ${s.entry.path}`)))
    .sort((a, b) => ORDER.indexOf(a.action!) - ORDER.indexOf(b.action!));
  /** Keys of records the walk created, per resource. */
  const keys = new Map<string, Record<string, string>>();
  const out: SchemaWalk = {
    walked: 0,
    reached: 0,
    valid: 0,
    noBody: 0,
    failures: [],
    refused: [],
    empty: [],
    refusedCreates: [],
    references: 0,
    unrefused: [],
  };
  for (const s of ops) {
    const entry: OperationEntry = s.entry;
    out.walked++;
    const piece = engine.artefacts.operation(entry.id);
    const known = keys.get(s.resource!) ?? {};
    const value = (n: string) => known[n] ?? fixtures[n] ?? '1';
    const path = fillPath(entry.path, value);
    const bodySchema = piece.request.body?.schema as Schema | undefined;
    let body = bodySchema ? (synthesize(resolver, bodySchema, { maxDepth: 4 }) as Record<string, unknown>) : {};
    if (!body || typeof body !== 'object' || Array.isArray(body)) body = {};
    // Arguments that name things the twin has (Slack's channel) take the fixture's value.
    for (const k of Object.keys(body)) {
      if (typeof body[k] !== 'string') continue;
      // A field naming another record (a promotion code's `coupon`): one the walk made, or a fixture.
      const made = keys.get(k)?.[k];
      if (made !== undefined) body[k] = made;
      else if (fixtures[k] !== undefined) body[k] = fixtures[k];
    }
    if (slug === 'slack') for (const [k, v] of Object.entries(known)) if (body[k] === undefined) body[k] = v;
    if (slug === 'github' && s.action === 'create') for (const k of ['name', 'tag_name', 'title', 'key']) if (body[k] === '') body[k] = `walk-${out.walked}`;
    const query: Record<string, unknown> = {};
    for (const p of piece.request.params) if (p.in === 'query' && p.required) query[p.name] = fixtures[p.name] ?? synthesize(resolver, p.schema as Schema);
    // The operation at a path: its body unless it reads, its required query when it is a GET.
    const sendTo = (at: string) =>
      send(twin, slug, entry.method, at, entry.method === 'GET' || entry.method === 'DELETE' ? undefined : body, entry.method === 'GET' ? query : undefined);
    const a = await sendTo(path);
    if (!answered(slug, a)) {
      if ((s.action === 'create' || s.action === 'upsert') && a.level === 'unsupported')
        out.refusedCreates.push(`${entry.method} ${entry.path}: ${a.text.slice(0, 200)}`);
      out.refused.push(
        `${entry.method} ${path} → ${a.status}${a.body?.error ? ` ${JSON.stringify(a.body.error).slice(0, 300)}` : a.body?.message ? ` ${String(a.body.message).slice(0, 120)}` : ''}`,
      );
      continue;
    }
    const op = engine.operation(entry.id)!;
    const rec = slug === 'slack' ? (Object.values(a.body ?? {}).find((v) => v && typeof v === 'object' && !Array.isArray(v)) as any) : a.body;
    if ((s.action === 'create' || s.action === 'upsert' || s.action === 'set-one') && rec && typeof rec === 'object') {
      out.empty.push(...emptyMade(engine, op, rec, body).map((f) => `${entry.method} ${entry.path}: \`${f}\``));
    }
    // Each reference sent missing instead: a parent the path names, an object the input names.
    if (s.action !== 'delete' && s.action !== 'delete-one') {
      const adapter = engine.adapter;
      const parents = op.scope.filter((p) => adapter.checksParent?.(op, p) || op.parents?.some((x) => x.param === p));
      for (const p of parents) {
        if (!entry.path.includes(`{${p}}`)) continue;
        const missingPath = fillPath(entry.path, (n) => (n === p ? MISSING : value(n)));
        const m = await sendTo(missingPath);
        out.references++;
        if (answered(slug, m)) out.unrefused.push(`${entry.method} ${entry.path} with {${p}} missing → ${m.status}`);
      }
      for (const ref of adapter.referenceFields?.(op) ?? []) {
        const missingBody = withMissing(body, ref);
        if (!missingBody) continue;
        const m = await send(twin, slug, entry.method, path, missingBody);
        out.references++;
        if (answered(slug, m)) out.unrefused.push(`${entry.method} ${entry.path} with ${ref.join('.')} missing → ${m.status}`);
      }
    }
    if (s.action === 'create' || s.action === 'upsert') {
      const params = [...entry.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const item = engine.operations().find((o) => o.resource === s.resource && (o.action === 'retrieve' || o.action === 'delete'));
      const keyParam = item?.entry.path.match(/\{([^}]+)\}(\.json)?$/)?.[1];
      const record: Record<string, string> = { ...known };
      for (const p of params) record[p] = value(p);
      if (keyParam && rec) {
        const field = slug === 'github' ? (await import('../../twins/github/wire/generic.js')).keyFieldFor(keyParam) : slug === 'twilio' ? 'sid' : 'id';
        if (rec[field] !== undefined) record[keyParam] = String(rec[field]);
      }
      if (slug === 'slack' && rec?.id) for (const k of Object.keys(body)) if (/_id$/.test(k) && k !== 'channel_id') record[k] = String(rec.id);
      if (slug === 'slack' && rec?.id) record[`${s.resource!.split('.').pop()!.replace(/s$/, '')}_id`] = String(rec.id);
      keys.set(s.resource!, record);
    }
    const schema = piece.response;
    if (a.body === undefined || !schema) {
      out.noBody++;
      continue;
    }
    out.reached++;
    const problem = ajv.validate(schema, a.body);
    if (problem) out.failures.push(`${entry.method} ${entry.path}: ${problem}`);
    else out.valid++;
  }
  return out;
}
