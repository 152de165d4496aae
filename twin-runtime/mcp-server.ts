// The server side of a twin's /mcp (twin-runtime/mcp.ts has the rest): the MCP SDK's Server per
// request over the shared transport (mcp-transport.ts), the tool list as published, arguments
// checked against the published schemas, the twin key as Bearer. Loaded on a twin's first /mcp
// request (the SDK's schemas cost a twin's start over a second otherwise).

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import type { TwinApi, TwinContext, TwinDefinition, TwinMcp, TwinMcpTool } from './contract.js';
import { NotSimulated, notSimulatedSentence } from './fidelity.js';
import { McpToolError, twinApi } from './mcp.js';
import { answerMcpRequest } from './mcp-transport.js';
import { INPUT_LIMITS, parseJson } from './safe-input.js';

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
    // A JSON body's key and depth limits were checked on its bytes as it arrived (server.ts).
    body = parseJson(raw.toString('utf8'), 'body', INPUT_LIMITS, (req.headers['content-type'] ?? '').toLowerCase().includes('json'));
  } catch (e) {
    answerJson(res, 400, rpcError(-32700, `Parse error: ${(e as Error).message}`));
    return;
  }
  const credential = mcp.credentialHeaders?.(ctx.apiKey) ?? { authorization: `Bearer ${ctx.apiKey}` };
  const server = createTwinMcpServer(mcp, (tool, signal) => twinApi(ctx.baseUrl, credential, tool, signal));
  await answerMcpRequest(server, req, res, body);
}
