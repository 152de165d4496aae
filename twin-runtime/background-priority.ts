// Batch work yields the CPU to requests: an advance job (minutes of lifecycle work for a 10-year
// jump) runs on its thread at a lower scheduling priority, so on a shared machine other tenants'
// gateways and twins keep their latency (scripts/bench/tenant-isolation.ts: A's p99 while B advances
// and lists went 104 → 54 ms). On Linux a nice value belongs to one thread: only the thread running
// the job is lowered, and it goes back afterwards. Going back up needs CAP_SYS_NICE (root on a
// machine, not a default container), so whether it can is probed once, at the cost of one step of
// nice where it cannot; without it the job runs at the thread's own priority.

import { getPriority, setPriority } from 'node:os';

/** How much lower (nice) batch work runs. */
export const BATCH_NICE_STEP = 10;

let canRestore: boolean | undefined;

/** Whether this thread may lower its priority and raise it back (probed once). */
function restorable(): boolean {
  if (canRestore !== undefined) return canRestore;
  try {
    const own = getPriority(0);
    if (own >= 19) return (canRestore = false);
    setPriority(0, own + 1);
    try {
      setPriority(0, own);
      canRestore = true;
    } catch {
      canRestore = false;
    }
  } catch {
    canRestore = false;
  }
  return canRestore;
}

/** Run `fn` with this thread's priority lowered by BATCH_NICE_STEP where it can be restored after. */
export async function atBatchPriority<T>(fn: () => Promise<T>): Promise<T> {
  if (!restorable()) return fn();
  const own = getPriority(0);
  setPriority(0, Math.min(19, own + BATCH_NICE_STEP));
  try {
    return await fn();
  } finally {
    setPriority(0, own);
  }
}
