// The generic surface's interfaces: what the engine does with an operation (its Classification),
// what a provider adapter (`twins/<slug>/wire/generic.ts`) supplies, and the surface a twin
// definition exposes to the runtime (`TwinDefinition.generic`).

import type { TwinContext, TwinHandler, TwinRequest, TwinResponse, TwinRoute } from '../contract.js';
import type { FidelityLevel } from '../fidelity.js';
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

/** What the provider makes for a new record: its key, a URL of its own, a secret, a content hash. */
export type MadeField = 'key' | 'url' | 'secret' | 'hash';

/** The levels the engine answers at (hand-written routes are `modelled`). */
export type EngineLevel = Exclude<FidelityLevel, 'modelled'>;

export interface GenericOperation extends Classification {
  entry: OperationEntry;
  /**
   * How the engine answers the operation (levels.ts): `inferred` when it applies what the spec
   * makes safe (parents and references exist, a status verb moves the status, a new record starts
   * in its initial state), `stored` for plain record keeping, `unsupported` when it cannot simulate
   * it (strict mode refuses with `NotSimulated`).
   */
  level: EngineLevel;
  /** Why it is unsupported, or what is inferred. */
  reason?: string;
  /** For `act`: the `status` value the verb moves the record to. */
  nextStatus?: string;
  /** For `act`: the value the verb gives a boolean `active` (activate, archive…). */
  nextActive?: boolean;
  /** For a create: the `status` a new record starts in (the enum's initial state). */
  initialStatus?: string;
  /** Scope parameters whose records the engine itself checks exist (the adapter checks the others it knows). */
  parents?: { param: string; op: GenericOperation }[];
  /** Scope parameters nobody checks (the level is then `stored`). */
  unchecked?: string[];
  /** The level still depends on the operation's schemas (read on its first call, levels.ts). */
  pending?: true;
  /** The generic creates of its records, when only they make them (none simulated: unsupported). */
  writers?: GenericOperation[];
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
  /**
   * Throw when a parent the path names, or an object the input refers to, does not exist (the
   * provider's 404 or 400: Stripe's `No such price: 'price_x'`).
   */
  checkReferences?(call: GenericCall): void;
  /**
   * Fields of the provider's answer envelope (Slack's `ok`, `warning`): a record schema holding
   * nothing else describes no record (the spec documents only the envelope).
   */
  envelopeFields?: ReadonlySet<string>;
  /** Whether the adapter builds the records of this operation itself (`finish`), whatever the spec describes. */
  shapesRecords?(op: GenericOperation): boolean;
  /** Scope parameters `checkReferences` verifies (GitHub's `owner`/`repo`, Stripe's `{customer}`). */
  checksParent?(op: GenericOperation, param: string): boolean;
  /** Request fields `checkReferences` verifies name existing objects (`line_items[].price`), for the level and the walk. */
  referenceFields?(op: GenericOperation): string[][];
  /**
   * Why the twin does not simulate an operation the engine could otherwise answer: provider
   * knowledge the spec does not carry (it moves money, issues a token, opens a socket…).
   */
  unsupported?(op: GenericOperation): string | undefined;
  /**
   * Excluded operations the provider no longer answers at the SDK's API version (Stripe's
   * `GET /v1/invoices/upcoming`): no route is made for them, so the twin answers such a URL as the
   * provider now does (another route's answer, or its unknown-URL error), not with a refusal.
   */
  unrouted?(entry: OperationEntry): boolean;
  /**
   * Record kinds the twin's hand-written model keeps in the engine's own shape and keys (Stripe's
   * objects): generic operations may read them though no generic operation creates them.
   */
  modelKinds?: ReadonlySet<string>;
  /**
   * Whether the adapter gives a new record of this operation `field` when the input does not (its
   * `fill` or `finish` makes it): its key (default yes), a URL, a secret or a content hash (default
   * no). A required one nobody makes means the engine would answer an empty value: unsupported.
   */
  makes?(op: GenericOperation, field: string, kind: MadeField, schema: Schema | undefined): boolean;
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
  /** Every operation of the provider's surface with the level the generic layer answers it at. */
  operations(): OperationStatus[];
  /**
   * Told by the runtime's router which templates hand-written routes answer, before `routes()`:
   * records a hand-written model keeps under its own kind are not the engine's to read, so levels
   * depend on it. Called again with the same answer for every router built from the definition.
   */
  handWritten?(answers: (method: string, template: string) => boolean): void;
}

export interface OperationStatus {
  entry: OperationEntry;
  /** Whether the generic layer answers it with a simulation (level `inferred` or `stored`). */
  served: boolean;
  /** The level it answers at: `unsupported` for what it refuses, excluded operations included. */
  level: EngineLevel;
  /** Why it is unsupported (or what is inferred). */
  reason?: string;
  /** No route is made for it (`GenericAdapter.unrouted`): the URL is answered as the provider now answers it. */
  unrouted?: true;
  action?: Action;
  resource?: string;
}

export interface GenericRoute extends TwinRoute {
  method: HttpMethod;
  operationId: string;
}
