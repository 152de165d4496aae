// An issue's history: one entry per edit or transition (model/issues.ts records them as it
// changes an issue), oldest first.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { Changelog } from './records.js';

export function issueChangelog(ctx: TwinContext, issueId: string): Changelog[] {
  return ctx.store
    .list<Changelog>('changelog')
    .filter((c) => c.issueId === issueId)
    .sort((a, b) => Number(a.id) - Number(b.id));
}
