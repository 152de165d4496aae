// The twins this build ships. Each lives in twins/<slug>/index.ts and default-exports its definition.

import type { TwinDefinition } from './contract.js';

export const TWIN_SLUGS = ['stripe', 'github', 'slack', 'openai', 'anthropic', 'linear', 'jira', 'notion', 'twilio', 'sendgrid'] as const;
export type TwinSlug = (typeof TWIN_SLUGS)[number];

const cache = new Map<string, TwinDefinition>();

export function isTwinSlug(slug: string): slug is TwinSlug {
  return (TWIN_SLUGS as readonly string[]).includes(slug);
}

export async function loadTwin(slug: string): Promise<TwinDefinition> {
  if (!isTwinSlug(slug)) throw new Error(`Unknown twin '${slug}'. Known twins: ${TWIN_SLUGS.join(', ')}.`);
  let def = cache.get(slug);
  if (!def) {
    const mod = (await import(`../twins/${slug}/index.js`)) as { default: TwinDefinition };
    def = mod.default;
    cache.set(slug, def);
  }
  return def;
}

export async function loadAllTwins(): Promise<TwinDefinition[]> {
  return Promise.all(TWIN_SLUGS.map((s) => loadTwin(s)));
}
