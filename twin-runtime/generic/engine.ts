// The generic surface: every operation of a twin's generated table that its adapter can classify is
// answered from the spec, statefully — create stores a record shaped by the response schema, the
// item operations act on stored records, lists read keyset pages of them — in the provider's
// envelopes and errors (the adapter's). Hand-written routes win: the runtime's router
// (twin-runtime/router.ts) registers this surface's routes only where no hand-written route has the
// same method and template, in the same find-my-way tree (a static segment beats a parameter).
//
// Every operation has a level (levels.ts): what the engine cannot simulate it refuses with
// `NotSimulated` (the host answers in the provider's envelope, `Twin-Fidelity: unsupported`) unless
// the environment asked for lenient answers (`ctx.fidelity`); an operation the table lists but the
// adapter does not serve is refused in both modes, never answered as an unknown route.

import type { TwinContext, TwinHandler, TwinRequest, TwinResponse } from '../contract.js';
import { NotSimulated, operationName } from '../fidelity.js';
import type { StoredRecord } from '../record-store.js';
import type { SpecArtefacts } from './artefacts.js';
import { indexOperations } from './classify.js';
import { templateShape } from '../path-template.js';
import { PLACEHOLDER_URL, SKIP, SchemaResolver, isPlainObject, mergeInput, synthesize, typeOf, UNSAFE_KEYS, type Schema } from './schema.js';
import type { HttpMethod, OperationEntry } from './spec-types.js';
import type {
  EngineLevel,
  GenericAdapter,
  GenericCall,
  GenericOperation,
  GenericRoute,
  GenericSurface,
  ListWindow,
  OperationStatus,
  Outcome,
} from './types.js';
import { OperationInput } from './input.js';
import { adapterMakes, decideFromSchemas, decideLevels, loose, madeField, STATE_FIELDS, type LevelSource } from './levels.js';

/** The storage key of a singleton (`get-one`/`set-one`) below its scope. */
const SINGLETON = '@';

/**
 * A generic route: its level is read when it answers (`fidelity`), since an operation's schemas are
 * read on its first call, not when the twin starts. A copy keeps the accessor when made with
 * `Object.create(Object.getPrototypeOf(route))` + `Object.assign` (GitHub's `/api/v3` routes).
 */
class EngineRoute implements GenericRoute {
  constructor(
    readonly method: HttpMethod,
    public path: string,
    readonly operationId: string,
    public handler: TwinHandler,
    private readonly level: () => EngineLevel,
  ) {}

  get fidelity(): EngineLevel {
    return this.level();
  }
}

/** The handler of an operation the engine does not serve: an honest refusal in every mode. */
const refusal =
  (reason: string): TwinHandler =>
  (req) => {
    throw new NotSimulated(operationName(req), reason);
  };

const isSingleton = (op: GenericOperation) =>
  op.action === 'get-one' || op.action === 'set-one' || op.action === 'delete-one' || (op.action === 'check' && !op.key);

export class GenericEngine implements GenericSurface, LevelSource {
  readonly resources: string[];
  readonly resolver: SchemaResolver;
  /** The input path hand-written routes share (same table, validator and policy). */
  readonly input: OperationInput;
  /** Operations the adapter classified (each answered at its level). */
  private readonly ops: GenericOperation[] = [];
  /** Operations of the table the engine does not serve, with why: refused in every mode. */
  private readonly refused: { entry: OperationEntry; reason: string }[] = [];
  private readonly shapeSource = new Map<GenericOperation, GenericOperation>();
  private readonly listSource = new Map<GenericOperation, GenericOperation>();
  private readonly handlers = new Map<GenericOperation, TwinHandler>();
  /** What `handWritten` was last told, so the same answer does not decide again. */
  private handKey?: string;
  /** An answer that is less than its operation's level (lenient mode answered what strict refuses). */
  private readonly downgraded = new WeakMap<TwinRequest, EngineLevel>();

