// The format of a twin's generated spec artefacts (`twins/<slug>/spec/`), written at build time by
// scripts/gen/spec.ts from the provider's published spec and SDK, read lazily by the runtime:
//   source.json      which package, version and file the table came from (the pinned spec);
//   operations.json  every operation: method, wire template, success status, response facts,
//                    plus the byte index of schemas.jsonl;
//   schemas.jsonl    one `[name, value]` line per piece: `op:<id>` → {request, response} of one
//                    operation, any other name → a component schema (`$ref: #/components/schemas/<name>`).
// The runtime reads operations.json at start and a piece only when an operation first needs it, so a
// twin never holds the whole provider spec in memory.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ResponseFacts {
  /**
   * `object` one resource; `array` a JSON array of them (GitHub lists); `list` Stripe's list
   * envelope; `search` Stripe's search envelope; `none` no body (204); `other` a non-JSON body.
   */
  kind: 'object' | 'array' | 'list' | 'search' | 'none' | 'other';
  /** Component schema of the object, or of one item of a list/array. */
  ref?: string;
  /** Stripe: the `object` value of the answer (or of its items). */
  object?: string;
  /** Stripe: the answer is a `deleted_*` stub. */
  deleted?: true;
  /** Media type of a non-JSON answer. */
  media?: string;
  /** Slack: top-level fields of the answer holding arrays, and holding objects (besides `ok`). */
  lists?: string[];
  objects?: string[];
}

export interface OperationEntry {
  /** The provider's operation id (GitHub `repos/create-release`, Stripe `PostCoupons`, Slack `pins.add`). */
  id: string;
  method: HttpMethod;
  /** Template as it is on the wire, `{name}` per segment (`/v1/coupons/{coupon}`, `/api/pins.add`). */
  path: string;
  /** The provider's reference page for the operation. */
  docs?: string;
  /** `spec`: from the published spec; `sdk`: named only by the official SDK (shape inferred); both. */
  origin: 'spec' | 'sdk' | 'spec+sdk';
  /** Set when the twin does not serve the operation at all; says why. */
  excluded?: string;
  /** The success status. */
  status: number;
  response: ResponseFacts;
  /** How the body is encoded, when the operation takes one. */
  body?: 'json' | 'form' | 'other';
  /** Error codes the provider documents for the operation (Slack's `*_not_found` and friends). */
  errors?: string[];
  /** SDK hints: `list`/`search` method types (Stripe `methodType`). */
  sdkType?: 'list' | 'search';
}

export interface ParamPiece {
  name: string;
  in: 'path' | 'query';
  required?: true;
  schema: unknown;
}

export interface OperationPiece {
  request: {
    params: ParamPiece[];
    body?: { media: 'json' | 'form' | 'other'; required?: true; schema?: unknown };
  };
  /** JSON schema of the success answer (component refs by `#/components/schemas/<name>`). */
  response?: unknown;
}

export interface SpecSource {
  /** `spec`: the published description (shapes); `sdk`: the official SDK (its operation list). */
  role: 'spec' | 'sdk';
  /** npm package and version, and the file(s) inside it that were read. */
  package: string;
  version: string;
  file: string;
  /** sha256 of what was read, so a changed file is noticed even at the same version. */
  sha256: string;
  /** The provider API version an SDK was generated for (Stripe `2026-10-28.endive`). */
  apiVersion?: string;
  /** The provider's own spec release an SDK was generated from (Stripe's `OPENAPI_VERSION`, a stripe/openapi tag). */
  openapi?: string;
}

export interface OperationTable {
  format: 1;
  provider: string;
  operations: OperationEntry[];
  /** `name` → [byte offset, byte length] of its line in schemas.jsonl. */
  pieces: Record<string, [number, number]>;
  /** `format` values the schemas use (the validator accepts the ones it cannot check). */
  formats: string[];
}
