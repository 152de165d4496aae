// GET / leads a person in a browser to the console (the API reference until a console exists) and
// tells an API client where the document is; GET /readme serves the README's walk-through.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { README_PATH } from '../http/openapi.js';
import { packageRoot } from '../package-info.js';

/** Where a browser opening `/` goes. The web console will take this over: change it here. */
export const BROWSER_HOME = '/docs';

const routes: FastifyPluginAsync = async (app) => {
  app.get('/', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const accept = req.headers.accept ?? '';
    if (accept.includes('text/html')) return reply.redirect(BROWSER_HOME, 302);
    return {
      name: 'Twins control plane',
      openapi: '/openapi.json',
      docs: '/docs',
      readme: README_PATH,
      mcp: '/mcp',
      health: '/health/ready',
    };
  });

  app.get(README_PATH, { config: { public: true }, schema: { hide: true } }, async (_req, reply) => {
    const text = await readFile(join(packageRoot(), 'README.md'), 'utf8').catch(() => undefined);
    if (text === undefined) return reply.status(404).send({ detail: 'Not Found' });
    return reply.type('text/markdown; charset=utf-8').send(text);
  });
};

export default routes;
