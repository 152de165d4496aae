// The web console's page and files. `GET /` answers a browser (Accept: text/html) with the console
// and an API client with a short JSON directory of the service; `/console/<file>` serves the built
// files. The page's Content-Security-Policy lets it reach this origin only: no other host is ever
// asked for a script, a style, a font or data.

import { README_PATH } from '../http/openapi.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleAssets, defaultConsoleDir, negotiate, type ConsoleAsset } from '../console/assets.js';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function wantsHtml(req: FastifyRequest): boolean {
  return (req.headers.accept ?? '').toLowerCase().includes('text/html');
}

function send(req: FastifyRequest, reply: FastifyReply, asset: ConsoleAsset) {
  reply
    .header('content-type', asset.type)
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'Accept-Encoding')
    .header('etag', asset.etag)
    .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (asset.type.startsWith('text/html')) {
    reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('cross-origin-opener-policy', 'same-origin')
      .header('vary', 'Accept, Accept-Encoding');
  }
  if (req.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  const { body, encoding } = negotiate(asset, req.headers['accept-encoding']);
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(body);
}

const routes: FastifyPluginAsync<{ dir?: string }> = async (app, opts) => {
  const dir = opts.dir ?? app.services.config.consoleDir ?? defaultConsoleDir();
  let assets: ConsoleAssets | undefined;
  // Read on first use (and again while the console is not built), so a build made after start is served.
  const current = () => (assets ??= ConsoleAssets.load(dir));

  app.get('/', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    if (wantsHtml(req)) {
      const built = current();
      if (!built)
        return reply.status(503).send({ detail: 'The web console is not built: run `make build` (or `npm run build`). The API reference is at /docs.' });
      reply.header('link', built.preload);
      return send(req, reply, built.index);
    }
    reply.header('vary', 'Accept');
    return { name: 'Twins control plane', console: '/', openapi: '/openapi.json', docs: '/docs', readme: README_PATH, mcp: '/mcp', health: '/health/ready' };
  });

  app.get<{ Params: { file: string } }>('/console/:file', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const asset = current()?.get(req.params.file);
    if (!asset) return reply.status(404).send({ detail: 'Not Found' });
    return send(req, reply, asset);
  });
};

export default routes;
