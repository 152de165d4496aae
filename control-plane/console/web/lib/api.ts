// The console's only way to the control plane: its public REST API on the same origin, with the
// session's bearer token, the same routes and authorization as every other client.

import type { SdkTemplates } from '../../../client/sdk-snippets.js';
import { accessToken, signOut } from './session.js';

export interface ValidationEntry {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The 422 entries, one per failing field. */
    readonly entries: ValidationEntry[] = [],
  ) {
    super(message);
  }
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

function sentence(status: number, body: unknown): { message: string; entries: ValidationEntry[] } {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return { message: detail, entries: [] };
  if (Array.isArray(detail)) {
    const entries = detail as ValidationEntry[];
    return { message: entries.map((e) => `${e.loc.filter((p) => p !== 'body').join('.') || 'body'}: ${e.msg}`).join('; '), entries };
  }
  return { message: `The control plane answered ${status}.`, entries: [] };
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = accessToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'The control plane could not be reached.');
  }
  const text = res.status === 204 ? '' : await res.text();
  let parsed: unknown;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (res.status === 401) {
    // The session ended (expired, or the membership changed): back to the sign-in page.
    signOut();
  }
  if (!res.ok) {
    const { message, entries } = sentence(res.status, parsed);
    throw new ApiError(res.status, message, entries);
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await request<T>(method, path, body)).body;
}

export const get = <T>(path: string) => api<T>('GET', path);

/** Every item of a paged list (pages of 100), for lists the console shows whole. */
export async function all<T>(path: string, max = 1000): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; out.length < max; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const p = await get<Page<T>>(`${path}${sep}page=${page}&size=100`);
    out.push(...p.items);
    if (page >= p.pages) break;
  }
  return out;
}

export const enc = encodeURIComponent;

// ---- shapes of the API (the contract and docs/decisions.md §5) ----------------------------------------

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

export interface Twin {
  id: string;
  twin_slug: string;
  twin_version: string;
  seed_id: string | null;
  desired_state: string;
  state: string;
  url: string | null;
  created_at: string;
  ready_at: string | null;
  failure: string | null;
}

export interface Environment {
  id: string;
  name: string;
  status: string;
  scenario_id: string | null;
  sandbox_id: string;
  twins: Twin[];
  /** The clock's instant when the environment was read (a living clock runs on with wall time). */
  clock: string;
  clock_mode: 'living' | 'frozen';
  fidelity: 'strict' | 'lenient';
  created_at: string;
  expires_at: string | null;
}

export interface Snapshot {
  id: string;
  name: string;
  environment_id: string;
  twins: { twin_id: string; twin_slug: string; twin_version: string; storage_version: number; size_bytes: number }[];
  clock: string;
  clock_mode: 'living' | 'frozen';
  size_bytes: number;
  created_at: string;
}

export interface RecordRef {
  resource: string;
  external_id: string;
}

export interface EnvironmentDiff {
  twins: { twin_id: string; added: RecordRef[]; changed: (RecordRef & { fields: string[] })[]; removed: RecordRef[]; truncated: boolean }[];
}

export interface CatalogTwin {
  slug: string;
  name: string;
  description: string;
  version: string;
  sdk: SdkTemplates | null;
}

export interface LogEntry {
  id: string;
  environment_id: string;
  environment_twin_id: string;
  method: string;
  path: string;
  query_string: string;
  /** null: sent to the twin, no answer logged (in flight, or cut off by a crash). */
  status_code: number | null;
  duration_ms: number;
  occurred_at: string;
  /** How the twin made the answer (its Twin-Fidelity header); null when it did not say. */
  fidelity: 'modelled' | 'inferred' | 'stored' | 'unsupported' | null;
}

export interface LogBody {
  content_type: string | null;
  body: string | null;
  body_truncated: boolean;
}

export interface LogEntryDetail extends LogEntry {
  twin_slug: string;
  actor: string;
  request: LogBody & { headers: Record<string, string | string[]> };
  response: LogBody;
}

export interface TwinRecord {
  external_id: string;
  resource: string;
  body: Record<string, unknown>;
}

export interface Seed {
  id: string;
  name: string;
  twin: string;
  prompt: string;
  status: 'pending' | 'running' | 'ready' | 'failed';
  usable: boolean;
  created_at: string;
  failure: string | null;
  twin_version: string;
  size_bytes: number;
  completed_at: string | null;
}

export interface Suggestion {
  twin: string;
  name: string;
  prompt: string;
}

export interface Scenario {
  id: string;
  name: string;
  description: string;
  twins: { twin: string; seed_id: string | null }[];
  created_at: string;
  updated_at: string;
}

export interface Test {
  id: string;
  name: string;
  outcome: string | null;
  twins: string[];
  status: 'ready' | 'failed';
  assertions: Record<string, unknown>[];
  failure: string | null;
  created_at: string;
}

export interface FieldRow {
  field: string;
  expected: string;
  actual: unknown;
  ok: boolean;
}

export interface RequestSummary {
  log_id: string;
  twin: string;
  method: string;
  path: string;
  status: number;
  occurred_at: string;
}

export interface NearMiss extends RequestSummary {
  matched_fields: number;
  total_fields: number;
  fields: FieldRow[];
}

export interface AssertionResult {
  index: number;
  kind: 'count' | 'never' | 'sequence';
  says: string;
  passed: boolean;
  expected: string;
  observed: number;
  matching_log_ids: string[];
  reason: string | null;
  near_misses?: NearMiss[];
  offending?: RequestSummary[];
  steps?: { step: number; says: string | null; bound_log_id: string | null; captured: Record<string, unknown> }[];
  stopped_at?: number | null;
}

export interface Attempt {
  id: string;
  test_id: string;
  environment_id: string;
  from: string;
  to: string;
  passed: boolean;
  results: AssertionResult[];
  evaluated_at: string;
}

export interface Me {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  organization_id: string;
  role: 'admin' | 'member';
  created_at: string;
}

export interface Organization {
  id: string;
  name: string;
  created_at: string;
  role: 'admin' | 'member';
}

export interface Member {
  user_id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: 'admin' | 'member';
  joined_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: 'admin' | 'member';
  state: 'pending';
  created_at: string;
  expires_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  created_at: string;
  expires_at: string;
  created_by: { id: string; email: string; first_name: string; last_name: string };
}

export interface InvoiceLine {
  name: string;
  total_cents: number;
  twin: string;
  quantity: number;
  unit_price_cents: number;
}

export interface Billing {
  plan: 'free' | 'paygo';
  max_environment_seconds: number | null;
  max_parallel_twins: number | null;
  ai_generation_enabled: boolean;
  active_twins: number;
  storage_bytes: number;
  ready: boolean;
  upgrade_available: boolean;
  remaining_credit_cents: number | null;
  invoice: { period_start: string; period_end: string; total_cents: number; line_items: InvoiceLine[]; credits_applied_cents: number } | null;
}

export interface Advance {
  id: string;
  environment_id: string;
  status: 'running' | 'succeeded' | 'failed';
  clock: string;
  failure: string | null;
}

export interface SignInOptions {
  mode: 'local' | 'oidc';
  authorization_endpoint: string | null;
  client_id: string | null;
  scope: string | null;
  audience: string | null;
  detail: string | null;
}
