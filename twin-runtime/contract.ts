// The twin contract: what a module under twins/<slug>/ exports, and what the runtime hands it.
// A twin knows nothing about organizations, billing or the control plane; it keeps provider state
// in its record store, reads time only from the environment clock and ids only from its id source.

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RecordStore } from './record-store.js';
import type { EnvironmentClock } from './clock.js';
import type { IdSource } from './ids.js';
import type { Deliveries, DeliveryRecord } from './deliveries.js';
import type { InputRefusal } from './safe-input.js';
import type { GenericSurface } from './generic/types.js';
import type { FidelityLevel, FidelityMode } from './fidelity.js';
import type { SeedSuggestion, TwinSeeding } from './seeding.js';
import type { PhrasebookOperation } from './phrasebook.js';
import type { OperationEntry } from './generic/spec-types.js';
import type { TwinSpecSource } from './spec-build/source.js';

export type { GenericSurface, FidelityLevel, FidelityMode, SeedSuggestion };

/** A provider request as the runtime parsed it. */
export interface TwinRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/customers/cus_123`. */
  path: string;
  /** Values of `{name}` segments of the matched route template (a `{+name}` binds the rest of the path). */
  params: Record<string, string>;
  /** The template of the route that answers (`/v1/customers/{customer}`), set by the runtime when one matched. */
  template?: string;
  /** Query string without the leading `?` ("" when none). */
  queryString: string;
  /** Query parsed with bracket notation (`expand[]=a` → `{expand: ['a']}`). */
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /**
   * Body parsed by content type: JSON → value; `application/x-www-form-urlencoded` → nested object
   * with bracket notation (Stripe, Slack); anything else → `{}`.
   */
  body: Record<string, unknown>;
  /** Which of the two parsers produced `body` (`none` for an empty or other body). */
  bodyKind: 'json' | 'form' | 'none';
  /**
   * The origin the caller used (`https://127.0.0.1:4010`), as the gateway forwarded it or this
   * server saw it (twin-runtime/request-origin.ts); absent for in-process calls.
   */
  origin?: string;
}

/** What a handler answers. `body` is serialised as JSON unless it is a string or a Buffer. */
export interface TwinResponse {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: unknown;
  /**
   * How this answer was made, when it differs from its route's `fidelity` (a generic route that
   * stored a record answers `stored`; an honest refusal is `unsupported`). The host sends it as the
   * `Twin-Fidelity` header (twin-runtime/fidelity.ts).
   */
  fidelity?: FidelityLevel;
  /** Set by the runtime's fault injection (faults.ts): send the answer this much later. */
  delayMs?: number;
  /** Set by the runtime's fault injection: close the connection instead of answering (behind the gateway, the answer tells it to). */
  drop?: boolean;
}

/**
 * Provider credentials a request may carry outside its headers, by parameter name: the gateway
 * stores the request log with these values replaced (docs/decisions.md §12). `query` names query-string
 * keys; `body` names form keys (bracket keys as sent, e.g. `card[number]`) and JSON properties at
 * any depth.
 */
export interface RedactionRules {
  query?: readonly string[];
  body?: readonly string[];
}

/** Everything a handler or a lifecycle step may touch. */
export interface TwinContext {
  store: RecordStore;
  clock: EnvironmentClock;
  ids: IdSource;
  /** The key this container minted at start; the only one its provider API accepts. */
  apiKey: string;
  /** The twin's own public base URL as the caller sees it (gateway URL when behind one). */
  baseUrl: string;
  /** Outgoing signed webhook / event deliveries, with retries; attempts are `delivery` records. */
  deliveries: Deliveries;
  /**
   * What the twin answers for an operation it does not simulate (decisions §15): `strict` (the
   * default) refuses honestly (`NotSimulated`); `lenient` answers the generic layer's permissive
   * result, still with `Twin-Fidelity: unsupported`, for smoke tests that want any 2xx.
   */
  fidelity: FidelityMode;
  /**
   * Run work that starts outside a provider request (a message on a twin's WebSocket, an app's
   * answer to an outgoing call) as a request of its own: queued in the request pipeline, in a
   * transaction and a savepoint. Set by the host.
   */
  later?<T>(job: () => T | Promise<T>): Promise<T>;
}

