// Rate limiting on demand (the `rate_limit` setting). Windows run on wall-clock time: Retry-After
// tells a client to wait real seconds, and the environment clock is frozen between advances.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { getSetting } from './settings.js';

const windows = new WeakMap<object, Map<string, { start: number; count: number }>>();

/** Seconds to wait when this call is refused, or undefined when it may run. */
export function rateLimited(ctx: TwinContext, method: string, wallNowMs = Date.now()): number | undefined {
  const rl = getSetting(ctx, 'rate_limit');
  if (!rl.enabled) return undefined;
  if (rl.methods && !rl.methods.includes(method)) return undefined;
  if (rl.limit === null) return rl.retry_after;
  let perMethod = windows.get(ctx.store);
  if (!perMethod) windows.set(ctx.store, (perMethod = new Map()));
  const windowMs = rl.window_seconds * 1000;
  let w = perMethod.get(method);
  if (!w || wallNowMs - w.start >= windowMs) perMethod.set(method, (w = { start: wallNowMs, count: 0 }));
  if (w.count >= rl.limit) {
    return Math.max(1, Math.min(rl.retry_after, Math.ceil((w.start + windowMs - wallNowMs) / 1000)));
  }
  w.count++;
  return undefined;
}
