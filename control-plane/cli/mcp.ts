// `twins mcp`: the MCP tools over stdio. It drives TWINS_URL when given; else the control plane
// running from TWINS_DATA_DIR; else an embedded control plane started in this process. It acts with
// the credential it is given (TWINS_API_KEY or TWINS_TOKEN: that key's or token's organization);
// without one it signs tokens with the local identity provider for --email (agent@twins.local) in
// --org, by default the organization of the last `twins token` / `twins console` sign-in from the
// data folder — the person's own, so what the agent does shows in their console. stdout carries MCP
// only: logs go to stderr.

import { resolve } from 'node:path';
import type { TwinsClient } from '../client/index.js';
import { CliError, type CommandContext } from './context.js';
import { lastSignIn, removeServerNote, runningServer, whyNotSigning, writeServerNote } from './local-server.js';
import type { Handler } from './spec.js';

const DEFAULT_EMAIL = 'agent@twins.local';
const DEFAULT_ORG = 'local';

interface Backend {
  client: TwinsClient;
  describe: string;
  close(): Promise<void>;
}

type Credential = string | (() => Promise<string>);

/** Whom the MCP server acts as: the credential given, else a local identity (see the top of this file). */
function actingAs(ctx: CommandContext, dataDir: string): { credential?: string; email: string; org: string } {
  const given = ctx.str('token');
  const org = ctx.str('org') ?? lastSignIn(dataDir)?.org ?? DEFAULT_ORG;
  return { ...(given ? { credential: given } : {}), email: ctx.str('email') ?? DEFAULT_EMAIL, org };
}

function describeActor(who: ReturnType<typeof actingAs>): string {
  return who.credential
    ? who.credential.startsWith('twk_')
      ? "the API key's organization"
      : "the token's organization"
    : `${who.email} in organization ${who.org}`;
}

async function localSigner(dataDir: string, who: { email: string; org: string }): Promise<() => Promise<string>> {
  const { loadLocalKeys, mintLocalToken } = await import('../auth/local-idp.js');
  const keys = await loadLocalKeys(dataDir);
  const claims = { email: who.email, org: who.org, role: 'admin' as const, firstName: 'Agent', lastName: '' };
  let cached: { token: string; until: number } | undefined;
  return async () => {
    if (!cached || cached.until < Date.now() + 60_000)
      cached = { token: await mintLocalToken(keys, { ...claims, ttlSeconds: 3600 }), until: Date.now() + 3_600_000 };
    return cached.token;
  };
}

async function backend(ctx: CommandContext): Promise<Backend> {
  const { createTwinsClient } = await import('../client/index.js');
  const url = ctx.str('url');
  if (url) {
    const token = ctx.str('token');
    if (!token) throw ctx.usage('missing credential for --url/TWINS_URL: pass --token or set TWINS_API_KEY (or TWINS_TOKEN)');
    return { client: createTwinsClient({ url, token }), describe: `the control plane at ${url}, acting with the given credential`, close: async () => {} };
  }
  const dataDir = resolve(ctx.io.cwd, ctx.str('data') ?? './.data');
  const who = actingAs(ctx, dataDir);
  // A given credential is used as it is; otherwise tokens are signed by the folder's local identity provider.
  const credential = async (): Promise<Credential> => who.credential ?? (await localSigner(dataDir, who));
  const running = runningServer(dataDir);
  if (running) {
    const refusal = who.credential ? undefined : whyNotSigning(dataDir, ctx.io.env.TWINS_IDP);
    if (refusal) throw new CliError(`${refusal} Set TWINS_URL and TWINS_API_KEY instead.`);
    const reachable = await fetch(`${running.url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (reachable)
      return {
        client: createTwinsClient({ url: running.url, token: await credential() }),
        describe: `the control plane at ${running.url} as ${describeActor(who)}`,
        close: async () => {},
      };
  }
  if (!who.credential && ctx.io.env.TWINS_IDP && ctx.io.env.TWINS_IDP !== 'local')
    throw new CliError('TWINS_IDP is not local: set TWINS_URL and TWINS_API_KEY to drive your control plane.');
  // Embedded: a control plane in this process on a free loopback port, logging to stderr.
  const [{ loadConfig }, { startControlPlane }, { default: pino }] = await Promise.all([import('../config.js'), import('../server.js'), import('pino')]);
  const config = loadConfig(ctx.io.env, { port: 0, host: '127.0.0.1', dataDir });
  const cp = await startControlPlane(config, pino({ level: config.logLevel }, pino.destination(2)));
  writeServerNote(dataDir, { url: cp.url, pid: process.pid, idp: config.idp, started_at: new Date().toISOString() });
  return {
    client: createTwinsClient({ url: cp.url, token: await credential() }),
    describe: `an embedded control plane at ${cp.url} (data ${dataDir}) as ${describeActor(who)}`,
    async close() {
      await cp.close();
      removeServerNote(dataDir, process.pid);
    },
  };
}

export const mcp: Handler = async (ctx) => {
  const [{ createMcpServer, mcpInstructions }, { StdioServerTransport }] = await Promise.all([
    import('../mcp/tools.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const b = await backend(ctx);
  // The twins the control plane runs, as its catalog names them.
  const catalog = await b.client.GET('/twins/catalog').catch(() => undefined);
  const server = createMcpServer(() => b.client, mcpInstructions(catalog?.data?.map((c) => c.name) ?? ['see list_catalog']));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolveClosed) => {
    transport.onclose = () => resolveClosed();
    process.stdin.once('end', () => resolveClosed());
  });
  await server.connect(transport);
  ctx.io.stderr(`twins mcp: serving MCP on stdio for ${b.describe}\n`);
  await Promise.race([closed, ctx.io.stopped]);
  await server.close().catch(() => {});
  await b.close();
  return 0;
};
