// `twins twin SLUG`: one twin without the control plane, on its own default port, keeping its
// records and key in the data file across restarts (docs/decisions.md §10). Loads only the twin runtime.
// `twins twin credential|get TWIN_ID`: a twin of an environment, through the REST API.

import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CliError } from './context.js';
import { show, table } from './output.js';
import type { Handler } from './spec.js';

export const standalone: Handler = async (ctx) => {
  const slug = ctx.args.SLUG!;
  const [{ isTwinSlug, loadTwin, TWIN_SLUGS }, { TwinServer }] = await Promise.all([
    import('../../twin-runtime/registry.js'),
    import('../../twin-runtime/server.js'),
  ]);
  if (!isTwinSlug(slug)) throw ctx.usage(`unknown twin '${slug}' (twins: ${TWIN_SLUGS.join(', ')})`);
  const def = await loadTwin(slug);
  const dataDir = resolve(ctx.io.cwd, ctx.io.env.TWINS_DATA_DIR ?? './.data');
  const data = resolve(ctx.io.cwd, ctx.str('data') ?? join(dataDir, 'standalone', `${slug}.sqlite`));
  mkdirSync(dirname(data), { recursive: true });
  const host = ctx.str('host') ?? '127.0.0.1';
  const { ensureTls, hostTls } = await import('../../twin-runtime/tls.js');
  const tls = ensureTls(dataDir, [host]);
  // A local provider behaves like the provider: its clock runs with wall time unless told to freeze.
  const server = new TwinServer(def, {
    dataFile: data,
    keepKey: true,
    apiKey: ctx.str('key'),
    tls,
    clock: (ctx.str('clock') as 'living' | 'frozen' | undefined) ?? 'living',
    fidelity: ctx.str('fidelity') as 'strict' | 'lenient' | undefined,
  });
  const port = ctx.int('port') ?? def.defaultPort;
  let url: string;
  try {
    url = await server.listen(port, host);
  } catch (e) {
    await server.close();
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(`Port ${port} is in use (is another ${def.name} twin running?); choose another with --port, or --port 0 for a free one.`);
    }
    throw e;
  }
  const httpsUrl = url.replace(/^http:/, 'https:');
  // `gh` inside a clone matches hosts without ports: the twin's own loopback address at 443 too.
  let ghHost: string | undefined;
  let ghHostProblem: string | undefined;
  if (def.ownHost && (host === '127.0.0.1' || host === 'localhost')) {
    const { loopbackHostFor } = await import('../../twin-runtime/own-host.js');
    const address = loopbackHostFor(Number(new URL(url).port));
    try {
      await server.alsoListen(443, address, hostTls(dataDir, address));
      ghHost = address;
    } catch (e) {
      ghHostProblem = `${address}:443 could not be bound (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; it needs root or CAP_NET_BIND_SERVICE)`;
    }
  }
  // The credential's other halves (Jira's email, Slack's app token) are printed beside the key.
  const credential = server.host.credential();
  const extras = Object.entries(credential).filter(([k]) => k !== 'api_key');
  show(
    ctx,
    {
      twin: slug,
      url,
      https_url: httpsUrl,
      ...(ghHost ? { gh_host: ghHost } : {}),
      ca_file: tls.caFile,
      ...credential,
      data,
      clock: server.clock.now().toISOString(),
      clock_mode: server.clock.mode,
      fidelity: server.ctx.fidelity,
    },
    (t) =>
      `${def.name} twin listening on ${t.url} (and ${t.https_url})\napi key: ${t.api_key}\n` +
      `${extras.map(([k, v]) => `${k.replace('_', ' ')}: ${v}\n`).join('')}data: ${t.data} (records and key kept across restarts)\n` +
      `CA: ${t.ca_file} (trust it for https: NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, GIT_SSL_CAINFO)\n` +
      (ghHost ? `gh host: https://${ghHost} (GH_HOST=${ghHost} GH_ENTERPRISE_TOKEN=<api key> SSL_CERT_FILE=<CA> GIT_SSL_CAINFO=<CA>)\n` : '') +
      (ghHostProblem ? `gh host: none, ${ghHostProblem}\n` : '') +
      `clock: ${t.clock} (${t.clock_mode === 'living' ? 'living: runs with wall time' : 'frozen: moves only on advance'}), fidelity ${t.fidelity}\n`,
  );
  await ctx.io.stopped;
  await server.close();
  return 0;
};

export const credential: Handler = async (ctx) => {
  const { twinCredentials } = await import('../client/workflows.js');
  const cred = await twinCredentials(await ctx.client(), ctx.args.TWIN_ID!);
  show(
    ctx,
    cred,
    (c) =>
      Object.entries(c.sdk.env)
        .map(([k, v]) => `export ${k}='${v.replaceAll("'", "'\\''")}'`)
        .join('\n') +
      '\n' +
      // The provider's own MCP tools and the credential's halves the SDK snippet does not name:
      // comments, so the output stays a script to eval.
      (c.mcp_url ? `# MCP (streamable HTTP, the key as Bearer): ${c.mcp_url}\n` : '') +
      Object.entries(c.extras)
        .filter(([, v]) => !Object.values(c.sdk.env).includes(v))
        .map(([k, v]) => `# ${k}: ${v}\n`)
        .join(''),
  );
};

export const get: Handler = async (ctx) => {
  const { ok } = await import('../client/index.js');
  const client = await ctx.client();
  const twin = await ok(client.GET('/twins/{twin_id}', { params: { path: { twin_id: ctx.args.TWIN_ID! } } }));
  show(
    ctx,
    twin,
    (t) =>
      table([
        ['ID', 'TWIN', 'VERSION', 'STATE', 'URL'],
        [t.id, t.twin_slug, t.twin_version, t.state, t.url],
      ]) + (t.failure ? `failure: ${t.failure}\n` : ''),
  );
};

/** `twins ca`: the path of the deployment's local CA (made now if this data directory has none). */
export const ca: Handler = async (ctx) => {
  const { ensureTls } = await import('../../twin-runtime/tls.js');
  const dataDir = resolve(ctx.io.cwd, ctx.io.env.TWINS_DATA_DIR ?? './.data');
  const { caFile } = ensureTls(dataDir);
  show(ctx, { ca_file: caFile }, (t) => `${t.ca_file}\n`);
};
