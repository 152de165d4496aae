// The parts of a twin's own MCP server (docs/decisions.md §15) a twin's tools are written with: the
// provider's published tool set (TwinDefinition.mcp) is served at `/mcp` on the twin's URL by
// mcp-server.ts (loaded on first use). Tools act only through the twin's provider API, over HTTP at
// the twin's base URL (the gateway's, behind one): a tool call runs the same routes, model and webhooks
// as the REST calls it stands for, and each of its requests is an ordinary request-log row whose
// request headers carry `Twin-Mcp-Tool: <tool name>`. A tool the twin does not simulate answers an MCP
// tool error (`isError: true`) saying so, never a made-up result.

import { readFileSync } from 'node:fs';
import type { TwinApi, TwinApiAnswer, TwinApiRequest, TwinMcp, TwinMcpTool } from './contract.js';
import { loadOnce } from './load-once.js';
import { FIDELITY_HEADER, isFidelityLevel, NotSimulated, type FidelityLevel } from './fidelity.js';

/** Where a twin serves its provider's MCP tools, on its own URL. */
export const MCP_PATH = '/mcp';

/** The request header naming the MCP tool a provider request was made for (kept in the request log). */
export const MCP_TOOL_HEADER = 'twin-mcp-tool';

export function isMcpPath(path: string): boolean {
  return path === MCP_PATH || path === `${MCP_PATH}/`;
}

/** The `mcp_url` of a twin's credential: its URL + /mcp. */
export function mcpUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '') + MCP_PATH;
}

/**
 * A route template filled from a tool's arguments, each value percent-encoded; the parameters named
 * in `slashes` keep theirs (a file path), each segment encoded. A missing value is the tool's error.
 */
export function fillPath(template: string, values: Record<string, unknown>, slashes: readonly string[] = []): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined || v === null || v === '') throw new McpToolError(`missing required parameter: ${name}`);
    const s = String(v);
    // A dot segment would move the request elsewhere on the twin once the URL is normalised.
    if (s.split('/').some((seg) => seg === '.' || seg === '..')) throw new McpToolError(`invalid parameter: ${name} may not contain '.' or '..' segments`);
    return slashes.includes(name) ? s.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(s);
  });
}

/** Only the fields given: a tool's absent optional arguments are left out of the provider request. */
export function definedOnly(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/**
 * A twin's MCP server whose pinned tool list (a spec/mcp-tools.json of a few hundred KiB) is read
 * on first use, by a /mcp request, the catalog or the coverage, not at every twin's start.
 */
export function lazyMcp(make: () => TwinMcp): TwinMcp {
  const mcp = loadOnce(make);
  return {
    get server() {
      return mcp().server;
    },
    get implementation() {
      return mcp().implementation;
    },
    get tools() {
      return mcp().tools;
    },
    get validatesInput() {
      return mcp().validatesInput;
    },
    credentialHeaders: (key) => mcp().credentialHeaders?.(key) ?? { authorization: `Bearer ${key}` },
  };
}

/** A twin's pinned tool list (`spec/mcp-tools.json` beside its sources, copied into dist/ by the build). */
export function readPinnedTools<T>(url: URL): T {
  return JSON.parse(readFileSync(url, 'utf8')) as T;
}

/** One tool as its provider's server publishes it (a pinned `spec/mcp-tools.json` entry). */
export interface PublishedTool {
  name: string;
  description: string;
  annotations?: Record<string, unknown>;
  inputSchema: Record<string, unknown>;
}

/** How a twin answers a published tool: the operations it performs and the call through the twin's API. */
export type McpToolAnswer = Required<Pick<TwinMcpTool, 'operations' | 'call'>>;

/** The published tools in their order, each with the twin's answer where it has one (the others are refused). */
export function publishedTools(published: readonly PublishedTool[], answers: Readonly<Record<string, McpToolAnswer>>): TwinMcpTool[] {
  return published.map((t): TwinMcpTool => {
    const answer = Object.hasOwn(answers, t.name) ? answers[t.name] : undefined;
    const title = t.annotations?.title;
    return {
      name: t.name,
      ...(typeof title === 'string' ? { title } : {}),
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.annotations ? { annotations: t.annotations } : {}),
      ...(answer ? { operations: answer.operations, call: answer.call } : {}),
    };
  });
}

/**
 * A tool generated from an OpenAPI operation, as servers built by openapi-mcp-server lay out its
 * arguments (Notion's): the path and query parameters by name, the rest as the JSON body (or the
 * query, for an operation without one), the operation's default headers sent with it.
 */
export interface OpenApiToolOperation {
  method: string;
  path: string;
  path_params: readonly string[];
  query_params: readonly string[];
  body: boolean;
  headers: Readonly<Record<string, string>>;
}

/** A JSON text an agent double-encoded (`"{\"a\":1}"`) read as the value it stands for, as those servers do. */
function unwrapJson(value: unknown): unknown {
  if (typeof value === 'string') {
    const t = value.trim();
    if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
      try {
        return unwrapJson(JSON.parse(t));
      } catch {
        return value;
      }
    }
    return value;
  }
  if (Array.isArray(value)) return value.map(unwrapJson);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapJson(v)]));
  return value;
}

