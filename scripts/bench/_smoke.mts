import { loadTwin } from '../../twin-runtime/registry.ts';
import { planFromPrompt } from '../../seeds/builtin-planner.ts';
import { generateSeedFile } from '../../seeds/generator.ts';
import type { TwinSeeding } from '../../seeds/vocabulary.ts';
const twin = await loadTwin(process.argv[2] ?? 'stripe');
const seeding = twin.seeding as TwinSeeding;
for (const s of twin.suggestions) {
  const r = planFromPrompt(twin.slug, s.prompt, seeding.vocabulary);
  console.log(s.name, JSON.stringify(r).slice(0, 1500));
  if (r.ok) {
    try {
      const t = Date.now();
      const out = await generateSeedFile(twin, r.plan, `/tmp/seed-${s.name.replace(/\W/g,'')}.sqlite`);
      console.log(' ->', out, Date.now() - t, 'ms');
    } catch (e) { console.log(' -> FAIL', (e as Error).message); }
  }
}
