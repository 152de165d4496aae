// The generic surface's interfaces: what the engine does with an operation (its Classification),
// what a provider adapter (`twins/<slug>/wire/generic.ts`) supplies, and the surface a twin
// definition exposes to the runtime (`TwinDefinition.generic`).

import type { TwinContext, TwinHandler, TwinRequest, TwinResponse, TwinRoute } from '../contract.js';
import type { StoredRecord } from '../record-store.js';
import type { FillField, Schema } from './schema.js';
import type { HttpMethod, OperationEntry } from './spec-types.js';
import type { InputPolicy, InputProblem } from './validate.js';

/**
 * What an operation does to the records of its resource:
 *   create      a new record in the collection the path names (POST /v1/coupons)
 *   upsert      create or replace the record the path names (PUT /user/starred/{owner}/{repo})
 *   retrieve    the record the path names
 *   check       204 when the record the path names exists, else the provider's 404
 *   update      merge the input into the record the path names
 *   delete      remove the record the path names
 *   act         a verb on the record the path names (POST …/{id}/cancel): status moves, record answered
 *   list        a page of the collection the path names
 *   search      Stripe's search over the collection
 *   get-one     the single record a path names with no key (GET …/branches/{b}/protection)
 *   set-one     create or merge that single record
 *   delete-one  remove that single record
 *   answer      no state: a schema-shaped answer (previews, renderings, dispatches)
 */
export type Action =
  | 'create'
  | 'upsert'
  | 'retrieve'
  | 'check'
  | 'update'
  | 'delete'
  | 'act'
  | 'list'
  | 'search'
  | 'get-one'
  | 'set-one'
  | 'delete-one'
  | 'answer';

export interface Classification {
  action: Action;
  /** Record kind (`coupon`, `repos.releases`, `bookmarks`). */
  resource: string;
  /** Path parameters (Slack: arguments) naming the collection's owners, outermost first. */
  scope: string[];
  /** Path parameter (Slack: argument) naming the record. */
  key?: string;
  /** When several trailing parameters name the record together (`/user/starred/{owner}/{repo}`). */
  keyParams?: string[];
  /** Slack: the answer field holding the record (`bookmark`) or the list (`bookmarks`). */
  field?: string;
  /** Body field the key is (`id`, `number`, `name`, `slug`…). */
  keyField?: string;
  /** For `act`: the verb (`cancel`, `activate`). */
  verb?: string;
  /** Schema of one record (the answer, or the answer's item or field holding it). */
  recordSchema?: Schema;
}

export interface GenericOperation extends Classification {
  entry: OperationEntry;
}

/** One call of a generic operation, as the engine and the adapter see it. */
export interface GenericCall {
  op: GenericOperation;
  req: TwinRequest;
  ctx: TwinContext;
  /** Path parameters (decoded). */
  params: Record<string, string>;
  /** Query parameters, coerced to the spec's types. */
  query: Record<string, unknown>;
  /** Body (Slack: all arguments), coerced for forms; `{}` when none. */
  body: Record<string, unknown>;
}

/** Where a page starts and how long it is. */
export interface ListWindow {
  limit: number;
  /** Page-number paging: skip this many. */
  offset?: number;
  /** Start after this record (its key as the caller names it, or its `seq`). */
  after?: { key: string; param: string } | { seq: number };
  /** Stripe's `ending_before`: the page just before this record. */
  before?: { key: string; param: string };
  order: 'seq' | 'created';
  descending: boolean;
  /** Count every record too (GitHub's `rel="last"`). */
  total?: boolean;
  /** Range conditions (Stripe's `created[gte]`). */
  ranges?: { field: string; op: '<' | '<=' | '>' | '>='; value: number }[];
}

export type Outcome =
  | { kind: 'record'; record: Record<string, unknown>; created?: boolean }
  | { kind: 'deleted'; record: Record<string, unknown> }
  | { kind: 'page'; items: StoredRecord[]; seqs: number[]; hasMore: boolean; total?: number; window: ListWindow }
  | { kind: 'none' }
  | { kind: 'answer'; body: unknown };