  constructor(
    readonly adapter: GenericAdapter,
    readonly artefacts: SpecArtefacts,
  ) {
    this.resolver = new SchemaResolver(artefacts);
    this.input = new OperationInput(artefacts, adapter.inputPolicy);
    const index = indexOperations(artefacts.operations);
    for (const entry of artefacts.operations) {
      if (entry.excluded) {
        this.refused.push({ entry, reason: entry.excluded });
        continue;
      }
      const c = adapter.classify(entry, index);
      if (typeof c === 'string') {
        this.refused.push({ entry, reason: c });
        continue;
      }
      this.ops.push({ ...c, entry, level: 'stored' });
    }
    const served = this.ops;
    // A single record a path names with no key (branch protection, a settings page) is kept apart
    // from a collection of the same name (`PUT /notifications` is not an item of `GET /notifications`).
    const listed = new Set(served.filter((o) => o.action === 'list').map((o) => o.resource));
    for (const op of served) if (isSingleton(op) && listed.has(op.resource)) op.resource += '@';
    // The operation whose answer describes a resource's records: its retrieve, else its list, else
    // its single-record read; a create or a PUT answering `{}` or 204 still keeps a whole record.
    const byResource = new Map<string, GenericOperation[]>();
    for (const op of served) byResource.set(op.resource, [...(byResource.get(op.resource) ?? []), op]);
    const describes = (op: GenericOperation) => op.entry.response.kind !== 'none' && op.entry.response.kind !== 'other';
    for (const op of served) {
      const peers = (byResource.get(op.resource) ?? []).filter(describes);
      const source =
        peers.find((p) => p.action === 'retrieve' && p.entry.path === op.entry.path) ??
        peers.find((p) => p.action === 'retrieve') ??
        peers.find((p) => p.action === 'list') ??
        peers.find((p) => p.action === 'get-one');
      if (source && source !== op) this.shapeSource.set(op, source);
      // Its list's item may require fields its retrieve does not (a spec that disagrees with itself).
      const list = peers.find((p) => p.action === 'list');
      if (list && list !== source && list !== op) this.listSource.set(op, list);
    }
    const resources = new Set<string>();
    for (const op of served) {
      const execute = (req: TwinRequest, ctx: TwinContext) => this.execute(op, req, ctx);
      const piped = adapter.pipeline ? adapter.pipeline(op, execute) : execute;
      // The level of a lenient answer to what strict mode refuses goes with the answer.
      this.handlers.set(op, async (req, ctx) => {
        const res = await piped(req, ctx);
        const level = this.downgraded.get(req);
        return level ? { ...res, fidelity: level } : res;
      });
      resources.add(op.resource);
    }
    this.resources = [...resources].sort();
  }

  /** Levels decided without knowing of hand-written routes, when the router never said. */
  private decided(): void {
    if (this.handKey === undefined) this.handWritten(() => false);
  }

  handWritten(answers: (method: string, template: string) => boolean): void {
    const hand = this.ops.filter((op) => answers(op.entry.method, op.entry.path)).map((op) => `${op.entry.method} ${op.entry.path}`);
    const key = hand.join('\n');
    if (key === this.handKey) return;
    this.handKey = key;
    const set = new Set(hand);
    decideLevels(this, this.ops, (m, t) => set.has(`${m} ${t}`));
  }

  routes(): GenericRoute[] {
    const out: GenericRoute[] = [];
    const shapes = new Set<string>();
    this.decided();
    const add = (method: HttpMethod, entry: OperationEntry, handler: TwinHandler, level: () => EngineLevel) => {
      const shape = `${method} ${templateShape(entry.path)}`;
      if (shapes.has(shape)) return;
      shapes.add(shape);
      out.push(new EngineRoute(method, entry.path, entry.id, handler, level));
    };
    for (const op of this.ops) {
      const level = () => this.levelOf(op);
      for (const method of this.adapter.methods?.(op.entry) ?? [op.entry.method]) add(method, op.entry, this.handlers.get(op)!, level);
    }
    // The rest of the provider's published surface is refused honestly, never a route miss.
    for (const { entry, reason } of this.refused) {
      if (this.adapter.unrouted?.(entry)) continue;
      for (const method of this.adapter.methods?.(entry) ?? [entry.method]) add(method, entry, refusal(reason), () => 'unsupported');
    }
    return out;
  }

  /** The operation's level, its schemas read first when it depends on them. */
  levelOf(op: GenericOperation): EngineLevel {
    this.decided();
    if (op.pending) decideFromSchemas(this, op);
    return op.level;
  }

  operations(): OperationStatus[] {
    this.decided();
    return [
      ...this.refused.map(({ entry, reason }) => ({
        entry,
        served: false,
        level: 'unsupported' as const,
        reason,
        ...(this.adapter.unrouted?.(entry) ? { unrouted: true as const } : {}),
      })),
      ...this.ops.map((op) => ({
        entry: op.entry,
        served: this.levelOf(op) !== 'unsupported',
        level: op.level,
        ...(op.reason ? { reason: op.reason } : {}),
        action: op.action,
        resource: op.resource,
      })),
    ];
  }

