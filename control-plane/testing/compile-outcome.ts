// Compiling an outcome once: the phrasebook first (deterministic, offline); when it cannot read the
// outcome and a language model is configured, the LLM compiler. Either way the assertions are
// checked against the twins' real routes before they are stored.

import type { LlmConfig } from '../../seeds/llm-client.js';
import type { Assertion } from './matcher-language.js';
import { compilePhrasebook } from './phrasebook.js';
import { compileWithLlm } from './llm-compiler.js';
import { checkAssertions, type PatternChecker } from './assertion-checks.js';

export type Compiler = 'phrasebook' | 'llm';

export type OutcomeCompilation = { ok: true; assertions: Assertion[]; compiler: Compiler } | { ok: false; failure: string };

export async function compileOutcome(
  outcome: string,
  twins: string[],
  llm: LlmConfig | undefined,
  checkPatterns?: PatternChecker,
): Promise<OutcomeCompilation> {
  const byPhrasebook = await compilePhrasebook(outcome, twins);
  if (byPhrasebook.ok) {
    const problems = await checkAssertions(byPhrasebook.assertions, twins, checkPatterns);
    if (problems.length === 0) return { ok: true, assertions: byPhrasebook.assertions, compiler: 'phrasebook' };
    const p = problems[0]!;
    if (!llm) return { ok: false, failure: `Could not compile "${byPhrasebook.assertions[p.index]!.says}": ${p.message}` };
  } else if (!llm) {
    return { ok: false, failure: `${byPhrasebook.failure} No language model is configured (TWINS_LLM_URL) to compile other sentences.` };
  }
  const byLlm = await compileWithLlm(llm!, outcome, twins, checkPatterns);
  return byLlm.ok ? { ok: true, assertions: byLlm.assertions, compiler: 'llm' } : byLlm;
}