/**
 * The answer to an OpenAPI-generated tool: its operation through the twin's API. A provider error is
 * the tool's error, its text what such a server answers (`{"status":"error", …the error body}`).
 */
export function openApiToolAnswer(op: OpenApiToolOperation): McpToolAnswer {
  return {
    operations: [`${op.method} ${op.path}`],
    async call(args, api) {
      const params = unwrapJson(args) as Record<string, unknown>;
      const rest: Record<string, unknown> = { ...params };
      const query: Record<string, string | number | boolean | undefined> = {};
      for (const name of [...op.path_params, ...op.query_params]) delete rest[name];
      for (const name of op.query_params) if (params[name] !== undefined) query[name] = scalar(params[name]);
      if (!op.body) for (const [k, v] of Object.entries(rest)) if (v !== undefined) query[k] = scalar(v);
      const hasBody = op.body && Object.keys(rest).length > 0;
      const answer = await api.request(op.method, fillPath(op.path, params), { query, headers: { ...op.headers }, ...(hasBody ? { body: rest } : {}) });
      if (answer.status >= 200 && answer.status < 300) return answer.body;
      if (answer.fidelity === 'unsupported') throw new NotSimulated(`${op.method} ${op.path}`, providerMessage(answer.body));
      const data = answer.body && typeof answer.body === 'object' ? answer.body : { data: answer.body };
      throw new McpToolError(JSON.stringify({ status: 'error', ...data }));
    },
  };
}

const scalar = (v: unknown): string | number | boolean => (typeof v === 'object' ? JSON.stringify(v) : (v as string | number | boolean));

/** A provider error a tool reports as its own result (`isError: true`), as the provider's server does. */
export class McpToolError extends Error {
  override name = 'McpToolError';
}

/** The message of a provider error body: `{message}` (GitHub), `{error: {message}}` (Stripe), `{error: "…"}` (Slack). */
function providerMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.slice(0, 500) || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const b = body as { message?: unknown; error?: unknown; errors?: unknown };
  if (typeof b.message === 'string') return b.message;
  if (b.error && typeof b.error === 'object' && typeof (b.error as { message?: unknown }).message === 'string') return (b.error as { message: string }).message;
  if (typeof b.error === 'string') return b.error;
  return undefined;
}

/** The twin's provider API over HTTP at its base URL, every request marked with the tool's name. */
export function twinApi(baseUrl: string, credential: Record<string, string>, tool: string, signal?: AbortSignal): TwinApi {
  const base = baseUrl.replace(/\/+$/, '');
  const request = async (method: string, path: string, o: TwinApiRequest = {}): Promise<TwinApiAnswer> => {
    const query = Object.entries(o.query ?? {}).filter((e): e is [string, string | number | boolean] => e[1] !== undefined);
    const search = query.length ? `?${new URLSearchParams(query.map(([k, v]) => [k, String(v)])).toString()}` : '';
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'twins-mcp', ...credential, ...o.headers, [MCP_TOOL_HEADER]: tool };
    let body: string | undefined;
    if (o.form !== undefined) {
      body = (await import('qs')).default.stringify(o.form, { encodeValuesOnly: true });
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(base + path + search, { method, headers, body, signal });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const fidelity = res.headers.get(FIDELITY_HEADER);
    return { status: res.status, headers: res.headers, body: parsed, ...(isFidelityLevel(fidelity) ? { fidelity } : {}) };
  };
  return {
    request,
    async json(method, path, o) {
      const answer = await request(method, path, o);
      if (answer.status >= 200 && answer.status < 300) return answer.body;
      const message = providerMessage(answer.body) ?? `HTTP ${answer.status}`;
      // The twin refused the operation as not simulated: the tool says so in the same words.
      if (answer.fidelity === 'unsupported') throw new NotSimulated(`${method} ${path}`, message);
      throw new McpToolError(`${method} ${path}: ${answer.status} ${message}`);
    },
  };
}

/**
 * A tool's coverage level: the lowest level of the operations it performs that the twin serves
 * (a tool with several methods answers those; the others come back as tool errors, named in the
 * reason); `unsupported` when it has no implementation or the twin serves none of them.
 */
export function toolLevel(tool: TwinMcpTool, levelOf: (operation: string) => FidelityLevel | undefined): { level: FidelityLevel; reason?: string } {
  if (!tool.call || !tool.operations?.length) return { level: 'unsupported', reason: 'The twin does not simulate this tool.' };
  const order: FidelityLevel[] = ['unsupported', 'stored', 'inferred', 'modelled'];
  const levels = tool.operations.map((op) => ({ op, level: levelOf(op) ?? 'unsupported' }));
  const served = levels.filter((l) => l.level !== 'unsupported');
  const refused = levels.filter((l) => l.level === 'unsupported').map((l) => l.op);
  const level = served.reduce<FidelityLevel>(
    (low, l) => (order.indexOf(l.level) < order.indexOf(low) ? l.level : low),
    served.length ? 'modelled' : 'unsupported',
  );
  const refusal = refused.length ? `; refused: ${refused.join(', ')}` : '';
  return { level, reason: `${served.map((l) => `${l.op} (${l.level})`).join(', ')}${refusal}`.replace(/^; /, '') };
}
