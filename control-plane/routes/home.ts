// GET /readme serves the README's walk-through (GET / is the console's: routes/console.ts).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { README_PATH } from '../http/openapi.js';
import { packageRoot } from '../package-info.js';

const routes: FastifyPluginAsync = async (app) => {
  app.get(README_PATH, { config: { public: true }, schema: { hide: true } }, async (_req, reply) => {
    const text = await readFile(join(packageRoot(), 'README.md'), 'utf8').catch(() => undefined);
    if (text === undefined) return reply.status(404).send({ detail: 'Not Found' });
    return reply.type('text/markdown; charset=utf-8').send(text);
  });
};

export default routes;
