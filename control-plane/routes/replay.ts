// Routes of replay (issue 38): an environment's traffic exported as a replayable file, and a file
// replayed into an environment with each answer compared. Rules live in orchestration/replay.ts.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../http/responses.js';
import { idParam } from '../orchestration/schemas.js';
import { MAX_EXPORT_BODY_BYTES, MAX_REPLAY_REQUESTS, replayFileSchema, replayResultSchema } from '../orchestration/replay.js';

const tags = ['environments'];
const envParams = z.object({ environment_id: idParam });
/** A file of MAX_REPLAY_REQUESTS requests with bodies: larger than the API's default body limit. */
const REPLAY_BODY_LIMIT = 64 * 1024 * 1024;

const routes: FastifyPluginAsyncZod = async (app) => {
  const replay = () => app.services.orchestration.replay;

  app.get(
    '/environments/:environment_id/logs/export',
    {
      schema: {
        tags,
        operationId: 'exportRequestLogs',
        summary: "The environment's traffic as a replayable file",
        description:
          `Every logged request, oldest first (at most ${MAX_REPLAY_REQUESTS} requests and ${MAX_EXPORT_BODY_BYTES / 1024 / 1024} MiB of bodies; 409 beyond), with its headers (credentials removed), its body, the environment clock when it arrived, ` +
          'and the answer it got: the body `POST /environments/{id}/replay` takes. Bodies are as logged: cut at 64 KiB, and credentials the twin names redacted.',
        params: envParams,
        response: { 200: replayFileSchema, ...errorResponses(401, 404, 409) },
      },
    },
    async (req) => replay().export(req.principal.orgId, req.params.environment_id),
  );

  app.post(
    '/environments/:environment_id/replay',
    {
      bodyLimit: REPLAY_BODY_LIMIT,
      schema: {
        tags,
        operationId: 'replayRequests',
        summary: 'Replay an exported file into the environment and compare every answer',
        description:
          "Sends the file's requests in order through the environment's twin URLs (each file twin maps to this environment's twin of the same kind, in order; the twin's own key is used), " +
          "each with the environment clock first moved to the request's recorded clock, and compares status, content type and body with the recorded answer (the recorded twin URLs read as this environment's). " +
          'Answers `{"replayed": N, "first_difference": null}`, or the first request answered otherwise and stops there. ' +
          "The environment must have a frozen clock not past the first request (start it from the same snapshot, seed or empty state with the file's `clock_start`); 409 otherwise.",
        params: envParams,
        body: replayFileSchema,
        response: { 200: replayResultSchema, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req) => replay().replay(req.principal.orgId, req.params.environment_id, req.body),
  );
};

export default routes;
