// What a due lifecycle event does (a message or call status move, a verification's expiry), run by
// the twin's `advance` — or at once, at create, when the account's `lifecycle` setting is
// `immediate` (twin-only: a test that does not want to advance the clock sees the final status
// and every status callback right away).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { moveCall } from './calls.js';
import { runDue, takeScheduled } from './lifecycle.js';
import { moveMessage } from './messages.js';
import type { CallStatus, LifecycleEvent, MessageStatus, Verification } from './records.js';
import { setVerificationStatus } from './verify.js';

export const SETTING = 'setting';
export type LifecycleMode = 'advance' | 'immediate';

export function lifecycleMode(ctx: TwinContext): LifecycleMode {
  return ctx.store.get<{ mode?: unknown }>(SETTING, 'lifecycle')?.mode === 'immediate' ? 'immediate' : 'advance';
}

export function setLifecycleMode(ctx: TwinContext, mode: LifecycleMode): void {
  ctx.store.put(SETTING, 'lifecycle', { mode });
}

export function applyEvent(ctx: TwinContext, e: LifecycleEvent): void {
  if (e.kind === 'message') moveMessage(ctx, e.sid, e.status as MessageStatus, e.error_code);
  else if (e.kind === 'call') moveCall(ctx, e.sid, e.status as CallStatus);
  else {
    const v = ctx.store.get<Verification>('verification', e.sid);
    if (v?.status === 'pending') setVerificationStatus(ctx, v, 'expired');
  }
}

export function advanceLifecycles(ctx: TwinContext, to: Date): Promise<void> {
  return runDue(ctx, to, (e) => applyEvent(ctx, e));
}

/** In `immediate` mode: run every move of one new message or call now, without moving the clock. */
export function settleIfImmediate(ctx: TwinContext, kind: 'message' | 'call', sid: string): void {
  if (lifecycleMode(ctx) !== 'immediate') return;
  for (let e = takeScheduled(ctx, kind, sid); e; e = takeScheduled(ctx, kind, sid)) applyEvent(ctx, e);
}