export type TwinHandler = (req: TwinRequest, ctx: TwinContext) => TwinResponse | Promise<TwinResponse>;

export interface TwinRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * Template with `{name}` segments, e.g. `/v1/customers/{customer}`. A `{name}` never spans `/`;
   * a last `{+name}` takes the rest of the path, slashes included (GitHub `contents/{+path}`).
   * Static segments win over parameters (see twin-runtime/path-template.ts and router.ts).
   */
  path: string;
  handler: TwinHandler;
  /** Set on routes that must answer without the twin's key (rare: e.g. a twin-only helper). */
  public?: boolean;
  /** Not counted against the provider's rate limit (GitHub `GET /rate_limit`, Slack `twin.*`). */
  unmetered?: boolean;
  /**
   * How the route answers (twin-runtime/fidelity.ts): hand-written routes default to `modelled`;
   * the generic layer sets the level it decided for the operation.
   */
  fidelity?: FidelityLevel;
  /** Served only at its own path, never under the twin's `routing.prefixes` (GitHub's git smart HTTP, downloads). */
  rootOnly?: boolean;
}

/** A routed request as the twin's `around` sees it. */
export interface RouteCall {
  req: TwinRequest;
  ctx: TwinContext;
  route: TwinRoute;
}

/**
 * Run the route's handler inside the request's savepoint. `finish` runs on the handler's answer
 * inside the same savepoint (a throw there rolls the request back too). A thrown error is rolled
 * back and answered by the twin's `errors.render` (or a 500), so the result is always a response.
 */
export type RunRoute = (finish?: (res: TwinResponse) => TwinResponse | Promise<TwinResponse>) => Promise<TwinResponse>;

/** Something the runtime could not read before any route ran. */
/**
 * A request the runtime could not read, before any route or authentication ran: a malformed URL,
 * or an input limit of twin-runtime/safe-input.ts passed (too many parameters, too long or too
 * deep a name, too large an array index, body size or JSON nesting; `refusal` says which).
 */
export type RequestProblem = { kind: 'malformed_url'; message: string } | { kind: 'input_refused'; message: string; refusal: InputRefusal };

/** How the provider answers what goes wrong (the twin's wire/errors). */
export interface ProviderErrors {
  /**
   * A thrown error as the provider answers it, or undefined when it is not one of the provider's
   * errors (the runtime then answers 500 `{error: {type: 'api_error', message}}`).
   */
  render(error: unknown, req: TwinRequest, ctx: TwinContext): TwinResponse | undefined;
  /** A request no route serves (unknown path, or a known path with another method). */
  routeMiss(req: TwinRequest, ctx: TwinContext): TwinResponse;
  /**
   * A request the runtime could not read (default: 400, 413 for the body size, with
   * `{error: {message}}`). For a refused input `req` carries the method, path, query string and
   * headers, nothing parsed.
   */
  parseFailure?(req: TwinRequest, ctx: TwinContext, problem: RequestProblem): TwinResponse;
  /**
   * An operation the twin does not simulate (a thrown `NotSimulated`), in the provider's own error
   * envelope with `sentence` as its message: 501 where the provider's official clients surface it
   * as an error, otherwise the provider's nearest 4xx (docs/decisions.md §15). Default: 501
   * `{error: {type: 'api_error', message: sentence}}`.
   */
  unsupported?(req: TwinRequest, ctx: TwinContext, sentence: string): TwinResponse;
}

