// The twin contract: what a module under twins/<slug>/ exports, and what the runtime hands it.
// A twin knows nothing about organizations, billing or the control plane; it keeps provider state
// in its record store, reads time only from the environment clock and ids only from its id source.

import type { IncomingHttpHeaders } from 'node:http';
import type { RecordStore } from './record-store.js';
import type { EnvironmentClock } from './clock.js';
import type { IdSource } from './ids.js';
import type { Deliveries, DeliveryRecord } from './deliveries.js';
import type { GenericSurface } from './generic/types.js';

/** A provider request as the runtime parsed it. */
export interface TwinRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/customers/cus_123`. */
  path: string;
  /** Values of `{name}` segments of the matched route template. */
  params: Record<string, string>;
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
}

/** What a handler answers. `body` is serialised as JSON unless it is a string or a Buffer. */
export interface TwinResponse {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: unknown;
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
}

export type TwinHandler = (req: TwinRequest, ctx: TwinContext) => TwinResponse | Promise<TwinResponse>;

export interface TwinRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Template with `{name}` segments, e.g. `/v1/customers/{customer}`. A segment may not span `/`. */
  path: string;
  handler: TwinHandler;
  /** Set on routes that must answer without the twin's key (rare: e.g. a twin-only helper). */
  public?: boolean;
}

/** A described starting state shipped with a twin (the seeds area lists these). */
export interface SeedSuggestion {
  name: string;
  prompt: string;
}

export interface TwinDefinition {
  slug: string;
  name: string;
  description: string;
  /** Semver of the twin's behaviour. */
  version: string;
  /** Bumped when stored record shapes change; seeds of another storage version are not usable. */
  storageVersion: number;
  /** Record kinds the twin keeps (the control plane's records endpoints accept these). */
  resources: readonly string[];
  /** Mint the provider-shaped key for a fresh container start (e.g. `sk_test_…`). */
  mintKey(randomBase62: (length: number) => string): string;
  routes: TwinRoute[];
  /**
   * The operations of the provider's published spec that no hand-written route answers, served
   * from the spec by the runtime's generic layer (twin-runtime/generic/). A request goes to it when
   * no route matches, or when its template is more specific than the route that does (a static
   * segment where the route has a parameter). Its record kinds are part of `resources`.
   */
  generic?: GenericSurface;
  /**
   * Check the credential of a provider request. Return a provider-shaped error response to refuse,
   * or undefined to let the route run. Routes marked `public` skip this.
   */
  authenticate(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined;
  /** Provider-shaped answer for a path no route matches (and 405-like cases). */
  notFound(req: TwinRequest, ctx: TwinContext): TwinResponse;
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
  /** Headers for one delivery attempt (signatures use the wall-clock time of the attempt). */
  signDelivery?(delivery: DeliveryRecord, payload: string, wallNow: Date): Record<string, string>;
  /** Starting states shipped with the twin (at least five, each generating with the built-in planner). */
  suggestions: SeedSuggestion[];
  /**
   * Seed support (filled in by the seeds issue): how a plan is expanded into records through the
   * twin's own model. Typed loosely here so the runtime does not depend on seeds/.
   */
  seeding?: unknown;
}