  /** The classified operation of an operation id (tests, the walk). */
  operation(id: string): GenericOperation | undefined {
    return this.ops.find((op) => op.entry.id === id);
  }

  /** Top-level body properties and required names of an operation's request. */
  requestBody(op: GenericOperation): { properties: Record<string, Schema>; required: Set<string> } {
    const piece = this.artefacts.operation(op.entry.id);
    const s = piece.request.body?.schema ? this.resolver.objectSchema(piece.request.body.schema as Schema) : undefined;
    // Slack's arguments and Stripe's GET parameters are query-like: count them as input too.
    const properties: Record<string, Schema> = { ...(s?.properties ?? {}) };
    const required = new Set<string>(s?.required ?? []);
    for (const p of piece.request.params) {
      if (p.in !== 'query') continue;
      properties[p.name] ??= p.schema as Schema;
      if (p.required) required.add(p.name);
    }
    return { properties, required };
  }

  private byShape?: Map<string, OperationEntry>;

  requestFields(method: string, template: string): { body?: Set<string>; query?: Set<string> } | undefined {
    this.byShape ??= new Map(
      this.artefacts.operations.flatMap((e) => (this.adapter.methods?.(e) ?? [e.method]).map((m) => [`${m} ${templateShape(e.path)}`, e] as const)),
    );
    const entry = this.byShape.get(`${method} ${templateShape(template)}`);
    if (!entry) return undefined;
    const piece = this.artefacts.operation(entry.id);
    const names = new Set<string>();
    const collect = (node: Schema | undefined): void => {
      const s = this.resolver.flatten(node);
      for (const k of Object.keys(s.properties ?? {})) names.add(k);
      for (const b of s.anyOf ?? []) collect(b);
    };
    if (piece.request.body?.schema) collect(piece.request.body.schema as Schema);
    const query = piece.request.params.filter((p) => p.in === 'query').map((p) => p.name);
    return { body: names.size ? names : undefined, query: query.length ? new Set(query) : undefined };
  }

  // ---- one call -----------------------------------------------------------------------------

  /** Answer one call (runs inside the provider's pipeline, which renders thrown provider errors). */
  execute(op: GenericOperation, req: TwinRequest, ctx: TwinContext): TwinResponse {
    if (this.levelOf(op) === 'unsupported') {
      if (ctx.fidelity !== 'lenient') throw new NotSimulated(operationName(req), op.reason);
      this.downgraded.set(req, 'unsupported');
    }
    const input = this.adapter.input(req);
    const call: GenericCall = { op, req, ctx, params: { ...req.params }, query: input.query, body: input.body };
    const problem = this.input.check(op.entry, {
      path: { ...call.params },
      query: call.query,
      body: call.body,
      coerceBody: input.coerceBody,
    });
    if (problem) throw this.adapter.refuse(call, problem);
    this.adapter.checkReferences?.(call);
    for (const parent of op.parents ?? []) this.requireParent(call, parent.op);
    return this.adapter.render(call, this.perform(call));
  }

