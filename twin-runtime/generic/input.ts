// One input path: a hand-written route reads its parameters through the same operation table and
// validator as the generic layer (validate.ts), under the twin's one `InputPolicy` (what an unknown
// parameter gets, which parameters the published spec lacks). The route names no parameter table:
// its method and matched template find the operation; the operation's request schema checks and
// coerces the input; the first problem goes back to the twin to word as its provider does.

import { templateShape } from '../path-template.js';
import type { SpecArtefacts } from './artefacts.js';
import type { OperationEntry } from './spec-types.js';
import { RequestValidator, type InputPolicy, type InputProblem, type RequestInput } from './validate.js';

export class OperationInput {
  readonly validator: RequestValidator;
  private byShape?: Map<string, OperationEntry>;

  constructor(
    readonly artefacts: SpecArtefacts,
    readonly policy: InputPolicy = { unknown: 'drop' },
  ) {
    this.validator = new RequestValidator(artefacts, policy);
  }

  /** The operation a method and route template name (`POST /v1/customers/{customer}`), if the table has it. */
  entry(method: string, template: string): OperationEntry | undefined {
    this.byShape ??= new Map(this.artefacts.operations.map((e) => [`${e.method} ${templateShape(e.path)}`, e] as const));
    return this.byShape.get(`${method} ${templateShape(template)}`);
  }

  /**
   * Whether the operation's input can be checked at all: a request schema (body or query) in the
   * table or in the policy's `extra`. An operation the table names only by its path (an SDK-only
   * operation) has none, and a twin that refuses unknown parameters must describe it in `extra`.
   */
  describes(entry: OperationEntry): boolean {
    const piece = this.artefacts.operation(entry.id);
    return Boolean(piece.request.body?.schema || piece.request.params.some((p) => p.in === 'query') || this.policy.extra?.[entry.id]);
  }

  /** The first problem with one call's input, or undefined; coerces `input` in place ("100" → 100). */
  check(entry: OperationEntry, input: RequestInput): InputProblem | undefined {
    return this.validator.check(entry.id, this.artefacts.operation(entry.id), input);
  }
}
