// Routes of the 'scenarios' area (plugin registered by app.ts).

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

const routes: FastifyPluginAsyncZod = async (_app) => {};

export default routes;