  /** The parent record a sub-resource's path names, or the provider's 404 for it. */
  private requireParent(call: GenericCall, parent: GenericOperation): void {
    // The parent's template names its parameters its own way (`{Sid}` for a child's `{ServiceSid}`).
    const names = [...parent.entry.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const ours = [...call.op.entry.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const params: Record<string, string> = {};
    names.forEach((n, i) => {
      const v = call.params[ours[i]!];
      if (v !== undefined) params[n] = v;
    });
    this.load({ ...call, op: parent, params });
  }

  /**
   * Refuse (strict) an answer the engine would have to invent: `what` names it. In lenient mode the
   * answer goes out, at level `unsupported`.
   */
  private cannot(call: GenericCall, what: string): void {
    if (call.ctx.fidelity === 'lenient') {
      this.downgraded.set(call.req, 'unsupported');
      return;
    }
    throw new NotSimulated(operationName(call.req), what);
  }

  /**
   * A new record's key the input did not give and the schema built empty (an optional `id`): minted
   * by `newKey`, or by the adapter's `fill` where it said it makes it for the level (GitHub's
   * integer ids), or refused.
   */
  private makeKey(call: GenericCall, record: Record<string, unknown>, schema: Schema | undefined, keyField: string): void {
    // Keys the adapter mints whatever the schema says (Stripe's prefixed ids): `newKey` makes them.
    if (adapterMakes(this.adapter, call.op, keyField, 'key', undefined)) return;
    const prop = schema ? this.resolver.objectSchema(schema)?.properties?.[keyField] : undefined;
    const keySchema = prop ? this.resolver.flatten(prop) : undefined;
    if (keySchema && adapterMakes(this.adapter, call.op, keyField, 'key', keySchema)) {
      const made = this.adapter.fill(call, { name: keyField, path: [keyField], schema: keySchema });
      if (made !== undefined && made !== SKIP && made !== '') {
        record[keyField] = made;
        return;
      }
    }
    this.madeByProvider(call, keyField);
  }

  /**
   * A field the provider makes came out empty: when the operation's input takes it (the caller
   * names it per call, a parse setting's `hostname`), the call lacks it and gets the provider's
   * refusal of missing input; otherwise it is the provider's to make and the twin refuses honestly.
   */
  private madeByProvider(call: GenericCall, field: string): void {
    const takes = Object.keys(this.requestBody(call.op).properties).some((n) => loose(n) === loose(field));
    if (takes) throw this.adapter.refuse(call, { where: 'body', field: [field], kind: 'missing' });
    this.cannot(call, `The provider makes a new record's \`${field}\`; the twin cannot.`);
  }

  /** A new record never goes out with an empty key or a made-up required URL. */
  private checkMade(call: GenericCall, record: Record<string, unknown>, schema: Schema | undefined): void {
    const object = schema ? this.resolver.objectSchema(schema) : undefined;
    const required = new Set<string>(object?.required ?? []);
    const key = call.op.action === 'create' ? (call.op.keyField ?? 'id') : undefined;
    for (const [name, sub] of Object.entries<Schema>(object?.properties ?? {})) {
      if (!madeField(name, this.resolver.flatten(sub), required.has(name), key)) continue;
      const v = record[name];
      if (v === '' || v === PLACEHOLDER_URL) this.madeByProvider(call, name);
    }
  }

  /** A path parameter or (Slack) an argument, as a string. */
  arg(call: GenericCall, name: string): string | undefined {
    const v = call.params[name] ?? call.body[name] ?? call.query[name];
    return v === undefined || v === null ? undefined : String(v);
  }

  private scopeValues(call: GenericCall): string[] {
    return call.op.scope.map((p) => {
      const v = this.arg(call, p) ?? '';
      return this.adapter.normalize ? this.adapter.normalize(p, v) : v;
    });
  }

  /** Records below this call's scope: the key prefix (prefix mode) or field values (field mode). */
  private where(call: GenericCall): { scope?: string; equals: Record<string, string> } {
    const values = this.scopeValues(call);
    if (this.adapter.scopeMode === 'field') {
      return { equals: Object.fromEntries(call.op.scope.map((p, i) => [p, values[i]!])) };
    }
    return { scope: values.length ? values.map(encodeURIComponent).join('/') + '/' : '', equals: {} };
  }

  storageKey(call: GenericCall, key: string): string {
    // A singleton is kept below its scope in both modes (one per customer, one per branch).
    if (this.adapter.scopeMode === 'field' && key !== SINGLETON) return key;
    const values = this.scopeValues(call);
    return (values.length ? values.map(encodeURIComponent).join('/') + '/' : '') + encodeURIComponent(key);
  }

  /** The record's key from the path (several trailing parameters join with `/`). */
  keyOf(call: GenericCall): string {
    return (call.op.keyParams ?? [call.op.key!])
      .map((p) => {
        const raw = this.arg(call, p) ?? '';
        return this.adapter.normalize ? this.adapter.normalize(p, raw) : raw;
      })
      .join('/');
  }

  /** Schema of one record of the operation's resource (described by its retrieve or list). */
  recordSchema(op: GenericOperation): Schema | undefined {
    if (op.recordSchema) return op.recordSchema;
    const source = this.shapeSource.get(op);
    return (source ? this.answerSchema(source) : undefined) ?? this.answerSchema(op);
  }

  /** Schema of the record an operation's own answer holds (its item, for a list). */
  answerSchema(op: GenericOperation): Schema | undefined {
    const piece = this.artefacts.operation(op.entry.id);
    let s: Schema | undefined =
      (piece.response as Schema | undefined) ?? (op.entry.response.ref ? { $ref: `#/components/schemas/${op.entry.response.ref}` } : undefined);
    if (!s) return undefined;
    const kind = op.entry.response.kind;
    if (op.field) {
      s = this.resolver.objectSchema(s)?.properties?.[op.field];
      if (s && typeOf(this.resolver.flatten(s)) === 'array') s = this.resolver.flatten(s).items;
      return s;
    }
    if (kind === 'list' || kind === 'search') s = this.resolver.objectSchema(s)?.properties?.data?.items;
    else if (kind === 'array') s = this.resolver.flatten(s).items;
    return this.branchFor(op, s);
  }

  /**
   * What an operation answers for a record: the record, or, when its answer is another shape (a PUT
   * answering `{}`, an invitation for an added collaborator), that shape with the record's values.
   */
  private answerOf(call: GenericCall, record: Record<string, unknown>): Record<string, unknown> {
    const own = this.answerSchema(call.op);
    const kept = this.recordSchema(call.op);
    if (!own || JSON.stringify(own) === JSON.stringify(kept)) return record;
    const shape = this.resolver.objectSchema(own);
    if (!shape) return record;
    const body = this.build(call, own);
    for (const k of Object.keys(shape.properties ?? {})) if (k in record && record[k] !== undefined) body[k] = record[k];
    return body;
  }

  /** Of an answer that is one of several kinds (a card, a bank account…), the resource's own kind. */
  private branchFor(op: GenericOperation, s: Schema | undefined): Schema | undefined {
    const flat = this.resolver.flatten(s);
    if (!Array.isArray(flat.anyOf) || flat.properties) return s;
    const branches = flat.anyOf.filter((b: Schema) => b.type !== 'null');
    const own = branches.find((b: Schema) => {
      const object = this.resolver.objectSchema(b)?.properties?.object;
      return object && (this.resolver.flatten(object).enum ?? []).includes(op.resource);
    });
    return own ?? branches[0] ?? s;
  }

  /** Input fields a record takes: the body (Slack: every argument) without paging or keys. */
  private inputFields(call: GenericCall): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    // Arguments that name the record or its owner (Slack's `channel_id`, `bookmark_id`) are not fields.
    const naming = new Set([...call.op.scope, ...(call.op.keyParams ?? [])]);
    for (const [k, v] of Object.entries(call.body)) {
      if (UNSAFE_KEYS.has(k) || this.adapter.pagingParams.has(k) || naming.has(k)) continue;
      out[k] = v;
    }
    return out;
  }

  private lookup(call: GenericCall): ((s: Schema, id: string) => unknown) | undefined {
    const ref = this.adapter.reference;
    return ref ? (s, id) => ref.call(this.adapter, call, s, id) : undefined;
  }

  /** The fields a resource's list item requires that its record schema does not build. */
  private withListFields(call: GenericCall, record: Record<string, unknown>): void {
    const list = this.listSource.get(call.op);
    const item = list ? this.answerSchema(list) : undefined;
    const object = item ? this.resolver.objectSchema(item) : undefined;
    const missing = (object?.required ?? []).filter((k: string) => !(k in record));
    if (!missing.length) return;
    const built = this.build(call, item);
    for (const k of missing) if (k in built) record[k] = built[k];
  }

  private build(call: GenericCall, schema: Schema | undefined): Record<string, unknown> {
    const v = schema ? synthesize(this.resolver, schema, { optional: this.adapter.optionalFields, fill: (f) => this.adapter.fill(call, f) }) : {};
    return isPlainObject(v) ? v : {};
  }

  private withScopeFields(call: GenericCall, record: Record<string, unknown>): void {
    if (this.adapter.scopeMode !== 'field') return;
    const values = this.scopeValues(call);
    call.op.scope.forEach((p, i) => {
      if (!(p in record) || record[p] === null || record[p] === '') record[p] = values[i];
    });
  }

  /** The record the call names, or the provider's 404. */
  load(call: GenericCall): { key: string; storage: string; record: Record<string, unknown> } {
    const key = this.keyOf(call);
    const storage = this.storageKey(call, key);
    const { resource } = call.op;
    let record = call.ctx.store.get<Record<string, unknown>>(resource, storage);
    let at = storage;
    if (record && this.adapter.scopeMode === 'field') {
      const { equals } = this.where(call);
      if (Object.entries(equals).some(([f, v]) => record![f] !== undefined && String(record![f]) !== v)) record = undefined;
    }
    if (!record && this.adapter.scopeMode === 'prefix' && call.op.scope.length) {
      // Kept below a deeper scope (a release asset is listed under its release, fetched by id alone).
      const suffix = '/' + encodeURIComponent(key);
      const hit = call.ctx.store.listByPrefix<Record<string, unknown>>(resource, this.where(call).scope!).find((r) => r.external_id.endsWith(suffix));
      if (hit) {
        record = hit.body;
        at = hit.external_id;
      }
    }
    if (!record && call.op.keyField) {
      // Named by another field than the one it is kept under (a release by its tag name).
      const { scope, equals } = this.where(call);
      const typed = this.typedKey(this.recordSchema(call.op), call.op.keyField, key);
      const hit = call.ctx.store.page<Record<string, unknown>>({
        resource,
        scope,
        equals: { ...equals, [call.op.keyField]: typed as string | number },
        order: 'seq',
        descending: false,
        limit: 1,
      }).items[0];
      if (hit) {
        record = hit.body;
        at = hit.external_id;
      }
    }
    if (!record) throw this.adapter.missing(call, key);
    return { key, storage: at, record };
  }

  private perform(call: GenericCall): Outcome {
    const { op, ctx } = call;
    const store = ctx.store;
    const schema = () => this.recordSchema(op);
    switch (op.action) {
      case 'create': {
        const s = schema();
        const record = this.build(call, s);
        this.withListFields(call, record);
        // A new record starts in its lifecycle's initial state (a quote is never born accepted).
        if (op.initialStatus !== undefined) for (const f of STATE_FIELDS) if (typeof record[f] === 'string') record[f] = op.initialStatus;
        mergeInput(this.resolver, s, record, this.inputFields(call), this.lookup(call));
        this.withScopeFields(call, record);
        const keyField = op.keyField ?? 'id';
        if (record[keyField] === undefined || record[keyField] === '') this.makeKey(call, record, s, keyField);
        const key = this.adapter.newKey(call, record);
        const storage = this.storageKey(call, key);
        if (store.has(op.resource, storage)) throw this.adapter.conflict(call, key);
        this.adapter.finish?.(call, record, key);
        this.checkMade(call, record, s);
        store.put(op.resource, storage, record);
        return { kind: 'record', record: this.answerOf(call, record), created: true };
      }
      case 'upsert':
      case 'set-one': {
        const key = op.action === 'upsert' ? this.keyOf(call) : SINGLETON;
        const storage = this.storageKey(call, key);
        const s = schema();
        let record = store.get<Record<string, unknown>>(op.resource, storage);
        const created = !record;
        if (!record) {
          record = this.build(call, s);
          if (op.keyField && op.key) record[op.keyField] = this.typedKey(s, op.keyField, key);
          this.withScopeFields(call, record);
        } else this.adapter.touch?.(call, record);
        mergeInput(this.resolver, s, record, this.inputFields(call), this.lookup(call));
        this.adapter.finish?.(call, record, key);
        if (created) this.checkMade(call, record, s);
        store.put(op.resource, storage, record);
        return { kind: 'record', record: this.answerOf(call, record), created };
      }
      case 'retrieve':
        return { kind: 'record', record: this.answerOf(call, this.load(call).record) };
      case 'check':
        if (op.key) this.load(call);
        else if (!store.has(op.resource, this.storageKey(call, SINGLETON))) throw this.adapter.missing(call, '');
        return { kind: 'none' };
      case 'update': {
        const { storage, record, key } = this.load(call);
        mergeInput(this.resolver, schema(), record, this.inputFields(call), this.lookup(call));
        this.adapter.touch?.(call, record);
        this.adapter.finish?.(call, record, key);
        store.put(op.resource, storage, record);
        return { kind: 'record', record: this.answerOf(call, record) };
      }
      case 'act': {
        const { storage, record } = this.load(call);
        if (op.nextStatus !== undefined) record.status = op.nextStatus;
        if (op.nextActive !== undefined && typeof record.active === 'boolean') record.active = op.nextActive;
        this.adapter.act?.(call, record);
        this.adapter.touch?.(call, record);
        store.put(op.resource, storage, record);
        return { kind: 'record', record: this.answerOf(call, record) };
      }
      case 'delete': {
        const { storage, record } = this.load(call);
        store.delete(op.resource, storage);
        return { kind: 'deleted', record };
      }
      case 'get-one': {
        const storage = this.storageKey(call, SINGLETON);
        let record = store.get<Record<string, unknown>>(op.resource, storage);
        if (!record) {
          // Never set here: what the provider answers before is not the spec's to say.
          this.cannot(call, 'It has not been set in this twin, and what the provider answers before then is not simulated.');
          // Lenient: the first read makes the record, so later reads (and its ids) stay the same.
          record = this.build(call, schema());
          this.withScopeFields(call, record);
          this.adapter.finish?.(call, record, SINGLETON);
          store.put(op.resource, storage, record);
        }
        return { kind: 'record', record: this.answerOf(call, record) };
      }
      case 'delete-one': {
        const storage = this.storageKey(call, SINGLETON);
        const record = store.get<Record<string, unknown>>(op.resource, storage);
        if (!record) throw this.adapter.missing(call, '');
        store.delete(op.resource, storage);
        return { kind: 'deleted', record };
      }
      case 'list':
        return this.list(call);
      case 'search': {
        const { scope, equals } = this.where(call);
        const items: StoredRecord[] = [];
        let after: { seq: number } | undefined;
        for (;;) {
          const page = store.page({ resource: op.resource, scope, equals, order: 'seq', descending: false, after, limit: 500 });
          items.push(...page.items);
          if (!page.hasMore) break;
          after = { seq: page.items[page.items.length - 1]!.seq };
        }
        return { kind: 'page', items, seqs: [], hasMore: false, window: { limit: items.length, order: 'seq', descending: false } };
      }
      case 'answer': {
        const piece = this.artefacts.operation(op.entry.id);
        const s = piece.response as Schema | undefined;
        if (!s) return { kind: 'none' };
        const body = synthesize(this.resolver, s, { optional: this.adapter.optionalFields, fill: (f) => this.adapter.fill(call, f) });
        if (isPlainObject(body)) mergeInput(this.resolver, s, body, this.inputFields(call), this.lookup(call));
        return { kind: 'answer', body };
      }
    }
  }

  /** A key value in the type the record's key field has (GitHub ids are integers). */
  private typedKey(s: Schema | undefined, field: string, key: string): unknown {
    const prop = s ? this.resolver.objectSchema(s)?.properties?.[field] : undefined;
    const t = prop ? typeOf(this.resolver.flatten(prop)) : undefined;
    return (t === 'integer' || t === 'number') && /^-?\d+$/.test(key) ? Number(key) : key;
  }

  private list(call: GenericCall): Outcome {
    const { op, ctx } = call;
    const window: ListWindow = this.adapter.listWindow(call);
    const { scope, equals: scopeEquals } = this.where(call);
    const equals: Record<string, string | number | boolean | null> = { ...scopeEquals };
    // Query parameters that name a top-level field of the records filter by it (`active=true`).
    const item = this.recordSchema(op);
    const props = item ? (this.resolver.objectSchema(item)?.properties ?? {}) : {};
    const declared = new Set(
      this.artefacts
        .operation(op.entry.id)
        .request.params.filter((p) => p.in === 'query')
        .map((p) => p.name),
    );
    for (const [k, v] of Object.entries(call.query)) {
      if (!declared.has(k) || this.adapter.pagingParams.has(k) || !(k in props)) continue;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') equals[k] = v;
    }
    const cursor = (c: { key: string; param: string }) => {
      const found = ctx.store.cursorOf(op.resource, this.storageKey(call, c.key));
      if (!found) throw this.adapter.missing(call, c.key, c.param);
      return found;
    };
    const base = { resource: op.resource, scope, equals, ranges: window.ranges, order: window.order, limit: window.limit, offset: window.offset };
    let page;
    let reversed = false;
    if (window.before && !window.after) {
      page = ctx.store.page({ ...base, descending: !window.descending, after: cursor(window.before) });
      reversed = true;
    } else {
      const after = window.after ? ('seq' in window.after ? { seq: window.after.seq } : cursor(window.after)) : undefined;
      page = ctx.store.page({ ...base, descending: window.descending, after });
    }
    const items = reversed ? [...page.items].reverse() : page.items;
    const total = window.total ? ctx.store.countWhere({ resource: op.resource, scope, equals, ranges: window.ranges }) : undefined;
    return { kind: 'page', items, seqs: items.map((i) => i.seq), hasMore: page.hasMore, total, window };
  }
}