export interface TwinDefinition {
  slug: string;
  name: string;
  description: string;
  /** Semver of the twin's behaviour. */
  version: string;
  /** Bumped when stored record shapes change; seeds of another storage version are not usable. */
  storageVersion: number;
  /**
   * Port a standalone twin (`twins twin <slug>`) listens on unless told otherwise (docs/decisions.md §10).
   * One per twin, never shared: 12111 + 10·n (stripe 12111, github 12121, slack 12131; reserved in
   * the README's port table for the twins to come).
   */
  defaultPort: number;
  /** Record kinds the twin keeps (the control plane's records endpoints accept these). */
  resources: readonly string[];
  /**
   * Record kinds that log what happened rather than hold state (Stripe's events and idempotency
   * keys): an environment
   * diff leaves them out, so it names the records an agent changed, not the log of its changes.
   */
  journal?: readonly string[];
  /** Mint the provider-shaped key for a fresh container start (e.g. `sk_test_…`). */
  mintKey(randomBase62: (length: number) => string): string;
  /**
   * The other halves of a two-part provider credential, returned beside `api_key` by the
   * credential endpoint (docs/decisions.md §10: `email` for Jira, `account_sid` for Twilio, Stripe's
   * `publishable_key` for frontend calls, Slack's `app_token` and `signing_secret`). SDK snippets
   * name them as placeholders (`{{account_sid}}`).
   */
  credentialExtras?(ctx: TwinContext): Record<string, string>;
  /** Hand-written routes (they always win over `generic`). */
  routes: TwinRoute[];
  /**
   * The operations of the provider's published spec that no hand-written route answers, served
   * from the spec by the runtime's generic layer (twin-runtime/generic/). The runtime's router
   * (router.ts) registers its routes after the hand-written ones, each only where no hand-written
   * route has the same method and template, and runs them through the same pipeline
   * (authentication, `around`, the request's savepoint, `errors`). Its record kinds are part of
   * `resources`.
   */
  generic?: GenericSurface;
  /**
   * `ignoreTrailingSlash`: `/x/` is routed as `/x` (GitHub does this; Stripe and Slack do not).
   * `headAsGet`: a HEAD without its own route is answered by the GET route (headers, no body), as
   * GitHub answers HEAD on every GET.
   * `prefixes`: every route (but `rootOnly` ones) also answers under each of these path prefixes
   * (GitHub Enterprise's `/api/v3`; `/api/v3` alone is `/`). The router strips the prefix to match,
   * without registering the routes twice; the handler sees the path as sent and the template with
   * the prefix (`/api/v3/repos/{owner}/{repo}`), so links keep the client's spelling.
   */
  routing?: { ignoreTrailingSlash?: boolean; headAsGet?: boolean; prefixes?: readonly string[] };
  /**
   * Clients of this provider match the service by host name without a port (`gh` inside a git
   * clone): the gateway, and a standalone twin, also serve it at a loopback address of its own on
   * the default HTTPS port (twin-runtime/tls.ts `loopbackHostFor`), where the process may bind it.
   */
  ownHost?: boolean;
  /**
   * Check the credential of a provider request. Return a provider-shaped error response to refuse,
   * or undefined to let the route run. Routes marked `public` skip this.
   */
  authenticate(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined;
  /** The provider-error hook: thrown errors, route misses, unreadable requests. */
  errors: ProviderErrors;
  /**
   * Provider-shaped 503 while the twin cannot serve (its disk is full: `sentence` says so, for a
   * provider shape with a message); the runtime adds `Retry-After`. A generic `{error: {message}}`
   * body is used when absent.
   */
  unavailable?(req: TwinRequest, retryAfterSeconds: number, sentence?: string): TwinResponse;
  /**
   * The provider's own answer to an injected fault (faults.ts): its rate limit (status, body and
   * headers, `Retry-After` included) or its 5xx. Default: a generic `{error: {message}}` 429 or 500.
   */
  faultAnswer?(type: 'rate_limit' | 'server_error', req: TwinRequest, ctx: TwinContext, retryAfterSeconds: number): TwinResponse;
  /** Credentials in query strings and bodies the request log must not keep. */
  redact?: RedactionRules;
  /**
   * The provider's protocol around every routed, authenticated request (request ids, idempotent
   * replay, rate limits, headers on every answer). It runs inside the runtime's transaction but
   * outside the request's savepoint, so what it writes survives a failed request; `run` runs the
   * handler. Default: `run()`.
   */
  around?(call: RouteCall, run: RunRoute): TwinResponse | Promise<TwinResponse>;
  /**
   * Create the provider's starting state (a workspace, the key's own account) when the file has none.
   * Called when the twin starts and after every reset; must be idempotent.
   */
  initialize?(ctx: TwinContext): void;
  /**
   * Run every lifecycle event due in (clock, to], earliest first. Move the clock forward with
   * `ctx.clock.advanceTo(t)` before each event so records carry the event's own time; the runtime
   * sets the clock to `to` afterwards.
   */
  advance?(ctx: TwinContext, to: Date): void | Promise<void>;
  /**
   * An HTTP upgrade (WebSocket) on the twin's port, e.g. Slack's Socket Mode link. The twin takes
   * the socket over; without this hook the runtime refuses every upgrade.
   */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: TwinContext): void;
  /** Headers for one delivery attempt (signatures use the wall-clock time of the attempt). */
  signDelivery?(delivery: DeliveryRecord, payload: string, wallNow: Date): Record<string, string>;
  /**
   * The body of one delivery attempt when the provider stamps each attempt inside the signed body
   * (Linear's `webhookTimestamp`); default: the stored payload as queued.
   */
  stampDelivery?(delivery: DeliveryRecord, wallNow: Date): string;
  /** Starting states shipped with the twin (at least five, each generating with the built-in planner). */
  suggestions: SeedSuggestion[];
  /** How a seed's plan is expanded into records through the twin's own model (twin-runtime/seeding.ts). */
  seeding?: TwinSeeding;
  /**
   * The twin's test-matcher vocabulary: the sentences of a test's outcome the phrasebook compiler
   * reads as this twin's operations (twin-runtime/phrasebook.ts, docs/matchers.md).
   */
  phrasebook?: readonly PhrasebookOperation[];
  /** How the provider's official SDKs are pointed at the twin: the console, `twins twin credential` and the MCP server show it. */
  sdk?: TwinSdk;
  /**
   * Where the generated spec artefacts (spec/: operations.json, schemas.jsonl, source.json) come
   * from: the provider's published spec or SDK, read at build time by scripts/gen/spec.ts (`npm run
   * gen:spec <slug>`). Loaded only there (it reads devDependencies); a running twin never calls it.
   */
  specSource?(): Promise<TwinSpecSource>;
  /**
   * The part of the provider's surface the twin's coverage figure counts (COVERAGE.md's "served of
   * the …"): what it is, in words, and which operations of the generated table belong to it
   * (default: every operation not marked `excluded`).
   */
  countedSurface?: { description: string; includes?(entry: OperationEntry): boolean };
  /**
   * A surface that is not HTTP operations (GraphQL: one endpoint, many root fields), for the
   * coverage matrix: where its operations come from, and each with its level. A twin with `generic`
   * needs none (its operation table gives the rows).
   */
  operationTable?: { source: string; operations(): TwinOperationLevel[] };
  /**
   * The provider's own MCP server (its published tool set), served by the runtime at `/mcp` on the
   * twin's URL over streamable HTTP with the twin key as Bearer (twin-runtime/mcp.ts,
   * docs/decisions.md §15); the credential then carries `mcp_url`.
   */
  mcp?: TwinMcp;
}

