// The typed client of the control plane's REST API: openapi-fetch over the types openapi-typescript
// generated from the served document (schema.ts). Shipped as the package's `./client` export and used
// by the `twins` CLI and the MCP server themselves, so all three speak to the API the same way.
//
//   import { createTwinsClient, ok } from 'twins/client';
//   const twins = createTwinsClient({ url: 'http://127.0.0.1:8080', token: process.env.TWINS_API_KEY });
//   const env = await ok(twins.POST('/environments', { body: { name: 'demo', twins: [{ twin: 'stripe' }] } }));

import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export type Environment = Schemas['Environment'];
export type EnvironmentTwin = Schemas['EnvironmentTwin'];
export type RequestLog = Schemas['RequestLog'];
export type TwinRecord = Schemas['TwinRecord'];
export type CatalogTwin = Schemas['CatalogTwin'];
export type Seed = Schemas['Seed'];
export type Snapshot = Schemas['Snapshot'];
export type Fault = Schemas['Fault'];
export type EnvironmentDiff = Schemas['EnvironmentDiff'];
export type Test = Schemas['Test'];
export type Attempt = Schemas['Attempt'];
export type TwinsClient = Client<paths>;
/** The twins this document knows (the API answers 422 for others). */
export type TwinSlug = Schemas['EnvironmentTwinCreate']['twin'];

/** Where `make dev` / `twins serve` listen unless told otherwise. */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface TwinsClientOptions {
  /** Base URL of the control plane (default http://127.0.0.1:8080). */
  url?: string;
  /** An access token or a `twk_` API key; a function is asked before every request (tokens expire). */
  token?: string | (() => string | Promise<string>);
  /** Another fetch (the control plane's own MCP endpoint answers through Fastify's inject). */
  fetch?: (request: Request) => Promise<Response>;
}

/** A refusal from the API, carrying its sentence (`detail`, or the 422 entries in one line). */
export class TwinsApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describeError(status, body));
    this.name = 'TwinsApiError';
  }
}

/** The control plane could not be reached at all. */
export class TwinsUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    const reason = (cause as { cause?: { code?: string; message?: string } })?.cause;
    super(`Cannot reach the control plane at ${url}: ${reason?.code ?? reason?.message ?? (cause as Error)?.message ?? String(cause)}.`);
    this.name = 'TwinsUnreachableError';
  }
}

/** The API's own sentence for an error body: `{"detail": "…"}`, or the 422 list as `loc: msg` pairs. */
export function describeError(status: number, body: unknown): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail) && detail.length > 0) {
    return detail.map((e: { loc?: unknown[]; msg?: string }) => `${(e.loc ?? []).join('.')}: ${e.msg ?? 'invalid'}`).join('; ');
  }
  return `The control plane answered HTTP ${status}.`;
}

export function createTwinsClient(options: TwinsClientOptions = {}): TwinsClient {
  const baseUrl = (options.url ?? DEFAULT_URL).replace(/\/+$/, '');
  const client = createClient<paths>({ baseUrl, fetch: options.fetch });
  const token = options.token;
  client.use({
    async onRequest({ request }) {
      const value = typeof token === 'function' ? await token() : token;
      if (value) request.headers.set('authorization', `Bearer ${value}`);
      return request;
    },
    onError({ error }) {
      return new TwinsUnreachableError(baseUrl, error);
    },
  });
  return client;
}

/** The data of a successful answer, or a TwinsApiError with the API's sentence. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new TwinsApiError(response.status, error);
  return data as T;
}
