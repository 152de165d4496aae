// The generic surface: every operation of a twin's generated table that its adapter can classify is
// answered from the spec, statefully — create stores a record shaped by the response schema, the
// item operations act on stored records, lists read keyset pages of them — in the provider's
// envelopes and errors (the adapter's). Hand-written routes win: the runtime's router
// (twin-runtime/router.ts) registers this surface's routes only where no hand-written route has the
// same method and template, in the same find-my-way tree (a static segment beats a parameter).

import type { TwinContext, TwinRequest, TwinResponse } from '../contract.js';
import type { StoredRecord } from '../record-store.js';
import type { SpecArtefacts } from './artefacts.js';
import { indexOperations } from './classify.js';
import { templateShape } from '../path-template.js';
import { SchemaResolver, isPlainObject, mergeInput, synthesize, typeOf, UNSAFE_KEYS, type Schema } from './schema.js';
import type { OperationEntry } from './spec-types.js';
import type { GenericAdapter, GenericCall, GenericOperation, GenericRoute, GenericSurface, ListWindow, OperationStatus, Outcome } from './types.js';
import { RequestValidator } from './validate.js';

/** The storage key of a singleton (`get-one`/`set-one`) below its scope. */
const SINGLETON = '@';

const isSingleton = (op: GenericOperation) =>
  op.action === 'get-one' || op.action === 'set-one' || op.action === 'delete-one' || (op.action === 'check' && !op.key);

export class GenericEngine implements GenericSurface {
  readonly resources: string[];
  readonly resolver: SchemaResolver;
  private readonly validator: RequestValidator;
  private readonly statuses: OperationStatus[] = [];
  private readonly routeList: GenericRoute[] = [];
  private readonly shapeSource = new Map<GenericOperation, GenericOperation>();

  constructor(
    readonly adapter: GenericAdapter,
    readonly artefacts: SpecArtefacts,
  ) {
    this.resolver = new SchemaResolver(artefacts);
    this.validator = new RequestValidator(artefacts);
    const index = indexOperations(artefacts.operations);
    const served: GenericOperation[] = [];
    for (const entry of artefacts.operations) {
      if (entry.excluded) {
        this.statuses.push({ entry, served: false, reason: entry.excluded });
        continue;
      }
      const c = adapter.classify(entry, index);
      if (typeof c === 'string') {
        this.statuses.push({ entry, served: false, reason: c });
        continue;
      }
      served.push({ ...c, entry });
    }
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
    }
    const resources = new Set<string>();
    const shapes = new Set<string>();
    for (const op of served) {
      const execute = (req: TwinRequest, ctx: TwinContext) => this.execute(op, req, ctx);
      const handler = adapter.pipeline ? adapter.pipeline(op, execute) : execute;
      for (const method of adapter.methods?.(op.entry) ?? [op.entry.method]) {
        const shape = `${method} ${templateShape(op.entry.path)}`;
        if (shapes.has(shape)) continue;
        shapes.add(shape);
        this.routeList.push({ method, path: op.entry.path, operationId: op.entry.id, handler });
      }
      resources.add(op.resource);
      this.statuses.push({ entry: op.entry, served: true, action: op.action, resource: op.resource });
    }
    this.resources = [...resources].sort();
  }

  routes(): GenericRoute[] {
    return [...this.routeList];
  }

  operations(): OperationStatus[] {
    return this.statuses;
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
    const input = this.adapter.input(req);
    const call: GenericCall = { op, req, ctx, params: { ...req.params }, query: input.query, body: input.body };
    const piece = this.artefacts.operation(op.entry.id);
    const problem = this.validator.check(op.entry.id, piece, {
      path: { ...call.params },
      query: call.query,
      body: call.body,
      coerceBody: input.coerceBody,
    });
    if (problem) throw this.adapter.refuse(call, problem);
    this.adapter.checkReferences?.(call);
    return this.adapter.render(call, this.perform(call));
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
        mergeInput(this.resolver, s, record, this.inputFields(call), this.lookup(call));
        this.withScopeFields(call, record);
        const key = this.adapter.newKey(call, record);
        const storage = this.storageKey(call, key);
        if (store.has(op.resource, storage)) throw this.adapter.conflict(call, key);
        this.adapter.finish?.(call, record, key);
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
          // The first read makes the record, so later reads (and its ids) stay the same.
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
