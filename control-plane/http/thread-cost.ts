// What one API request costs the control plane's thread, for the per-organization share
// (organization-share.ts): the synchronous part of its handler and every SQLite statement it runs
// later (a listing reads the log after awaiting the writer, so its scan is not in the handler's
// first part), found through the request's async context. Waiting (a twin, a timer) costs nothing,
// and other requests' work in between is theirs.

import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';

export interface ThreadCost {
  /** Milliseconds of the thread used so far. */
  ms: number;
}

const current = new AsyncLocalStorage<ThreadCost>();
/** Inside a measured synchronous part: its statements are in its time already. */
let measuring = false;

/** Run `fn` as the request whose cost is `cost`: its synchronous part now, its statements later. */
export function runCharged<T>(cost: ThreadCost, fn: () => T): T {
  return current.run(cost, () => {
    const outer = measuring;
    measuring = true;
    const started = performance.now();
    try {
      return fn();
    } finally {
      measuring = outer;
      if (!outer) cost.ms += performance.now() - started;
    }
  });
}

const METERED = ['run', 'get', 'all'] as const;

/** Statements prepared on `db` from now on charge their time to the request running them, if any. */
export function meterStatements(db: Database.Database): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source) as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of METERED) {
      const method = statement[name]!;
      statement[name] = function (this: unknown, ...args: unknown[]) {
        const cost = measuring ? undefined : current.getStore();
        if (!cost) return method.apply(this, args);
        const started = performance.now();
        try {
          return method.apply(this, args);
        } finally {
          cost.ms += performance.now() - started;
        }
      };
    }
    return statement;
  }) as unknown as typeof db.prepare;
}