/** A provider's rules for the generic layer (`twins/<slug>/wire/generic.ts`). */
export interface GenericAdapter {
  slug: string;
  /** What an operation does, or a sentence saying why the twin does not serve it. */
  classify(entry: OperationEntry, index: OperationIndex): Classification | string;
  /** Methods a served operation answers on (default: its own). Slack answers GET and POST. */
  methods?(entry: OperationEntry): HttpMethod[];
  /**
   * How the engine's answer becomes the route's handler (default: as it is). The runtime already
   * runs every route through the twin's authentication, `around`, savepoint and `errors`; this is
   * for what the twin's hand-written handlers do themselves (GitHub renders bodies, Slack adds `ok`).
   */
  pipeline?(op: GenericOperation, run: (req: TwinRequest, ctx: TwinContext) => TwinResponse): TwinHandler;
  /** Unknown parameters and parameters the spec lacks (validate.ts `InputPolicy`); default: unknown ones dropped. */
  inputPolicy?: InputPolicy;
  /** Query and body as the provider reads them. */
  input(req: TwinRequest): { query: Record<string, unknown>; body: Record<string, unknown>; coerceBody: boolean };
  /** The provider's refusal of bad input (thrown by the engine). */
  refuse(call: GenericCall, problem: InputProblem): Error;
  /** The provider's answer for a record that does not exist (thrown); `param` names a cursor parameter. */
  missing(call: GenericCall, key: string, param?: string): Error;
  /** The provider's answer for a create whose key is taken (thrown). */
  conflict(call: GenericCall, key: string): Error;
  /** Throw when a parent the path names, or an object the input refers to, does not exist. */
  checkReferences?(call: GenericCall): void;
  /** How scope values are kept: in the record key (`prefix`) or as record fields (`field`). */
  scopeMode: 'prefix' | 'field';
  /** A scope or key value as stored (GitHub owners and repositories are case-insensitive). */
  normalize?(param: string, value: string): string;
  /** A value the provider gives a field of a record being built, or undefined. */
  fill(call: GenericCall, field: FillField): unknown;
  /** The key of a newly created record (after synthesis and merge). */
  newKey(call: GenericCall, record: Record<string, unknown>): string;
  /** Last touches once the key is known (URLs that contain it). */
  finish?(call: GenericCall, record: Record<string, unknown>, key: string): void;
  /** The stored object an id names, for a field that holds the object rather than its id. */
  reference?(call: GenericCall, objectSchema: Schema, id: string): unknown;
  /** Include optional properties when building records. */
  optionalFields?: boolean;
  /** Touch a record on update (`updated_at`, `updated`). */
  touch?(call: GenericCall, record: Record<string, unknown>): void;
  /** Apply an `act` verb to a record. */
  act?(call: GenericCall, record: Record<string, unknown>): void;
  /** Paging of a list call. */
  listWindow(call: GenericCall): ListWindow;
  /** Query parameters that are paging, not filters. */
  pagingParams: ReadonlySet<string>;
  /** The provider's answer for an outcome. */
  render(call: GenericCall, outcome: Outcome): TwinResponse;
}

/** Operations by shape, for classification rules that look at siblings. */
export interface OperationIndex {
  get(method: string, template: string): OperationEntry | undefined;
}

/**
 * What `TwinDefinition.generic` exposes to the runtime. Its routes go into the twin's one router
 * (twin-runtime/router.ts) behind the hand-written ones; the coverage matrix and the control
 * plane's assertion checks read the rest.
 */
export interface GenericSurface {
  /** Record kinds the surface keeps (part of the twin's `resources`). */
  readonly resources: readonly string[];
  /** Every route the surface serves (one per operation and method), for the runtime's router. */
  routes(): GenericRoute[];
  /** Top-level body field and query parameter names the spec gives an operation (by template shape). */
  requestFields(method: string, template: string): { body?: Set<string>; query?: Set<string> } | undefined;
  /** Every operation of the provider's surface with whether the generic layer serves it. */
  operations(): OperationStatus[];
}

export interface OperationStatus {
  entry: OperationEntry;
  served: boolean;
  /** Why it is not served. */
  reason?: string;
  action?: Action;
  resource?: string;
}

export interface GenericRoute extends TwinRoute {
  method: HttpMethod;
  operationId: string;
}
