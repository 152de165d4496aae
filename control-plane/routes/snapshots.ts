// Routes of the 'snapshots' area (decisions §13): snapshots of an environment, forks, and the diff
// of an environment against a snapshot (or of two snapshots). Rules live in
// orchestration/snapshots.ts; this file is the HTTP surface.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pageEnvelope, pageQuery } from '../http/pagination.js';
import { intField } from '../http/fields.js';
import { errorResponses, noContent } from '../http/responses.js';
import { createSnapshotBody, diffSchema, environmentSchema, forkBody, idParam, snapshotSchema } from '../orchestration/schemas.js';
import { snapshotView } from '../orchestration/snapshots.js';
import { DIFF_LIMIT } from '../orchestration/diff.js';

const tags = ['snapshots'];
const envParams = z.object({ environment_id: idParam });
const snapshotParams = z.object({ snapshot_id: idParam });
const diffQuery = z
  .object({
    snapshot_id: idParam.optional().describe('Compare the environment now with this snapshot.'),
    from: idParam.optional().describe('Compare two snapshots: the earlier one (with `to`).'),
    to: idParam.optional().describe('Compare two snapshots: the later one (with `from`).'),
    limit: intField({ ge: 1, le: 10_000 }).optional().describe(`Entries per twin listed at most (default ${DIFF_LIMIT}); \`truncated\` says when more differ.`),
  })
  .refine((q) => (q.snapshot_id ? !q.from && !q.to : !!q.from && !!q.to), {
    message: 'Give snapshot_id (the environment now against it) or both from and to (two snapshots)',
    path: [],
  });

const routes: FastifyPluginAsyncZod = async (app) => {
  const snapshots = () => app.services.orchestration.snapshots;

  app.post(
    '/environments/:environment_id/snapshots',
    {
      schema: {
        tags,
        operationId: 'createSnapshot',
        summary: "Snapshot an environment's records and clock",
        description:
          "Copies every twin's records and the environment clock at one instant (no request half applied): each twin copies its own file between requests. " +
          'Needs every twin ready (409 otherwise, and while an advance runs); 502 when a twin fails to copy (nothing is kept).',
        params: envParams,
        body: createSnapshotBody,
        response: { 201: snapshotSchema, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req, reply) => reply.status(201).send(await snapshots().take(req.principal.orgId, req.params.environment_id, req.body.name)),
  );

  app.get(
    '/environments/:environment_id/snapshots',
    {
      schema: {
        tags,
        operationId: 'listSnapshots',
        summary: "List an environment's snapshots (newest first)",
        description: 'Paged, newest first; forks of the environment appear here too (a fork is a snapshot and an environment started from it).',
        params: envParams,
        querystring: pageQuery,
        response: { 200: pageEnvelope(snapshotSchema), ...errorResponses(401, 404) },
      },
    },
    async (req) => snapshots().list(req.principal.orgId, req.params.environment_id, req.query),
  );

  app.get(
    '/snapshots/:snapshot_id',
    {
      schema: {
        tags,
        operationId: 'getSnapshot',
        summary: 'Retrieve a snapshot',
        description: 'A snapshot outlives its environment until deleted.',
        params: snapshotParams,
        response: { 200: snapshotSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => snapshotView(snapshots().snapshot(req.principal.orgId, req.params.snapshot_id)),
  );

  app.delete(
    '/snapshots/:snapshot_id',
    {
      schema: {
        tags,
        operationId: 'deleteSnapshot',
        summary: 'Delete a snapshot and its files',
        description: 'Answers 204; 409 while twins of live environments started from it (reset returns to it).',
        params: snapshotParams,
        response: { 204: noContent, ...errorResponses(401, 404, 409) },
      },
    },
    async (req, reply) => {
      snapshots().delete(req.principal.orgId, req.params.snapshot_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/environments/:environment_id/fork',
    {
      schema: {
        tags,
        operationId: 'forkEnvironment',
        summary: 'Fork an environment: a snapshot and a new environment started from it, at once',
        description:
          'The new environment answers the same records and clock as this one and then diverges independently; it keeps its fidelity, clock mode and lifetime. ' +
          "The snapshot taken is listed under this environment's snapshots. 402 past the plan's `max_parallel_twins`; 409 when a twin is not ready.",
        params: envParams,
        body: forkBody,
        response: { 201: environmentSchema, ...errorResponses(401, 402, 404, 409, 502) },
      },
    },
    async (req, reply) => reply.status(201).send(await snapshots().fork(req.principal.orgId, req.params.environment_id, req.body?.name)),
  );

  app.get(
    '/environments/:environment_id/diff',
    {
      schema: {
        tags,
        operationId: 'diffEnvironment',
        summary: 'What changed since a snapshot',
        description:
          'Per twin, the records added, changed (with the changed field paths) and removed: the environment now against `snapshot_id`, or snapshot `from` against snapshot `to`. ' +
          "A fork's twins are compared with the twins of the snapshot they started from. 422 unless given `snapshot_id`, or `from` and `to`.",
        params: envParams,
        querystring: diffQuery,
        response: { 200: diffSchema, ...errorResponses(401, 404, 409) },
      },
    },
    async (req) => {
      const { snapshot_id, from, to, limit } = req.query;
      return snapshots().diff(req.principal.orgId, req.params.environment_id, { from: (snapshot_id ?? from)!, to }, limit);
    },
  );
};

export default routes;
