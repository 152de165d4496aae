// Generate a seed file for one twin from a prompt with the built-in planner (what the worker does,
// without the control plane around it), into a temporary directory removed at teardown.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTwin } from '../../twin-runtime/registry.js';
import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { planFromPrompt } from '../../seeds/builtin-planner.js';
import { generateSeedFile } from '../../seeds/generator.js';
import type { TwinSeeding } from '../../twin-runtime/seeding.js';

export interface SeedFixture {
  twin: TwinDefinition;
  seedFrom(prompt: string, name: string): Promise<string>;
}

export async function seedFixture(slug: string, teardown: (fn: () => void) => void): Promise<SeedFixture> {
  const dir = mkdtempSync(join(tmpdir(), `seeds-${slug}-`));
  teardown(() => rmSync(dir, { recursive: true, force: true }));
  const twin = await loadTwin(slug);
  const seeding = twin.seeding as TwinSeeding;
  return {
    twin,
    async seedFrom(prompt, name) {
      const planned = planFromPrompt(slug, prompt, seeding.vocabulary);
      if (!planned.ok) throw new Error(planned.failure);
      return (await generateSeedFile(twin, planned.plan, join(dir, `${name}.sqlite`))).file;
    },
  };
}
