// Heavy work runs as jobs (issue 33): environment advances, seed generations, test attempts'
// evaluations, snapshots and diffs (log exports, once there is such an endpoint, belong here too). Each organization
// has its own queue (TWINS_ORG_JOB_CONCURRENCY jobs at once, default 1), so its jobs wait behind
// each other; jobs of every organization then share TWINS_JOB_CONCURRENCY places (default 2, the
// machine's cores), and since an organization has at most its own concurrency there at a time,
// organizations take turns: one tenant's queue never stands in front of another's jobs. The work
// of a job runs at batch priority where it runs (a twin's advance: twin-runtime/advance-job.ts).

import PQueue from 'p-queue';

export type JobKind = 'advance' | 'seed' | 'evaluation' | 'export' | 'snapshot' | 'diff';

export interface OrganizationJobsOptions {
  /** Jobs of one organization running at once. */
  perOrganization: number;
  /** Jobs of all organizations running at once. */
  overall: number;
}

export function organizationJobsFromEnv(env: NodeJS.ProcessEnv = process.env): OrganizationJobsOptions {
  const count = (name: string, fallback: number) => {
    const n = Number(env[name] ?? fallback);
    return Number.isInteger(n) && n >= 1 ? n : fallback;
  };
  return { perOrganization: count('TWINS_ORG_JOB_CONCURRENCY', 1), overall: count('TWINS_JOB_CONCURRENCY', 2) };
}

export interface JobCounts {
  waiting: number;
  running: number;
}

export class OrganizationJobs {
  private readonly queues = new Map<string, PQueue>();
  private readonly places: PQueue;

  constructor(private readonly o: OrganizationJobsOptions = organizationJobsFromEnv()) {
    this.places = new PQueue({ concurrency: o.overall });
  }

  /** Run `job` for `org` once its turn comes; resolves or rejects with it. */
  run<T>(org: string, _kind: JobKind, job: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(org);
    if (!queue) {
      queue = new PQueue({ concurrency: this.o.perOrganization });
      this.queues.set(org, queue);
      // Forget an organization's queue once it has nothing left.
      queue.addEventListener('idle', () => {
        if (queue!.size === 0 && queue!.pending === 0) this.queues.delete(org);
      });
    }
    return queue.add(() => this.places.add(job)) as Promise<T>;
  }

  /** Jobs waiting and running, for one organization or all. */
  counts(org?: string): JobCounts {
    if (org !== undefined) {
      const q = this.queues.get(org);
      return { waiting: q ? q.size : 0, running: q ? q.pending : 0 };
    }
    return { waiting: this.places.size + [...this.queues.values()].reduce((n, q) => n + q.size, 0), running: this.places.pending };
  }

  /** Resolves when no job is waiting or running. */
  async idle(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.onIdle()));
    await this.places.onIdle();
  }
}
