// The seed worker: a p-queue of generations (concurrency TWINS_SEED_CONCURRENCY, default 2).
// A seed moves pending → running → ready | failed. Seeds a crash left pending or running are
// queued again at start; stopping abandons running generations (no half file is kept) and leaves
// them `running`, so the next start picks them up.

import PQueue from 'p-queue';
import type { OrganizationJobs } from '../orchestration/organization-jobs.js';
import type { Logger } from 'pino';
import type { Db } from '../store/database.js';
import { SeedStore } from '../store/seeds.js';
import { loadTwin } from '../../twin-runtime/registry.js';
import { mkdirSync, rmSync } from 'node:fs';
import { PlanResolutionError } from '../../seeds/entities.js';
import { seedFilePath, seedsDir } from './files.js';
import { generateSeedFile } from '../../seeds/generator.js';
import type { LlmConfig } from '../../seeds/llm-client.js';
import { MAX_PLANNED_RECORDS, plannedRecordCount } from '../../seeds/plan.js';
import { planSeed } from '../../seeds/planning.js';
import { SeedAbortedError } from '../../seeds/seed-api.js';
import { SeedExpansionError } from '../../twin-runtime/seeding.js';

export interface SeedWorkerOptions {
  db: Db;
  dataDir: string;
  log: Logger;
  concurrency: number;
  llm?: LlmConfig;
  /** Where generations wait their organization's turn (orchestration/organization-jobs.ts). */
  jobs?: OrganizationJobs;
}

export function seedConcurrencyFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.TWINS_SEED_CONCURRENCY ?? 2);
  return Number.isInteger(n) && n >= 1 ? n : 2;
}

export class SeedWorker {
  private readonly queue: PQueue;
  private readonly store: SeedStore;
  private readonly queued = new Set<string>();
  private readonly abort = new AbortController();
  private stopped = false;

  constructor(private readonly opts: SeedWorkerOptions) {
    // Under the organization jobs, they decide what runs (organizations take turns); this queue only
    // keeps the generations for close() and idle(). Alone, it is the limit (TWINS_SEED_CONCURRENCY).
    this.queue = new PQueue({ concurrency: opts.jobs ? Number.POSITIVE_INFINITY : opts.concurrency });
    this.store = new SeedStore(opts.db);
    mkdirSync(seedsDir(opts.dataDir), { recursive: true });
  }

  /** Queue every seed a previous run left pending or running. */
  start(): void {
    for (const row of this.store.unfinished()) this.enqueue(row.id);
  }

  enqueue(id: string): void {
    if (this.stopped || this.queued.has(id)) return;
    this.queued.add(id);
    const org = this.store.byId(id)?.organization_id ?? '';
    const generate = () => this.generate(id);
    void this.queue
      .add(() => (this.opts.jobs ? this.opts.jobs.run(org, 'seed', generate) : generate()))
      .catch((e) => this.opts.log.error({ err: e, seed: id }, 'seed generation crashed'))
      .finally(() => this.queued.delete(id));
  }

  /** Resolves when nothing is queued or running (tests and the bench wait on this). */
  async idle(): Promise<void> {
    await this.queue.onIdle();
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.queue.clear();
    this.abort.abort();
    await this.queue.onIdle();
  }

  private async generate(id: string): Promise<void> {
    if (this.stopped || !this.store.markRunning(id)) return;
    const row = this.store.byId(id)!;
    const log = this.opts.log.child({ seed: id, twin: row.twin });
    let planner: string | undefined;
    let plan: unknown;
    try {
      let twin;
      try {
        twin = await loadTwin(row.twin);
      } catch {
        this.store.markFailed(id, `The ${row.twin} twin is not available in this build.`);
        return;
      }
      if (!twin.seeding) {
        this.store.markFailed(id, `The ${row.twin} twin cannot be seeded in this build.`);
        return;
      }
      const outcome = await planSeed({ twin: row.twin, prompt: row.prompt, seeding: twin.seeding }, this.opts.llm);
      planner = outcome.planner;
      if (!outcome.ok) {
        this.store.markFailed(id, outcome.failure, planner);
        return;
      }
      plan = outcome.plan;
      const planned = plannedRecordCount(outcome.plan);
      if (planned > MAX_PLANNED_RECORDS) {
        this.store.markFailed(id, `The prompt asks for ${planned} records; a seed holds at most ${MAX_PLANNED_RECORDS}.`, planner, plan);
        return;
      }
      const started = Date.now();
      const out = await generateSeedFile(twin, outcome.plan, seedFilePath(this.opts.dataDir, id), { signal: this.abort.signal });
      if (!this.store.byId(id)) {
        // Deleted while it was generating: keep nothing.
        rmSync(out.file, { force: true });
        return;
      }
      this.store.markReady(id, {
        planner: outcome.planner,
        plan,
        twinVersion: out.twinVersion,
        storageVersion: out.storageVersion,
        sizeBytes: out.sizeBytes,
        recordCount: out.recordCount,
        clock: out.clock,
      });
      log.info({ records: out.recordCount, bytes: out.sizeBytes, ms: Date.now() - started, calls: out.apiCalls }, 'seed ready');
    } catch (e) {
      if (e instanceof SeedAbortedError) {
        log.info('seed generation stopped; it resumes at the next start');
        return;
      }
      if (e instanceof SeedExpansionError || e instanceof PlanResolutionError) {
        this.store.markFailed(id, e.message, planner, plan);
        return;
      }
      log.error({ err: e }, 'seed generation failed unexpectedly');
      this.store.markFailed(id, `Generation failed unexpectedly: ${(e as Error).message}`, planner, plan);
    }
  }
}
