// A twin's own MCP server (docs/decisions.md §15): the provider's published tool set (TwinDefinition.mcp)
// at `/mcp` on the twin's URL, over streamable HTTP (the SDK's transport, mcp-transport.ts), with the
// twin key as Bearer. Tools act only through the twin's provider API, over HTTP at the twin's base
// URL (the gateway's, behind one): a tool call runs the same routes, model and webhooks as the REST
// calls it stands for, and each of its requests is an ordinary request-log row whose request headers
// carry `Twin-Mcp-Tool: <tool name>`. A tool the twin does not simulate answers an MCP tool error
// (`isError: true`) saying so, never a made-up result.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import qs from 'qs';
import type { TwinApi, TwinApiAnswer, TwinApiRequest, TwinContext, TwinDefinition, TwinMcp, TwinMcpTool } from './contract.js';
import { FIDELITY_HEADER, isFidelityLevel, NotSimulated, notSimulatedSentence, type FidelityLevel } from './fidelity.js';
import { answerMcpRequest } from './mcp-transport.js';
import { INPUT_LIMITS, parseJson } from './safe-input.js';

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
      body = qs.stringify(o.form, { encodeValuesOnly: true });
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
 * One JSON Schema validator for every tool and every per-request server (the SDK's Server would
 * otherwise build an Ajv instance per request, a fifth of a tool call's CPU).
 */
const schemas = new AjvJsonSchemaValidator();
const validators = new WeakMap<TwinMcpTool, JsonSchemaValidator<unknown> | null>();

function validatorOf(tool: TwinMcpTool): JsonSchemaValidator<unknown> | undefined {
  let v = validators.get(tool);
  if (v === undefined) {
    try {
      v = schemas.getValidator(tool.inputSchema as JsonSchemaType);
    } catch {
      v = null; // a schema Ajv cannot compile: the arguments go to the API as they came
    }
    validators.set(tool, v);
  }
  return v ?? undefined;
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function toolResult(value: unknown): CallToolResult {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return { content: [{ type: 'text', text }] };
}

/** Run one tool call: its arguments checked against the published schema, then through the twin's API. */
export async function callTool(tool: TwinMcpTool, args: Record<string, unknown>, api: TwinApi, mcp: TwinMcp): Promise<CallToolResult> {
  const server = mcp.server;
  const checked = mcp.validatesInput === false ? undefined : validatorOf(tool)?.(args);
  if (checked && !checked.valid) return toolError(`Invalid arguments for ${tool.name}: ${checked.errorMessage ?? 'they do not match its input schema'}.`);
  if (!tool.call) return toolError(notSimulatedSentence(`the MCP tool ${tool.name} (${server.name} ${server.version})`));
  try {
    return toolResult(await tool.call(args, api));
  } catch (e) {
    if (e instanceof NotSimulated || e instanceof McpToolError) return toolError(e.message);
    return toolError(`${tool.name} failed: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** The MCP server of one twin for one request (stateless): its tools as published, each acting through `api`. */
export function createTwinMcpServer(mcp: TwinMcp, apiFor: (tool: string, signal: AbortSignal) => TwinApi): Server {
  const server = new Server(mcp.implementation ?? { name: mcp.server.name, version: mcp.server.version }, {
    capabilities: { tools: {} },
    jsonSchemaValidator: schemas,
  });
  const byName = new Map(mcp.tools.map((t) => [t.name, t]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: mcp.tools.map((t) => ({
      name: t.name,
      ...(t.title ? { title: t.title } : {}),
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' },
      ...(t.annotations ? { annotations: t.annotations } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    return callTool(tool, request.params.arguments ?? {}, apiFor(tool.name, extra.signal), mcp);
  });
  return server;
}

function bearerOf(req: IncomingMessage): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

function sameKey(given: string | undefined, key: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

function answerJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
  res.end(payload);
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * Answer a request to a twin's /mcp: POST only (stateless, no server-initiated stream), the twin key
 * as Bearer, the JSON-RPC body read within the runtime's input limits.
 */
export async function serveTwinMcp(twin: TwinDefinition, ctx: TwinContext, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const mcp = twin.mcp!;
  if (req.method !== 'POST') {
    answerJson(res, 405, rpcError(-32000, 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages.'), { allow: 'POST' });
    return;
  }
  if (!sameKey(bearerOf(req), ctx.apiKey)) {
    answerJson(res, 401, rpcError(-32001, `The ${twin.name} twin's MCP server needs the twin's key as a Bearer token.`), {
      'www-authenticate': `Bearer realm="${twin.slug} twin"`,
    });
    return;
  }
  let body: unknown;
  try {
    body = parseJson(raw.toString('utf8'), 'body', INPUT_LIMITS, true);
  } catch (e) {
    answerJson(res, 400, rpcError(-32700, `Parse error: ${(e as Error).message}`));
    return;
  }
  const credential = mcp.credentialHeaders?.(ctx.apiKey) ?? { authorization: `Bearer ${ctx.apiKey}` };
  const server = createTwinMcpServer(mcp, (tool, signal) => twinApi(ctx.baseUrl, credential, tool, signal));
  await answerMcpRequest(server, req, res, body);
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
