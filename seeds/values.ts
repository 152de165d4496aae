// Keyed, deterministic values for generated records: each value is derived from the plan key, the
// entity's stable key and the field name alone, so one record's values never depend on another's.

import { createHmac } from 'node:crypto';
import type { SeedValues } from '../twin-runtime/seeding.js';
import type { Plan } from './plan.js';

const FIRST_NAMES = [
  'Ada',
  'Ben',
  'Carla',
  'Dev',
  'Elena',
  'Farid',
  'Grace',
  'Hugo',
  'Ines',
  'Jonas',
  'Keiko',
  'Luis',
  'Maya',
  'Nikhil',
  'Olga',
  'Pedro',
  'Quinn',
  'Rosa',
  'Sami',
  'Tara',
  'Umar',
  'Vera',
  'Wes',
  'Xenia',
  'Yusuf',
  'Zoe',
  'Amara',
  'Bruno',
  'Chloe',
  'Diego',
  'Emeka',
  'Freya',
  'Gustavo',
  'Hana',
  'Ivan',
  'Julia',
  'Kofi',
  'Lena',
  'Marco',
  'Nora',
  'Omar',
  'Priya',
  'Rafael',
  'Sofia',
  'Tomas',
  'Uma',
  'Viktor',
  'Wen',
  'Yara',
  'Zane',
];
const LAST_NAMES = [
  'Almeida',
  'Brooks',
  'Chen',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Haddad',
  'Ito',
  'Jensen',
  'Kowalski',
  'Lopez',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Patel',
  'Quispe',
  'Rossi',
  'Schmidt',
  'Tanaka',
  'Ueda',
  'Varga',
  'Weber',
  'Xu',
  'Yilmaz',
  'Zhang',
  'Andersen',
  'Bianchi',
  'Costa',
  'Diallo',
  'Evans',
  'Ferreira',
  'Gupta',
  'Horvat',
  'Ivanova',
  'Jovanovic',
  'Kim',
  'Larsen',
  'Mensah',
  'Novak',
  'Oliveira',
  'Petrov',
  'Reyes',
  'Santos',
  'Torres',
  'Usman',
  'Vasquez',
  'Wagner',
  'Young',
  'Ziegler',
];
const WORDS = [
  'amber',
  'bridge',
  'cedar',
  'delta',
  'ember',
  'falcon',
  'garnet',
  'harbor',
  'iris',
  'juniper',
  'kestrel',
  'lumen',
  'maple',
  'nimbus',
  'onyx',
  'pine',
  'quartz',
  'raven',
  'sierra',
  'tundra',
  'umber',
  'vertex',
  'willow',
  'xenon',
  'yonder',
  'zephyr',
  'atlas',
  'beacon',
  'comet',
  'drift',
  'echo',
  'fjord',
  'glade',
  'helix',
  'inlet',
  'jetty',
  'knoll',
  'lagoon',
  'meadow',
  'nova',
  'orbit',
  'prism',
  'quill',
  'ridge',
];
const TOPICS = [
  'login fails after password reset',
  'export to CSV is slow',
  'add dark mode',
  'crash when the list is empty',
  'typo in the onboarding email',
  'support SSO with Okta',
  'flaky test in the payments suite',
  'update dependencies',
  'improve error message for invalid input',
  'pagination skips the last item',
  'timezone bug in reports',
  'document the webhook retries',
  'cache invalidation on profile update',
  'upgrade to Node 20',
  'search ignores accents',
  'rate limit the public API',
];
const SENTENCES = [
  'Shipped the fix, please take a look.',
  'Can someone review this today?',
  'Deploy is green.',
  'Standup in five minutes.',
  'Customer reported this again this morning.',
  'I will pick this up after lunch.',
  'Numbers for last week are in the sheet.',
  'Heads up: the staging database restarts at noon.',
  'Thanks everyone for the quick turnaround!',
  'Does anyone know who owns the billing service?',
  'Pushed a draft, feedback welcome.',
  'Closing this, it is a duplicate.',
];

const BUILT_IN: Record<string, readonly string[]> = {
  first_name: FIRST_NAMES,
  last_name: LAST_NAMES,
  word: WORDS,
  topic: TOPICS,
  sentence: SENTENCES,
};

export class PlanSeedValues implements SeedValues {
  private readonly pools = new Map<string, string[]>();

  constructor(
    private readonly key: string,
    pools: Plan['pools'] = [],
  ) {
    for (const p of pools) this.pools.set(p.field, p.values);
  }

  /** 32-bit unsigned number derived from (plan key, entity key, field). */
  number(entityKey: string, field: string): number {
    return createHmac('sha256', this.key).update(`${entityKey}\u0000${field}`).digest().readUInt32BE(0);
  }

  /** Integer in [min, max]. */
  int(entityKey: string, field: string, min: number, max: number): number {
    return min + (this.number(entityKey, field) % (max - min + 1));
  }

  /** Pick from the plan's pool for `poolField` (e.g. `customer.name`), else from the built-in pool. */
  pick(entityKey: string, poolField: string, builtIn: readonly string[]): string {
    const pool = this.pools.get(poolField) ?? builtIn;
    return pool[this.number(entityKey, poolField) % pool.length]!;
  }

  builtInPool(name: keyof typeof BUILT_IN | string): readonly string[] {
    return BUILT_IN[name] ?? WORDS;
  }

  personName(entityKey: string, resource: string): string {
    const pooled = this.pools.get(`${resource}.name`);
    if (pooled) return pooled[this.number(entityKey, `${resource}.name`) % pooled.length]!;
    return `${this.pick(entityKey, 'first_name', FIRST_NAMES)} ${this.pick(entityKey, 'last_name', LAST_NAMES)}`;
  }

  /** A login-style handle (`ada-chen-3f`), unique enough inside one seed because it carries the key. */
  handle(entityKey: string, name: string): string {
    const base = name
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    return `${base}-${(this.number(entityKey, 'handle') % 4096).toString(16)}`;
  }

  email(entityKey: string, name: string, domain = 'example.com'): string {
    return `${this.handle(entityKey, name).replace(/-/g, '.')}@${domain}`;
  }
}
