// Status moves due later (a message's queued → sending → sent → delivered, a call's ringing →
// in-progress → completed, a verification's expiry), kept as `lifecycle_event` records and run by
// the twin's `advance` in time order, each at its own instant.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { LifecycleEvent } from './records.js';

const KIND = 'lifecycle_event';

/** Kept with `created` = its due time, so the store's `created` index reads the earliest first. */
export function schedule(ctx: TwinContext, event: LifecycleEvent): void {
  ctx.store.put(KIND, `${event.kind}:${event.sid}:${event.at}:${ctx.ids.sequence('lifecycle')}`, { ...event, created: event.at });
}

/** Drop what is still due for one object (a canceled call, a redacted-and-deleted message). */
export function unschedule(ctx: TwinContext, kind: LifecycleEvent['kind'], sidValue: string): void {
  for (const r of ctx.store.listByPrefix<LifecycleEvent>(KIND, `${kind}:${sidValue}:`)) ctx.store.delete(KIND, r.external_id);
}

/** Remove and return the earliest event still scheduled for one object, if any. */
export function takeScheduled(ctx: TwinContext, kind: LifecycleEvent['kind'], sidValue: string): LifecycleEvent | undefined {
  const pending = ctx.store.listByPrefix<LifecycleEvent>(KIND, `${kind}:${sidValue}:`);
  if (pending.length === 0) return undefined;
  const next = pending.reduce((a, b) => (b.body.at < a.body.at ? b : a));
  ctx.store.delete(KIND, next.external_id);
  return next.body;
}

/** Run every event due by `to`, earliest first; `apply` may schedule more (they run too when due). */
export async function runDue(ctx: TwinContext, to: Date, apply: (e: LifecycleEvent) => void): Promise<void> {
  const limit = to.getTime();
  for (;;) {
    const next = ctx.store.page<LifecycleEvent>({
      resource: KIND,
      order: 'created',
      descending: false,
      limit: 1,
      ranges: [{ field: 'created', op: '<=', value: limit }],
    }).items[0];
    if (!next) return;
    ctx.store.delete(KIND, next.external_id);
    if (next.body.at > ctx.clock.nowMs()) ctx.clock.advanceTo(next.body.at);
    apply(next.body);
  }
}
