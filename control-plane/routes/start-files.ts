// The internal route a twin running where the control plane's files are out of reach (a Pod under
// the kubernetes driver) fetches its seed or snapshot file from at first start. No user credential:
// only the short-lived token minted for that twin (orchestration/start-files.ts). Not part of the
// public API, so hidden from the OpenAPI document.

import { createReadStream, statSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';
import { bearerToken } from '../orchestration/start-files.js';

const routes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { twin_id: string } }>('/internal/twins/:twin_id/start-file', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const { twin_id: twinId } = req.params;
    const orchestration = app.services.orchestration;
    // One answer for every refusal: whether another twin exists is none of the caller's business.
    if (!orchestration.startFiles.verify(bearerToken(req.headers.authorization), twinId)) {
      return reply.status(401).send({ detail: "A valid start-file token for this twin is required (the driver gives it to the twin's workload)." });
    }
    const twin = orchestration.store.twinById(twinId);
    const file = twin?.seed_file;
    if (!twin || twin.deleted_at || !file) return reply.status(404).send({ detail: `Twin ${twinId} starts empty: it has no seed or snapshot file.` });
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return reply.status(404).send({ detail: `The starting file of twin ${twinId} is gone (its seed or snapshot was deleted).` });
    }
    return reply.header('content-type', 'application/vnd.sqlite3').header('content-length', String(size)).send(createReadStream(file));
  });
};

export default routes;
