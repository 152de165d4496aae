// Worklogs: time logged on an issue (`timeSpent` as Jira writes it, `3h 20m`, with Jira's default
// working time: a day is 8 hours, a week 5 days; or `timeSpentSeconds`), when the work started and
// an optional ADF comment; edited and deleted by id; the issue's `timespent` sums them.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { fieldError, JiraError } from '../wire/errors.js';
import { requireAdf, requireIssue } from './issues.js';
import { jiraTime, type Issue, type Worklog } from './records.js';
import { viewer } from './workspace.js';

const UNIT_SECONDS: Record<string, number> = { w: 5 * 8 * 3600, d: 8 * 3600, h: 3600, m: 60 };

/** `1w 2d 3h 4m` (any of them, in that order) in seconds; undefined when it is not a duration. */
export function durationSeconds(text: string): number | undefined {
  const m = /^\s*(?:(\d+(?:\.\d+)?)w)?\s*(?:(\d+(?:\.\d+)?)d)?\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+)m)?\s*$/.exec(text);
  if (!m || !(m[1] || m[2] || m[3] || m[4])) return undefined;
  return Math.round(Number(m[1] ?? 0) * UNIT_SECONDS.w! + Number(m[2] ?? 0) * UNIT_SECONDS.d! + Number(m[3] ?? 0) * UNIT_SECONDS.h! + Number(m[4] ?? 0) * 60);
}

/** Seconds as Jira writes them: `1w 2d 3h 4m`, largest units first, zeros left out. */
export function durationText(seconds: number): string {
  let rest = Math.floor(seconds / 60) * 60;
  const parts: string[] = [];
  for (const unit of ['w', 'd', 'h', 'm']) {
    const n = Math.floor(rest / UNIT_SECONDS[unit]!);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * UNIT_SECONDS[unit]!;
  }
  return parts.join(' ') || '0m';
}

export interface WorklogInput {
  timeSpent?: unknown;
  timeSpentSeconds?: unknown;
  started?: unknown;
  comment?: unknown;
}

function spent(input: WorklogInput): number | undefined {
  if (input.timeSpentSeconds !== undefined) {
    const n = Number(input.timeSpentSeconds);
    if (!Number.isInteger(n) || n < 60) throw fieldError('timeLogged', 'Time Spent must be at least one minute.');
    return n;
  }
  if (input.timeSpent !== undefined) {
    const n = typeof input.timeSpent === 'string' ? durationSeconds(input.timeSpent) : undefined;
    if (n === undefined) throw fieldError('timeLogged', 'Invalid time duration entered.');
    if (n < 60) throw fieldError('timeLogged', 'Time Spent must be at least one minute.');
    return n;
  }
  return undefined;
}

/** Jira's `started`: `2026-03-02T09:00:00.000+0000`. */
function startedAt(value: unknown): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4}$/.test(value))
    throw fieldError('started', 'The started date must be in the format yyyy-MM-ddTHH:mm:ss.SSSZ.');
  return value;
}

export function issueWorklogs(ctx: TwinContext, issueId: string): Worklog[] {
  return ctx.store
    .list<Worklog>('worklog')
    .filter((w) => w.issueId === issueId)
    .sort((a, b) => Number(a.id) - Number(b.id));
}

export function addWorklog(ctx: TwinContext, idOrKey: string, input: WorklogInput): Worklog {
  const issue = requireIssue(ctx, idOrKey);
  const seconds = spent(input);
  if (seconds === undefined) throw fieldError('timeLogged', 'You must indicate the time spent working.');
  const now = jiraTime(ctx);
  const me = viewer(ctx).accountId;
  const worklog: Worklog = {
    id: String(10000 + ctx.ids.sequence('id:worklog') - 1),
    issueId: issue.id,
    authorId: me,
    updateAuthorId: me,
    comment: input.comment === undefined || input.comment === null ? null : requireAdf('comment', input.comment),
    started: input.started === undefined ? now : startedAt(input.started),
    timeSpentSeconds: seconds,
    created: now,
    updated: now,
  };
  ctx.store.put('worklog', worklog.id, worklog);
  touch(ctx, issue);
  return worklog;
}

export function requireWorklog(ctx: TwinContext, idOrKey: string, id: string): Worklog {
  const issue = requireIssue(ctx, idOrKey);
  const w = ctx.store.get<Worklog>('worklog', id);
  if (!w || w.issueId !== issue.id) throw new JiraError(404, [`Cannot find worklog with id: '${id}'.`]);
  return w;
}

export function updateWorklog(ctx: TwinContext, idOrKey: string, id: string, input: WorklogInput): Worklog {
  const w = requireWorklog(ctx, idOrKey, id);
  const seconds = spent(input);
  const next: Worklog = {
    ...w,
    ...(seconds === undefined ? {} : { timeSpentSeconds: seconds }),
    ...(input.started === undefined ? {} : { started: startedAt(input.started) }),
    ...(input.comment === undefined ? {} : { comment: input.comment === null ? null : requireAdf('comment', input.comment) }),
    updateAuthorId: viewer(ctx).accountId,
    updated: jiraTime(ctx),
  };
  ctx.store.put('worklog', w.id, next);
  touch(ctx, ctx.store.get<Issue>('issue', w.issueId)!);
  return next;
}

export function deleteWorklog(ctx: TwinContext, idOrKey: string, id: string): void {
  const w = requireWorklog(ctx, idOrKey, id);
  ctx.store.delete('worklog', w.id);
  touch(ctx, ctx.store.get<Issue>('issue', w.issueId)!);
}

/** Logging time updates the issue. */
function touch(ctx: TwinContext, issue: Issue): void {
  ctx.store.put('issue', issue.id, { ...issue, updated: jiraTime(ctx) });
}