/**
 * One language's way to call the twin with the provider's official SDK. `code` is a template: each
 * `{{name}}` becomes a string literal of the snippet's language — `{{url}}` the twin's base URL
 * without a trailing slash, `{{url:/api/}}` that URL with a suffix, `{{host}}`, `{{protocol}}`
 * (`http`/`https`), `{{api_key}}` and any field of the twin's credential (`{{account_sid}}`,
 * `{{email}}`); `{{port}}` becomes a bare number. control-plane/client/sdk-snippets.ts renders it.
 */
export interface SdkSnippet {
  /** As shown: `JavaScript`. */
  language: 'JavaScript';
  /** The official package (`stripe`, `@octokit/rest`). */
  package: string;
  code: string;
}

export interface TwinSdk {
  /** One snippet per language the console and CLI show (today JavaScript). */
  snippets: SdkSnippet[];
  /**
   * Shell variables `twins twin credential` prints (`STRIPE_SECRET_KEY`, `STRIPE_API_URL`): the
   * provider's own variable names where its SDK reads them; values are `{{…}}` templates, unquoted.
   */
  env: Record<string, string>;
}

/** The provider's own MCP server as a twin mirrors it (TwinDefinition.mcp). */
export interface TwinMcp {
  /** The server whose tools these are: its name (`github-mcp-server`), the version pinned, where the list comes from. */
  server: { name: string; version: string; source: string };
  /** The server's own `serverInfo` as its clients see it on initialize, where it differs from `server` (Stripe's toolkit says `Stripe 0.4.0`). */
  implementation?: { name: string; version: string };
  /** Every tool of the published list, in its order; a tool without `call` is refused as not simulated. */
  tools: readonly TwinMcpTool[];
  /**
   * Whether the provider's server checks arguments against the published input schemas before
   * acting (default true: SDK servers with zod or Go handlers do); Notion's OpenAPI proxy sends
   * them on as they came, and the API answers.
   */
  validatesInput?: boolean;
  /** The headers that carry the twin key on the tools' provider requests (default `Authorization: Bearer <key>`). */
  credentialHeaders?(apiKey: string): Record<string, string>;
}

