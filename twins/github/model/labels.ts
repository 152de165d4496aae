// Labels (per repository, unique by case-insensitive name, created on the fly when an issue names
// one that does not exist) and milestones (numbered per repository, with live issue counts).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { notFound, validationFailed } from '../wire/errors.js';
import { type Json, simpleAccount } from './accounts.js';
import { childKey } from './repositories.js';

export const DEFAULT_LABELS: [string, string, string][] = [
  ['bug', 'd73a4a', "Something isn't working"],
  ['documentation', '0075ca', 'Improvements or additions to documentation'],
  ['duplicate', 'cfd3d7', 'This issue or pull request already exists'],
  ['enhancement', 'a2eeef', 'New feature or request'],
  ['good first issue', '7057ff', 'Good for newcomers'],
  ['help wanted', '008672', 'Extra attention is needed'],
  ['invalid', 'e4e669', "This doesn't seem right"],
  ['question', 'd876e3', 'Further information is requested'],
  ['wontfix', 'ffffff', 'This will not be worked on'],
];

function labelKey(repo: Json, name: string): string {
  return childKey(repo, `label:${name.toLowerCase()}`);
}

function labelShape(repo: Json, id: number, name: string, color: string, description: string | null, isDefault: boolean): Json {
  return {
    id,
    node_id: nodeId('Label', id),
    url: `${API}/repos/${repo.full_name}/labels/${encodeURIComponent(name)}`,
    name,
    color,
    default: isDefault,
    description,
  };
}

