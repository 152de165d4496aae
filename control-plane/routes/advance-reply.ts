// The answer of both advance routes (per twin and per environment, docs/decisions.md §13): 200 `{}` when
// the advance finished within the bound, else 202 with the Advance to follow and its Location.

import type { FastifyReply } from 'fastify';
import type { AdvanceView } from '../orchestration/environments.js';

export const ADVANCE_DESCRIPTION =
  'Answers within about a second: 200 `{}` when the advance has finished, or 202 with an Advance and a `Location` header ' +
  '(`GET /environments/{environment_id}/advances/{advance_id}`) to follow it until `status` is `succeeded` or `failed`. ' +
  "While it runs the environment's twins answer provider requests with the provider's 503 and `Retry-After`, and the " +
  "environment's clock stays where it was; when it ends the environment clock and every twin clock are the same instant. " +
  'A twin that refuses (its clock is later) answers 409; one that fails answers 502 (or `failed` with `failure`).';

export function advanceReply(reply: FastifyReply, out: { done: true } | { done: false; advance: AdvanceView }) {
  if (out.done) return reply.status(200).send({});
  return reply.status(202).header('location', `/environments/${out.advance.environment_id}/advances/${out.advance.id}`).send(out.advance);
}