/** One tool of the provider's own MCP server as the twin answers it. */
export interface TwinMcpTool {
  name: string;
  title?: string;
  description: string;
  /** JSON Schema of the arguments, as the provider's server publishes it (pinned data, never a hand copy). */
  inputSchema: Readonly<Record<string, unknown>>;
  /** The provider's tool annotations (`readOnlyHint`, `title`…), as published. */
  annotations?: Readonly<Record<string, unknown>>;
  /**
   * The provider operations the tool performs (`POST /repos/{owner}/{repo}/issues`), by the twin's
   * route templates: its coverage level is the lowest of theirs. None: the tool is `unsupported`.
   */
  operations?: readonly string[];
  /**
   * Run the tool through the twin's own provider API (`api`: the same routes, model, webhooks and
   * request-log rows as the REST calls it stands for); the answer is the tool's result. Throw
   * NotSimulated for a part the twin does not simulate, McpToolError for the provider's own tool error.
   * Absent: the tool answers an MCP tool error saying the twin does not simulate it.
   */
  call?(args: Record<string, unknown>, api: TwinApi): Promise<unknown>;
}

/** A provider request a tool makes through the twin's own API. */
export interface TwinApiRequest {
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent form-encoded with bracket notation (Stripe, Slack). */
  form?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface TwinApiAnswer {
  status: number;
  headers: Headers;
  /** JSON parsed, else the text. */
  body: unknown;
  fidelity?: FidelityLevel;
}

/** The twin's provider API as an MCP tool reaches it (twin-runtime/mcp.ts). */
export interface TwinApi {
  /** One request, answered whatever its status. */
  request(method: string, path: string, options?: TwinApiRequest): Promise<TwinApiAnswer>;
  /** One request whose 2xx body is the result; any other answer becomes the tool error the provider's message makes. */
  json(method: string, path: string, options?: TwinApiRequest): Promise<unknown>;
}

/** One operation of a non-HTTP surface (`Query.issue` of POST /graphql) with its fidelity level. */
export interface TwinOperationLevel {
  method: string;
  path: string;
  operation: string;
  level: FidelityLevel;
  reason?: string;
}