function normaliseColor(color: unknown): string {
  const c = typeof color === 'string' ? color.replace(/^#/, '') : '';
  if (!/^[0-9a-fA-F]{6}$/.test(c)) {
    throw validationFailed({ resource: 'Label', field: 'color', code: 'invalid' });
  }
  return c.toLowerCase();
}

export function createDefaultLabels(ctx: TwinContext, repo: Json): void {
  for (const [name, color, description] of DEFAULT_LABELS) {
    ctx.store.put('label', labelKey(repo, name), labelShape(repo, nextId(ctx, 'label'), name, color, description, true));
  }
}

export function getLabel(ctx: TwinContext, repo: Json, name: string): Json | undefined {
  return ctx.store.get<Json>('label', labelKey(repo, name));
}

export function requireLabel(ctx: TwinContext, repo: Json, name: string): Json {
  const l = getLabel(ctx, repo, name);
  if (!l) throw notFound();
  return l;
}

export function listLabels(ctx: TwinContext, repo: Json): Json[] {
  const prefix = childKey(repo, 'label:');
  return ctx.store.listByPrefix<Json>('label', prefix).map((r) => r.body);
}

export function createLabel(ctx: TwinContext, repo: Json, input: { name: string; color?: unknown; description?: string | null }): Json {
  if (!input.name.trim()) throw validationFailed({ resource: 'Label', field: 'name', code: 'missing_field' });
  if (getLabel(ctx, repo, input.name)) throw validationFailed({ resource: 'Label', field: 'name', code: 'already_exists' });
  const color = input.color === undefined ? 'ededed' : normaliseColor(input.color);
  const label = labelShape(repo, nextId(ctx, 'label'), input.name, color, input.description ?? null, false);
  ctx.store.put('label', labelKey(repo, input.name), label);
  return label;
}

/** Labels by name for an issue; names that do not exist yet are created (as GitHub does). */
export function labelsByName(ctx: TwinContext, repo: Json, names: string[]): Json[] {
  const out: Json[] = [];
  for (const n of names) {
    const l = getLabel(ctx, repo, n) ?? createLabel(ctx, repo, { name: n });
    if (!out.some((x) => x.id === l.id)) out.push(l);
  }
  return out;
}

/** Rename/recolour a label, and keep the copies embedded in issues and pull requests current. */
export function updateLabel(
  ctx: TwinContext,
  repo: Json,
  name: string,
  patch: { new_name?: string; name?: string; color?: unknown; description?: string | null },
): Json {
  const label = requireLabel(ctx, repo, name);
  const newName = patch.new_name ?? patch.name ?? label.name;
  if (newName.toLowerCase() !== label.name.toLowerCase() && getLabel(ctx, repo, newName)) {
    throw validationFailed({ resource: 'Label', field: 'name', code: 'already_exists' });
  }
  const updated = labelShape(
    repo,
    label.id,
    newName,
    patch.color === undefined ? label.color : normaliseColor(patch.color),
    patch.description === undefined ? label.description : patch.description,
    label.default,
  );
  ctx.store.transaction(() => {
    ctx.store.delete('label', labelKey(repo, label.name));
    ctx.store.put('label', labelKey(repo, newName), updated);
    rewriteEmbeddedLabels(ctx, repo, label.id, updated);
  });
  return updated;
}

export function deleteLabel(ctx: TwinContext, repo: Json, name: string): void {
  const label = requireLabel(ctx, repo, name);
  ctx.store.transaction(() => {
    ctx.store.delete('label', labelKey(repo, label.name));
    rewriteEmbeddedLabels(ctx, repo, label.id, undefined);
  });
}

function rewriteEmbeddedLabels(ctx: TwinContext, repo: Json, id: number, replacement: Json | undefined): void {
  const prefix = childKey(repo, '');
  for (const kind of ['issue', 'pull_request']) {
    for (const r of ctx.store.listByPrefix<Json>(kind, prefix)) {
      if (!r.body.labels?.some((l: Json) => l.id === id)) continue;
      r.body.labels = r.body.labels.flatMap((l: Json) => (l.id === id ? (replacement ? [replacement] : []) : [l]));
      ctx.store.put(kind, r.external_id, r.body);
    }
  }
}

// ---- milestones --------------------------------------------------------------------------

function milestoneKey(repo: Json, number: number): string {
  return childKey(repo, `milestone:${number}`);
}

export function getMilestone(ctx: TwinContext, repo: Json, number: number): Json | undefined {
  return ctx.store.get<Json>('milestone', milestoneKey(repo, number));
}

export function requireMilestone(ctx: TwinContext, repo: Json, number: number): Json {
  const m = getMilestone(ctx, repo, number);
  if (!m) throw notFound();
  return m;
}

export function listMilestones(ctx: TwinContext, repo: Json): Json[] {
  const prefix = childKey(repo, 'milestone:');
  return ctx.store.listByPrefix<Json>('milestone', prefix).map((r) => r.body);
}

export function createMilestone(
  ctx: TwinContext,
  repo: Json,
  by: Json,
  input: { title: string; state?: string; description?: string | null; due_on?: string | null },
): Json {
  if (listMilestones(ctx, repo).some((m) => m.title === input.title)) {
    throw validationFailed({ resource: 'Milestone', field: 'title', code: 'already_exists' });
  }
  const id = nextId(ctx, 'milestone');
  const number = ctx.ids.sequence(`github:milestone:${repo.id}`);
  const at = now(ctx);
  const m = {
    url: `${API}/repos/${repo.full_name}/milestones/${number}`,
    html_url: `${WEB}/${repo.full_name}/milestone/${number}`,
    labels_url: `${API}/repos/${repo.full_name}/milestones/${number}/labels`,
    id,
    node_id: nodeId('Milestone', id),
    number,
    title: input.title,
    description: input.description ?? null,
    creator: simpleAccount(by),
    open_issues: 0,
    closed_issues: 0,
    state: input.state === 'closed' ? 'closed' : 'open',
    created_at: at,
    updated_at: at,
    due_on: input.due_on ?? null,
    closed_at: input.state === 'closed' ? at : null,
  };
  ctx.store.put('milestone', milestoneKey(repo, number), m);
  return m;
}

export function updateMilestone(ctx: TwinContext, repo: Json, number: number, patch: Json): Json {
  const m = requireMilestone(ctx, repo, number);
  for (const f of ['title', 'description', 'due_on'] as const) if (patch[f] !== undefined) m[f] = patch[f];
  if (patch.state !== undefined && patch.state !== m.state) {
    m.state = patch.state === 'closed' ? 'closed' : 'open';
    m.closed_at = m.state === 'closed' ? now(ctx) : null;
  }
  m.updated_at = now(ctx);
  ctx.store.put('milestone', milestoneKey(repo, number), m);
  return m;
}

export function deleteMilestone(ctx: TwinContext, repo: Json, number: number): void {
  requireMilestone(ctx, repo, number);
  ctx.store.delete('milestone', milestoneKey(repo, number));
}

/** Recount a milestone's open/closed issues after an issue moved in or out of it. */
export function recountMilestone(ctx: TwinContext, repo: Json, number: number | undefined): void {
  if (number === undefined) return;
  const m = getMilestone(ctx, repo, number);
  if (!m) return;
  const prefix = childKey(repo, '');
  let open = 0;
  let closed = 0;
  for (const r of ctx.store.listByPrefix<Json>('issue', prefix)) {
    if (r.body.milestone?.number !== number) continue;
    if (r.body.state === 'open') open++;
    else closed++;
  }
  m.open_issues = open;
  m.closed_issues = closed;
  ctx.store.put('milestone', milestoneKey(repo, number), m);
}
