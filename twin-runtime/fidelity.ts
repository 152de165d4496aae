// How an answer was made (architecture: fidelity levels). Every provider answer carries it in the
// `Twin-Fidelity` header and the request log stores it:
//   modelled     hand-written behaviour in `model/`: lifecycles, money, side effects, events
//   inferred     the generic engine applied what the spec makes safe (references exist, parents
//                link, status verbs move the status, request schema enforced)
//   stored       plain create/read/update/delete/list of a record, nothing more
//   unsupported  refused in the provider's own error envelope: the twin does not simulate it
// A twin never fabricates a success, an id, a URL or an empty result: what it cannot simulate it
// refuses with `NotSimulated`, rendered by the twin's `errors.unsupported`.

import type { TwinRequest } from './contract.js';

export const FIDELITY_LEVELS = ['modelled', 'inferred', 'stored', 'unsupported'] as const;
export type FidelityLevel = (typeof FIDELITY_LEVELS)[number];

/** How an environment's twins answer what they do not simulate (`TwinContext.fidelity`); default strict. */
export const FIDELITY_MODES = ['strict', 'lenient'] as const;
export type FidelityMode = (typeof FIDELITY_MODES)[number];

/** The response header every provider answer of a twin carries. */
export const FIDELITY_HEADER = 'twin-fidelity';

export const isFidelityLevel = (v: unknown): v is FidelityLevel => typeof v === 'string' && (FIDELITY_LEVELS as readonly string[]).includes(v);

/**
 * Thrown by a handler (hand-written or generic) for an operation, or a part of one, the twin does
 * not simulate. The host answers it with the twin's `errors.unsupported` (the provider's envelope)
 * and `Twin-Fidelity: unsupported`; the request's writes are rolled back.
 */
export class NotSimulated extends Error {
  constructor(
    /** The operation as the sentence names it: `POST /v1/terminal/readers/{reader}/process_payment_intent`. */
    readonly operation: string,
    /** Why, when more than "the twin does not simulate it" is worth saying. */
    readonly why?: string,
  ) {
    super(notSimulatedSentence(operation, why));
    this.name = 'NotSimulated';
  }
}

/** "This twin does not simulate POST /v1/quotes/{quote}/accept." (+ the reason, when given). */
export function notSimulatedSentence(operation: string, why?: string): string {
  return `This twin does not simulate ${operation}.${why ? ` ${why}` : ''}`;
}

/** The operation a request names, by its matched template when there is one (`POST /v1/charges/{charge}/refunds`). */
export function operationName(req: Pick<TwinRequest, 'method' | 'path' | 'template'>): string {
  return `${req.method} ${req.template ?? req.path}`;
}
